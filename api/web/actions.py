"""The guide page's forms, translated to the commands the JSON API takes (domain/commands.py):
a page adds no rule of its own, so a command refused here is refused there alike."""

from __future__ import annotations

from typing import Any

from domain import commands as cmd
from domain.errors import InvalidCommand

UNIT = "unit:LABEL"  # the guide's optional roll per unit: the side names the unit
ACTIONS = ("roll", "advance", "purchase", "chit", "settle")
SETTLES = ("confirm_report", "withdraw_report")  # the director's answers to a dispute


def command_of(form: dict[str, Any], claims: list[str]) -> cmd.Command:
    """The command a form asks for (`claims`: the optional DRM ids checked)."""
    action = form.get("action")
    if action not in ACTIONS:
        raise InvalidCommand(f"the page sends one of {', '.join(ACTIONS)}", field="action")
    side = form.get("side") or None
    if action == "advance":
        return cmd.parse_command({"type": "advance", "side": side})
    if action == "chit":
        return cmd.parse_command({"type": "select_initiative", "side": side,
                                  "chit": form.get("chit")})
    if action == "settle":
        return cmd.parse_command(_settle(form))
    if action == "purchase":
        return cmd.parse_command({"type": "purchase_rg", "side": side, "rg": form.get("rg"),
                                  "kg": form.get("kg") or None,
                                  "mode": form.get("mode") or "entry",
                                  "option": form.get("option") or None})
    return cmd.parse_command(_roll(form, side, claims))


def _roll(form: dict[str, Any], side: str | None, claims: list[str]) -> dict[str, Any]:
    """A roll's body: its subject (a unit's named by the side), the DRM claimed, and the
    physical dice in entered mode."""
    subject = form.get("subject") or "step"
    if subject == UNIT:
        subject = f"unit:{(form.get('unit') or '').strip()}"
    body: dict[str, Any] = {"type": "roll", "table": form.get("table"), "side": side,
                            "subject": subject, "drm": [{"id": c} for c in claims]}
    dice = (form.get("dice") or "").replace(",", " ").split()
    if dice:
        if not all(d.isascii() and d.isdigit() for d in dice):  # not ² nor ٣
            raise InvalidCommand("dice: give each die as a number from 1 to 6", field="dice")
        body["dice"] = [int(d) for d in dice]
    return body


def _settle(form: dict[str, Any]) -> dict[str, Any]:
    """The director's settling of a disputed report: confirmed (the record changes) or
    rejected (withdrawn, with the reason; the record stays)."""
    answer, report = form.get("answer"), str(form.get("report") or "")
    if answer not in SETTLES:
        raise InvalidCommand(f"a dispute is settled by one of {', '.join(SETTLES)}",
                             field="answer")
    if not (report.isascii() and report.isdigit() and len(report) <= 6):
        raise InvalidCommand("report: the report's number, e.g. 1", field="report")
    body: dict[str, Any] = {"type": answer, "report": int(report)}
    if answer == "withdraw_report":
        body["reason"] = (form.get("reason") or "").strip()
    return body
