"""Canonical JSON and the SHA-256 hashes that chain a campaign's history."""

from __future__ import annotations

import hashlib
import json
from typing import Any

GENESIS_HASH = "0" * 64


def canonical(value: Any) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8, no floats allowed."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    """SHA-256 of bytes, lower-case hex."""
    return hashlib.sha256(data).hexdigest()


def commitment(content: dict[str, Any], salt: str) -> str:
    """A secret's commitment: SHA-256 of the salt's hex text then the content's canonical JSON."""
    return sha256_hex(salt.encode("ascii") + canonical(content))


def link_hash(record: dict[str, Any]) -> str:
    """Hash of one event's hashed form (see README, 'Canonical JSON')."""
    return sha256_hex(canonical(record))
