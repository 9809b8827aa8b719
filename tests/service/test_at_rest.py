"""At rest (issue 16 item 6): the SQLite file and every secret file are 0600, and a copy
of the database alone does not reveal an unrevealed dice seed."""

from __future__ import annotations

import hashlib
import stat
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest

from api.cli.service import admin_token_file
from domain.errors import RuleViolation
from infra.application import Refit
from infra.at_rest import TAG
from infra.caches import snapshot_problems
from infra.keys import load_key
from infra.settings import Settings
from infra.transfer import Transfer
from tests.helpers.story import abtf_campaign, do, to_reph_step


def mode(path: Path) -> int:
    """A file's permission bits."""
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def sqlite_settings(tmp_path: Path) -> Settings:
    """A SQLite database in a folder of its own, with the signing key made beside it."""
    (tmp_path / "data").mkdir()
    return Settings(database_url=f"sqlite:///{tmp_path / 'data' / 'refit.db'}",
                    module_dir=tmp_path / "modules", snapshot_interval=2)


@pytest.fixture
def sqlite_refit(sqlite_settings: Settings) -> Iterator[Refit]:
    """The application on that database."""
    app = Refit(sqlite_settings)
    yield app
    app.close()


def server_rolls(refit: Refit, campaign: UUID) -> int:
    """How many rolls the campaign's history holds (all server dice here)."""
    return sum(1 for r in refit.store.records(campaign) if r["type"] == "DiceRolled")


def rolled_campaign(refit: Refit) -> UUID:
    """A server-dice ABtF CG I taken to 9.610, with a roll made on its seed."""
    campaign = abtf_campaign(refit, "At rest")
    to_reph_step(refit, campaign, "9.610")
    do(refit, campaign, {"type": "roll", "table": "9.6101", "side": "British",
                         "subject": "unit:Lt.Grayburn"}, "British")
    return campaign


def test_the_database_and_its_wal_and_shm_files_are_made_readable_by_the_owner_alone(
        sqlite_refit: Refit, sqlite_settings: Settings) -> None:
    rolled_campaign(sqlite_refit)
    folder = Path(sqlite_settings.eventsourcing_env()["SQLITE_DBNAME"]).parent
    made = sorted(p.name for p in folder.iterdir())
    assert {"refit.db", "refit.db-wal", "refit.db-shm", "refit-signing-key"} <= set(made)
    assert {p.name: oct(mode(p)) for p in folder.iterdir()} == {
        name: oct(0o600) for name in made}


def test_the_admin_token_and_signing_key_files_are_made_0600(
        sqlite_settings: Settings) -> None:
    _, token_file, made = admin_token_file(sqlite_settings)
    _, key_file, key_made = load_key(sqlite_settings)
    assert made and key_made and key_file is not None
    assert (mode(token_file), mode(key_file)) == (0o600, 0o600)
    assert admin_token_file(sqlite_settings)[1:] == (token_file, False)  # kept, not made again


def test_a_copy_of_the_database_alone_does_not_show_an_unrevealed_seed(
        sqlite_refit: Refit, sqlite_settings: Settings) -> None:
    campaign = rolled_campaign(sqlite_refit)
    seed = sqlite_refit.store.campaign(campaign).dice.seed
    assert seed is not None and len(seed) == 64
    folder = Path(sqlite_settings.eventsourcing_env()["SQLITE_DBNAME"]).parent
    stored = b"".join(p.read_bytes() for p in folder.glob("refit.db*"))
    assert TAG.encode() in stored  # the seed is there, sealed
    assert seed.encode() not in stored and bytes.fromhex(seed) not in stored


def test_rows_hold_seeds_sealed_yet_rolls_go_on_and_verify_after_the_reveal(
        refit: Refit) -> None:
    campaign = rolled_campaign(refit)
    seed = refit.store.campaign(campaign).dice.seed
    assert seed is not None
    refit.store.snapshot(refit.store.campaign(campaign))
    rows = list(refit.store.recorder.select_events(campaign))
    rows += refit.store.snapshots.recorder.select_events(campaign)  # type: ignore[union-attr]
    assert rows and not any(seed.encode() in row.state for row in rows)
    fresh = Refit(refit.settings)  # no cached campaign: read back from the rows
    try:
        assert fresh.store.campaign(campaign).dice.seed == seed
        do(fresh, campaign, {"type": "roll", "table": "9.6101", "side": "British",
                             "subject": "unit:Maj.Crawley"}, "British")
        do(fresh, campaign, {"type": "reveal_seed"})
        report = fresh.reads.verify(campaign)
        assert report.ok and report.rolls_verified == server_rolls(fresh, campaign) > 1
        assert snapshot_problems(fresh.store, campaign) == []  # taken again, they compare
    finally:
        fresh.close()


def test_the_operators_export_carries_the_seed_decrypted(refit: Refit) -> None:
    campaign = rolled_campaign(refit)
    created = next(line for line in Transfer(refit.store).export(campaign, private=True)
                   if line.get("type") == "Created")
    seed = created["private"]["seed"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == created["data"][
        "seed_commitment"]


def test_a_database_with_seeds_stored_in_plain_text_still_rolls_and_verifies(
        refit: Refit) -> None:
    refit.store.mapper.seeds = None  # type: ignore[attr-defined]  # as Refit wrote before
    campaign = rolled_campaign(refit)
    seed = refit.store.campaign(campaign).dice.seed
    rows = refit.store.recorder.select_events(campaign)
    assert seed is not None and any(seed.encode() in row.state for row in rows)
    fresh = Refit(refit.settings)
    try:
        assert fresh.store.campaign(campaign).dice.seed == seed
        do(fresh, campaign, {"type": "reveal_seed"})
        report = fresh.reads.verify(campaign)
        assert report.ok and report.rolls_verified == server_rolls(fresh, campaign) > 0
    finally:
        fresh.close()


def test_a_seed_sealed_under_another_signing_key_refuses_server_rolls_saying_why(
        refit: Refit, tmp_path: Path) -> None:
    campaign = rolled_campaign(refit)
    other = Refit(refit.settings.model_copy(update={
        "signing_key_file": tmp_path / "another-key"}))
    try:
        assert other.store.campaign(campaign).dice.seed is None
        with pytest.raises(RuleViolation, match="does not open with this service's signing"):
            do(other, campaign, {"type": "roll", "table": "9.6101", "side": "British",
                                 "subject": "unit:Maj.Crawley"}, "British")
    finally:
        other.close()
