"""The caches' seal: snapshots and view rows are caches of what the events say, and the
database may be edited behind the service's back. Each is stored with an HMAC-SHA256
keyed by a secret that is not in the database (derived from the service's signing key),
so a row the service did not write is never trusted: it is passed over, and the answer
comes from the events."""

from __future__ import annotations

import hmac
import logging
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any
from uuid import UUID

from eventsourcing.persistence import EventStore, Recording, StoredEvent

from domain.campaign import Campaign
from infra.keys import Keys
from infra.settings import Settings

log = logging.getLogger(__name__)
MAC_TAG = b"refit-mac1:"  # then the MAC's 64 hex digits and a colon, then the state
_SKIP = len(MAC_TAG) + 65


def _frame(raw: bytes) -> bytes:
    """A part as `mac` frames it: its length (8 bytes), then itself."""
    return len(raw).to_bytes(8, "big") + raw


_ROW = _frame(b"row")


class CacheSeal:
    """MACs of cache rows under a key derived from the service key (kept out of the
    database: beside it, or in the settings)."""

    def __init__(self, settings: Settings) -> None:
        self.keys = Keys(settings)
        self._key: bytes | None = None
        self._lock = threading.Lock()

    @property
    def key(self) -> bytes:
        """The MAC key: HMAC(the signing key's seed, a label), made once."""
        with self._lock:
            if self._key is None:
                self._key = self.keys.derived(b"refit cache seal v1")
            return self._key

    def mac(self, *parts: bytes | str | int) -> str:
        """The MAC of the parts, each length-prefixed (so no two splits collide)."""
        raws = [part if isinstance(part, bytes) else str(part).encode() for part in parts]
        # One call into OpenSSL's one-shot HMAC: a projection rebuild MACs every row it writes.
        return hmac.digest(self._key or self.key,
                           b"".join(_frame(raw) for raw in raws),
                           "sha256").hex()

    def row_macs(self, rows: Sequence[tuple[str, str, str, int, str]]) -> list[str]:
        """`mac("row", campaign, kind, key, order, doc)` of each row, framed the same way
        with each campaign and kind framed once: a rebuild seals every row it writes, and
        the generic `mac` spent more in Python than in HMAC (bench P3)."""
        secret, macs = self._key or self.key, []
        heads: dict[tuple[str, str], bytes] = {}
        digest, framed = hmac.digest, _frame
        for campaign, kind, key, order, doc in rows:
            head = heads.get((campaign, kind))
            if head is None:
                head = heads[(campaign, kind)] = b"".join(
                    (_ROW, framed(str(campaign).encode()), framed(str(kind).encode())))
            macs.append(digest(secret, b"".join(  # str(): each part's text, as `mac` takes it
                (head, framed(str(key).encode()), framed(str(order).encode()),
                 framed(str(doc).encode()))), "sha256").hex())
        return macs

    def holds(self, mac: str | None, *parts: bytes | str | int) -> bool:
        """Whether `mac` is this service's MAC of the parts (compared in constant time)."""
        return mac is not None and hmac.compare_digest(mac, self.mac(*parts))

    # -- snapshots --------------------------------------------------------------

    def seal(self, stored: StoredEvent) -> StoredEvent:
        """A stored snapshot with its MAC written before its state."""
        mac = self.mac(*_snapshot_parts(stored, stored.state))
        return replace(stored, state=MAC_TAG + mac.encode() + b":" + stored.state)

    def opened(self, stored: StoredEvent) -> StoredEvent | None:
        """The stored snapshot without its MAC, or None if the MAC is missing or wrong."""
        mac, state = split_state(stored.state)
        if not self.holds(mac, *_snapshot_parts(stored, state)):
            return None
        return replace(stored, state=state)


def split_state(state: bytes) -> tuple[str | None, bytes]:
    """A stored snapshot's MAC (None if it has none: from before the seal) and state."""
    if not state.startswith(MAC_TAG):
        return None, state
    return state[len(MAC_TAG):_SKIP - 1].decode("ascii", "replace"), state[_SKIP:]


def _snapshot_parts(stored: StoredEvent, state: bytes) -> tuple[str, int, str, bytes]:
    return str(stored.originator_id), stored.originator_version, stored.topic, state


_CLASS_VERSION = re.compile(rb'"class_version":\s*(\d+)')


def older(state: bytes) -> bool:
    """Whether a snapshot's state was taken by an older class_version of the campaign,
    whose state the events would not give again (domain/campaign/upcasts.py)."""
    # Looked for from the end: eventsourcing's Snapshot.take adds class_version after the
    # campaign's fields, and the state is a snapshot's last field; searching from the
    # start read through every slot rolled on the CG Date first (bench P2).
    at = state.rfind(b'"class_version"')
    found = _CLASS_VERSION.match(state, at) if at >= 0 else None
    return found is not None and int(found.group(1)) < Campaign.class_version


class SealedSnapshots(EventStore[UUID]):
    """eventsourcing's snapshot store, each snapshot sealed: one whose MAC fails (edited,
    or kept from before the seal) is passed over, so the campaign is rebuilt from its
    events, and a warning says so."""

    def __init__(self, mapper: Any, recorder: Any, seal: CacheSeal) -> None:
        super().__init__(mapper=mapper, recorder=recorder)
        self.seal = seal
        self.passed_over: set[UUID] = set()  # campaigns a snapshot was passed over for

    def put(self, domain_events: Sequence[Any], **kwargs: Any) -> list[Recording[UUID]]:
        """Store snapshots, sealed."""
        stored = [self.seal.seal(self.mapper.to_stored_event(e)) for e in domain_events]
        self.recorder.insert_events(stored, **kwargs)
        return []

    def get(self, originator_id: UUID, *, gt: int | None = None, lte: int | None = None,
            desc: bool = False, limit: int | None = None) -> Iterator[Any]:
        """The snapshots whose seal holds."""
        for stored in self.recorder.select_events(originator_id=originator_id, gt=gt,
                                                  lte=lte, desc=desc, limit=limit):
            opened = self.seal.opened(stored)
            why = "is not sealed by this service" if opened is None else \
                "was taken by an older Refit" if older(opened.state) else None
            if why is not None:
                log.warning("snapshot of campaign %s at version %s %s: passed over, the "
                            "campaign is rebuilt from its events", originator_id,
                            stored.originator_version, why)
                self.passed_over.add(originator_id)
                continue
            assert opened is not None
            yield self.mapper.to_domain_event(opened)

    def stored(self, originator_id: UUID) -> list[StoredEvent]:
        """Every stored snapshot of a campaign, oldest first, as stored (seal and all)."""
        return list(self.recorder.select_events(originator_id=originator_id))
