"""The ledger's eventsourcing Mapper: an event's idempotency envelope is stored only when a
keyed command set it (most events carry none; a stored None would only cost decoding)."""

from __future__ import annotations

from uuid import UUID

from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import Mapper, StoredEvent

OPTIONAL_ENVELOPE = ("idempotency_key", "idempotency_digest")


class LedgerMapper(Mapper[UUID]):
    """eventsourcing's Mapper, leaving unset optional envelope fields out of the state."""

    def to_stored_event(self, domain_event: DomainEventProtocol[UUID]) -> StoredEvent:
        """As eventsourcing's, from a copy of the event without its empty envelope."""
        state = domain_event.__dict__
        empty = [name for name in OPTIONAL_ENVELOPE if state.get(name, 0) is None]
        if not empty:
            return super().to_stored_event(domain_event)
        # What copy.copy makes of a frozen dataclass event (a new object, its dict copied),
        # without copy's generic protocol: this runs for every event written.
        trimmed = object.__new__(type(domain_event))
        trimmed.__dict__.update({k: v for k, v in state.items() if k not in empty})
        return super().to_stored_event(trimmed)
