"""Receipts (CONTRACT 'Proofs'; docs/audit.md, 'Receipts'): what a command's answer carries
so a player can prove later that the log held its events, the offline check of one, and
the check of a history against one (an edit, a truncated tail, a fork).

A receipt is `{origin, tree_size, root, versions, leaf_hashes, checkpoint, proofs, keys}`:
the signed checkpoint of the log at `tree_size` (the campaign's version after the command),
and each appended version's leaf hash and RFC 6962 inclusion proof in that tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from domain import merkle
from domain.checkpoint import Checkpoint, CheckpointInvalid, verify_checkpoint
from domain.merkle_log import MerkleLog, path_ranges

FIELDS = {"origin": str, "tree_size": int, "versions": list, "leaf_hashes": list,
          "checkpoint": str, "proofs": list, "keys": list}
KINDS = {str: "text", int: "whole number", list: "list"}  # a field's type, said in words


class ReceiptInvalid(ValueError):
    """A receipt that does not prove what it says: the problem, as a sentence."""


def make_receipt(origin: str, log: MerkleLog, size: int, versions: Sequence[int],
                 checkpoint: str, keys: list[str]) -> dict[str, Any]:
    """The receipt of `versions` in the tree of the log's first `size` events."""
    proofs = [log.inclusion(version - 1, size).as_dict() for version in versions]
    return {"origin": origin, "tree_size": size, "root": log.root(size).hex(),
            "versions": list(versions), "leaf_hashes": [p["leaf_hash"] for p in proofs],
            "checkpoint": checkpoint, "proofs": proofs, "keys": keys}


@dataclass(frozen=True)
class ReceiptCheck:
    """What a receipt proves: the log, its size and root, the versions in it, and which
    key signed it (`key_from_receipt`: the receipt's own, which proves nothing alone)."""

    origin: str
    tree_size: int
    root: str
    versions: list[int]
    key: str
    key_from_receipt: bool

    def as_dict(self) -> dict[str, Any]:
        """As JSON."""
        return asdict(self)


def check_receipt(receipt: Any, key: str | None = None) -> ReceiptCheck:
    """Check a receipt offline: the checkpoint's signature by `key` (else by a key the
    receipt names), then each version's inclusion proof against the checkpoint's root."""
    receipt = receipt_of(receipt)
    point, used = _signed(receipt, key)
    if point.size != receipt["tree_size"]:
        raise ReceiptInvalid(f"the checkpoint is of {point.size} events, the receipt says "
                             f"{receipt['tree_size']}")
    if receipt.get("root", point.root.hex()) != point.root.hex():
        raise ReceiptInvalid("the receipt's root is not the checkpoint's")
    versions, hashes, proofs = receipt["versions"], receipt["leaf_hashes"], receipt["proofs"]
    if not len(versions) == len(hashes) == len(proofs):
        raise ReceiptInvalid("the receipt has not one leaf hash and one proof per version")
    for version, leaf, proof in zip(versions, hashes, proofs, strict=True):
        _proved(version, leaf, proof, point)
    return ReceiptCheck(point.origin, point.size, point.root.hex(), list(versions), used,
                        key is None)


def receipt_of(body: Any) -> dict[str, Any]:
    """The receipt itself: the object, or the `receipt` of a command's answer; its fields'
    types checked."""
    if isinstance(body, dict) and isinstance(body.get("receipt"), dict):
        body = body["receipt"]
    if not isinstance(body, dict):
        raise ReceiptInvalid("a receipt is a JSON object (or a command's answer holding one)")
    for name, kind in FIELDS.items():
        if not isinstance(body.get(name), kind) or isinstance(body.get(name), bool):
            raise ReceiptInvalid(f"the receipt's {name} is missing or not a {KINDS[kind]}")
    return body


def _signed(receipt: dict[str, Any], key: str | None) -> tuple[Checkpoint, str]:
    """The checkpoint as the key (or the first of the receipt's keys that can) verifies it."""
    keys = [key] if key is not None else [k for k in receipt["keys"] if isinstance(k, str)]
    if not keys:
        raise ReceiptInvalid("the receipt names no key, and none was given")
    problems = []
    for candidate in keys:
        try:
            return verify_checkpoint(receipt["checkpoint"], candidate, receipt["origin"]), \
                candidate
        except CheckpointInvalid as error:
            problems.append(str(error))
    raise ReceiptInvalid(f"the checkpoint's signature does not check: {'; '.join(problems)}")


def _proved(version: Any, leaf: Any, proof: Any, point: Checkpoint) -> None:
    """One version's inclusion proof leads from its leaf hash to the checkpoint's root."""
    if type(version) is not int or not isinstance(proof, dict):
        raise ReceiptInvalid(f"version {version!r} has no inclusion proof")
    missing = [name for name in ("hashes", "leaf_index", "tree_size") if name not in proof]
    if missing:
        raise ReceiptInvalid(f"version {version}'s proof has no {', '.join(missing)}")
    try:
        leaf_hash = bytes.fromhex(leaf)
        path = [bytes.fromhex(h) for h in proof["hashes"]]
        index, size = proof["leaf_index"], proof["tree_size"]
    except (TypeError, ValueError):
        raise ReceiptInvalid(f"version {version}'s proof is malformed: its leaf hash and "
                             "path are hex SHA-256 hashes") from None
    if (index, size, proof.get("leaf_hash")) != (version - 1, point.size, leaf):
        raise ReceiptInvalid(f"version {version}'s proof is of another leaf or tree")
    if merkle.root_from_inclusion(index, size, leaf_hash, path) != point.root:
        raise ReceiptInvalid(f"version {version}'s inclusion proof does not lead to the "
                             "checkpoint's root")


def history_problem(receipt: dict[str, Any], checked: ReceiptCheck,
                    leaves: Sequence[bytes]) -> tuple[int | None, str] | None:
    """Where a history (its leaf hashes, oldest first) no longer holds what a receipt,
    checked, proves: (the first version found to differ or be missing, if known; why), or
    None when it holds all of it."""
    receipt, size = receipt_of(receipt), checked.tree_size
    found: list[tuple[int, str]] = []
    if len(leaves) < size:
        found.append((len(leaves) + 1, f"the history has {len(leaves)} events, the receipt "
                      f"proves {size}: version {len(leaves) + 1} is missing (truncated)"))
    for version, leaf in zip(receipt["versions"], receipt["leaf_hashes"], strict=True):
        if version <= len(leaves) and leaves[version - 1].hex() != leaf:
            found.append((version, f"version {version} is not the event the receipt proves "
                                   "(its leaf hash differs): it was altered"))
    if found:
        return min(found)
    log = MerkleLog(leaves[:size])
    return None if log.root(size).hex() == checked.root else _fork(receipt, log)


def _fork(receipt: dict[str, Any], log: MerkleLog) -> tuple[int | None, str]:
    """The earliest leaves the receipt's proofs show to differ from the history's."""
    size, ranges = receipt["tree_size"], []
    for version, proof in zip(receipt["versions"], receipt["proofs"], strict=True):
        for (start, end), kept in zip(path_ranges(version - 1, size), proof["hashes"],
                                      strict=True):
            if log.range_root(start, end).hex() != kept:
                ranges.append((start, end))
    why = (f"the first {size} events no longer have the root the receipt's checkpoint "
           "signs (a fork)")
    if not ranges:
        return None, why
    # The narrowest ranges (one holding no other that differs), the earliest of them.
    start, end = min(r for r in ranges if not any(
        o != r and r[0] <= o[0] and o[1] <= r[1] for o in ranges))
    if end - start == 1:
        return end, f"{why}: version {end} differs"
    return None, f"{why}: one of versions {start + 1} to {end} differs"
