"""What a live stream sends: the events appended after a version, as the role reads them
in the event log (`Queries.history`: the same redaction), in batches."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any
from uuid import UUID

from domain.errors import InvalidCommand
from domain.history import record_hash
from infra.queries import Queries

BATCH = 200  # events in one message at most (a reconnection may have many to catch up)


@dataclass(frozen=True)
class Batch:
    """Events appended, up to `version`, whose record hashes to `head_hash`."""

    version: int
    head_hash: str
    events: list[dict[str, Any]]


@dataclass(frozen=True)
class Appended:
    """The campaign's head when read, and what was appended after the version asked."""

    version: int
    head_hash: str
    batches: list[Batch]


def appended(reads: Queries, campaign_id: UUID, viewer: str | None, after: int | None,
             field: str = "Last-Event-ID") -> Appended:
    """The events after version `after` (None: the head, so none) as the viewer reads
    them (`field` names where the version came from, if it is past the head)."""
    head = reads.store.campaign(campaign_id)
    if after is None:
        return Appended(head.version, head.head_hash, [])
    if after > head.version:
        raise InvalidCommand(f"{field} is a version from 0 to {head.version} (the head)",
                             field=field)
    records = reads.history(campaign_id, viewer, head.version, gt=after)
    # A redacted record hashes as the whole one did (domain/history.py): the chain's link.
    batches = [Batch(chunk[-1]["version"], record_hash(chunk[-1]), chunk)
               for chunk in _batched(records, BATCH)]
    return Appended(head.version, head.head_hash, batches)


def _batched(items: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    """Lists of `size` items, the last shorter (Python 3.12's itertools.batched)."""
    found = iter(items)
    while chunk := list(islice(found, size)):
        yield chunk
