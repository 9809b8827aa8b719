"""Canonical JSON and the SHA-256 hashes that chain a campaign's history."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson

GENESIS_HASH = "0" * 64

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                              allow_nan=False)
_SORTED = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_LEAVES = frozenset({str, int, bool, type(None)})


def canonical(value: Any) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8, no NaN or infinity."""
    fast = _orjson(value)
    return fast if fast is not None else _CANONICAL.encode(value).encode("utf-8")


def sorted_json(value: Any) -> str:
    """JSON as `canonical` writes it, but as text and, as the stdlib does, NaN allowed."""
    fast = _orjson(value)
    return fast.decode("utf-8") if fast is not None else _SORTED.encode(value)


def _orjson(value: Any) -> bytes | None:
    """orjson's bytes for a value it writes exactly as the stdlib would; else None."""
    # Not for a float (other exponents, NaN as null), a key that is not a str (the stdlib
    # sorts int keys as numbers), a subclass, an int past 64 bits or nesting past orjson's
    # limit: those, and whatever it refuses, take the stdlib's way, errors included.
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS) if is_plain(value) else None
    except (orjson.JSONEncodeError, RecursionError):  # RecursionError: a cycle, say
        return None


def is_plain(value: Any) -> bool:
    """Made only of dicts with str keys, lists, str, int, bool and None (no subclasses)."""
    kind = type(value)
    if kind is dict:
        items = value.values()
        for key in value:
            if type(key) is not str:
                return False
    elif kind is list:
        items = value
    else:
        return kind in _LEAVES
    for item in items:  # leaves checked here, not by a call each: every hash walks this
        kind = type(item)
        if kind not in _LEAVES and ((kind is not dict and kind is not list)
                                    or not is_plain(item)):
            return False
    return True


def sha256_hex(data: bytes) -> str:
    """SHA-256 of bytes, lower-case hex."""
    return hashlib.sha256(data).hexdigest()


def commitment(content: dict[str, Any], salt: str) -> str:
    """A secret's commitment: SHA-256 of the salt's hex text then the content's canonical JSON."""
    return sha256_hex(salt.encode("ascii") + canonical(content))


def link_hash(record: dict[str, Any]) -> str:
    """Hash of one event's hashed form (see README, 'Canonical JSON')."""
    return sha256_hex(canonical(record))


def data_hash(doc: Any) -> str:
    """A module's data's content hash: SHA-256 of its canonical JSON (README, 'Module data
    pinned per campaign')."""
    return sha256_hex(canonical(doc))
