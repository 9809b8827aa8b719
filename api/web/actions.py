"""The guide page's forms, translated to the commands the JSON API takes (domain/commands.py):
a page adds no rule of its own, so a command refused here is refused there alike."""

from __future__ import annotations

import json
from typing import Any, get_args

from pydantic import ValidationError

from domain import commands as cmd
from domain.digits import digits
from domain.errors import InvalidCommand

UNIT = "unit:LABEL"  # the guide's optional roll per unit: the side names the unit
ACTIONS = ("roll", "advance", "purchase", "fortification", "chit", "settle", "answer",
           "casualty", "control", "area", "bombardment", "end_scenario", "end_turn", "points",
           "rating", "scenario", "retained", "objective", "holding", "pf", "fanaticism",
           "massacre", "withdraw", "on_map")
SETTLES = ("confirm_report", "withdraw_report")  # the director's answers to a dispute
ANSWERS = ("confirm_report", "dispute_report")  # a side's answers to the other's report
# The director's adjustments (api/web/templates/adjust.html): each a command of its own.
POINTS = ("credit_cpp", "spend_cpp", "credit_fpp")
RATINGS = ("change_elr", "change_san")
NOTES = ("scenario_type", "weather", "ec", "wind")  # record_scenario's
RETAINED_FLAGS = ("fortification", "hip", "off_map", "isolated", "elite",
                  "airborne")  # a Retained line's
# ... and what a line may hold that the form does not show (retain_units takes them). A
# Fortification's mark, hex and table item are the form's own fields: a page that still
# carries them here (loaded before they were) is refused, never read as an open line.
RETAINED_MORE = ("shifted_from", "weapon", "usage_dr")
BLANK_ROWS = 4  # the Retained units form's blank lines, for units to add
MAX_ROWS = 500 + BLANK_ROWS  # the most Retained lines (500) and the form's blank ones
NO_KIND = "none"  # the kind a line's select gives for a line no limit counts
MAX_MORE = 1000  # characters of a line's `more`: six short fields
FORM_FIELDS = 15 * MAX_ROWS + 50  # the most fields a guide form sends (Retained units')


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
    if action == "answer":
        return cmd.parse_command(_answer(form, side))
    if action == "casualty":
        return cmd.parse_command(_casualty(form, side))
    if action == "control":
        return cmd.parse_command(_control(form, side))
    if action == "area":  # 3.6179: an RG's Setup/Entry Area, on its line
        return cmd.parse_command({"type": "record_rg_area", "side": side,
                                  "purchase": _whole(form, "purchase"),
                                  "area": _text(form, "area") or ""})
    if action == "bombardment":  # PBr RG chart note i: a pre-game Bombardment, on its line
        return cmd.parse_command({"type": "resolve_bombardment", "side": side,
                                  "purchase": _whole(form, "purchase")})
    if action == "retained":  # 3.6055, 3.613: the side's Retained units, the whole list
        units, rows = _retained(form)
        try:
            return cmd.parse_command({"type": "retain_units", "side": side, "units": units})
        except ValidationError as error:
            raise _on_its_line(error, rows) from None
    if action == "end_scenario":
        return cmd.parse_command({"type": "end_scenario"})
    if action == "end_turn":  # CG4, CG23: the turn the page names ends (the next in order)
        player_turn = form.get("player_turn") or None
        circled = _text(form, "circled")  # the number in its box, where the data lacks it
        return cmd.parse_command({"type": "end_turn", "turn": _whole(form, "turn"),
                                  "player_turn": None if player_turn is None else
                                  _whole(form, "player_turn"),
                                  "circled": None if circled is None else
                                  _whole(form, "circled")})
    if action in KGP_ACTIONS:
        return cmd.parse_command(_kgp(action, form, side))
    if action == "withdraw":  # 3.6074: units a rule removes from play, a kind a line
        return cmd.parse_command(_withdrawal(form, side))
    if action == "on_map":  # 3.6212 *: whether the side has on-map Retained units
        return cmd.parse_command({"type": "record_on_map", "side": side,
                                  "on_map": _one_of(form, "on_map", ("yes", "no")) == "yes"})
    if action == "points":
        return cmd.parse_command({"type": _one_of(form, "change", POINTS), "side": side,
                                  "amount": _whole(form, "amount"), **_why(form, "reason")})
    if action == "rating":
        return cmd.parse_command({"type": _one_of(form, "rating", RATINGS), "side": side,
                                  "value": _whole(form, "value"), **_why(form, "cause")})
    if action == "scenario":
        return cmd.parse_command({"type": "record_scenario",
                                  **{note: _text(form, note) for note in NOTES},
                                  "previous": form.get("previous") == "yes"})
    if action == "purchase":
        return cmd.parse_command({"type": "purchase_rg", "side": side, "rg": form.get("rg"),
                                  "kg": form.get("kg") or None,
                                  "mode": form.get("mode") or "entry",
                                  "option": form.get("option") or None})
    if action == "fortification":  # its price is the table's: the ledger works it out
        count = (form.get("count") or "1").strip()
        if not digits(count) or len(count) > 3:
            raise InvalidCommand("count: give how many as a whole number", field="count")
        return cmd.parse_command({"type": "purchase_fortification", "side": side,
                                  "reason": form.get("item"), "count": int(count),
                                  "hex": _text(form, "hex")})
    return cmd.parse_command(_roll(form, side, claims))


KGP_ACTIONS = ("objective", "holding", "pf", "fanaticism", "massacre")
PF_REASONS: tuple[str, ...] = get_args(cmd.ChangePF.model_fields["reason"].annotation)


def _kgp(action: str, form: dict[str, Any], side: str | None) -> dict[str, Any]:
    """A KGP form's command (8.6198, 8.15, CG13, CG14, CG4)."""
    if action == "objective":
        return {"type": "designate_objective", "side": side,
                "purchase": _whole(form, "purchase"), "hex": _text(form, "hex") or ""}
    if action == "holding":
        return {"type": "hold_units", "side": side, "entry_area": _text(form, "entry_area")
                or "", "units": _text(form, "units") or "",
                "held": _one_of(form, "held", ("held", "left")) == "held"}
    if action == "pf":
        return {"type": "change_pf", "side": side, "reason": _one_of(form, "reason", PF_REASONS),
                "count": _whole(form, "count")}
    if action == "fanaticism":
        return {"type": "declare_fanaticism", "side": side}
    return {"type": "record_massacre", "side": side}


WITHDRAWAL_ROWS = 4  # the form's unit lines (api/web/withdrawal_view.py)


def _withdrawal(form: dict[str, Any], side: str | None) -> dict[str, Any]:
    """The withdrawal form's command: each line with a count, its kind and unit."""
    units = [{"kind": form.get(f"kind.{n}"), "count": _whole(form, f"count.{n}"),
              "unit": _text(form, f"unit.{n}"), "captured": form.get(f"captured.{n}") == "yes"}
             for n in range(WITHDRAWAL_ROWS) if _text(form, f"count.{n}")]
    return {"type": "withdraw_units", "side": side, "units": units,
            "rule": _text(form, "rule") or "", "note": _text(form, "note"),
            "retained_off_map": form.get("retained_off_map") == "yes"}


def _one_of(form: dict[str, Any], field: str, choices: tuple[str, ...]) -> str:
    """The field's value, one of the choices the page offers."""
    value = form.get(field)
    if value not in choices:
        raise InvalidCommand(f"{field}: one of {', '.join(choices)}", field=field)
    return str(value)


def _text(form: dict[str, Any], field: str) -> str | None:
    """A text field as typed, trimmed; None if left empty."""
    return str(form.get(field) or "").strip() or None


def _why(form: dict[str, Any], field: str) -> dict[str, Any]:
    """A director's change's reason (or cause), required, and its rule if one is named."""
    return {field: _text(form, field) or "", "rule": _text(form, "rule")}


def _roll(form: dict[str, Any], side: str | None, claims: list[str]) -> dict[str, Any]:
    """A roll's body: its subject (a unit's named by the side), the DRM claimed, and the
    physical dice in entered mode."""
    subject = form.get("subject") or "step"
    if subject == UNIT:
        subject = f"unit:{_text(form, 'unit') or ''}"
    body: dict[str, Any] = {"type": "roll", "table": form.get("table"), "side": side,
                            "subject": subject,
                            "drm": [{"id": c} for c in claims] + _counted(form)}
    if _text(form, "target") is not None:  # a Game End dr's circled number (CG4, CG23)
        body["target"] = _whole(form, "target")
    dice = (form.get("dice") or "").replace(",", " ").split()
    if dice:
        if not all(digits(d) for d in dice):  # not ² nor ٣
            raise InvalidCommand("dice: give each die as a number from 1 to 6", field="dice")
        body["dice"] = [int(d) for d in dice]
    return body


def _counted(form: dict[str, Any]) -> list[dict[str, Any]]:
    """The DRM claimed with a count the side states (`count.ID`; left empty: not claimed)."""
    claimed = []
    for name, value in form.items():
        text = str(value).strip()
        if not name.startswith("count.") or not text:
            continue
        if not digits(text.removeprefix("-")) or len(text) > 4:  # a leader's -2 counts too
            raise InvalidCommand("drm: give the count as a whole number", field="drm")
        claimed.append({"id": name.removeprefix("count."), "count": int(text)})
    return claimed


def _settle(form: dict[str, Any]) -> dict[str, Any]:
    """The director's settling of a disputed report: confirmed (the record changes) or
    rejected (withdrawn, with the reason; the record stays)."""
    answer = form.get("answer")
    if answer not in SETTLES:
        raise InvalidCommand(f"a dispute is settled by one of {', '.join(SETTLES)}",
                             field="answer")
    body: dict[str, Any] = {"type": answer, "report": _report(form)}
    if answer == "withdraw_report":
        body["reason"] = _text(form, "reason") or ""
    return body


def _report(form: dict[str, Any]) -> int:
    """The number of the report a form answers."""
    report = str(form.get("report") or "")
    if not (digits(report) and len(report) <= 6):
        raise InvalidCommand("report: the report's number, e.g. 1", field="report")
    return int(report)


def _answer(form: dict[str, Any], side: str | None) -> dict[str, Any]:
    """A side's answer to the other side's report: confirmed (it counts) or disputed,
    with the reason (the record stays; the director settles it)."""
    answer = form.get("answer")
    if answer not in ANSWERS:
        raise InvalidCommand(f"a report is answered by one of {', '.join(ANSWERS)}",
                             field="answer")
    body: dict[str, Any] = {"type": answer, "report": _report(form), "side": side}
    if answer == "dispute_report":
        body["reason"] = _text(form, "reason") or ""
    return body


def _retained(form: dict[str, Any]) -> tuple[list[dict[str, Any]], list[int]]:
    """The Retained units the form lists, line by line (`unit.N`, `count.N`, ...), and the
    form's line each came from: a line whose Unit is cleared is taken off; each other line
    needs its kind chosen (what the limits count, or none: a Fortification's is none)."""
    rows = _whole(form, "rows")
    if not isinstance(rows, int) or not 0 <= rows <= MAX_ROWS:
        raise InvalidCommand(f"a form lists 0 to {MAX_ROWS} lines: load the page again",
                             field="rows")
    units, lines = [], []
    for n in range(rows):
        unit = _text(form, f"unit.{n}")
        if unit is None:
            continue
        kind = _text(form, f"kind.{n}")
        if kind is None and form.get(f"fortification.{n}") == "yes":
            kind = NO_KIND  # a Fortification is no unit the limits count
        if kind is None:
            raise InvalidCommand(f"choose the kind of line {n + 1} ({unit}): what the "
                                 "limits count, or none", field="kind")
        line = {"unit": unit, "area": _text(form, f"area.{n}") or "",
                "count": _whole(form, f"count.{n}") if _text(form, f"count.{n}") else 1,
                "kind": None if kind == NO_KIND else kind, **_more(form, n)}
        if _text(form, f"purchase.{n}"):
            line["purchase"] = _whole(form, f"purchase.{n}")
        line |= {name: _text(form, f"{name}.{n}") for name in ("hex", "item")}
        units.append(line | {flag: form.get(f"{flag}.{n}") == "yes" for flag in RETAINED_FLAGS})
        lines.append(n)
    return units, lines


def _on_its_line(error: ValidationError, lines: list[int]) -> InvalidCommand:
    """A line's refusal, naming the form's line and its field (`units.2.area`: the Area of
    the third line sent, the form's line it came from)."""
    first = error.errors()[0]
    where = [part for part in first["loc"] if part != "retain_units"]
    index = where[1] if len(where) > 1 and where[0] == "units" else None
    field = str(where[2]) if len(where) > 2 else "unit"
    said = str(first["msg"]).removeprefix("Value error, ")
    if not isinstance(index, int) or not 0 <= index < len(lines):
        return InvalidCommand(said, field=".".join(str(p) for p in where) or None)
    return InvalidCommand(f"line {lines[index] + 1}: {said}", field=field)


def _more(form: dict[str, Any], n: int) -> dict[str, Any]:
    """What a recorded line holds beyond the form's fields (a Fortification's hex and
    table item, an FT/DC's usage dr, a Shift), carried through the page as it was."""
    text = _text(form, f"more.{n}") or "{}"
    try:  # no line's more is long, nor deep: one that is was not the page's
        more = json.loads(text) if len(text) <= MAX_MORE else None
    except (ValueError, RecursionError):
        more = None
    if not isinstance(more, dict) or not set(more) <= set(RETAINED_MORE):
        raise InvalidCommand("the form's line was not one this page gave: load the page "
                             "again", field="more")
    return more


def _casualty(form: dict[str, Any], side: str | None) -> dict[str, Any]:
    """A unit the side lost in the CG Scenario, with its CVP (A26.2) and, for a unit of
    an RG, its line of the RG Purchase Record: numbers as typed, refused if none."""
    body: dict[str, Any] = {"type": "record_casualty", "side": side,
                            "unit": _text(form, "unit") or "",
                            "cvp": _whole(form, "cvp")}
    if _text(form, "purchase"):
        body["purchase"] = _whole(form, "purchase")
    if _text(form, "ww_half_squads"):  # CG19: the module's Walking Wounded box
        body["ww_half_squads"] = _whole(form, "ww_half_squads")
    return body


def _control(form: dict[str, Any], side: str | None) -> dict[str, Any]:
    """A Location the side Controls now (A26.11-.12), of a kind the module records; in
    KGP an LVP Location's LVP and Map Group, and whether Infantry Controls it (8.2)."""
    body: dict[str, Any] = {"type": "change_control", "side": side,
                            "location": _text(form, "location") or "",
                            "infantry": form.get("infantry") == "yes"}
    for name in ("kind", "map_group"):
        if _text(form, name):
            body[name] = _text(form, name)
    if _text(form, "lvp"):
        body["lvp"] = _whole(form, "lvp")
    return body


def _whole(form: dict[str, Any], field: str) -> int | str:
    """A whole number as typed (validation names the field if it is out of bounds), or
    the text itself (refused by the command's schema, naming the field)."""
    text = _text(form, field) or ""
    unsigned = text[1:] if text[:1] == "-" else text
    return int(text) if digits(unsigned) and len(unsigned) <= 9 else text
