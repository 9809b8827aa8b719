"""What every campaign event shares: the hash link to its predecessor, the seal of a
secret, the Idempotency-Key of the command that appended it, and the topic it is stored
under."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from eventsourcing.domain import Aggregate
from eventsourcing.utils import register_topic

from domain.history import record_hash

_BASE_FIELDS = frozenset(
    {"originator_id", "originator_version", "timestamp", "originator_topic", "prev_hash"}
)
_ENVELOPE = frozenset({"sealed", "salt", "neutral", "idempotency_key", "idempotency_digest"})
NOT_DATA = _BASE_FIELDS | _ENVELOPE

EVENTS: dict[str, type[CampaignEvent]] = {}  # every campaign event class, by its name
STORED_AS = "domain.campaign:Campaign.{}"  # the topic an event class is stored under


class CampaignEvent(Aggregate.Event):
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
    # Sealed neutrally (history.is_neutral): its hashed form names no type; unset (not
    # False) on an event recorded before, so its record, and its hash, stay as they were.
    neutral: bool | None = dataclasses.field(default=None, kw_only=True)
    not_data = NOT_DATA  # fields that are envelope, not content, of the record
    TOPIC: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Stored under its name on the Campaign, as when every event was nested in that
        # one class: moving an event to another file (a part, a module) changes nothing
        # stored, and its record's `type` is its name either way.
        cls.TOPIC = STORED_AS.format(cls.__name__)
        register_topic(cls.TOPIC, cls)
        if not cls.__dict__.get("shared_shape", False):  # PointsEvent: never recorded itself
            EVENTS[cls.__name__] = cls

    def mutate(self, aggregate: Any) -> Any:
        """Apply, then move the chain's head to this event (and note its command's key)."""
        return self.folded(aggregate, None)

    def folded(self, aggregate: Any, head_hash: str | None) -> Any:
        """`mutate`, with the chain's head given (an import sets it once, from the chain
        it verified) rather than hashed from this event (None)."""
        campaign: Any = super().mutate(aggregate)
        campaign.head_hash = record_hash(self.record()) if head_hash is None else head_hash
        key = self.__dict__.get("idempotency_key")
        if key is not None:  # the events one keyed command appended, first to last
            seen = campaign.access.idempotency.setdefault(
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


def event_record(kind: type[CampaignEvent], campaign: str, version: int, timestamp: str,
                 fields: dict[str, Any]) -> dict[str, Any]:
    """The history record of an event of this class with these fields (as `record`)."""
    skip = kind.not_data
    record = {
        "campaign": campaign,
        "version": version,
        "type": kind.__name__,
        "timestamp": timestamp,
        "prev_hash": fields["prev_hash"],
        "data": {k: v for k, v in fields.items() if k not in skip},
        "sealed": fields["sealed"],
        "salt": fields["salt"],
    }
    if fields.get("neutral"):
        record["neutral"] = True
    if fields.get("tokens") is not None:  # Created's token hashes: the director's alone
        record["tokens"] = fields["tokens"]
    return record
