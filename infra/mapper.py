"""The ledger's eventsourcing Mapper: an event's idempotency envelope is stored only when a
keyed command set it (most events carry none; a stored None would only cost decoding)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import orjson
from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import DatetimeAsISO, JSONTranscoder, Mapper, StoredEvent
from eventsourcing.utils import get_topic

from domain.hashing import is_plain

OPTIONAL_ENVELOPE = ("idempotency_key", "idempotency_digest")


class LedgerMapper(Mapper[UUID]):
    """eventsourcing's Mapper, leaving unset optional envelope fields out of the state."""

    def to_stored_event(self, domain_event: DomainEventProtocol[UUID]) -> StoredEvent:
        """As eventsourcing's, from a copy of the event without its empty envelope."""
        state = domain_event.__dict__
        empty = [name for name in OPTIONAL_ENVELOPE if state.get(name, 0) is None]
        fast = self._plain_stored(domain_event, empty)
        if fast is not None:
            return fast
        if not empty:
            return super().to_stored_event(domain_event)
        # What copy.copy makes of a frozen dataclass event (a new object, its dict copied),
        # without copy's generic protocol: this runs for every event written.
        trimmed = object.__new__(type(domain_event))
        trimmed.__dict__.update({k: v for k, v in state.items() if k not in empty})
        return super().to_stored_event(trimmed)

    def _plain_stored(self, event: Any, empty: list[str]) -> StoredEvent | None:
        """The stored event with its state written by orjson, else None (the transcoder's)."""
        # Only where orjson writes the transcoder's very bytes (same order, no spaces,
        # UTF-8): an event whose one transcoded value is its timestamp, the usual case.
        transcoder = self.transcoder
        if self.cipher or self.compressor or type(transcoder) is not JSONTranscoder \
                or getattr(type(event), "class_version", 1) != 1:
            return None
        stamp = event.__dict__.get("timestamp")
        if type(stamp) is not datetime or type(transcoder.types.get(datetime)) \
                is not DatetimeAsISO:
            return None
        state = {k: v for k, v in event.__dict__.items() if k not in empty}
        ident, version = state.pop("originator_id", None), state.pop("originator_version", None)
        state["timestamp"] = None  # checked below as the plain value it is written as
        try:
            if not isinstance(ident, UUID) or not is_plain(state):
                return None
        except RecursionError:  # a cycle: the transcoder says so
            return None
        state["timestamp"] = {"_type_": DatetimeAsISO.name, "_data_": stamp.isoformat()}
        try:
            data = orjson.dumps(state)
        except orjson.JSONEncodeError:  # past 64 bits, a lone surrogate...: the transcoder
            return None
        return StoredEvent(originator_id=ident, originator_version=version,
                           topic=get_topic(type(event)), state=data)
