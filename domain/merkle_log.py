"""A campaign's Merkle log kept as it grows: every complete subtree's hash stored once, so a
root or an inclusion proof of any tree size costs a few lookups, not a pass over every leaf
(the log is append-only: an undone event stays, so a stored subtree never changes).

The trees are RFC 6962's (domain/merkle.py): the same roots and the same proofs.
"""

from __future__ import annotations

from collections.abc import Iterable

from domain import merkle

HASH = 32  # bytes of a SHA-256 hash


class MerkleLog:
    """The leaf hashes of a log, with the hash of every complete, aligned subtree."""

    def __init__(self, leaves: Iterable[bytes] = ()) -> None:
        # levels[h] holds the 32-byte hashes of leaves i*2^h .. (i+1)*2^h - 1, end to end
        # (about 64 bytes a leaf in all, where a list of bytes objects takes twice that).
        self.levels: list[bytearray] = [bytearray()]
        # The last root asked for, by size: a receipt asks for one tree's root once for its
        # checkpoint and once per proof (a tree of a given size never changes).
        self._last_root: tuple[int, bytes] = (0, merkle.EMPTY_ROOT)
        for leaf in leaves:
            self.append(leaf)

    @property
    def size(self) -> int:
        """How many leaves the log holds."""
        return len(self.levels[0]) // HASH

    def leaf(self, index: int) -> bytes:
        """The hash of leaf `index` (0-based)."""
        return self._node(0, index)

    def _node(self, height: int, index: int) -> bytes:
        return bytes(self.levels[height][index * HASH:(index + 1) * HASH])

    def append(self, leaf_hash: bytes) -> None:
        """Add a leaf hash, and every subtree it completes. The leaf is stored last: until
        then the size is the old one, and every subtree a root of that size reads is whole
        (the new subtrees cover the new leaf, which no such root reads)."""
        index, height, node = self.size, 0, leaf_hash
        completed: list[bytes] = []
        while index & 1:  # a right child: its parent is complete now
            node = merkle.node_hash(self._node(height, index - 1), node)
            completed.append(node)
            index, height = index >> 1, height + 1
        for above, parent in enumerate(completed, 1):
            if len(self.levels) == above:
                self.levels.append(bytearray())
            self.levels[above] += parent
        self.levels[0] += leaf_hash

    def range_root(self, start: int, end: int) -> bytes:
        """MTH of leaves start .. end - 1 (end > start), from the stored subtrees."""
        count = end - start
        if count & (count - 1) == 0 and start % count == 0:
            return self._node(count.bit_length() - 1, start // count)
        half = 1 << ((count - 1).bit_length() - 1)
        return merkle.node_hash(self.range_root(start, start + half),
                                self.range_root(start + half, end))

    def root(self, size: int) -> bytes:
        """The root of the tree of the first `size` leaves."""
        self._within(size)
        if size == 0:
            return merkle.EMPTY_ROOT
        last_size, last_root = self._last_root
        if size == last_size:
            return last_root
        root = self.range_root(0, size)
        self._last_root = (size, root)
        return root

    def inclusion(self, index: int, size: int) -> merkle.InclusionProof:
        """The inclusion proof of leaf `index` in the tree of the first `size` leaves."""
        self._within(size)
        if not 0 <= index < size:
            raise ValueError(f"leaf {index} is not in a tree of {size}")
        path = tuple(self.range_root(a, b) for a, b in path_ranges(index, size))
        return merkle.InclusionProof(index, size, self.leaf(index), path, self.root(size))

    def _within(self, size: int) -> None:
        if not 0 <= size <= self.size:
            raise ValueError(f"a tree of {size} leaves is not within a log of {self.size}")


def path_ranges(index: int, size: int, start: int = 0) -> list[tuple[int, int]]:
    """The leaf ranges (start, end) whose roots make leaf `index`'s inclusion path in the
    tree of `size` leaves, nearest the leaf first (RFC 9162 2.1.3.1)."""
    if size <= 1:
        return []
    half = 1 << ((size - 1).bit_length() - 1)
    if index < start + half:
        return [*path_ranges(index, half, start), (start + half, start + size)]
    return [*path_ranges(index, size - half, start + half), (start, start + half)]
