"""A director's remedies, as a part of the Campaign aggregate: undo by replay, an
authorized re-roll, and a ruling on a disputed roll.

An undo keeps the undone events in the log. The Undone event carries the campaign as it
stood at the target version (worked out by the application from the log, never by the
aggregate), so replaying the log ends where the "as of" answer does; that state is a
cache of history, kept out of the hashed record like a private seed.
"""

from __future__ import annotations

import copy
from typing import Any

from domain.errors import InvalidCommand, RuleViolation
from domain.ledger import NOT_DATA, Ledger, LedgerEvent

# What an undo never turns back: the chain's head, the keys of commands already answered,
# the dice seed (a revealed one must stay spent), the roles' tokens (a replaced one must
# stay dead), and the dice every key has shown (so a redo cannot fish for new ones).
KEPT_BY_UNDO = frozenset({"head_hash", "idempotency", "seed", "seed_commitment",
                          "sealed_rolls_on_seed", "token_hashes", "rolled_before"})

VERDICTS = ("upheld", "corrected")


def restorable(state: dict[str, Any]) -> dict[str, Any]:
    """The part of an aggregate's state an undo restores."""
    return {k: v for k, v in state.items()
            if not k.startswith("_") and k not in KEPT_BY_UNDO and k != "command_key"}


class Audit(Ledger):
    """Undo, re-roll and rulings: the director's answers to a dispute at the table."""

    version: int
    rolled_before: dict[str, list[int]]
    epochs: dict[str, int]
    phase: str

    class Undone(LedgerEvent):
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
            kept = {k: v for k, v in campaign.__dict__.items()
                    if k.startswith("_") or k in KEPT_BY_UNDO}
            campaign.__dict__.clear()
            campaign.__dict__.update(restorable(state) | kept)
            campaign.rolled_before = {**kept.get("rolled_before", {}), **self.redo_dice}

    def undo(self, to_version: int, reason: str, before: Any, redo_dice: dict[str, list[int]],
             actor: str, cut: tuple[int, int] | None = None) -> None:
        """Turn the campaign back to how it stood after `to_version` (a director's act);
        `cut` is the first and last version of the command recorded after it."""
        if self.phase == "ended":
            raise RuleViolation("the CG has ended and every secret is open: it cannot be "
                                "undone")
        if not 1 <= to_version < self.version:
            raise InvalidCommand(f"to_version is a version from 1 to {self.version - 1}",
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
        self._record(self.Undone, actor, to_version=to_version, reason=reason,
                     events=self.version - to_version, state=restorable(before.__dict__),
                     state_version=type(before).class_version, redo_dice=redo_dice)

    @staticmethod
    def reroll_undo_reason(roll: dict[str, Any], reason: str) -> str:
        """The reason the Undone before a re-roll gives (public, unlike a secret roll)."""
        if roll.get("secret_for") is not None:
            # The Undone is public; the director's reason speaks of the roll, so it stays
            # in the sealed RerollAuthorized only: the others see that, and to which version.
            return "a director's re-roll of a secret roll"
        return f"a director's re-roll: {reason}"

    class RerollAuthorized(LedgerEvent):
        """The director allowed one roll to be made again with new dice (a new epoch)."""

        key: str  # the roll re-rolled
        slot: str  # CG Date/step/table/side/ordinal: what the new epoch rolls for
        epoch: int
        reason: str
        side: str

        def apply(self, campaign: Any) -> None:
            campaign.epochs[self.slot] = self.epoch

    def authorize_reroll(self, roll: dict[str, Any], reason: str, actor: str) -> None:
        """Let the roll `roll` (its record's data, not live any more) be made again."""
        self._not_ended()
        if not reason.strip():
            raise InvalidCommand("a re-roll gives its reason", field="reason")
        key = roll["key"]
        slot, epoch = key.rsplit("/", 1)
        if self.epochs.get(slot, 0) != int(epoch):
            raise RuleViolation(f"roll {key} is not the latest roll for its slot {slot}")
        # As secret as the roll: a slot's key names its table, and so what was bought.
        self._record(self.RerollAuthorized, actor, secret_for=roll.get("secret_for"), key=key,
                     slot=slot, epoch=int(epoch) + 1, reason=reason, side=roll["side"])

    class RulingRecorded(LedgerEvent):
        """The director's ruling on a disputed roll: upheld, or a correction and why."""

        key: str
        roll_version: int
        verdict: str
        reason: str
        side: str
        final: int | None = None  # the corrected Final roll, if the correction names one
        result: str | None = None  # the corrected result

        def apply(self, campaign: Any) -> None:
            """A ruling is a record beside the roll; the campaign's state does not move."""

    def record_ruling(self, roll: dict[str, Any], roll_version: int, verdict: str,
                      reason: str, actor: str, final: int | None = None,
                      result: str | None = None) -> None:
        """Record the director's ruling on the roll `roll` (as secret as the roll is)."""
        if verdict not in VERDICTS:
            raise InvalidCommand(f"a ruling's verdict is one of {VERDICTS}", field="verdict")
        if not reason.strip():
            raise InvalidCommand("a ruling gives its reason", field="reason")
        if verdict == "upheld" and (final is not None or result is not None):
            raise InvalidCommand("an upheld roll keeps its Final roll and result",
                                 field="verdict")
        if verdict == "corrected" and final is None and result is None:
            raise InvalidCommand("a correction names the corrected Final roll or result",
                                 field="final")
        self._record(self.RulingRecorded, actor, secret_for=roll.get("secret_for"),
                     key=roll["key"], roll_version=roll_version, verdict=verdict,
                     reason=reason, side=roll["side"], final=final, result=result)
