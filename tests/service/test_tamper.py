"""An attacker with database access edits rows behind the service's back: verify names
exactly the first altered version, and caches (snapshots, view rows) never change an
answer or let a token in."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from uuid import UUID

import pytest

from domain.campaign.access import token_hash
from domain.hashing import GENESIS_HASH
from domain.history import record_hash
from domain.verify import verify_export
from infra.application import Refit
from infra.settings import Settings
from infra.transfer import ImportRefused, dump_line, parse_lines
from projections import runner
from tests.helpers.http import auth, serving
from tests.helpers.story import do, load_abtf_owner_data, to_reph_step
from tests.helpers.tamper import (
    database,
    delete_event,
    edit_checkpoint,
    edit_event,
    edit_snapshot,
    edit_view_row,
    swap_events,
)

SNAPSHOT_EVERY = 5
service = contextmanager(serving)


@pytest.fixture
def snapshotting(settings: Settings) -> Settings:
    """Settings that snapshot a campaign every few events."""
    return settings.model_copy(update={"snapshot_interval": SNAPSHOT_EVERY})


@pytest.fixture
def app(snapshotting: Settings) -> Iterator[Refit]:
    refit = Refit(snapshotting)
    yield refit
    refit.close()


@pytest.fixture
def fresh(snapshotting: Settings) -> Iterator[Callable[[], Refit]]:
    """Another process on the same database, started when the test asks (nothing cached)."""
    started: list[Refit] = []

    def start() -> Refit:
        started.append(Refit(snapshotting))
        return started[-1]
    yield start
    for refit in started:
        refit.close()


def played(refit: Refit, reveal: bool = False) -> UUID:
    """An ABtF campaign with three public rolls (the seed revealed if asked)."""
    load_abtf_owner_data(refit)
    campaign = refit.commands.create_campaign("abtf", "I", "Arnhem", "server").id
    to_reph_step(refit, campaign, "9.610")
    for subject in ("unit:Lt.Grayburn", "unit:Maj.Crawley", "unit:Capt.Frost"):
        do(refit, campaign, {"type": "roll", "table": "9.6101", "side": "British",
                             "subject": subject})
    if reveal:
        do(refit, campaign, {"type": "reveal_seed"})
    return campaign


def verified(settings: Settings, campaign: UUID) -> dict:
    """verify's report, read by a fresh process (nothing cached)."""
    refit = Refit(settings)
    try:
        return refit.reads.verify(campaign).as_dict()
    finally:
        refit.close()


@pytest.mark.parametrize("where", ["first", "middle", "last but one"])
def test_an_edited_event_is_named_at_its_own_version(app: Refit, snapshotting: Settings,
                                                     where: str) -> None:
    campaign = played(app)
    head = app.store.campaign(campaign).version
    version = {"first": 1, "middle": head // 2, "last but one": head - 1}[where]
    edit_event(snapshotting.database_url, campaign, version, b'"_data_":"20',
               b'"_data_":"19')
    report = verified(snapshotting, campaign)
    assert not report["ok"] and report["first_bad_version"] == version
    assert report["problem"].startswith(f"version {version} was altered")


def test_two_swapped_events_are_named_at_the_first(app: Refit, snapshotting: Settings) -> None:
    campaign = played(app)
    swap_events(snapshotting.database_url, campaign, 4, 7)
    report = verified(snapshotting, campaign)
    assert not report["ok"] and report["first_bad_version"] == 4


def test_two_swapped_neighbours_are_named_at_the_first(app: Refit,
                                                       snapshotting: Settings) -> None:
    campaign = played(app)
    swap_events(snapshotting.database_url, campaign, 6, 7)
    assert verified(snapshotting, campaign)["first_bad_version"] == 6


def test_a_deleted_middle_event_is_named(app: Refit, snapshotting: Settings) -> None:
    campaign = played(app)
    delete_event(snapshotting.database_url, campaign, 6)
    report = verified(snapshotting, campaign)
    assert not report["ok"] and report["first_bad_version"] == 6
    assert report["problem"] == "version 6 is missing (found 7)"


def test_an_untouched_campaign_has_no_cache_finding(app: Refit) -> None:
    campaign = played(app)
    report = app.reads.verify(campaign)
    assert report.ok and report.caches == ()


def test_an_edited_snapshot_is_named_and_lets_no_forged_token_in(
        snapshotting: Settings) -> None:
    forged = "forged-director-token"
    with service(snapshotting) as client:
        made = client.post("/campaigns", headers=auth("admin-token-for-tests"),
                           json={"module": "pbr", "cg": "I", "name": "Ranville"}).json()
        for amount in range(1, SNAPSHOT_EVERY + 1):  # past a snapshot
            client.post(f"/campaigns/{made['id']}/commands",
                        headers=auth(made["tokens"]["director"]),
                        json={"type": "credit_cpp", "side": "Axis", "amount": amount,
                              "reason": "test"}).raise_for_status()
    campaign = UUID(made["id"])
    refit = Refit(snapshotting)
    try:
        state = refit.store.campaign(campaign)
        real = state.access.token_hashes["director"]
        snapshot = state.version - state.version % SNAPSHOT_EVERY
    finally:
        refit.close()
    edit_snapshot(snapshotting.database_url, campaign, snapshot, real.encode(),
                  token_hash(forged).encode())
    with service(snapshotting) as client:  # a fresh service: nothing cached
        answer = client.get(f"/campaigns/{campaign}", headers=auth(forged))
        assert answer.status_code == 401, answer.text
        assert client.get(f"/campaigns/{campaign}",
                          headers=auth(made["tokens"]["director"])).status_code == 200
    report = verified(snapshotting, campaign)
    assert not report["ok"] and report["first_bad_version"] is None
    assert report["caches"] == [f"snapshot at version {snapshot} differs from the events "
                                "(director token hash)"]
    refit = Refit(snapshotting)
    try:  # the load that passed it over left a sealed snapshot of the head in its place
        kept = list(refit.store.snapshots.get(campaign, desc=True, limit=1))
        assert [s.originator_version for s in kept] == [refit.store.campaign(campaign).version]
    finally:
        refit.close()


def exported(refit: Refit, campaign: UUID) -> list[dict]:
    """The operator's export (with the private seed), as lines."""
    return list(parse_lines(dump_line(line) for line in refit.transfer.export(
        campaign, private=True)))


def rechained(lines: list[dict]) -> list[dict]:
    """An export whose events are linked again and whose tail names the new head."""
    prev = GENESIS_HASH
    for line in lines[1:-1]:
        line["prev_hash"] = prev
        prev = record_hash({k: v for k, v in line.items() if k != "private"})
    lines[-1]["head_hash"] = prev
    return lines


@pytest.fixture
def elsewhere(tmp_path: Path) -> Iterator[Refit]:
    """Another service, on a database of its own, that an export is imported into."""
    refit = Refit(Settings(database_url=f"sqlite:///{tmp_path / 'elsewhere.db'}",
                           module_dir=tmp_path / "modules",
                           signing_key_file=tmp_path / "elsewhere-key"))
    yield refit
    refit.close()


@pytest.mark.parametrize("reveal", [False, True])
def test_a_rechained_export_with_forged_dice_fails_where_the_seed_shows_it(
        app: Refit, elsewhere: Refit, reveal: bool) -> None:
    campaign = played(app, reveal)
    lines = exported(app, campaign)
    roll = next(line for line in lines[1:-1] if line.get("type") == "DiceRolled")
    data = roll["data"]
    data["dice"] = [7 - die for die in data["dice"]]  # the other faces, the arithmetic kept
    data["original"] = sum(data["dice"])
    data["final"] = data["original"] + sum(d["value"] for d in data["drm"])
    report = verify_export(rechained(lines))
    assert not report.ok and report.first_bad_version == roll["version"]
    assert "does not match its seed's dice" in str(report.problem)
    with pytest.raises(ImportRefused, match=f"at version {roll['version']}: roll"):
        elsewhere.transfer.import_export(lambda: json.loads(json.dumps(lines)))


def test_a_rechained_export_switched_to_entered_dice_fails_at_its_creation(
        app: Refit) -> None:
    campaign = played(app)
    lines = exported(app, campaign)
    lines[1]["data"]["dice"] = "entered"
    report = verify_export(rechained(lines))
    assert not report.ok and report.first_bad_version == 1
    assert report.problem == "an entered-dice campaign commits to a dice seed"


def test_an_export_whose_private_seed_opens_no_commitment_is_refused(app: Refit) -> None:
    campaign = played(app)
    lines = exported(app, campaign)
    lines[1]["private"]["seed"] = "00" * 32
    report = verify_export(lines)
    assert not report.ok and report.first_bad_version == 1
    assert report.problem == "the private seed does not match its commitment"


def test_an_edited_view_row_changes_no_answer_and_verify_names_it(
        app: Refit, snapshotting: Settings, fresh: Callable[[], Refit]) -> None:
    campaign = played(app)
    app.views.catch_up()
    edit_view_row(snapshotting.database_url, campaign, "roster", "17N", '"cpp_start":0',
                  '"cpp_start":9')
    other = fresh()
    report = other.reads.verify(campaign)
    assert not report.ok and report.first_bad_version is None
    assert report.caches == ("roster view row 17N differs from the events "
                             "(sides.British.cpp_start)",)
    assert other.reads.roster(campaign)[0].sides["British"].cpp_start == 0
    assert other.reads.verify(campaign).ok  # the read wrote the rows afresh, sealed


def test_an_edited_meta_row_changes_neither_the_status_nor_the_listing(
        app: Refit, snapshotting: Settings, fresh: Callable[[], Refit]) -> None:
    campaign = played(app)
    app.views.catch_up()
    edit_view_row(snapshotting.database_url, campaign, "meta", "", '"Arnhem"', '"Forged"')
    other = fresh()
    assert other.reads.verify(campaign).caches == (
        "meta view row (the campaign) differs from the events (name)",)
    assert [status.name for status in other.reads.campaigns()] == ["Arnhem"]
    assert other.reads.status(campaign).name == "Arnhem"
    do(other, campaign, {"type": "roll", "table": "9.6101", "side": "German",
                         "subject": "unit:Hptstf.Brinkmann"})
    other.views.catch_up()  # the fold found the meta row's seal broken: rows afresh
    assert other.reads.verify(campaign).ok


def test_a_view_row_from_before_the_seal_is_sealed_once_as_it_stands(
        app: Refit, snapshotting: Settings, fresh: Callable[[], Refit]) -> None:
    campaign = played(app)
    app.views.catch_up()
    with database(snapshotting.database_url) as (_, run, name):  # as an older Refit kept it
        run(f"ALTER TABLE {name('refit_projection_rows')} DROP COLUMN mac", ())
    other = fresh()
    other.views.catch_up()
    assert other.reads.roster(campaign)[0].sides["British"].cpp_start == 0
    assert other.reads.verify(campaign).ok


def test_an_edited_checkpoint_changes_no_as_of_answer_and_verify_names_it(
        app: Refit, snapshotting: Settings, fresh: Callable[[], Refit],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "CHECKPOINT_EVERY", 3)
    campaign = played(app)
    head = app.store.campaign(campaign).version
    app.views.rows(campaign, head)  # an as-of read leaves checkpoints on its way
    kept = app.views.view.select_checkpoint(str(campaign), head)
    assert kept is not None
    at = kept[0]

    def forged(data: bytes) -> bytes:
        rows = runner.MemoryRows.load(data)
        doc = rows.rows[("roster", "17N")][1]
        doc["sides"]["British"]["cpp_start"] = 9
        return rows.dump()
    edit_checkpoint(snapshotting.database_url, campaign, at, forged)
    other = fresh()
    assert other.reads.verify(campaign).caches == (
        f"roster view row 17N differs from the events (sides.British.cpp_start) "
        f"(checkpoint at version {at})",)
    assert other.reads.roster(campaign, at)[0].sides["British"].cpp_start == 0


def test_an_undo_whose_stored_state_was_edited_is_named_at_its_version(
        app: Refit, snapshotting: Settings) -> None:
    campaign = played(app)
    target = app.store.campaign(campaign).version - 2
    undo = app.audit.undo(campaign, "asked too soon", "director", to_version=target)
    version = app.store.campaign(campaign).version
    assert verified(snapshotting, campaign)["ok"], undo
    edit_event(snapshotting.database_url, campaign, version, b'"name":"Arnhem"',
               b'"name":"Forged"')  # the state a replay restores: not hashed, not sealed
    report = verified(snapshotting, campaign)
    assert not report["ok"] and report["first_bad_version"] == version
    assert report["problem"] == (f"version {version} (an undo) carries a state that is not "
                                 "the campaign the events give at its target (name)")
