"""A side's dispute of a roll: which roll (the version it was made at) and why, awaiting
the director's ruling, which closes it (audit.RulingRecorded). Players argue over rolls
at the table; here the argument is on the record, beside the roll, for the director to
settle with the roll's audit and proof on screen.

A side disputes its own rolls and the rolls it may read of the other side (public ones);
a dispute of its own secret roll is sealed to it, as the roll is. One dispute per roll:
the other side, who may read it too, adds to the director's ruling, not a second dispute;
and once a ruling settles it, the ruling stands (the director may rule again). The
disputes are kept on the reports part, and only once one is made, so a campaign that has
none keeps the shape its snapshots had.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain.campaign.events import CampaignEvent
from domain.commands import printable
from domain.errors import Forbidden, InvalidCommand, RuleViolation

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign

FIELD = "roll_disputes"  # on the reports part: "VERSION" -> the dispute, and its ruling
REASON_LENGTH = 500
FILLERS = frozenset("\u115f\u1160\u3164\uffa0")  # Hangul fillers: letters that show nothing


class RollDisputed(CampaignEvent):
    """A side disputes a roll, with its reason; the director rules on it."""

    roll_version: int
    # The roll's table, side and CG Date: what the director and the sides see first.
    table: str
    roll_side: str
    rolled_on: str
    side: str
    reason: str
    cg_date: str

    def apply(self, campaign: Any) -> None:
        campaign.reports.__dict__.setdefault(FIELD, {})[str(self.roll_version)] = {
            "roll_version": self.roll_version, "table": self.table,
            "roll_side": self.roll_side, "rolled_on": self.rolled_on, "side": self.side,
            "reason": self.reason, "cg_date": self.cg_date,
            "version": self.originator_version, "secret_for": self.secret_for,
            "ruled": None}


def _kept(campaign: Any) -> dict[str, dict[str, Any]]:
    """The disputes made, by roll version (none kept before the first)."""
    kept: dict[str, dict[str, Any]] = campaign.reports.__dict__.get(FIELD, {})
    return kept


def closed_by_ruling(campaign: Any, roll_version: int | None, ruling: int) -> None:
    """A ruling on the roll settles its dispute, for good: the same roll is not disputed
    again (the director may rule on it again)."""
    found = _kept(campaign).get(str(roll_version))
    if found is not None and found["ruled"] is None:
        found["ruled"] = ruling


def dispute_of(campaign: Campaign, roll_version: int) -> dict[str, Any] | None:
    """The roll's dispute, open or settled (None: never disputed, or undone)."""
    return _kept(campaign).get(str(roll_version))


def open_disputes(campaign: Campaign, viewer: str | None) -> list[dict[str, Any]]:
    """The disputes awaiting a ruling that the viewer may read (None: the director's,
    all), oldest first."""
    found = _kept(campaign).values()
    return sorted(({k: v for k, v in d.items() if k not in ("secret_for", "ruled")}
                   | {"secret": d["secret_for"] is not None,
                      "title": _title(campaign, d["table"])}
                   for d in found if d["ruled"] is None
                   and (viewer is None or d["secret_for"] in (None, viewer))),
                  key=lambda d: d["version"])


def _title(campaign: Campaign, table: str) -> str:
    """The table's title, as a player names the roll (its id where the module lost it)."""
    found = next((t for t in campaign.rules.tables if t.id == table), None)
    return found.title if found is not None else table


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
    earlier = dispute_of(campaign, version)
    if earlier is not None:
        raise RuleViolation(f"the roll made at version {version} is disputed already: the "
                            "director rules on it" if earlier["ruled"] is None else
                            f"the director ruled on the dispute of the roll made at version "
                            f"{version} (version {earlier['ruled']}): the ruling stands")
    campaign._record(RollDisputed, actor, secret_for=roll.get("secret_for"),
                     roll_version=version, table=roll["table"], roll_side=roll["side"],
                     rolled_on=roll["cg_date"], side=side, reason=_reason(reason),
                     cg_date=campaign.reph.cg_date)


def _reason(text: str) -> str:
    """A dispute's reason: printable words, at most REASON_LENGTH characters."""
    try:
        printable(text)
    except ValueError as error:
        raise InvalidCommand(f"reason: {error}", field="reason") from None
    text = text.strip()
    if not any(char.isalnum() and char not in FILLERS for char in text):
        raise InvalidCommand("a dispute says why the roll is wrong", field="reason")
    if len(text) > REASON_LENGTH:
        raise InvalidCommand(f"a dispute's reason is at most {REASON_LENGTH} characters",
                             field="reason")
    return text
