"""What the director's undo shows: the points of the campaign's recent history an undo may
return to (each command and each step done, newest first, with what it was), and a dry
run's plan (infra/audit.py `undo_plan`) told in ASL words. Read with the director's reads:
the director may see every side's rolls, and only the director is shown any of this."""

from __future__ import annotations

from itertools import groupby
from typing import Any
from uuid import UUID

from api.report import describe, kind_words
from infra.application import Refit
from infra.queries import Queries
from projections.audit import UndoPlan

COMMANDS = 12  # recent commands offered as a point to return to
STEPS = 6  # recent steps done offered so
READ_BACK = 400  # events read back for them: more than a dozen commands record
LABEL = 110  # characters of a command's words in a choice


def last_undo(reads: Queries, ident: UUID, head: int) -> dict[str, Any] | None:
    """The campaign's latest event, if it is an undo (the home page says so): one event
    read, so the home page of a long campaign stays fast (with the page's reads, `reads`,
    no second read of the campaign's state)."""
    latest = list(reads.history(ident, None, gt=head - 1)) if head > 0 else []
    return latest[-1]["data"] if latest and latest[-1]["type"] == "Undone" else None


def undo_choices(refit: Refit, ident: UUID, head: int) -> dict[str, Any]:
    """The points an undo may return to (newest first) and the last undo, if it is the
    campaign's latest command."""
    commands = _commands(refit, ident, head)
    last = commands[0]["records"][-1] if commands else None
    return {"commands": [_choice(c) for c in commands[:COMMANDS] if c["first"] > 1],
            "steps": _steps(refit, ident, head),
            "last_undo": last["data"] if last and last["type"] == "Undone" else None}


def _commands(refit: Refit, ident: UUID, head: int) -> list[dict[str, Any]]:
    """The latest live commands, newest first: the events each recorded (one instant)."""
    start = max(0, head - READ_BACK)
    undone = refit.audit.undone_versions(ident)
    records = [r for r in refit.reads.history(ident, None, gt=start)
               if r["version"] not in undone]
    found = [list(group) for _, group in groupby(records, key=lambda r: r["timestamp"])]
    if start > 0 and found:
        found = found[1:]  # the first may be the tail of a command begun before `start`
    return [{"first": group[0]["version"], "last": group[-1]["version"], "records": group}
            for group in reversed(found)]


def _choice(command: dict[str, Any]) -> dict[str, Any]:
    """A command as a choice: return to just before it, saying what it was (a roll's
    subject is worded by the page's `subject` filter)."""
    records = command["records"]
    headline = next((r for r in records if r["type"] == "DiceRolled"),
                    next((r for r in records if r["type"] == "StepAdvanced"), records[0]))
    data, subject, outcome = headline["data"], "", ""
    if headline["type"] == "DiceRolled":
        said, subject, outcome = roll_words(data)
    else:
        said = describe(headline["type"], data)
    if len(said) > LABEL:
        said = said[:LABEL - 1].rstrip() + "…"
    more = len(records) - 1
    span = f"v{command['first']}" if more == 0 else f"v{command['first']}-{command['last']}"
    return {"to_version": command["first"] - 1, "span": span, "what": said,
            "subject": subject, "outcome": outcome,
            "more": f" (+{more} more event{'s' if more > 1 else ''})" if more else ""}


def roll_words(data: dict[str, Any]) -> tuple[str, str, str]:
    """A roll said short: who rolled what on which table, its subject, what came of it."""
    dice = " ".join(str(d) for d in data.get("dice") or [])
    return (f"{data.get('side')} {data.get('kind') or 'roll'} {data.get('title') or ''} "
            f"({data.get('rule')})", str(data.get("subject") or ""),
            f": {dice} → Final {data.get('final')}, {data.get('result')}")


def _steps(refit: Refit, ident: UUID, head: int) -> list[dict[str, Any]]:
    """The latest steps done that an undo can still return to the end of, newest first."""
    found = []
    for step in reversed(refit.reads.steps(ident)):
        point = f"{step.cg_date}/{step.step}"
        end = refit.views.version_at(ident, point, field="to_step")
        if end is not None and end < head:
            found.append({"to_step": point, "cg_date": step.cg_date, "step": step.step,
                          "end": end})
        if len(found) == STEPS:
            break
    return found


def plan_page(refit: Refit, ident: UUID, plan: UndoPlan, viewer: str | None
              ) -> dict[str, Any]:
    """A dry run's plan for the preview page: each event it removes in words, each kind
    counted, and each roll with its dice and result, as the viewer (the director) reads
    them."""
    wanted = set(plan.versions)
    events = [{"version": r["version"], "what": describe(r["type"], r["data"]),
               "actor": r["data"].get("actor")}
              for r in refit.reads.history(ident, viewer, gt=plan.to_version)
              if r["version"] in wanted]
    rolls = {row.version: row for row in refit.reads.rolls(ident, None, viewer)}
    return {"plan": plan, "events": events,
            "kinds": [(kind_words(kind), count) for kind, count in plan.event_types.items()],
            "rolls": [rolls.get(r["version"]) or r for r in plan.rolls]}
