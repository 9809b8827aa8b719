"""A director's remedies: undo by replay, an authorized re-roll, and a ruling on a
disputed roll.

An undo keeps the undone events in the log. The Undone event carries the campaign as it
stood at the target version (worked out by the application from the log, never by the
aggregate), so replaying the log ends where the "as of" answer does; that state is a
cache of history, kept out of the hashed record like a private seed.
"""

from __future__ import annotations

import copy
from typing import Any

from domain.campaign.disputes import closed_by_ruling
from domain.campaign.events import NOT_DATA, CampaignEvent
from domain.campaign.part import Part
from domain.errors import InvalidCommand, RuleViolation

# What an undo never turns back on the campaign itself: the chain's head (each part names
# its own kept fields: seed, tokens, answered keys, the dice each key showed).
KEPT_BY_UNDO = frozenset({"head_hash", "command_key"})
VERDICTS = ("upheld", "corrected")


def restorable(state: dict[str, Any]) -> dict[str, Any]:
    """The part of a campaign's state an undo restores (what an Undone stores)."""
    return {k: (v.without_kept() if isinstance(v, Part) else v) for k, v in state.items()
            if not k.startswith("_") and k not in KEPT_BY_UNDO}


def undo_state(before: Any) -> dict[str, Any]:
    """The Undone fields that carry the campaign as it stood at the undo's target."""
    return {"state": restorable(before.__dict__), "state_version": type(before).class_version}


class Undone(CampaignEvent):
    """The director undid every event after `to_version` (they stay in the log)."""

    not_data = NOT_DATA | {"state", "state_version", "redo_dice"}
    to_version: int
    reason: str
    events: int  # how many events were undone
    state: dict[str, Any]  # the campaign as of `to_version` (a cache of history)
    state_version: int  # the aggregate's class_version when `state` was taken
    redo_dice: dict[str, list[int]]  # what each undone roll's key showed

    def apply(self, campaign: Any) -> None:
        state = copy.deepcopy(self.state)  # the event's own state stays as stored
        for version in range(self.state_version, type(campaign).class_version):
            getattr(type(campaign), f"upcast_v{version}_v{version + 1}")(state)
        for name, earlier in state.items():
            now = campaign.__dict__.get(name)
            if isinstance(now, Part):
                setattr(campaign, name, now.undone_to(earlier))
            elif name not in KEPT_BY_UNDO:
                setattr(campaign, name, earlier)
        campaign.dice.rolled_before = {**campaign.dice.rolled_before, **self.redo_dice}


def check_undo(phase: str, version: int, to_version: int, reason: str,
               cut: tuple[int, int] | None) -> None:
    """An undo goes back to a version before the head, with a reason, and never to half
    a command (`cut`: the first and last version of the command recorded after it)."""
    if phase == "ended":
        raise RuleViolation("the CG has ended and every secret is open: it cannot be "
                            "undone")
    if to_version == version or version == 1:
        raise InvalidCommand(f"the campaign is at version {version}: there is nothing to "
                             "undo", field="to_version")
    if not 1 <= to_version < version:
        raise InvalidCommand(f"to_version is a version from 1 to {version - 1}",
                             field="to_version")
    if not reason.strip():
        raise InvalidCommand("an undo gives its reason", field="reason")
    if cut is not None and cut[0] <= to_version:
        # Half a command is no state the campaign was ever in: e.g. CPP halved on leaving
        # 9.617 with the RePh still at 9.617, to be halved again by the next advance.
        first, last = cut
        instead = f"{first - 1} or {last}" if first > 1 else f"{last}"
        raise InvalidCommand(f"version {to_version} falls inside one command (versions "
                             f"{first}-{last}): undo to version {instead}",
                             field="to_version")


def reroll_undo_reason(roll: dict[str, Any], reason: str) -> str:
    """The reason the Undone before a re-roll gives (public, unlike a secret roll)."""
    if roll.get("secret_for") is not None:
        # The Undone is public; the director's reason speaks of the roll, so it stays
        # in the sealed RerollAuthorized only: the others see that, and to which version.
        return "a director's re-roll of a secret roll"
    return f"a director's re-roll: {reason}"


class RerollAuthorized(CampaignEvent):
    """The director allowed one roll to be made again with new dice (a new epoch)."""

    key: str  # the roll re-rolled
    slot: str  # CG Date/step/table/side/ordinal: what the new epoch rolls for
    epoch: int
    reason: str
    side: str

    def apply(self, campaign: Any) -> None:
        campaign.dice.epochs[self.slot] = self.epoch


def reroll_fields(epochs: dict[str, int], roll: dict[str, Any], reason: str) -> dict[str, Any]:
    """The RerollAuthorized fields for the roll `roll` (its record's data)."""
    if not reason.strip():
        raise InvalidCommand("a re-roll gives its reason", field="reason")
    key = roll["key"]
    slot, epoch = key.rsplit("/", 1)
    if epochs.get(slot, 0) != int(epoch):
        raise RuleViolation(f"roll {key} is not the latest roll for its slot {slot}")
    return {"key": key, "slot": slot, "epoch": int(epoch) + 1, "reason": reason,
            "side": roll["side"]}


class RulingRecorded(CampaignEvent):
    """The director's ruling on a disputed roll (or on the record): upheld, or a
    correction and why. Public: on a secret roll, what would tell the secret (its key,
    corrected Final roll, result, DRM) is in a RulingSealed beside it."""

    key: str | None
    roll_version: int | None
    verdict: str
    reason: str
    side: str
    final: int | None = None  # the corrected Final roll, if the correction names one
    result: str | None = None  # the corrected result
    drm: list[dict[str, Any]] | None = None  # the DRM the ruling gives the roll
    corrections: list[str] | None = None  # the kinds of the corrections applied after it
    disputed_by: str | None = None  # the side that disputed the roll
    secret_roll: bool = False  # the roll is secret: its particulars are sealed

    def apply(self, campaign: Any) -> None:
        """A ruling is a record beside the roll; it settles the roll's dispute, if one."""
        closed_by_ruling(campaign, self.roll_version, self.originator_version)


def check_ruling(verdict: str, reason: str, final: int | None, result: str | None,
                 corrects: bool = False) -> None:
    """A ruling upholds a roll as it is, or corrects its Final roll, result or DRM, or
    the record (`corrects`: it carries corrections or a DRM); with a reason either way."""
    if verdict not in VERDICTS:
        raise InvalidCommand(f"a ruling's verdict is one of {VERDICTS}", field="verdict")
    if not reason.strip():
        raise InvalidCommand("a ruling gives its reason", field="reason")
    if verdict == "upheld" and (final is not None or result is not None or corrects):
        raise InvalidCommand("an upheld roll keeps its Final roll and result, and the "
                             "record stands", field="verdict")
    if verdict == "corrected" and final is None and result is None and not corrects:
        raise InvalidCommand("a correction names the corrected Final roll, result, DRM or "
                             "corrections", field="final")
