"""The Merkle log against RFC 6962's published vectors (as transparency-dev/merkle's
proof/verify_test.go lists them), an independent plain implementation of RFC 9162 2.1,
and properties: every proof verifies, a changed leaf or root does not. The signed notes
against Go's golang.org/x/mod/sumdb/note known answers."""

from __future__ import annotations

import base64
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain import merkle
from domain.checkpoint import (
    CheckpointInvalid,
    checkpoint_body,
    key_id,
    parse_verifier_key,
    verify_checkpoint,
)
from domain.hashing import canonical
from domain.history import hashed_form, redact
from domain.merkle import ConsistencyProof, InclusionProof
from infra.keys import generate, parse_signer_key

# RFC 6962's eight test leaves and the root of each tree of the first 1..8 of them.
LEAVES = [bytes.fromhex(h) for h in ("", "00", "10", "2021", "3031", "40414243",
                                     "5051525354555657", "606162636465666768696a6b6c6d6e6f")]
ROOTS = [bytes.fromhex(h) for h in (
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328")]
# (leaf index, tree size, path) and (size 1, size 2, path), as published.
INCLUSION = [
    (0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (1, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]
CONSISTENCY = [
    (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
    (6, 7, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
]
HASHES = [merkle.leaf_hash(leaf) for leaf in LEAVES]


def plain_root(leaves: list[bytes]) -> bytes:
    """RFC 9162 2.1.1's MTH, written out over the raw leaves (no shared code)."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + plain_root(leaves[:k]) + plain_root(leaves[k:])).digest()


@pytest.mark.parametrize("size", range(1, 9))
def test_the_root_of_each_rfc_6962_test_tree_is_the_published_one(size: int) -> None:
    assert merkle.root(HASHES[:size]) == ROOTS[size - 1]


def test_the_empty_tree_hashes_nothing() -> None:
    assert merkle.root([]).hex() == \
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@pytest.mark.parametrize(("index", "size", "path"), INCLUSION)
def test_an_inclusion_proof_is_the_published_path_and_verifies(
        index: int, size: int, path: list[str]) -> None:
    proof = merkle.inclusion_proof(HASHES[:size], index)
    assert [h.hex() for h in proof.hashes] == path
    assert proof.root == ROOTS[size - 1] and merkle.verify_inclusion(proof)


@pytest.mark.parametrize(("first", "size", "path"), CONSISTENCY)
def test_a_consistency_proof_is_the_published_path_and_verifies(
        first: int, size: int, path: list[str]) -> None:
    proof = merkle.consistency_proof(HASHES[:size], first)
    assert [h.hex() for h in proof.hashes] == path
    assert (proof.first_root, proof.root) == (ROOTS[first - 1], ROOTS[size - 1])
    assert merkle.verify_consistency(proof)


@pytest.mark.parametrize(("index", "size", "path"), INCLUSION)
def test_a_published_inclusion_proof_fails_with_any_part_changed(
        index: int, size: int, path: list[str]) -> None:
    good = InclusionProof(index, size, HASHES[index], tuple(bytes.fromhex(h) for h in path),
                          ROOTS[size - 1])
    flipped = bytes([good.hashes[0][0] ^ 8]) + good.hashes[0][1:]
    for bad in (good.__class__(index + 1, size, good.leaf_hash, good.hashes, good.root),
                good.__class__(index, size * 2, good.leaf_hash, good.hashes, good.root),
                good.__class__(index, size, HASHES[index ^ 1], good.hashes, good.root),
                good.__class__(index, size, good.leaf_hash, good.hashes, ROOTS[0]),
                good.__class__(index, size, good.leaf_hash, good.hashes[:-1], good.root),
                good.__class__(index, size, good.leaf_hash, (*good.hashes, good.root),
                               good.root),
                good.__class__(index, size, good.leaf_hash, (flipped, *good.hashes[1:]),
                               good.root)):
        assert not merkle.verify_inclusion(bad), bad


@pytest.mark.parametrize(("first", "size", "path"), CONSISTENCY)
def test_a_published_consistency_proof_fails_with_any_part_changed(
        first: int, size: int, path: list[str]) -> None:
    hashes = tuple(bytes.fromhex(h) for h in path)
    r1, r2 = ROOTS[first - 1], ROOTS[size - 1]
    for bad in (ConsistencyProof(first - 1, size, r1, hashes, r2),
                ConsistencyProof(first + 1, size, r1, hashes, r2),
                ConsistencyProof(first, size * 2, r1, hashes, r2),
                ConsistencyProof(first, size, r2, hashes, r1),
                ConsistencyProof(first, size, r1, (), r2),
                ConsistencyProof(first, size, r1, hashes[:-1], r2),
                ConsistencyProof(first, size, r1, (*hashes, r1), r2),
                ConsistencyProof(first, size, r1, (hashes[0], *hashes), r2)):
        assert not merkle.verify_consistency(bad), bad


leaf_lists = st.lists(st.binary(max_size=12), min_size=1, max_size=40)


@given(leaf_lists, st.data())
def test_every_inclusion_proof_verifies_and_a_changed_leaf_fails(
        leaves: list[bytes], data: st.DataObject) -> None:
    hashes = [merkle.leaf_hash(leaf) for leaf in leaves]
    index = data.draw(st.integers(0, len(leaves) - 1))
    proof = merkle.inclusion_proof(hashes, index)
    assert proof.root == plain_root(leaves) and merkle.verify_inclusion(proof)
    changed = merkle.leaf_hash(leaves[index] + b"!")
    assert not merkle.verify_inclusion(InclusionProof(
        index, proof.tree_size, changed, proof.hashes, proof.root))


@given(leaf_lists, st.data())
def test_every_consistency_proof_verifies_and_a_changed_old_leaf_fails(
        leaves: list[bytes], data: st.DataObject) -> None:
    hashes = [merkle.leaf_hash(leaf) for leaf in leaves]
    first = data.draw(st.integers(1, len(leaves)))
    proof = merkle.consistency_proof(hashes, first)
    assert proof.first_root == plain_root(leaves[:first])
    assert merkle.verify_consistency(proof)
    at = data.draw(st.integers(0, first - 1))
    forked = plain_root([*leaves[:at], leaves[at] + b"!", *leaves[at + 1:first]])
    assert not merkle.verify_consistency(ConsistencyProof(
        first, proof.tree_size, forked, proof.hashes, proof.root))


def test_a_sealed_events_leaf_is_the_same_redacted_or_not() -> None:
    record = {"campaign": "c", "version": 4, "type": "RGPurchased", "timestamp": "t",
              "prev_hash": "0" * 64, "sealed": "ab" * 32, "salt": "cd" * 16,
              "data": {"side": "German", "actor": "German", "secret_for": "German",
                       "rg": "I1", "cost": 5}}
    assert merkle.event_leaf(record) == merkle.event_leaf(redact(record))
    assert b'"rg"' not in merkle.event_leaf(record)
    # the leaf is the chain's hashed bytes: its plain SHA-256 is the chain hash
    assert hashlib.sha256(merkle.event_leaf(record)).hexdigest() == hashlib.sha256(
        canonical(hashed_form(record))).hexdigest()


# golang.org/x/mod/sumdb/note's known answers (note_test.go: TestSign, TestNewVerifier).
PETER_SIGNER = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
PETER_VERIFIER = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
PETER_TEXT = ("If you think cryptography is the answer to your problem,\n"
              "then you don't know what your problem is.\n")
PETER_NOTE = PETER_TEXT + "\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZIn" \
    "NIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"


def test_a_note_is_signed_byte_for_byte_as_gos_sumdb_note_signs_it() -> None:
    key = parse_signer_key(PETER_SIGNER)
    assert key.verifier_key == PETER_VERIFIER
    assert key.sign(PETER_TEXT) == PETER_NOTE
    assert key.signer_key() == PETER_SIGNER


def test_a_verifier_keys_id_is_the_hash_of_its_name_and_key() -> None:
    name, kid, public = parse_verifier_key(PETER_VERIFIER)
    assert (name, kid.hex()) == ("PeterNeumann", "c74f20a3") == (name, key_id(name, public).hex())
    for bad in ("PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
                "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
                "PeterNeumann+c74f20a3", "Peter Neumann+c74f20a3+ARpc"):
        with pytest.raises(CheckpointInvalid):
            parse_verifier_key(bad)


def test_a_checkpoint_verifies_with_its_key_and_fails_with_another_or_edited() -> None:
    key, other = generate("refit.test"), generate("refit.test")
    tree_root = ROOTS[7]
    note = key.checkpoint("refit.test/campaigns/c", 8, tree_root)
    assert note.startswith(checkpoint_body("refit.test/campaigns/c", 8, tree_root) + "\n")
    point = verify_checkpoint(note, key.verifier_key, "refit.test/campaigns/c")
    assert (point.origin, point.size, point.root) == ("refit.test/campaigns/c", 8, tree_root)
    with pytest.raises(CheckpointInvalid, match="no signature"):
        verify_checkpoint(note, other.verifier_key)
    with pytest.raises(CheckpointInvalid, match="does not hold"):
        verify_checkpoint(note.replace("\n8\n", "\n7\n"), key.verifier_key)
    edited_root = base64.b64encode(ROOTS[6]).decode()
    with pytest.raises(CheckpointInvalid, match="does not hold"):
        verify_checkpoint(note.replace(base64.b64encode(tree_root).decode(), edited_root),
                          key.verifier_key)
    with pytest.raises(CheckpointInvalid, match=r"not 'refit\.test/campaigns/d'"):
        verify_checkpoint(note, key.verifier_key, "refit.test/campaigns/d")


def test_a_co_signature_beside_the_services_is_left_alone() -> None:
    key, side = generate("refit.test"), generate("german")
    note = key.checkpoint("refit.test/campaigns/c", 3, ROOTS[2])
    body = note[:note.index("\n\n") + 1]
    both = note + side.sign(body)[len(body) + 1:]
    assert verify_checkpoint(both, key.verifier_key).size == 3
    assert verify_checkpoint(both, side.verifier_key).size == 3


@given(st.integers(min_value=0, max_value=140))
def test_a_root_made_leaf_by_leaf_is_the_whole_trees_root(count: int) -> None:
    hashes = [merkle.leaf_hash(str(i).encode()) for i in range(count)]
    streaming = merkle.StreamingRoot()
    for leaf in hashes:
        streaming.append(leaf)
    assert streaming.size == count
    assert streaming.root() == merkle.root(hashes)
