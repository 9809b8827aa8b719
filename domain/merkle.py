"""The campaign's log as an RFC 6962/9162 Merkle tree: its leaves, root, inclusion and
consistency proofs, and their checks (README, 'Merkle log and signed checkpoints').

Leaf i (0-based) is the event at version i+1; its bytes are the event's hashed form in
canonical JSON, the very bytes the hash chain hashes, so a sealed event's leaf covers its
commitment, not its content, and is the same for every reader.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.hashing import canonical
from domain.history import hashed_form

LEAF, NODE = b"\x00", b"\x01"  # RFC 6962 2.1: domain separation of leaves and nodes
EMPTY_ROOT = hashlib.sha256(b"").digest()


def event_leaf(record: dict[str, Any]) -> bytes:
    """A stored event's leaf: the canonical JSON of its hashed form (whoever reads it)."""
    return canonical(hashed_form(record))


def leaf_hash(leaf: bytes) -> bytes:
    """SHA-256(0x00 || leaf)."""
    return hashlib.sha256(LEAF + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256(0x01 || left || right)."""
    return hashlib.sha256(NODE + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def root(hashes: Sequence[bytes]) -> bytes:
    """MTH over leaf hashes (the empty tree's root is SHA-256 of nothing)."""
    if not hashes:
        return EMPTY_ROOT
    if len(hashes) == 1:
        return hashes[0]
    k = _split(len(hashes))
    return node_hash(root(hashes[:k]), root(hashes[k:]))


class StreamingRoot:
    """MTH of leaf hashes appended one by one, keeping only the roots of the complete
    subtrees on the right edge (one node hash a leaf, amortized): a whole log's root in
    one pass, as an export makes it, without keeping every subtree as MerkleLog does."""

    def __init__(self) -> None:
        self.size = 0
        self._edge: list[bytes] = []  # complete subtrees' roots, largest first

    def append(self, leaf: bytes) -> None:
        """Add a leaf hash, merging the subtrees it completes."""
        edge, node, count = self._edge, leaf, self.size
        while count & 1:  # a right child: it completes the subtree to its left
            node = hashlib.sha256(NODE + edge.pop() + node).digest()
            count >>= 1
        edge.append(node)
        self.size += 1

    def root(self) -> bytes:
        """The root of the tree of every leaf appended (RFC 6962 2.1)."""
        if not self._edge:
            return EMPTY_ROOT
        node = self._edge[-1]
        for left in reversed(self._edge[:-1]):
            node = node_hash(left, node)
        return node


@dataclass(frozen=True)
class InclusionProof:
    """That leaf `leaf_index` is in the tree of `tree_size` leaves whose root is `root`."""

    leaf_index: int
    tree_size: int
    leaf_hash: bytes
    hashes: tuple[bytes, ...]
    root: bytes

    def as_dict(self) -> dict[str, Any]:
        """As CONTRACT 'Proofs' writes it (hashes in hex)."""
        return {"leaf_index": self.leaf_index, "tree_size": self.tree_size,
                "leaf_hash": self.leaf_hash.hex(), "hashes": [h.hex() for h in self.hashes],
                "root": self.root.hex()}


@dataclass(frozen=True)
class ConsistencyProof:
    """That the tree of `tree_size` leaves extends the tree of `first_size` leaves."""

    first_size: int
    tree_size: int
    first_root: bytes
    hashes: tuple[bytes, ...]
    root: bytes

    def as_dict(self) -> dict[str, Any]:
        """As JSON: sizes, both roots and the path (hex)."""
        return {"from": self.first_size, "tree_size": self.tree_size,
                "from_root": self.first_root.hex(), "hashes": [h.hex() for h in self.hashes],
                "root": self.root.hex()}


def inclusion_proof(hashes: Sequence[bytes], index: int) -> InclusionProof:
    """PATH(index, D[n]) of RFC 9162 2.1.3.1 over the leaf hashes of a tree."""
    if not 0 <= index < len(hashes):
        raise ValueError(f"leaf {index} is not in a tree of {len(hashes)}")
    return InclusionProof(index, len(hashes), hashes[index], tuple(_path(index, hashes)),
                          root(hashes))


def _path(m: int, d: Sequence[bytes]) -> list[bytes]:
    if len(d) == 1:
        return []
    k = _split(len(d))
    if m < k:
        return [*_path(m, d[:k]), root(d[k:])]
    return [*_path(m - k, d[k:]), root(d[:k])]


def consistency_proof(hashes: Sequence[bytes], first: int) -> ConsistencyProof:
    """PROOF(first, D[n]) of RFC 9162 2.1.4.1 over the leaf hashes of a tree."""
    if not 0 <= first <= len(hashes):
        raise ValueError(f"size {first} is not within a tree of {len(hashes)}")
    path = _subproof(first, hashes, True) if first > 0 else []
    return ConsistencyProof(first, len(hashes), root(hashes[:first]), tuple(path),
                            root(hashes))


def _subproof(m: int, d: Sequence[bytes], whole: bool) -> list[bytes]:
    n = len(d)
    if m == n:
        return [] if whole else [root(d)]
    k = _split(n)
    if m <= k:
        return [*_subproof(m, d[:k], whole), root(d[k:])]
    return [*_subproof(m - k, d[k:], False), root(d[:k])]


def root_from_inclusion(index: int, size: int, leaf: bytes,
                        path: Sequence[bytes]) -> bytes | None:
    """The root an inclusion path leads to (RFC 9162 2.1.3.2), or None if it cannot."""
    if not 0 <= index < size:
        return None
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return r if sn == 0 else None


def verify_inclusion(proof: InclusionProof) -> bool:
    """Whether the proof's path leads from its leaf hash to its root."""
    return root_from_inclusion(proof.leaf_index, proof.tree_size, proof.leaf_hash,
                               proof.hashes) == proof.root


def verify_consistency(proof: ConsistencyProof) -> bool:
    """RFC 9162 2.1.4.2: whether the path proves `root` extends `first_root`."""
    first, second, path = proof.first_size, proof.tree_size, list(proof.hashes)
    if not 0 <= first <= second:
        return False
    if first == second:
        return not path and proof.first_root == proof.root
    if first == 0:
        return not path  # the empty tree is a prefix of every tree
    if not path:
        return False
    if first & (first - 1) == 0:  # a power of two: the old root is the path's start
        path.insert(0, proof.first_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and fr == proof.first_root and sr == proof.root
