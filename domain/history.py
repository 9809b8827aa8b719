"""The hash-linked history: each event's record, its hashed form, and the chain check."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from domain.hashing import GENESIS_HASH, commitment, link_hash

# What stayed public of a sealed (secret) event recorded before neutral seals: who acted,
# for whom it is kept (and its type).
PUBLIC_WHEN_SEALED = frozenset({"side", "actor", "secret_for"})
# A neutral seal (README, 'Canonical JSON') keeps public only for whom it is kept, and
# names this one type for every sealed fact: the real type is under the seal.
NEUTRAL = "Sealed"
PUBLIC_WHEN_NEUTRAL = frozenset({"secret_for"})
DIRECTOR_ONLY = "director"  # `secret_for` of what only the director reads, even at CG End


def secret_content(data: dict[str, Any]) -> dict[str, Any]:
    """The part of an event's data that an old (typed) seal covers."""
    return {k: v for k, v in data.items() if k not in PUBLIC_WHEN_SEALED}


def neutral_content(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """What a neutral seal covers: the event's type and every field but `secret_for`."""
    return {"type": kind, "data": {k: v for k, v in data.items() if k != "secret_for"}}


def is_neutral(record: dict[str, Any]) -> bool:
    """A sealed record whose hashed form names the neutral type (new since schema 11)."""
    return record.get("neutral") is True and record.get("sealed") is not None


# An export's event line: each field's JSON type (None allowed where a field is optional).
RECORD_FIELDS: dict[str, tuple[type, ...]] = {
    "version": (int,), "type": (str,), "data": (dict,), "prev_hash": (str,),
    "timestamp": (str,), "salt": (str, type(None)), "sealed": (str, type(None))}


def malformed(record: dict[str, Any]) -> str | None:
    """What makes a record unreadable as an event line (None: its shape is sound)."""
    get = record.get
    # The usual line at a glance (every event line passes here); any other walks the fields.
    if type(get("version")) is int and type(get("type")) is str and type(
            get("data")) is dict and type(get("prev_hash")) is str and type(
            get("timestamp", "")) is str and type(get("salt")) in _TEXT_OR_NONE and type(
            get("sealed")) in _TEXT_OR_NONE:
        return None
    for field, types in RECORD_FIELDS.items():
        value = record.get(field)
        if field in ("version", "type", "data", "prev_hash") and field not in record:
            return f"it has no {field!r}"
        if field in record and (not isinstance(value, types) or isinstance(value, bool)):
            return f"its {field!r} is not a {' or '.join(_json_name(t) for t in types)}"
    return None


_TEXT_OR_NONE = frozenset({str, type(None)})


def _json_name(kind: type) -> str:
    return {int: "whole number", str: "string", dict: "JSON object"}.get(kind, "null")


def tokens_hold(tokens: Any, token_commitment: Any) -> bool:
    """Whether `tokens` ({"token_hashes", "salt"}) open their commitment."""
    try:
        return commitment({"token_hashes": tokens["token_hashes"]},
                          tokens["salt"]) == token_commitment
    except (TypeError, KeyError, ValueError, AttributeError):
        return False


def hashed_form(record: dict[str, Any]) -> dict[str, Any]:
    """What the chain hashes: a sealed event contributes its commitment, not its content
    (and, sealed neutrally, not its type either)."""
    data, kind = record["data"], record["type"]
    if record.get("sealed") is not None:
        public = PUBLIC_WHEN_NEUTRAL if is_neutral(record) else PUBLIC_WHEN_SEALED
        data = {k: v for k, v in data.items() if k in public}
        data["sealed"] = record["sealed"]
        kind = NEUTRAL if is_neutral(record) else kind
    return {
        "campaign": record["campaign"],
        "version": record["version"],
        "type": kind,
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
    if is_neutral(record):
        return record | {"type": NEUTRAL, "salt": None, "redacted": True, "data": {
            "secret_for": record["data"].get("secret_for")}}
    public = {k: v for k, v in record["data"].items() if k in PUBLIC_WHEN_SEALED}
    return record | {"data": public, "salt": None, "redacted": True}


HashOf = Callable[[dict[str, Any]], str]  # a record's hash as the next one names it


def first_bad_version(records: Iterable[dict[str, Any]],
                      hash_of: HashOf | None = None) -> tuple[int | None, int, str, str]:
    """Walk the chain: (first bad version or None, events checked, head hash, problem).

    A link that breaks between versions k and k+1 means one of the two was altered: k's
    hashed content, or k+1 (its `prev_hash`, or the whole row, as a swap or a deletion
    leaves it). The record after k+1 tells which: if it links to k+1 as stored, k+1 is
    intact and k was altered; if not, k+1 itself was. At the head nothing follows, and k
    is named (an edited `prev_hash` alone changes no fact: a receipt tells the rest).
    """
    hash_of = hash_of or record_hash  # a caller that hashed each record already says so
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
            said = (f"version {version} appears twice (or out of order)" if version == count - 1
                    else f"version {count} is missing (found {version})")
            return count, count, prev, said
        if record["prev_hash"] != prev:
            if version == 1:
                return 1, count, prev, _link_problem(1)
            broken = version, hash_of(record), prev
            continue
        if not _seal_holds(record):
            return version, count, prev, f"version {version}'s secret does not match its seal"
        if "tokens" in record and not tokens_hold(record["tokens"],
                                                  record["data"].get("token_commitment")):
            return version, count, prev, f"version {version}'s token hashes do not match " \
                                         "their commitment"
        prev = hash_of(record)
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
    neutral = is_neutral(record)
    data = record["data"]
    content = neutral_content(record["type"], data) if neutral else secret_content(data)
    salt = record.get("salt")
    # Redacted: whatever a `redacted` flag says, only the public part is left.
    if not (set(data) - PUBLIC_WHEN_NEUTRAL if neutral else content):
        return salt is None and (not neutral or record["type"] == NEUTRAL)
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
    """Records as a viewer may read them (`as_seen` of each)."""
    for record in records:
        yield as_seen(record, viewer, ended)


def as_seen(record: dict[str, Any], viewer: str | None, ended: bool) -> dict[str, Any]:
    """A record as a viewer may read it: another side's sealed event redacted (it still
    verifies) until CG End, the director's own always; `viewer` None is the director."""
    if viewer is None:
        return record
    if "tokens" in record:  # the director's alone, always
        record = {k: v for k, v in record.items() if k != "tokens"}
    owner = record["data"].get("secret_for")
    if (ended and owner != DIRECTOR_ONLY) or record.get("sealed") is None or owner == viewer:
        return record
    return redact(record)
