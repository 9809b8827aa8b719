"""Each campaign's Merkle log kept in memory for receipts: read once, then extended from
the store's records after the cached length, so a command's receipt never re-reads or
re-hashes the whole campaign (the log is append-only: an undone event stays). The events
a command has just appended extend it as they are, without reading them back."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any
from uuid import UUID

from domain import merkle
from domain.hashing import sha256_hex
from domain.merkle_log import MerkleLog
from infra.store import CampaignStore

# Campaigns whose logs are kept, the least recently used dropped first: about 1.3 MB for
# one of 20,000 events (domain/merkle_log.py), so at most some 80 MB for 64 of them.
KEPT = 64


class _Entry:
    """One campaign's log, the hash of its last event (to see that the store still
    extends it), and the lock its extension holds."""

    def __init__(self) -> None:
        self.log, self.head, self.lock = MerkleLog(), "", threading.Lock()


class LeafCache:
    """The Merkle logs of the campaigns most recently asked for."""

    def __init__(self, store: CampaignStore, kept: int = KEPT) -> None:
        self.store, self.kept = store, kept
        self._entries: OrderedDict[UUID, _Entry] = OrderedDict()
        self._guard = threading.Lock()

    def log(self, campaign_id: UUID, size: int) -> MerkleLog:
        """The campaign's log, holding at least its first `size` events."""
        entry = self._entry(campaign_id)
        with entry.lock:
            if entry.log.size < size:
                self._extend(campaign_id, entry, size)
            if entry.log.size < size:
                raise ValueError(f"campaign {campaign_id} has fewer than {size} events")
            return entry.log

    def appended(self, campaign_id: UUID, records: list[dict[str, Any]], head: str) -> None:
        """Extend a campaign's cached log by the records a command has just saved, when
        they follow it directly and chain on from its head to the campaign's `head` hash
        (then their leaves are the stored events'). Otherwise the log is left to be
        extended from the store when a receipt needs it: one read for the first command
        after a start, none for the next ones."""
        entry = self._entry(campaign_id)
        with entry.lock:
            if not records or not entry.log.size or \
                    records[0]["version"] != entry.log.size + 1:
                return
            for record in records:
                if not self._append(entry, record):
                    return  # not the cached log's continuation: left to the store's read
            if entry.head != head:  # never so for saved events: read them back to be sure
                entry.log, entry.head = MerkleLog(), ""

    def _entry(self, campaign_id: UUID) -> _Entry:
        with self._guard:
            entry = self._entries.pop(campaign_id, None) or _Entry()
            self._entries[campaign_id] = entry
            while len(self._entries) > self.kept:
                self._entries.popitem(last=False)
            return entry

    def _extend(self, campaign_id: UUID, entry: _Entry, size: int) -> None:
        """Add the store's events after the cached ones; start again from the first if the
        store no longer extends what was cached (its history was rewritten)."""
        for record in self.store.records(campaign_id, lte=size, gt=entry.log.size):
            if not self._append(entry, record):
                entry.log, entry.head = MerkleLog(), ""
                self._extend(campaign_id, entry, size)
                return

    @staticmethod
    def _append(entry: _Entry, record: dict[str, Any]) -> bool:
        """Add one event's leaf, if it chains on from the log's head (else False)."""
        if entry.log.size and record["prev_hash"] != entry.head:
            return False
        leaf = merkle.event_leaf(record)  # the bytes the chain hashes, too
        entry.log.append(merkle.leaf_hash(leaf))
        entry.head = sha256_hex(leaf)
        return True
