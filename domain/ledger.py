"""What every campaign event and every part of the Campaign aggregate share: the hash
link, the seal of a secret, and the checks each command starts with."""

from __future__ import annotations

import dataclasses
import secrets
from typing import TYPE_CHECKING, Any

from eventsourcing.domain import Aggregate

from domain.errors import InvalidCommand, RuleViolation
from domain.hashing import commitment
from domain.history import record_hash, secret_content
from domain.rules import Step

_BASE_FIELDS = frozenset(
    {"originator_id", "originator_version", "timestamp", "originator_topic", "prev_hash"}
)
_ENVELOPE = frozenset({"sealed", "salt", "idempotency_key", "idempotency_digest"})
NOT_DATA = _BASE_FIELDS | _ENVELOPE


class LedgerEvent(Aggregate.Event):
    """Every campaign event names its predecessor's hash and who asked for it."""

    prev_hash: str
    actor: str
    secret_for: str | None
    sealed: str | None
    salt: str | None
    # Envelope: the Idempotency-Key of the command that appended it (keyword-only, so every
    # event class keeps its own required fields).
    idempotency_key: str | None = dataclasses.field(default=None, kw_only=True)
    idempotency_digest: str | None = dataclasses.field(default=None, kw_only=True)
    not_data = NOT_DATA  # fields that are envelope, not content, of the record

    def mutate(self, aggregate: Any) -> Any:
        """Apply, then move the chain's head to this event (and note its command's key)."""
        campaign: Any = super().mutate(aggregate)
        campaign.head_hash = record_hash(self.record())
        key = self.__dict__.get("idempotency_key")
        if key is not None:  # the events one keyed command appended, first to last
            seen = campaign.idempotency.setdefault(
                key, {"digest": self.__dict__.get("idempotency_digest"),
                      "first": self.originator_version})
            seen["last"] = self.originator_version
        return campaign

    def data(self) -> dict[str, Any]:
        """The event's own fields (its content), without the envelope."""
        skip = self.not_data
        return {k: v for k, v in self.__dict__.items() if k not in skip}

    def record(self) -> dict[str, Any]:
        """The event as a history record (README, 'Canonical JSON')."""
        return event_record(type(self), str(self.originator_id), self.originator_version,
                            self.timestamp.isoformat(), self.__dict__)


def event_record(kind: type[LedgerEvent], campaign: str, version: int, timestamp: str,
                 fields: dict[str, Any]) -> dict[str, Any]:
    """The history record of an event of this class with these fields (as `record`)."""
    skip = kind.not_data
    return {
        "campaign": campaign,
        "version": version,
        "type": kind.__name__,
        "timestamp": timestamp,
        "prev_hash": fields["prev_hash"],
        "data": {k: v for k, v in fields.items() if k not in skip},
        "sealed": fields["sealed"],
        "salt": fields["salt"],
    }


def copied(value: Any) -> Any:
    """A deep copy of state made of dicts, lists and immutable values (str, int, bool,
    None, UUID, datetime, frozen events): what a Campaign's state is made of."""
    kind = type(value)
    if kind is dict:
        return {key: copied(item) for key, item in value.items()}
    if kind is list:
        return [copied(item) for item in value]
    if kind is tuple:
        return tuple(copied(item) for item in value)
    if kind is set:
        return set(value)
    return value


class Ledger:
    """State and helpers the Campaign's parts share (the Campaign aggregate mixes them)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        """eventsourcing copies a cached campaign for every command: copy its plain state
        directly, several times faster than copy.deepcopy's generic walk."""
        twin = object.__new__(type(self))
        twin.__dict__.update(copied(self.__dict__))
        return twin

    sides: list[str]
    cg: str
    cg_date: str
    phase: str
    step: str | None
    scenario: str | None
    head_hash: str
    control: dict[str, str | None]
    purchases: list[dict[str, Any]]
    off_map: dict[str, bool]
    idempotency: dict[str, dict[str, Any]]
    command_key: tuple[str, str] | None = None  # the running command's Idempotency-Key

    if TYPE_CHECKING:  # provided by eventsourcing's Aggregate, which the Campaign also is
        def trigger_event(self, event_class: Any, **kwargs: Any) -> None:
            """Record an event."""

        @property
        def pending_events(self) -> list[Any]:
            """The events recorded and not yet saved (this command's)."""


    def _record(self, event_class: type[LedgerEvent], actor: str, secret_for: str | None = None,
                **fields: Any) -> None:
        sealed = salt = None
        # Every field the event will carry, defaults included, so the seal covers them all.
        fields = {f.name: f.default for f in dataclasses.fields(event_class)
                  if f.default is not dataclasses.MISSING and f.name not in NOT_DATA} | fields
        if secret_for is not None:
            salt = secrets.token_hex(16)
            data = {"side": fields.get("side"), "actor": actor, "secret_for": secret_for}
            sealed = commitment(secret_content(data | fields), salt)
        if self.command_key is not None:  # stored with the events, in their transaction
            fields |= {"idempotency_key": self.command_key[0],
                       "idempotency_digest": self.command_key[1]}
        # One command, one instant: its events share the first one's timestamp, which is
        # how an undo tells where a command began and ended (never a version inside one).
        pending = self.pending_events
        self.trigger_event(event_class, prev_hash=self.head_hash, actor=actor,
                           secret_for=secret_for, sealed=sealed, salt=salt,
                           timestamp=pending[0].timestamp if pending else None, **fields)

    def _side(self, side: str) -> str:
        if side not in self.sides:
            raise InvalidCommand(f"this campaign's sides are {self.sides}, not {side!r}",
                                 field="side")
        return side

    def _purchase(self, number: int, side: str) -> dict[str, Any]:
        if not 1 <= number <= len(self.purchases):
            raise InvalidCommand(f"no RG purchase #{number}", field="purchase")
        line = self.purchases[number - 1]
        if line["side"] != side:
            raise InvalidCommand(f"purchase #{number} is not {side}'s", field="purchase")
        return line

    def _in_step(self, steps: list[Step], what: str) -> None:
        if not steps or self.step in {s.rule for s in steps}:
            return
        where = f"step {self.step}" if self.step else f"the {self.phase}"
        names = " or ".join(f"{s.rule} {s.title}" for s in steps)
        raise RuleViolation(f"{what} belongs to step {names}; the RePh is at {where}",
                            rule=steps[0].rule)

    def _not_ended(self) -> None:
        if self.phase == "ended":
            raise RuleViolation("the CG has ended (CG End): the ledger takes no more commands")
