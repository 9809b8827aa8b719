"""A receipt file produced once, over RFC 6962's test leaves with Go's PeterNeumann test
key: `refit verify-receipt` checks it with the key alone (no database), the receipt is
remade byte for byte (its root is the RFC's published one), and the check of a history
against it names the version truncated, altered or forked."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from api.cli import app as cli
from domain import merkle
from domain.merkle_log import MerkleLog
from domain.receipt import check_receipt, history_problem, make_receipt
from infra.keys import generate, parse_signer_key
from tests.helpers.paths import DATA

KNOWN = DATA / "receipt_known.json"
SIGNER = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
VERIFIER = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
LEAVES = [merkle.leaf_hash(bytes.fromhex(h)) for h in (
    "", "00", "10", "2021", "3031", "40414243", "5051525354555657",
    "606162636465666768696a6b6c6d6e6f")]
RFC_ROOT_OF_7 = "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c"


def test_the_known_receipt_checks_offline_with_the_key_alone() -> None:
    done = CliRunner().invoke(cli, ["verify-receipt", str(KNOWN), "--key", VERIFIER])
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith(f"{KNOWN}: OK, versions 6, 7 in the signed tree of 7 events")


def test_the_known_receipt_is_remade_byte_for_byte() -> None:
    key = parse_signer_key(SIGNER)
    log = MerkleLog(LEAVES)
    origin = "PeterNeumann/campaigns/00000000-0000-0000-0000-000000000000"
    remade = make_receipt(origin, log, 7, [6, 7], key.checkpoint(origin, 7, log.root(7)),
                          [key.verifier_key])
    assert json.dumps(remade, indent=1, ensure_ascii=False) + "\n" == KNOWN.read_text()
    assert remade["root"] == RFC_ROOT_OF_7


def test_a_history_is_held_or_named_where_it_departs_from_the_known_receipt() -> None:
    receipt = json.loads(KNOWN.read_text())
    checked = check_receipt(receipt, VERIFIER)
    assert history_problem(receipt, checked, LEAVES) is None  # grown by one: still held
    assert history_problem(receipt, checked, LEAVES[:5]) == (
        6, "the history has 5 events, the receipt proves 7: version 6 is missing (truncated)")
    altered = [*LEAVES[:6], merkle.leaf_hash(b"forged")]
    assert history_problem(receipt, checked, altered)[0] == 7  # type: ignore[index]
    forked = [LEAVES[0], merkle.leaf_hash(b"forged"), *LEAVES[2:]]
    assert history_problem(receipt, checked, forked) == (
        None, "the first 7 events no longer have the root the receipt's checkpoint signs (a "
              "fork): one of versions 1 to 4 differs")


def test_the_known_receipt_fails_with_a_flipped_leaf_byte_or_another_key(
        tmp_path: Path) -> None:
    receipt = json.loads(KNOWN.read_text())
    receipt["leaf_hashes"][1] = "ff" + receipt["leaf_hashes"][1][2:]
    flipped = tmp_path / "flipped.json"
    flipped.write_text(json.dumps(receipt))
    done = CliRunner().invoke(cli, ["verify-receipt", str(flipped), "--key", VERIFIER])
    assert done.exit_code == 1 and "version 7's proof is of another leaf" in done.stdout
    another = generate("PeterNeumann").verifier_key  # the same name, another key
    other = CliRunner().invoke(cli, ["verify-receipt", str(KNOWN), "--key", another])
    assert other.exit_code == 1 and "signature does not check" in other.stdout


def test_a_receipt_file_missing_or_not_json_is_refused_not_judged_bad(tmp_path: Path) -> None:
    garbled = tmp_path / "garbled.json"
    garbled.write_text("{not json")
    for path in (tmp_path / "missing.json", garbled):
        done = CliRunner().invoke(cli, ["verify-receipt", str(path), "--key", VERIFIER])
        # Exit 2, a refusal, as `refit verify --receipt` answers it; 1 is a receipt that
        # was read and does not hold.
        assert done.exit_code == 2, done.output
        assert f"{path} is not a JSON file" in done.output and "BAD" not in done.output
