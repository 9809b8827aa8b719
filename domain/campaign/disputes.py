"""A side's dispute of a roll: which roll (the version it was made at) and why, awaiting
the director's ruling, which closes it (audit.RulingRecorded). Players argue over rolls
at the table; here the argument is on the record, beside the roll, for the director to
settle with the roll's audit and proof on screen.

A side disputes its own rolls and the rolls it may read of the other side (public ones);
a dispute of its own secret roll is sealed to it, as the roll is. One open dispute per
roll: the other side, who may read it too, adds to the director's ruling, not a second
dispute. The open disputes are kept on the reports part, and only once one is made, so
a campaign that has none keeps the shape its snapshots had.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain.campaign.events import CampaignEvent
from domain.errors import Forbidden, InvalidCommand, RuleViolation

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign

FIELD = "roll_disputes"  # on the reports part: "VERSION" -> the open dispute


class RollDisputed(CampaignEvent):
    """A side disputes a roll, with its reason; the director rules on it."""

    roll_version: int
    table: str  # the roll's, and the CG Date it was rolled on: what the director sees first
    rolled_on: str
    side: str
    reason: str
    cg_date: str

    def apply(self, campaign: Any) -> None:
        campaign.reports.__dict__.setdefault(FIELD, {})[str(self.roll_version)] = {
            "roll_version": self.roll_version, "table": self.table,
            "rolled_on": self.rolled_on, "side": self.side, "reason": self.reason,
            "cg_date": self.cg_date, "version": self.originator_version,
            "secret_for": self.secret_for}


def closed_by_ruling(campaign: Any, roll_version: int | None) -> None:
    """A ruling on the roll settles its dispute."""
    if roll_version is not None:
        campaign.reports.__dict__.get(FIELD, {}).pop(str(roll_version), None)


def open_disputes(campaign: Campaign, viewer: str | None) -> list[dict[str, Any]]:
    """The disputes awaiting a ruling that the viewer may read (None: the director's,
    all), oldest first."""
    found = campaign.reports.__dict__.get(FIELD, {}).values()
    return sorted(({k: v for k, v in d.items() if k != "secret_for"}
                   | {"secret": d["secret_for"] is not None}
                   for d in found if viewer is None or d["secret_for"] in (None, viewer)),
                  key=lambda d: d["version"])


def dispute_roll(campaign: Campaign, roll: dict[str, Any] | None, version: int, side: str,
                 reason: str, actor: str) -> None:
    """Record a side's dispute of the standing roll made at `version` (`roll`: its row in
    the rolls view, None if no standing roll is there)."""
    campaign.reph.check_not_ended()
    if actor not in campaign.sides:
        raise Forbidden("a side disputes a roll; the director rules on it (a ruling)",
                        field="side")
    side = campaign.check_side(side)
    if actor != side:
        raise Forbidden(f"the {actor} disputes for itself, not for the {side}", field="side")
    if roll is None or roll.get("secret_for") not in (None, side):
        raise InvalidCommand(f"no standing roll made at version {version} is open to the "
                             f"{side}", field="version")
    if not reason.strip():
        raise InvalidCommand("a dispute says why the roll is wrong", field="reason")
    if str(version) in campaign.reports.__dict__.get(FIELD, {}):
        raise RuleViolation(f"the roll made at version {version} is disputed already: the "
                            "director rules on it")
    campaign._record(RollDisputed, actor, secret_for=roll.get("secret_for"),
                     roll_version=version, table=roll["table"], rolled_on=roll["cg_date"],
                     side=side, reason=reason.strip(),
                     cg_date=campaign.reph.cg_date)
