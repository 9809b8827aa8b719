"""The side's Retained units form (PBr 3.605-3.613, ABtF 9.605-9.613): the whole list of
the CG Date sent back at once, as `retain_units` takes it, so each change is one record
of the list (a line at a time would tell the opponent, by an open part recorded again
unchanged, each time a sealed line changed). The form carries a digest of the list it
showed: sent from a page the list has moved past (another tab, the director), it is
refused rather than undo what was recorded since."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain.errors import InvalidCommand
from domain.hashing import canonical, sha256_hex
from infra.application import Refit

NEW_DATE = "New CG Date"  # the step from which the list is the next scenario's CG Date's
SETTLED_IN = ("Setup Area Determination", "Shift")  # the steps that settle what is Retained


def listed(lines: list[dict[str, Any]]) -> str:
    """The digest of a side's list as the page shows it."""
    return sha256_hex(canonical(lines))[:16]


def check_listed(refit: Refit, ident: UUID, form: dict[str, str]) -> None:
    """Refuse a list sent from a page that showed another (the list moved on since)."""
    side = form.get("side") or ""
    now = refit.reads.guide(ident, None, None)["sides"].get(side, {}).get("retained", [])
    if form.get("listed") != listed(now):
        raise InvalidCommand(f"the {side}'s Retained units have changed since this page "
                             "was loaded: load it again, and change the list as it is now",
                             field="listed")


def retained_open(refit: Refit, module: str, phase: str, step: str | None) -> bool:
    """Whether the page offers the form: in the RePh from its New CG Date step on, when
    the list is the one of the CG Date the next scenario is played on."""
    if phase != "reph":
        return False
    rules = [s.rule for s in refit.store.module(module).steps]
    new = next((s.rule for s in refit.store.module(module).steps
                if s.title.startswith(NEW_DATE)), None)
    return new is None or step not in rules or rules.index(step) >= rules.index(new)


def retained_rule(refit: Refit, module: str) -> str:
    """Where the module's RePh settles what each side Retains: its Setup Area Determination
    and Shift steps (PBr 3.605, 3.613; ABtF 9.605, 9.613); empty where it has neither."""
    return ", ".join(step.rule for step in refit.store.module(module).steps
                     if step.title.startswith(SETTLED_IN))
