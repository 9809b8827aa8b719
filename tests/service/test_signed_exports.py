"""An export carries the service's signed checkpoint of the history it holds: `refit verify
FILE --key KEY` refuses one edited and fully re-chained (its Merkle root no longer the
signed one), and an export made before exports were signed still imports."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from typer.testing import CliRunner

from api.cli import app as cli
from domain.checkpoint import verify_checkpoint
from domain.errors import ImportRefused
from domain.history import record_hash
from infra.application import Refit
from infra.settings import Settings
from infra.transfer import dump_line
from tests.helpers.story import do


def exported(refit: Refit, tmp_path: Path) -> tuple[UUID, list[dict[str, Any]]]:
    """A campaign of six events, exported as the director reads it (no seed)."""
    campaign = refit.commands.create_campaign("pbr", "I", "Signed", "server").id
    for _ in range(3):
        do(refit, campaign, {"type": "advance"})
    return campaign, list(refit.transfer.export(campaign))


def written(lines: list[dict[str, Any]], path: Path) -> str:
    path.write_text("".join(map(dump_line, lines)))
    return str(path)


def verify(path: str, *args: str) -> tuple[int, dict[str, Any]]:
    """`refit verify FILE ... --json`: its exit code and answer."""
    done = CliRunner().invoke(cli, ["verify", path, *args, "--json"])
    return done.exit_code, json.loads(done.stdout)


def rechained(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines with every link and the tail's head hash made anew (a forger's work)."""
    prev = lines[1]["prev_hash"]
    for line in lines[1:-1]:
        line["prev_hash"] = prev
        prev = record_hash(line)
    lines[-1]["head_hash"] = prev
    return lines


def test_an_export_carries_the_checkpoint_of_its_history(refit: Refit, tmp_path: Path) -> None:
    campaign, lines = exported(refit, tmp_path)
    point = verify_checkpoint(lines[-1]["checkpoint"], refit.keys.verifier_keys()[0])
    assert point.size == 6 and lines[-1]["checkpoint"] == refit.proofs.checkpoint(campaign)
    code, found = verify(written(lines, tmp_path / "e.jsonl"), "--key",
                         refit.keys.verifier_keys()[0])
    assert code == 0 and found["checkpoint"] == {"ok": True, "problem": None}


def test_an_edited_and_rechained_export_fails_against_its_signed_checkpoint(
        refit: Refit, tmp_path: Path) -> None:
    _, lines = exported(refit, tmp_path)
    lines[3]["data"]["step"] = "3.61X"  # version 3, public: no seal to break
    forged = written(rechained(lines), tmp_path / "forged.jsonl")
    assert verify(forged)[0] == 0  # the chain alone, without the seed, cannot tell
    code, found = verify(forged, "--key", refit.keys.verifier_keys()[0])
    assert code == 1 and not found["ok"]
    assert "does not match the signed checkpoint" in found["checkpoint"]["problem"]


def test_a_receipt_names_the_version_a_forged_export_altered(refit: Refit,
                                                             tmp_path: Path) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Kept", "server").id
    done = refit.proofs.receipted(campaign, do(refit, campaign, {"type": "advance"}))
    (tmp_path / "r.json").write_text(json.dumps(done.receipt))
    lines = list(refit.transfer.export(campaign))
    lines[2]["data"]["step"] = "3.61X"
    forged = written(rechained(lines), tmp_path / "forged.jsonl")
    code, found = verify(forged, "--receipt", str(tmp_path / "r.json"))
    assert code == 1 and found["first_bad_version"] == 2


def test_an_export_without_a_checkpoint_imports_but_does_not_pass_a_key_check(
        refit: Refit, tmp_path: Path) -> None:
    campaign, lines = exported(refit, tmp_path)
    del lines[-1]["checkpoint"]  # as exports were before they were signed
    old = written(lines, tmp_path / "old.jsonl")
    code, found = verify(old, "--key", refit.keys.verifier_keys()[0])
    assert code == 1 and "carries no signed checkpoint" in found["checkpoint"]["problem"]
    assert verify(old)[0] == 0
    other = Refit(Settings(database_url=f"sqlite:///{tmp_path}/other.db",
                           module_dir=tmp_path / "modules", signing_key_file=tmp_path / "key"))
    try:
        imported = other.transfer.import_export(lambda: iter(lines))
        assert (imported.id, imported.events) == (str(campaign), 6)
    finally:
        other.close()


def imported_into_another(tmp_path: Path, lines: list[dict[str, Any]],
                          key_file: Path) -> Any:
    """The lines imported by another service (its database) signing with `key_file`."""
    other = Refit(Settings(database_url=f"sqlite:///{tmp_path}/other.db",
                           module_dir=tmp_path / "modules", signing_key_file=key_file))
    try:
        return other.transfer.import_export(lambda: iter(lines))
    finally:
        other.close()


def test_an_import_refuses_an_export_its_own_signed_checkpoint_contradicts(
        refit: Refit, tmp_path: Path) -> None:
    _, lines = exported(refit, tmp_path)
    lines[3]["data"]["step"] = "3.61X"
    with pytest.raises(ImportRefused) as refused:  # a service with another key: the root
        imported_into_another(tmp_path, rechained(lines), tmp_path / "key")
    assert refused.value.field == "checkpoint"
    assert "contradicts its own signed checkpoint" in str(refused.value)
    assert "an event was altered and the chain made again" in str(refused.value)


def test_an_import_refuses_a_signature_of_its_own_key_that_does_not_hold(
        refit: Refit, tmp_path: Path) -> None:
    _, lines = exported(refit, tmp_path)
    body, _, signature = lines[-1]["checkpoint"].rstrip("\n").rpartition("\n")
    name, encoded = signature.removeprefix("— ").split(" ")
    raw = bytearray(base64.b64decode(encoded))
    raw[-1] ^= 1  # the signature's last byte: the key id still names this service's key
    lines[-1]["checkpoint"] = f"{body}\n— {name} {base64.b64encode(bytes(raw)).decode()}\n"
    key_file = Path(refit.settings.signing_key_file or tmp_path / "none")
    with pytest.raises(ImportRefused) as refused:
        imported_into_another(tmp_path, lines, key_file)
    assert refused.value.field == "checkpoint" and "does not hold" in str(refused.value)
    del lines[-1]["checkpoint"]  # the same export unsigned imports: the key had its say
    assert imported_into_another(tmp_path, lines, key_file).events == 6
