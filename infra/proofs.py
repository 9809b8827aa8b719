"""A campaign's Merkle log, served: signed checkpoints, inclusion and consistency proofs
(CONTRACT 'Proofs'). Leaf i is the stored event at version i+1, whoever asks."""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from uuid import UUID

from domain import merkle
from domain.errors import InvalidCommand
from domain.receipt import make_receipt
from infra.keys import Keys
from infra.leaf_cache import LeafCache
from infra.results import CommandResult
from infra.store import CampaignStore


class Proofs:
    """Checkpoints and proofs of each campaign's log, signed with the service key."""

    def __init__(self, store: CampaignStore, keys: Keys) -> None:
        self.store, self.keys = store, keys
        self.cache = LeafCache(store)  # receipts' leaf hashes, extended as the log grows

    def origin(self, campaign_id: UUID) -> str:
        """The checkpoint's origin line: the key's name and the campaign."""
        return f"{self.keys.key.name}/campaigns/{campaign_id}"

    def head(self, campaign_id: UUID) -> int:
        """The campaign's version: the size of its log now."""
        return self.store.campaign(campaign_id).version

    def leaves(self, campaign_id: UUID, size: int) -> list[bytes]:
        """The leaf hashes of the first `size` events."""
        return [merkle.leaf_hash(merkle.event_leaf(record))
                for record in self.store.records(campaign_id, lte=size)]

    def checkpoint(self, campaign_id: UUID) -> str:
        """The signed checkpoint of the campaign's log now (from the cached log)."""
        return self.checkpoint_at(campaign_id, self.head(campaign_id))

    def inclusion(self, campaign_id: UUID, version: int,
                  size: int | None = None) -> merkle.InclusionProof:
        """The inclusion proof of event `version` in the tree of `size` events (now)."""
        size = self._size(campaign_id, size)
        if not 1 <= version <= size:
            raise InvalidCommand(f"version is an event from 1 to {size} (the tree size)",
                                 field="version")
        return merkle.inclusion_proof(self.leaves(campaign_id, size), version - 1)

    def consistency(self, campaign_id: UUID, first: int,
                    size: int | None = None) -> merkle.ConsistencyProof:
        """The consistency proof that the tree of `size` events extends that of `first`."""
        size = self._size(campaign_id, size)
        if not 1 <= first <= size:
            raise InvalidCommand(f"from is a tree size from 1 to {size} (the later size)",
                                 field="from")
        return merkle.consistency_proof(self.leaves(campaign_id, size), first)

    def _size(self, campaign_id: UUID, size: int | None) -> int:
        """A tree size: 1 to the campaign's version (its version when not given)."""
        head = self.head(campaign_id)
        if size is None:
            return head
        if not 1 <= size <= head:
            raise InvalidCommand(f"size is a tree size from 1 to {head} (the version)",
                                 field="size")
        return size

    def receipt(self, campaign_id: UUID, versions: list[int], size: int) -> dict[str, Any]:
        """The receipt of `versions` in the tree of `size` events (CONTRACT 'Proofs'): the
        same for a repeat as it was the first time (Ed25519 signs deterministically)."""
        log = self.cache.log(campaign_id, size)
        origin = self.origin(campaign_id)
        point = self.keys.key.checkpoint(origin, size, log.root(size))
        return make_receipt(origin, log, size, versions, point, self.keys.verifier_keys())

    def receipted(self, campaign_id: UUID, done: CommandResult) -> CommandResult:
        """A command's result with the receipt of what it appended."""
        # What was just saved extends the cached log: no read back of it from the store.
        self.cache.appended(campaign_id, done.events, done.head_hash)
        versions = [record["version"] for record in done.events]
        return replace(done, receipt=self.receipt(campaign_id, versions, done.version))

    def checkpoint_at(self, campaign_id: UUID, size: int) -> str:
        """The signed checkpoint of the tree of the first `size` events (from the cache)."""
        return self.signed(campaign_id, size, self.cache.log(campaign_id, size).root(size))

    def signed(self, campaign_id: UUID, size: int, root: bytes) -> str:
        """The signed checkpoint of a tree of `size` events whose root is `root` (an
        export works it out as it reads every event)."""
        return self.keys.key.checkpoint(self.origin(campaign_id), size, root)
