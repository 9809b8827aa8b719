"""Co-signing (CONTRACT 'Proofs'): both sides of Arnhem register keys, play to 9.610 where
the German rolls in secret, and co-sign the checkpoint at the end of the step; verify says
both signed it, and a history a forger edits and re-chains is refused, as is every
co-signature that is not the side's over this very log."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from domain import merkle
from domain.checkpoint import checkpoint_body
from domain.cosigned import CosignWatch
from domain.errors import CampaignNotFound, ImportRefused, InvalidCommand
from domain.hashing import GENESIS_HASH
from domain.history import record_hash
from domain.verify import verify_records
from infra.application import Refit
from infra.cosigning import cosign
from infra.keys import ServiceKey, generate
from infra.settings import Settings
from tests.domain.test_history import tamper
from tests.helpers.refusals import refused as refused_as
from tests.helpers.story import abtf_campaign, do, to_reph_step

GERMAN, BRITISH = generate("Kampfgruppe-Frost"), generate("2nd-Para-Bn")


@pytest.fixture
def other(other_database_url: str, tmp_path: Path) -> Iterator[Refit]:
    """The application on the other database (an importer's)."""
    app = Refit(Settings(database_url=other_database_url, module_dir=tmp_path / "modules"))
    yield app
    app.close()


def register(refit: Refit, campaign: UUID, side: str, key: ServiceKey,
             actor: str | None = None) -> None:
    """A side registers its key (or the director for it)."""
    do(refit, campaign, {"type": "register_key", "side": side, "key": key.verifier_key},
       actor or side)


def cosign_as(refit: Refit, campaign: UUID, side: str, note: str) -> None:
    """A side sends its co-signed checkpoint."""
    do(refit, campaign, {"type": "cosign_checkpoint", "side": side, "checkpoint": note}, side)


def arnhem_step_played(refit: Refit, name: str) -> UUID:
    """Both sides register keys (the British through the director); the German rolls in
    secret at 9.610 and the British in public."""
    campaign = abtf_campaign(refit, name)
    register(refit, campaign, "German", GERMAN)
    register(refit, campaign, "British", BRITISH, actor="director")
    to_reph_step(refit, campaign, "9.610")
    do(refit, campaign, {"type": "roll", "table": "9.6101", "side": "German", "secret": True,
                         "subject": "unit:Hptstf.Brinkmann"}, "German")
    do(refit, campaign, {"type": "roll", "table": "9.6101", "side": "British",
                         "subject": "unit:Lt.Grayburn"}, "British")
    return campaign


def both_cosign(refit: Refit, campaign: UUID) -> int:
    """Both sides co-sign the checkpoint of the step's end; its size."""
    note = refit.proofs.checkpoint(campaign)
    german = cosign(note, GERMAN)
    cosign_as(refit, campaign, "German", german)
    cosign_as(refit, campaign, "British", cosign(german, BRITISH))
    return int(note.split("\n")[1])


def test_both_sides_cosign_the_end_of_a_step_and_verify_says_so(refit: Refit) -> None:
    campaign = arnhem_step_played(refit, "Both sign")
    size = both_cosign(refit, campaign)
    root = merkle.root(refit.proofs.leaves(campaign, size)).hex()
    for viewer in (None, "British", "German"):  # the German's secret roll is sealed
        report = refit.reads.verify(campaign, viewer)
        assert report.ok, report.problem
        assert report.cosigned == ({"size": size, "root": root,
                                    "sides": ["British", "German"], "all_sides": True,
                                    "keys": {"British": BRITISH.verifier_key,
                                             "German": GERMAN.verifier_key}},)
    stored = [r for r in refit.store.records(campaign) if r["type"] == "CheckpointCosigned"]
    assert [(r["data"]["side"], r["data"]["size"], r["data"]["root"]) for r in stored] == \
        [("German", size, root), ("British", size, root)]


def test_a_checkpoint_one_side_signed_is_not_reported_as_signed_by_both(refit: Refit) -> None:
    campaign = arnhem_step_played(refit, "One signs")
    cosign_as(refit, campaign, "German", cosign(refit.proofs.checkpoint(campaign), GERMAN))
    (point,) = refit.reads.verify(campaign).cosigned
    assert point["sides"] == ["German"] and point["all_sides"] is False


def refused(refit: Refit, campaign: UUID, body: dict[str, Any], actor: str) -> InvalidCommand:
    """The command is refused as invalid (422) and appends nothing."""
    error = refused_as(refit, campaign, body, actor)
    assert isinstance(error, InvalidCommand), error
    return error


def test_a_cosignature_not_the_sides_over_this_log_is_refused(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Refusals")
    note = refit.proofs.checkpoint(campaign)
    body = {"type": "cosign_checkpoint", "side": "German", "checkpoint": cosign(note, GERMAN)}
    unregistered = refused(refit, campaign, body, "German")
    assert unregistered.field == "side" and "registered no key" in unregistered.message
    register(refit, campaign, "German", GERMAN)
    stranger = refused(refit, campaign, body | {"checkpoint": cosign(note, generate(
        "Kampfgruppe-Frost"))}, "German")  # the name, not the key
    assert stranger.field == "checkpoint" and "no signature by" in stranger.message
    line = cosign(note, GERMAN).splitlines()[-1]
    name, signature = line.rsplit(" ", 1)
    raw = bytearray(base64.b64decode(signature))
    raw[-1] ^= 1
    forged = note + f"{name} {base64.b64encode(bytes(raw)).decode()}\n"
    bad = refused(refit, campaign, body | {"checkpoint": forged}, "German")
    assert bad.field == "checkpoint" and "does not hold" in bad.message


def test_a_checkpoint_of_another_root_size_or_log_is_refused(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Wrong statements")
    register(refit, campaign, "German", GERMAN)
    size = refit.store.campaign(campaign).version
    origin = refit.proofs.origin(campaign)
    root = merkle.root(refit.proofs.leaves(campaign, size))

    def signed(origin: str, size: int, root: bytes) -> dict[str, Any]:
        return {"type": "cosign_checkpoint", "side": "German",
                "checkpoint": GERMAN.sign(checkpoint_body(origin, size, root))}
    wrong_root = refused(refit, campaign, signed(origin, size, bytes(32)), "German")
    assert wrong_root.field == "checkpoint" and f"root at size {size}" in wrong_root.message
    unknown = refused(refit, campaign, signed(origin, size + 5, root), "German")
    assert unknown.field == "checkpoint" and "not a size of this log" in unknown.message
    elsewhere = refused(refit, campaign, signed("other/campaigns/x", size, root), "German")
    assert elsewhere.field == "checkpoint" and "not of this log" in elsewhere.message
    cosign_as(refit, campaign, "German", signed(origin, size, root)["checkpoint"])
    again = refused(refit, campaign, signed(origin, size, root), "German")
    assert "co-signed size" in again.message


def test_a_malformed_or_anothers_key_is_refused_naming_the_key(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Bad keys")
    body = {"type": "register_key", "side": "German"}
    for key in ("not-a-key", GERMAN.verifier_key[:-4] + "AAAA", "a+b+c+d"):
        assert refused(refit, campaign, body | {"key": key}, "German").field == "key"
    register(refit, campaign, "British", BRITISH)
    taken = refused(refit, campaign, body | {"key": BRITISH.verifier_key}, "German")
    assert taken.field == "key" and "British" in taken.message


def test_a_replaced_key_is_recorded_and_old_cosignatures_still_hold(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "New key")
    register(refit, campaign, "German", GERMAN)
    first = refit.proofs.checkpoint(campaign)
    cosign_as(refit, campaign, "German", cosign(first, GERMAN))
    newer = generate("Kampfgruppe-Frost-2")
    register(refit, campaign, "German", newer)
    (replaced,) = [r for r in refit.store.records(campaign)
                   if r["type"] == "SideKeyRegistered" and r["data"]["replaces"]]
    assert replaced["data"]["key"] == newer.verifier_key
    assert replaced["data"]["replaces"] == GERMAN.verifier_key
    late = refit.proofs.checkpoint(campaign)
    old_key = refused(refit, campaign, {"type": "cosign_checkpoint", "side": "German",
                                        "checkpoint": cosign(late, GERMAN)}, "German")
    assert "no signature by Kampfgruppe-Frost-2" in old_key.message
    cosign_as(refit, campaign, "German", cosign(late, newer))
    report = refit.reads.verify(campaign)
    assert report.ok and [p["keys"]["German"] for p in report.cosigned] == [
        GERMAN.verifier_key, newer.verifier_key]


def test_a_side_that_marked_its_part_done_still_cosigns(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Done then sign")
    register(refit, campaign, "German", GERMAN)
    do(refit, campaign, {"type": "advance", "side": "German"}, "German")
    cosign_as(refit, campaign, "German", cosign(refit.proofs.checkpoint(campaign), GERMAN))
    assert refit.reads.verify(campaign).cosigned[0]["sides"] == ["German"]


def exported(refit: Refit, campaign: UUID) -> list[dict[str, Any]]:
    """The director's export, as lines, with the private seed (to move the campaign)."""
    return list(refit.transfer.export(campaign, private=True))


def forged(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The export with its first event edited (the campaign renamed, which no roll check
    reads; the header too) and every link after it re-chained, the tail naming the new
    head: what a forger with the database can make."""
    header, *events, tail = json.loads(json.dumps(lines))
    events[0]["data"]["name"] = header["name"] = "Arnhem, as the winner tells it"
    prev = GENESIS_HASH
    for record in events:
        record["prev_hash"] = prev
        prev = record_hash(record)
    return [header, *events, tail | {"head_hash": prev}]


def test_a_rechained_history_that_contradicts_a_cosigned_checkpoint_is_refused(
        refit: Refit, other: Refit) -> None:
    campaign = arnhem_step_played(refit, "Forged")
    size = both_cosign(refit, campaign)
    lines = exported(refit, campaign)
    forgery = forged(lines)
    events = [line for line in forgery if "version" in line]
    assert verify_records(events).ok  # the SHA-256 chain alone no longer finds it
    first_cosign = next(r["version"] for r in events if r["type"] == "CheckpointCosigned")
    watch = CosignWatch()
    report = watch.checked(verify_records(watch.lines(events)))
    assert not report.ok and report.first_bad_version == first_cosign
    with pytest.raises(ImportRefused) as refusal:
        other.transfer.import_export(lambda: iter(forgery))
    assert f"at version {first_cosign}" in refusal.value.message
    assert f"at size {size}" in refusal.value.message
    with pytest.raises(CampaignNotFound):  # nothing was written
        other.store.campaign(campaign)
    imported = other.transfer.import_export(lambda: iter(lines))
    assert imported.events == len(events) and other.reads.verify(campaign).cosigned


def test_an_import_is_refused_when_it_contradicts_a_checkpoint_the_importer_holds(
        refit: Refit, other: Refit) -> None:
    campaign = arnhem_step_played(refit, "Held")
    held = cosign(refit.proofs.checkpoint(campaign), GERMAN)  # kept, never sent
    size = int(held.split("\n")[1])
    lines = exported(refit, campaign)
    header, *events, tail = lines
    cut = [header, *events[:size - 1], tail | {"events": size - 1,
                                              "head_hash": record_hash(events[size - 2])}]
    with pytest.raises(ImportRefused) as short:  # the tail truncated
        other.transfer.import_export(lambda: iter(cut), [held])
    assert short.value.field == "checkpoint" and f"of size {size}" in short.value.message
    with pytest.raises(ImportRefused) as edited:
        other.transfer.import_export(lambda: iter(forged(lines)), [held])
    assert edited.value.field == "checkpoint" and f"at size {size}" in edited.value.message
    with pytest.raises(ImportRefused) as garbled:
        other.transfer.import_export(lambda: iter(lines), ["not a checkpoint"])
    assert garbled.value.field == "checkpoint"
    assert other.transfer.import_export(lambda: iter(lines), [held]).events == len(events)


def test_cosigning_goes_on_after_cg_end_and_after_an_undo(refit: Refit) -> None:
    campaign = arnhem_step_played(refit, "After the end")
    before_undo = refit.store.campaign(campaign).version
    refit.audit.undo(campaign, "the British roll was a mistake", "director",
                     to_version=before_undo - 1)
    assert refit.store.campaign(campaign).cosigning.keys.keys() == {"German", "British"}
    do(refit, campaign, {"type": "end_cg", "reason": "concession", "side": "German"})
    size = both_cosign(refit, campaign)
    report = refit.reads.verify(campaign)
    assert report.ok and report.cosigned[-1]["size"] == size
    assert report.cosigned[-1]["all_sides"]


def test_a_stored_cosignature_edited_behind_the_ledger_fails_verify_at_its_version(
        refit: Refit, database_url: str) -> None:
    campaign = arnhem_step_played(refit, "Edited row")
    both_cosign(refit, campaign)
    last = list(refit.store.records(campaign))[-1]  # the British co-signature: nothing
    root = last["data"]["root"]                      # links after it
    other_root = ("0" if root[0] != "0" else "1") + root[1:]
    tamper(database_url, campaign, last["version"], root.encode(), other_root.encode())
    report = refit.reads.verify(campaign)
    assert not report.ok and report.first_bad_version == last["version"]
    assert f"co-signed root {other_root}" in str(report.problem)
