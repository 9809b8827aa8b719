"""The ledger's eventsourcing Mapper: an event's idempotency envelope is stored only when a
keyed command set it (most events carry none; a stored None would only cost decoding), and
the usual event is written and read by orjson and pydantic's JSON reader, byte for byte
as eventsourcing's own transcoder does."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast
from uuid import UUID

import orjson
from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import DatetimeAsISO, JSONTranscoder, Mapper, StoredEvent
from eventsourcing.utils import get_topic, resolve_topic
from pydantic_core import from_json

from domain.campaign import Campaign
from domain.campaign.dice import SeedRevealed
from domain.hashing import is_plain
from infra.at_rest import SeedCipher

OPTIONAL_ENVELOPE = ("idempotency_key", "idempotency_digest")
# The unrevealed seed an event carries outside its record, by the commitment it opens:
# stored encrypted (infra/at_rest.py).
PRIVATE_SEEDS: dict[type, tuple[str, str]] = {
    Campaign.Created: ("seed", "seed_commitment"),
    SeedRevealed: ("next_seed", "next_commitment"),
}


class LedgerMapper(Mapper[UUID]):
    """eventsourcing's Mapper, leaving unset optional envelope fields out of the state and
    keeping unrevealed seeds encrypted (`seeds`, set by the store)."""

    seeds: SeedCipher | None = None

    def to_stored_event(self, domain_event: DomainEventProtocol[UUID]) -> StoredEvent:
        """As eventsourcing's, from a copy of the event without its empty envelope and
        with its private seed sealed."""
        state = domain_event.__dict__
        empty = [name for name in OPTIONAL_ENVELOPE if state.get(name, 0) is None]
        sealed = self._sealed_seed(domain_event)
        fast = self._plain_stored(domain_event, empty, sealed)
        if fast is not None:
            return fast
        if not empty and not sealed:
            return super().to_stored_event(domain_event)
        # What copy.copy makes of a frozen dataclass event (a new object, its dict copied),
        # without copy's generic protocol: this runs for every event written.
        trimmed = object.__new__(type(domain_event))
        trimmed.__dict__.update({k: v for k, v in state.items() if k not in empty})
        trimmed.__dict__.update(sealed)
        return super().to_stored_event(trimmed)

    def to_domain_event(self, stored: StoredEvent) -> DomainEventProtocol[UUID]:
        """As eventsourcing's, its private seed opened; the usual event parsed with
        pydantic's JSON reader (a projection's catch-up decodes every event it folds)."""
        event = _plain_event(self, stored)
        if event is not None:
            return cast(DomainEventProtocol[UUID], event)
        event = super().to_domain_event(stored)
        self.open_seed(type(event), event.__dict__)
        return event

    def _sealed_seed(self, event: Any) -> dict[str, Any]:
        """The event's private seed field, encrypted (none if it has none)."""
        found = PRIVATE_SEEDS.get(type(event))
        if found is None or self.seeds is None or event.__dict__.get(found[0]) is None:
            return {}
        name, commitment = found
        return {name: self.seeds.sealed(event.__dict__[name], event.__dict__.get(commitment))}

    def open_seed(self, kind: type, fields: dict[str, Any]) -> None:
        """Decrypt the private seed among an event's stored fields, in place."""
        found = PRIVATE_SEEDS.get(kind)
        if found is not None and self.seeds is not None and fields.get(found[0]) is not None:
            name, commitment = found
            fields[name] = self.seeds.opened(fields[name], fields.get(commitment))

    def _plain_stored(self, event: Any, empty: list[str],
                      sealed: dict[str, Any]) -> StoredEvent | None:
        """The stored event with its state written by orjson, else None (the transcoder's)."""
        # Only where orjson writes the transcoder's very bytes (same order, no spaces,
        # UTF-8): an event whose one transcoded value is its timestamp, the usual case.
        transcoder = self.transcoder
        # (a subclass that only reads differently, infra/transcoder.py, writes the same)
        if self.cipher or self.compressor or not isinstance(transcoder, JSONTranscoder) \
                or type(transcoder).encode is not JSONTranscoder.encode \
                or getattr(type(event), "class_version", 1) != 1:
            return None
        stamp = event.__dict__.get("timestamp")
        if type(stamp) is not datetime or type(transcoder.types.get(datetime)) \
                is not DatetimeAsISO:
            return None
        state = {k: v for k, v in event.__dict__.items() if k not in empty}
        state.update(sealed)
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


_TYPED = b'"_type_"'  # how eventsourcing's transcoder marks a value it encoded


def decoded(mapper: Mapper[UUID], stored: StoredEvent) -> Any:
    """The domain event the mapper makes of a stored event; parsed with pydantic's JSON
    reader when the timestamp is the state's only transcoded value (the usual case)."""
    if isinstance(mapper, LedgerMapper):  # it does so itself
        return mapper.to_domain_event(stored)
    event = _plain_event(mapper, stored)
    return mapper.to_domain_event(stored) if event is None else event


def _plain_event(mapper: Mapper[UUID], stored: StoredEvent) -> Any:
    """As the mapper decodes it, for a state with no cipher, compression, upcast or
    transcoded value but its timestamp; None for any other (the mapper reads it, or says
    what is wrong with it)."""
    plain = plain_fields(mapper, stored)
    if plain is None:
        return None
    cls, state = plain
    state |= {"originator_id": stored.originator_id,
              "originator_version": stored.originator_version}
    event: Any = object.__new__(cls)
    object.__setattr__(event, "__dict__", state)
    return event


def plain_fields(mapper: Mapper[UUID], stored: StoredEvent) -> tuple[type, dict[str, Any]] | None:
    """The event class and fields `_plain_event` makes an event of; else None."""
    if mapper.cipher or mapper.compressor or stored.state.count(_TYPED) != 1 \
            or not isinstance(stored.originator_id, UUID):
        return None
    cls = resolve_topic(stored.topic)
    state = _plain_state(stored.state)
    if state is None or getattr(cls, "class_version", 1) != 1 or "class_version" in state:
        return None
    if isinstance(mapper, LedgerMapper):
        mapper.open_seed(cls, state)
    return cls, state


def _plain_state(data: bytes) -> dict[str, Any] | None:
    """A stored state whose one transcoded value is its timestamp, decoded; else None."""
    try:
        state = from_json(data)
        stamp = state["timestamp"]
        if len(stamp) != 2 or stamp["_type_"] != "datetime_iso":
            return None
        state["timestamp"] = datetime.fromisoformat(stamp["_data_"])
    except (ValueError, TypeError, KeyError):
        return None
    return state if isinstance(state, dict) else None
