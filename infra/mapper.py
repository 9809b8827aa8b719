"""The ledger's eventsourcing Mapper: an event's idempotency envelope is stored only when a
keyed command set it (most events carry none; a stored None would only cost decoding)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.utils import get_topic

OPTIONAL_ENVELOPE = ("idempotency_key", "idempotency_digest")


class LedgerMapper(Mapper[UUID]):
    """eventsourcing's Mapper, leaving unset optional envelope fields out of the state."""

    def to_stored_event(self, domain_event: DomainEventProtocol[UUID]) -> StoredEvent:
        """As eventsourcing's, without the envelope fields that are None."""
        state: dict[str, Any] = dict(vars(domain_event))
        for name in OPTIONAL_ENVELOPE:
            if state.get(name, 0) is None:
                del state[name]
        originator_id = state.pop("originator_id")
        originator_version = state.pop("originator_version")
        class_version = getattr(type(domain_event), "class_version", 1)
        if class_version > 1:
            state["class_version"] = class_version
        encoded = self.transcoder.encode(state)
        if self.compressor:
            encoded = self.compressor.compress(encoded)
        if self.cipher:
            encoded = self.cipher.encrypt(encoded)
        return StoredEvent(originator_id=originator_id, originator_version=originator_version,
                           topic=get_topic(type(domain_event)), state=encoded)
