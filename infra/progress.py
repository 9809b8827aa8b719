"""Where a campaign stands for someone who is none of its roles (the admin's dashboard): its
guide as an observer reads it (each side's public progress, the open reports) and when
its last event was recorded. Nothing a side keeps secret is in it.

A campaign at a version never changes (an undo appends a new version), so each one's
progress is kept by version: a dashboard of hundreds of campaigns loads again only those
that moved since it was last drawn."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID
from weakref import WeakKeyDictionary

from domain.campaign.disputes import open_disputes
from domain.campaign.guide import guide
from infra.store import CampaignStore

PUBLIC = "observer"  # the guide's public reading: no side's RG lines, purchases or CPP
KEPT = 4096  # campaign versions kept per store (a public guide is a few hundred bytes)


@dataclass(frozen=True)
class Progress:
    """A campaign's public guide and the time of its last event, at a version."""

    version: int
    guide: dict[str, Any]
    last_event: datetime
    disputes: tuple[str, ...] = ()  # the public roll disputes awaiting a ruling


class _Kept:
    """The progress of the campaign versions read lately, the oldest read dropped first."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.found: OrderedDict[tuple[UUID, int], Progress] = OrderedDict()

    def get(self, key: tuple[UUID, int]) -> Progress | None:
        with self.lock:
            found = self.found.get(key)
            if found is not None:
                self.found.move_to_end(key)
            return found

    def put(self, key: tuple[UUID, int], found: Progress) -> None:
        with self.lock:
            self.found[key] = found
            while len(self.found) > KEPT:
                self.found.popitem(last=False)


_KEPT: WeakKeyDictionary[CampaignStore, _Kept] = WeakKeyDictionary()
_GUARD = threading.Lock()


def progress(store: CampaignStore, campaign_id: UUID, version: int | None = None) -> Progress:
    """The campaign's progress now: the guide `GET /campaigns/{id}/guide` answers an
    observer, from the same state, and the instant its last command recorded. `version`
    (the head as the view says it) finds it kept without reading the store."""
    with _GUARD:
        kept = _KEPT.setdefault(store, _Kept())
    found = None if version is None else kept.get((campaign_id, version))
    if found is None:
        state = store.campaign(campaign_id)
        found = Progress(state.version, guide(state, PUBLIC), state.modified_on, tuple(
            f"roll {d['roll_version']} ({d['table']}, {d['rolled_on']}): disputed by the "
            f"{d['side']}" for d in open_disputes(state, PUBLIC)))
        kept.put((campaign_id, found.version), found)
    return found
