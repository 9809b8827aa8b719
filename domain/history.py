"""The hash-linked history: each event's record, its hashed form, and the chain check."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from typing import Any

from domain.hashing import GENESIS_HASH, commitment, link_hash

# What stays public of a sealed (secret) event: who acted, for whom it is kept.
PUBLIC_WHEN_SEALED = frozenset({"side", "actor", "secret_for"})


def secret_content(data: dict[str, Any]) -> dict[str, Any]:
    """The part of an event's data that a seal covers."""
    return {k: v for k, v in data.items() if k not in PUBLIC_WHEN_SEALED}


def hashed_form(record: dict[str, Any]) -> dict[str, Any]:
    """What the chain hashes: a sealed event contributes its commitment, not its content."""
    data = record["data"]
    if record.get("sealed") is not None:
        data = {k: v for k, v in data.items() if k in PUBLIC_WHEN_SEALED}
        data["sealed"] = record["sealed"]
    return {
        "campaign": record["campaign"],
        "version": record["version"],
        "type": record["type"],
        "timestamp": record["timestamp"],
        "prev_hash": record["prev_hash"],
        "data": data,
    }


def record_hash(record: dict[str, Any]) -> str:
    """The SHA-256 that the next event names as its `prev_hash`."""
    return link_hash(hashed_form(record))


def redact(record: dict[str, Any]) -> dict[str, Any]:
    """The record as someone the secret is kept from sees it: content and salt removed."""
    if record.get("sealed") is None:
        return record
    public = {k: v for k, v in record["data"].items() if k in PUBLIC_WHEN_SEALED}
    return record | {"data": public, "salt": None, "redacted": True}


def first_bad_version(records: Iterable[dict[str, Any]]) -> tuple[int | None, int, str, str]:
    """Walk the chain: (first bad version or None, events checked, head hash, problem).

    A link that breaks between versions k and k+1 means one of the two was altered: k's
    hashed content, or k+1 (its `prev_hash`, or the whole row, as a swap or a deletion
    leaves it). The record after k+1 tells which: if it links to k+1 as stored, k+1 is
    intact and k was altered; if not, k+1 itself was. At the head nothing follows, and k
    is named (an edited `prev_hash` alone changes no fact: a receipt tells the rest).
    """
    prev = GENESIS_HASH
    count = 0
    broken: tuple[int, str, str] | None = None  # (version, its hash as stored, prev)
    for count, record in enumerate(records, start=1):
        version = record["version"]
        if broken is not None:
            suspect, suspect_hash, before = broken
            if version == count and record["prev_hash"] == suspect_hash:
                return suspect - 1, count, before, _altered(suspect - 1, suspect)
            return suspect, count, before, _link_problem(suspect)
        if version != count:
            return count, count, prev, f"version {count} is missing (found {version})"
        if record["prev_hash"] != prev:
            if version == 1:
                return 1, count, prev, _link_problem(1)
            broken = version, record_hash(record), prev
            continue
        if not _seal_holds(record):
            return version, count, prev, f"version {version}'s secret does not match its seal"
        prev = record_hash(record)
    if broken is not None:
        return broken[0] - 1, count, broken[2], _altered(broken[0] - 1, broken[0])
    return None, count, prev, ""


def _altered(version: int, named_by: int) -> str:
    return f"version {version} was altered: it no longer hashes to what version " \
           f"{named_by} names as its predecessor"


def _link_problem(version: int) -> str:
    if version == 1:
        return "version 1 does not name 64 zeros as its predecessor"
    return f"version {version} does not link to version {version - 1}: it was altered, " \
           "moved or put in another's place"


def _seal_holds(record: dict[str, Any]) -> bool:
    """A sealed record holds either no content at all (redacted) or content matching its seal."""
    if record.get("sealed") is None:
        return True
    content = secret_content(record["data"])
    salt = record.get("salt")
    if not content:  # redacted: whatever a `redacted` flag says, only the public part is left
        return salt is None
    return salt is not None and commitment(content, salt) == record["sealed"]


def undone_ranges(jumps: dict[int, int], head: int) -> list[tuple[int, int]]:
    """The versions an undo has undone, as (first, last) ranges, oldest first.

    `jumps` maps each Undone event's version to its target. Walking back from the head, a
    live Undone jumps to its target; an Undone that a later undo undid is itself undone,
    and what it had undone is live again (undo of an undo).
    """
    ranges: list[tuple[int, int]] = []
    at = head
    for undo in sorted(jumps, reverse=True):
        if undo > at:
            continue  # undone by a later undo
        target = jumps[undo]
        if target < undo - 1:
            ranges.append((target + 1, undo - 1))
        at = target
    return ranges[::-1]


def is_undone(version: int, ranges: list[tuple[int, int]]) -> bool:
    """Whether `version` lies in one of `undone_ranges`."""
    index = bisect.bisect_right(ranges, (version, float("inf"))) - 1
    return index >= 0 and ranges[index][0] <= version <= ranges[index][1]


def redacted(records: Iterable[dict[str, Any]], viewer: str | None,
             ended: bool) -> Iterator[dict[str, Any]]:
    """Records as a viewer may read them: another side's sealed events redacted (they
    still verify) until CG End; `viewer` None is the director."""
    for record in records:
        owner = record["data"].get("secret_for")
        if viewer is None or ended or record.get("sealed") is None or owner == viewer:
            yield record
        else:
            yield redact(record)
