"""What a history's co-signatures prove (CONTRACT 'Proofs'): every CheckpointCosigned is
checked against the history itself (its Merkle root at that size) and against the side's
key registered before it; a verify names the checkpoints co-signed and by whom.

A forger can re-chain an edited history's SHA-256 links, but cannot sign for a side: the
root he recomputes no longer matches the one a side signed, and verify names its version.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from domain import merkle
from domain.checkpoint import (
    DASH,
    Checkpoint,
    CheckpointInvalid,
    checkpoint_body,
    parse_verifier_key,
    signed_note,
    verify_checkpoint,
)
from domain.hashing import sha256_hex
from domain.history import record_hash
from domain.verify import VerifyReport, verify_export


def cosignature_holds(key: str, origin: str, size: int, root: bytes, signature: str) -> bool:
    """Whether `signature` (base64(key id || Ed25519 signature), a note line's) is the
    key's over the checkpoint `origin`, `size`, `root`."""
    try:
        line = f"{DASH}{parse_verifier_key(key)[0]} {signature}\n"
        verify_checkpoint(signed_note(checkpoint_body(origin, size, root), [line]), key)
    except CheckpointInvalid:
        return False
    return True


class CosignWatch:
    """The co-signatures of a history, checked as its records pass (`see`, in version
    order, other lines let through): what they prove, and the first that fails."""

    def __init__(self) -> None:
        self.leaves: list[bytes] = []  # the leaf hash of each event so far
        self.campaign: str | None = None  # the campaign id its first event names
        self.sides: list[str] = []
        self.keys: dict[str, str] = {}  # side -> its key registered so far
        self.signed: dict[tuple[int, str], dict[str, str]] = {}  # (size, root) -> side: key
        self.bad: tuple[int, str] | None = None  # the first failing co-signature's version
        self.last: tuple[dict[str, Any], bytes] | None = None  # the last record, its leaf
        self.tail_checkpoint: object = None  # the signed checkpoint an export's tail carries

    def see(self, record: dict[str, Any]) -> dict[str, Any]:
        """Take note of a record; give it back."""
        if "version" not in record:  # an export's header or tail
            if "head_hash" in record:
                self.tail_checkpoint = record.get("checkpoint")
            return record
        leaf = _event_leaf(record)
        self.last = (record, leaf) if leaf is not None else None
        self.leaves.append(merkle.leaf_hash(leaf) if leaf is not None else b"")
        kind, data = record.get("type"), record.get("data")
        data = data if isinstance(data, dict) else {}
        if kind == "Created":
            self.campaign, self.sides = record.get("campaign"), list(data.get("sides") or [])
        elif kind == "SideKeyRegistered":
            self.keys[str(data.get("side"))] = str(data.get("key"))
        elif kind == "CheckpointCosigned" and self.bad is None:
            problem = self._problem(record["version"], data)
            if problem is not None:
                self.bad = (record["version"], problem)
        return record

    def hash_of(self, record: dict[str, Any]) -> str:
        """A record's chain hash: from the leaf just worked out, if it is the record
        last seen (the verifier hashes each record right after the watch sees it)."""
        if self.last is not None and self.last[0] is record:
            return sha256_hex(self.last[1])
        return record_hash(record)

    def lines(self, lines: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """The lines, each seen as it passes."""
        return map(self.see, lines)

    def root_at(self, size: int) -> bytes | None:
        """The history's Merkle root at a tree size (None: it is not that long)."""
        return merkle.root(self.leaves[:size]) if 1 <= size <= len(self.leaves) else None

    def _problem(self, version: int, data: dict[str, Any]) -> str | None:
        """Why a co-signature does not hold (None: it does), and note it when it does."""
        side, size, root = data.get("side"), data.get("size"), data.get("root")
        key = self.keys.get(str(side))
        if key is None:
            return f"the {side} co-signed at version {version} with no key registered"
        if type(size) is not int or not 1 <= size < version or not isinstance(root, str):
            return f"version {version} co-signs size {size!r}, not a size before it"
        actual = merkle.root(self.leaves[:size]).hex()
        if root != actual:
            return (f"the {side} co-signed root {root} at size {size} (version {version}); "
                    f"the history's root there is {actual}")
        if not cosignature_holds(key, str(data.get("origin")), size, bytes.fromhex(root),
                                 str(data.get("signature"))):
            return f"the {side}'s co-signature of size {size} does not hold with its key"
        self.signed.setdefault((size, root), {})[str(side)] = key
        return None

    def cosigned(self) -> list[dict[str, Any]]:
        """Each checkpoint co-signed: its size, root (hex), the sides that signed it with
        their keys, and whether every side did."""
        found = []
        for (size, root), signers in sorted(self.signed.items()):
            sides = [side for side in self.sides if side in signers]
            found.append({"size": size, "root": root, "sides": sides,
                          "keys": {side: signers[side] for side in sides},
                          "all_sides": set(self.sides) <= set(signers)})
        return found

    def checked(self, report: VerifyReport) -> VerifyReport:
        """The report with what the co-signatures prove, failing at the first that does
        not hold if that comes first."""
        cosigned = tuple(self.cosigned())
        if self.bad is not None and (report.first_bad_version is None
                                     or self.bad[0] < report.first_bad_version):
            return dataclasses.replace(report, ok=False, first_bad_version=self.bad[0],
                                       problem=self.bad[1], cosigned=cosigned)
        return dataclasses.replace(report, cosigned=cosigned)


def _event_leaf(record: dict[str, Any]) -> bytes | None:
    """A record's leaf bytes; None for a malformed record (its leaf hash is then empty:
    the chain check names it, and no root over it is any root signed)."""
    try:
        return merkle.event_leaf(record)
    except (KeyError, TypeError, AttributeError, ValueError):
        return None


def held_checkpoint_problem(watch: CosignWatch, point: Checkpoint,
                            named: str = "the checkpoint you hold") -> str | None:
    """Why a history contradicts a checkpoint someone holds (None: it agrees)."""
    size, root = point.size, point.root
    if not point.origin.endswith(f"/campaigns/{watch.campaign}"):
        return f"{named} is of {point.origin!r}, not of campaign {watch.campaign}"
    actual = watch.root_at(size)
    if actual is None:
        return f"{named} is of size {size}; the history has {len(watch.leaves)} events"
    if actual != root:
        return f"{named} states root {root.hex()} at size {size}; the history's root " \
               f"there is {actual.hex()}"
    return None



def verify_cosigned_export(lines: Iterable[dict[str, Any]]) -> tuple[VerifyReport, CosignWatch]:
    """`verify_export` of an export's lines, with what their co-signatures prove (the
    watch keeps the history's leaves, to compare a checkpoint someone holds)."""
    watch = CosignWatch()
    return watch.checked(verify_export(watch.lines(lines), watch.hash_of)), watch
