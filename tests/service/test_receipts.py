"""Receipts a player keeps (CONTRACT 'Proofs'): each command's receipt checks offline with
only the service's public key, and a receipt taken before an attacker with the database
deletes the last row, truncates the tail, edits the last event or forks the history
proves it: `refit verify ID --receipt FILE` fails and names the version."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from typer.testing import CliRunner

from api.cli import app as cli
from domain import commands as cmd
from domain import merkle
from domain.merkle_log import MerkleLog
from infra.application import Refit
from infra.keys import generate
from infra.settings import Settings
from tests.helpers.story import do
from tests.helpers.tamper import delete_from, edit_event

STEP = b'"step":"3.620"'  # in the last event of the third advance


def played(refit: Refit, tmp_path: Path) -> tuple[UUID, Path]:
    """A campaign of six events; the receipt of the third advance (versions 4 to 6, the
    last a public StepAdvanced), kept in a file."""
    campaign = refit.commands.create_campaign("pbr", "I", "Receipts", "server").id
    for _ in range(2):
        do(refit, campaign, {"type": "advance"})
    done = refit.proofs.receipted(campaign, do(refit, campaign, {"type": "advance"}))
    assert done.receipt is not None and done.receipt["versions"] == [4, 5, 6]
    kept = tmp_path / "receipt.json"
    kept.write_text(json.dumps(done.receipt))
    return campaign, kept


def verify(settings: Settings, *args: str) -> tuple[int, dict[str, Any]]:
    """`refit verify ... --json` on the test's database: its exit code and answer."""
    key = {"REFIT_SIGNING_KEY_FILE": str(settings.signing_key_file)}  # the service's own
    done = CliRunner(env=key).invoke(cli, ["verify", *args, "--db", settings.database_url,
                                           "--json"])
    return done.exit_code, json.loads(done.stdout)


def verify_receipt(path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """`refit verify-receipt FILE ... --json` (no database)."""
    done = CliRunner().invoke(cli, ["verify-receipt", str(path), *args, "--json"])
    return done.exit_code, json.loads(done.stdout)


def test_a_receipt_checks_offline_with_only_the_public_key(refit: Refit, tmp_path: Path) -> None:
    _, kept = played(refit, tmp_path)
    code, found = verify_receipt(kept, "--key", refit.keys.verifier_keys()[0])
    assert code == 0 and found["ok"] and found["versions"] == [4, 5, 6]
    assert found["tree_size"] == 6 and found["note"] is None


def test_without_a_key_the_receipts_own_key_is_used_and_said_to_prove_nothing(
        refit: Refit, tmp_path: Path) -> None:
    _, kept = played(refit, tmp_path)
    code, found = verify_receipt(kept)
    assert code == 0 and found["ok"]
    assert "came from the receipt itself" in found["note"]


def test_a_receipt_with_one_flipped_hash_byte_fails_naming_the_version(
        refit: Refit, tmp_path: Path) -> None:
    _, kept = played(refit, tmp_path)
    receipt = json.loads(kept.read_text())
    proof = receipt["proofs"][1]
    proof["hashes"][0] = ("0" if proof["hashes"][0][0] != "0" else "1") + proof["hashes"][0][1:]
    kept.write_text(json.dumps(receipt))
    code, found = verify_receipt(kept, "--key", refit.keys.verifier_keys()[0])
    assert code == 1 and not found["ok"]
    assert "version 5's inclusion proof does not lead to the checkpoint's root" in \
        found["problem"]


@pytest.mark.parametrize(("change", "said"), [
    (lambda proof: proof.pop("hashes"), "version 5's proof has no hashes"),
    (lambda proof: proof.update(hashes=["zz"]), "version 5's proof is malformed: its leaf "
                                                "hash and path are hex SHA-256 hashes"),
])
def test_a_receipt_whose_proof_is_malformed_fails_saying_what_is_wrong(
        refit: Refit, tmp_path: Path, change: Any, said: str) -> None:
    _, kept = played(refit, tmp_path)
    receipt = json.loads(kept.read_text())
    change(receipt["proofs"][1])
    kept.write_text(json.dumps(receipt))
    code, found = verify_receipt(kept, "--key", refit.keys.verifier_keys()[0])
    assert code == 1 and said in found["problem"] and "Error(" not in found["problem"]


def test_a_receipt_checked_with_another_key_fails_on_the_signature(
        refit: Refit, tmp_path: Path) -> None:
    _, kept = played(refit, tmp_path)
    code, found = verify_receipt(kept, "--key", generate("refit").verifier_key)
    assert code == 1 and "signature" in found["problem"]


def test_a_deleted_last_row_is_named_by_the_receipt(refit: Refit, settings: Settings,
                                                     tmp_path: Path) -> None:
    campaign, kept = played(refit, tmp_path)
    assert verify(settings, str(campaign), "--receipt", str(kept))[0] == 0
    delete_from(settings.database_url, campaign, 6)
    code, found = verify(settings, str(campaign), "--receipt", str(kept))
    assert code == 1 and not found["ok"] and found["first_bad_version"] == 6
    assert "version 6 is missing" in found["receipts"][0]["problem"]


def test_a_truncated_tail_is_named_at_its_first_missing_version(
        refit: Refit, settings: Settings, tmp_path: Path) -> None:
    campaign, kept = played(refit, tmp_path)
    delete_from(settings.database_url, campaign, 4)
    code, found = verify(settings, str(campaign), "--receipt", str(kept))
    assert code == 1 and found["receipts"][0]["version"] == 4
    assert "the history has 3 events, the receipt proves 6" in found["receipts"][0]["problem"]


def test_an_edited_last_event_is_named_by_the_receipt(refit: Refit, settings: Settings,
                                                      tmp_path: Path) -> None:
    campaign, kept = played(refit, tmp_path)
    edit_event(settings.database_url, campaign, 6, STEP, b'"step":"3.621"')
    code, found = verify(settings, str(campaign), "--receipt", str(kept), "--key",
                         refit.keys.verifier_keys()[0])
    assert code == 1 and found["first_bad_version"] == 6
    assert found["receipts"][0]["problem"].startswith("version 6 is not the event the "
                                                      "receipt proves")


def test_an_edit_before_the_receipted_versions_is_found_as_a_fork(
        refit: Refit, settings: Settings, tmp_path: Path) -> None:
    campaign, kept = played(refit, tmp_path)
    edit_event(settings.database_url, campaign, 3, b'"step":"3.619"', b'"step":"3.61X"')
    code, found = verify(settings, str(campaign), "--receipt", str(kept))
    problem = found["receipts"][0]["problem"]
    assert code == 1 and "no longer have the root the receipt's checkpoint signs" in problem
    assert problem.endswith("version 3 differs")  # its own leaf is on version 4's path


def test_a_history_that_only_grew_still_holds_every_receipt(
        refit: Refit, settings: Settings, tmp_path: Path) -> None:
    campaign, kept = played(refit, tmp_path)
    later = refit.proofs.receipted(campaign, do(refit, campaign, {"type": "credit_cpp",
                                                                  "side": "Axis", "amount": 3,
                                                                  "reason": "loss points"}))
    (tmp_path / "later.json").write_text(json.dumps({"receipt": later.receipt}))
    code, found = verify(settings, str(campaign), "--receipt", str(kept),
                         "--receipt", str(tmp_path / "later.json"))
    assert code == 0 and [f["ok"] for f in found["receipts"]] == [True, True]


def test_an_idempotent_repeat_answers_the_first_receipt(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Repeat", "server").id
    command = {"type": "credit_cpp", "side": "Axis", "amount": 3, "reason": "loss points"}
    def send() -> Any:
        done = refit.commands.execute(campaign, cmd.parse_command(command), "director",
                                      idempotency_key="k1")
        return refit.proofs.receipted(campaign, done).receipt
    first = send()
    do(refit, campaign, {"type": "advance"})
    assert send() == first and first["tree_size"] == 2


def counted_reads(refit: Refit, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int | None, int]]:
    """The (lte, gt) of each read of the store's records from now on."""
    asked: list[tuple[int | None, int]] = []
    records = refit.store.records

    def counted(ident: UUID, lte: int | None = None, gt: int = 0) -> Any:
        asked.append((lte, gt))
        return records(ident, lte=lte, gt=gt)
    monkeypatch.setattr(refit.store, "records", counted)
    return asked


def test_the_receipt_cache_reads_only_the_events_after_what_it_holds(
        refit: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Cache", "server").id
    refit.proofs.receipted(campaign, do(refit, campaign, {"type": "advance"}))
    do(refit, campaign, {"type": "advance"})  # appended, no receipt asked for
    asked = counted_reads(refit, monkeypatch)
    done = refit.proofs.receipted(campaign, do(refit, campaign, {"type": "advance"}))
    assert done.receipt is not None
    assert asked == [(done.version, 2)]  # not the continuation of the cached log: read
    leaves = [merkle.leaf_hash(merkle.event_leaf(r)) for r in refit.store.records(campaign)]
    assert done.receipt["root"] == MerkleLog(leaves).root(done.version).hex() == \
        merkle.root(leaves).hex()


def test_a_commands_receipt_takes_its_own_events_without_reading_them_back(
        refit: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Own", "server").id
    refit.proofs.receipted(campaign, do(refit, campaign, {"type": "advance"}))
    asked = counted_reads(refit, monkeypatch)
    done = refit.proofs.receipted(campaign, do(refit, campaign, {"type": "advance"}))
    assert done.receipt is not None and asked == []
    leaves = [merkle.leaf_hash(merkle.event_leaf(r)) for r in refit.store.records(campaign)]
    assert done.receipt["root"] == merkle.root(leaves).hex()


def test_a_result_that_does_not_chain_to_its_head_is_read_back_from_the_store(
        refit: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Forged", "server").id
    refit.proofs.receipted(campaign, do(refit, campaign, {"type": "advance"}))
    done = do(refit, campaign, {"type": "advance"})
    last = done.events[-1]  # forged: not the event that was saved
    forged = [*done.events[:-1], last | {"data": last["data"] | {"actor": "someone else"}}]
    asked = counted_reads(refit, monkeypatch)
    receipted = refit.proofs.receipted(campaign, replace(done, events=forged))
    assert receipted.receipt is not None
    assert asked == [(done.version, 0)]  # the whole log read again
    leaves = [merkle.leaf_hash(merkle.event_leaf(r)) for r in refit.store.records(campaign)]
    assert receipted.receipt["root"] == merkle.root(leaves).hex()


def test_the_receipt_cache_starts_again_when_the_store_no_longer_extends_it(
        refit: Refit, settings: Settings) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Rewritten", "server").id
    do(refit, campaign, {"type": "advance"})
    refit.proofs.receipt(campaign, [2], 2)
    delete_from(settings.database_url, campaign, 2)
    refit.store.forget(campaign)
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "x"})
    do(refit, campaign, {"type": "advance"})
    leaves = [merkle.leaf_hash(merkle.event_leaf(r)) for r in refit.store.records(campaign)]
    assert refit.proofs.receipt(campaign, [3], 3)["root"] == merkle.root(leaves).hex()
