"""The ledger's eventsourcing Mapper: an event's idempotency envelope is stored only when a
keyed command set it (most events carry none; a stored None would only cost decoding)."""

from __future__ import annotations

import copy
from uuid import UUID

from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import Mapper, StoredEvent

OPTIONAL_ENVELOPE = ("idempotency_key", "idempotency_digest")


class LedgerMapper(Mapper[UUID]):
    """eventsourcing's Mapper, leaving unset optional envelope fields out of the state."""

    def to_stored_event(self, domain_event: DomainEventProtocol[UUID]) -> StoredEvent:
        """As eventsourcing's, from a copy of the event without its empty envelope."""
        trimmed = copy.copy(domain_event)
        for name in OPTIONAL_ENVELOPE:
            if trimmed.__dict__.get(name, 0) is None:
                del trimmed.__dict__[name]
        return super().to_stored_event(trimmed)
