"""The Merkle log kept as it grows gives RFC 6962's roots and inclusion proofs (those of
domain/merkle.py, checked against the RFC's vectors) for every tree size, each path made
of the subtrees `path_ranges` names."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from domain import merkle
from domain.merkle_log import MerkleLog, path_ranges


def leaves(count: int) -> list[bytes]:
    return [merkle.leaf_hash(hashlib.sha256(str(i).encode()).digest()) for i in range(count)]


@given(st.integers(min_value=1, max_value=70), st.data())
def test_every_root_and_proof_is_the_one_the_whole_tree_gives(count: int,
                                                               data: st.DataObject) -> None:
    hashes = leaves(count)
    log = MerkleLog(hashes)
    size = data.draw(st.integers(min_value=1, max_value=count))
    index = data.draw(st.integers(min_value=0, max_value=size - 1))
    assert log.root(size) == merkle.root(hashes[:size])
    proof = log.inclusion(index, size)
    assert proof == merkle.inclusion_proof(hashes[:size], index) and merkle.verify_inclusion(proof)
    assert list(proof.hashes) == [merkle.root(hashes[a:b]) for a, b in path_ranges(index, size)]


@example([5, 0])  # the empty tree's root, after another's
@given(st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=12))
def test_roots_asked_in_any_order_as_the_log_grows_are_each_its_trees_own(
        sizes: list[int]) -> None:
    hashes = leaves(40)
    log = MerkleLog()
    for size in sizes:  # the log grows to at least the size asked, then answers its root
        while log.size < size:
            log.append(hashes[log.size])
        assert log.root(size) == (merkle.root(hashes[:size]) if size else merkle.EMPTY_ROOT)


def test_the_empty_log_has_the_empty_root_and_no_larger_tree() -> None:
    log = MerkleLog()
    assert log.root(0) == merkle.EMPTY_ROOT
    with pytest.raises(ValueError, match="not within a log of 0"):
        log.root(1)


def test_a_path_names_the_subtrees_beside_the_leaf_nearest_first() -> None:
    assert path_ranges(3, 6) == [(2, 3), (0, 2), (4, 6)]
    assert path_ranges(4, 6) == [(5, 6), (0, 4)]


def test_while_a_leaf_is_added_the_log_answers_as_it_was_until_the_leaf_is_stored(
        monkeypatch: pytest.MonkeyPatch) -> None:
    hashes = leaves(8)
    log = MerkleLog(hashes[:7])  # the 8th completes subtrees of 2, 4 and 8 leaves
    seen: list[tuple[int, bytes]] = []
    hash_node = merkle.node_hash

    def watched(left: bytes, right: bytes) -> bytes:
        monkeypatch.setattr(merkle, "node_hash", hash_node)  # the reader hashes as usual
        seen.append((log.size, log.root(log.size)))  # a reader in the middle of the append
        monkeypatch.setattr(merkle, "node_hash", watched)
        return hash_node(left, right)
    monkeypatch.setattr(merkle, "node_hash", watched)
    log.append(hashes[7])
    monkeypatch.undo()
    assert seen == [(7, merkle.root(hashes[:7]))] * 3
    assert log.root(8) == merkle.root(hashes) and log.root(7) == merkle.root(hashes[:7])
