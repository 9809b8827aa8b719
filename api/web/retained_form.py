"""The side's Retained units form (PBr 3.605-3.613, ABtF 9.605-9.613): the whole list of
the CG Date sent back at once, as `retain_units` takes it, so each change is one record
of the list (a line at a time would tell the opponent, by an open part recorded again
unchanged, each time a sealed line changed). The form carries a digest of the list it
showed: sent from a page the list has moved past (another tab, the director), it is
refused rather than undo what was recorded since."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.campaign import Campaign
from domain.campaign.retained import recorded_now
from domain.errors import InvalidCommand
from domain.hashing import canonical, sha256_hex
from domain.rules import Module

SETTLED_IN = ("Setup Area Determination", "Shift")  # the steps that settle what is Retained


def listed(lines: list[dict[str, Any]]) -> str:
    """The digest of a side's list as the page shows it."""
    return sha256_hex(canonical(lines))[:16]


def still_listed(form: dict[str, str]) -> Callable[[Campaign], None]:
    """A check of the campaign a list is sent to: refused if the side's list is no longer
    the one the page showed (the list moved on since)."""
    side, shown = form.get("side") or "", form.get("listed")

    def holds(campaign: Campaign) -> None:
        now = [unit.model_dump() for unit in recorded_now(campaign, side)]
        if shown != listed(now):
            raise InvalidCommand(f"the {side} Retained units have changed since this page "
                                 "was loaded: here they are as they are now; change them "
                                 "again", field="listed")
    return holds


def retained_open(rules: Module, phase: str, step: str | None) -> bool:
    """Whether the page offers the form: in the RePh from its New CG Date step on, when
    the list is the one of the CG Date the next scenario is played on."""
    return phase == "reph" and rules.date_begun(step)


def retained_rule(rules: Module) -> str:
    """Where the module's RePh settles what each side Retains: its Setup Area Determination
    and Shift steps (PBr 3.605, 3.613; ABtF 9.605, 9.613); empty where it has neither."""
    return ", ".join(step.rule for step in rules.steps if step.title.startswith(SETTLED_IN))
