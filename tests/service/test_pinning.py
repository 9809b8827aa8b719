"""Module data pinned per campaign (issue 14, item 7): a campaign plays the module data it
was made with until its director upgrades it; an owner's new data changes only the
campaigns made after it, and verify notices a pinned document that is missing or altered."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest

from api.access import Caller
from api.report import history_report
from api.web.view import home
from domain.campaign.pinning import FIRST_PIN
from domain.errors import Forbidden, ImportRefused, InvalidCommand
from domain.hashing import GENESIS_HASH
from domain.history import record_hash
from domain.pins import UNPINNED
from infra.application import Refit
from infra.modules import install_file, packaged_modules
from infra.recorder import MODULE_DATA
from infra.settings import Settings, persistence_env
from infra.transfer import dump_line
from tests.helpers.refusals import refused
from tests.helpers.story import do

AXIS = "Axis"


@pytest.fixture
def errata(tmp_path: Path) -> Path:
    """An owner's PBr errata: the Axis chart as printed, but the Italian Infantry Coy (I7)
    costs 13 CPP instead of 12."""
    chart = packaged_modules()["pbr"].rg_charts[AXIS].model_dump(mode="json")
    row = next(row for row in chart["rows"] if row["id"] == "I7")
    assert row["cost"] == 12
    row["cost"] = 13
    path = tmp_path / "pbr-errata.json"
    path.write_text(json.dumps({"format": "refit-module-patch/1", "module": "pbr",
                                "rg_charts": {AXIS: chart}}), encoding="utf-8")
    return path


def load(refit: Refit, path: Path) -> None:
    """An owner installs a file, as `refit module load FILE` does, and it is read again."""
    install_file(path, refit.settings.module_dir)
    refit.store.reload_modules()


def ranville(refit: Refit, name: str = "Ranville") -> UUID:
    """PBr CG I at the 14AM purchases, the Axis holding 39 CPP."""
    campaign = refit.commands.create_campaign("pbr", "I", name, "entered").id
    do(refit, campaign, {"type": "credit_cpp", "side": AXIS, "amount": 39,
                         "reason": "Initial Scenario CPP"})
    return campaign


def price_of_i7(refit: Refit, campaign: UUID) -> int:
    """What the Axis pays for an Italian Infantry Coy now (3.617)."""
    bought = do(refit, campaign, {"type": "purchase_rg", "side": AXIS, "rg": "I7",
                                  "mode": "entry"})
    return int(bought.events[0]["data"]["cost"])


def forms(refit: Refit, campaign: UUID) -> list[Any]:
    """What the players read: roster, purchase record, verify, and the status's points."""
    status = refit.reads.status(campaign)
    return [refit.reads.roster(campaign), refit.reads.purchase_record(campaign),
            refit.reads.verify(campaign), status.sides, status.module_data]


def test_new_data_leaves_a_running_campaign_as_it_was_and_its_next_command_on_its_own(
        refit: Refit, errata: Path) -> None:
    running = ranville(refit)
    do(refit, running, {"type": "purchase_rg", "side": AXIS, "rg": "I5", "mode": "entry"})
    before = forms(refit, running)
    load(refit, errata)
    assert forms(refit, running) == before
    assert price_of_i7(refit, running) == 12  # its pinned chart, not the errata's 13
    assert refit.reads.verify(running).ok


def test_a_running_campaigns_page_offers_what_its_pinned_chart_allows(
        refit: Refit, tmp_path: Path) -> None:
    chart = packaged_modules()["pbr"].rg_charts[AXIS].model_dump(mode="json")
    next(row for row in chart["rows"] if row["id"] == "I5")["placed"] = False
    path = tmp_path / "pbr-no-i5-area.json"
    path.write_text(json.dumps({"format": "refit-module-patch/1", "module": "pbr",
                                "rg_charts": {AXIS: chart}}), encoding="utf-8")
    running = ranville(refit)
    load(refit, path)
    newer = ranville(refit, "Newer")
    for campaign, offered in ((running, True), (newer, False)):
        unplaced = home(refit, campaign, Caller(AXIS), None)["area_form"]["unplaced"][AXIS]
        assert ("I5" not in unplaced) == offered  # as record_rg_area would judge it


def test_a_campaign_made_after_new_data_is_loaded_pins_the_new_data(
        refit: Refit, errata: Path) -> None:
    older = ranville(refit, "Older")
    load(refit, errata)
    newer = ranville(refit, "Newer")
    pins = refit.reads.status(older).module_data, refit.reads.status(newer).module_data
    assert None not in pins and pins[0] != pins[1]
    assert pins[1] == refit.store.loaded_data("pbr").hash
    assert price_of_i7(refit, newer) == 13


def test_an_upgrade_records_what_changed_and_the_rules_change_from_then_on(
        refit: Refit, errata: Path) -> None:
    campaign = ranville(refit)
    old = refit.reads.status(campaign).module_data
    load(refit, errata)
    upgrade = do(refit, campaign, {"type": "upgrade_module", "reason": "errata: I7 is 13"})
    event = upgrade.events[0]
    assert event["type"] == "ModuleUpgraded" and event["data"]["old_hash"] == old
    assert event["data"]["new_hash"] == refit.store.loaded_data("pbr").hash
    assert event["data"]["changes"] == [{"at": "rg_charts.Axis.rows[I7].cost",
                                         "change": "changed", "before": 12, "after": 13}]
    assert refit.reads.status(campaign).module_data == event["data"]["new_hash"]
    assert f"pbr module data {old[:12]} -> {event['data']['new_hash'][:12]}: errata: I7 is " \
        "13 (rg_charts.Axis.rows[I7].cost changed 12 -> 13)" \
        in history_report(refit.store.records(campaign))
    assert price_of_i7(refit, campaign) == 13
    assert refit.reads.verify(campaign).ok


def test_an_upgrade_to_the_data_already_played_is_refused(refit: Refit) -> None:
    campaign = ranville(refit)
    error = refused(refit, campaign, {"type": "upgrade_module"})
    assert isinstance(error, InvalidCommand) and "nothing to upgrade" in error.message


def test_only_the_director_upgrades() -> None:
    for role in (AXIS, "observer"):
        with pytest.raises(Forbidden):
            Caller(role).may_command({"type": "upgrade_module", "side": AXIS})
    Caller("director").may_command({"type": "upgrade_module"})


def tamper_module_data(url: str, pin: str, old: str, new: str) -> None:
    """Edit the stored module data behind the application's back."""
    env = persistence_env(url)
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
            doc = db.execute(f"SELECT doc FROM {MODULE_DATA} WHERE hash=?", (pin,)).fetchone()
            assert doc is not None and old in doc[0]
            db.execute(f"UPDATE {MODULE_DATA} SET doc=? WHERE hash=?",
                       (doc[0].replace(old, new, 1), pin))
        return
    table = f'"{env["POSTGRES_SCHEMA"]}".{MODULE_DATA}'
    with psycopg.connect(url.split("?")[0], autocommit=True) as db:
        row = db.execute(f"SELECT doc FROM {table} WHERE hash=%s", (pin,)).fetchone()
        assert row is not None and old in row[0]
        db.execute(f"UPDATE {table} SET doc=%s WHERE hash=%s", (row[0].replace(old, new, 1),
                                                              pin))


def test_a_tampered_module_data_row_fails_verify_at_the_version_that_pinned_it(
        refit: Refit, database_url: str, errata: Path) -> None:
    campaign = ranville(refit)
    pin = refit.reads.status(campaign).module_data
    assert pin is not None and refit.reads.verify(campaign).ok
    tamper_module_data(database_url, pin, '"cost":12', '"cost":2')
    report = refit.reads.verify(campaign)
    assert not report.ok and report.first_bad_version == 1
    assert report.problem is not None and f"pinned at version 1 ({pin}) was altered" \
        in report.problem
    # A process whose loaded data is other data reads the pinned data from the store: the
    # campaign refuses commands rather than play altered rules.
    install_file(errata, refit.settings.module_dir)
    fresh = Refit(refit.settings)
    try:
        error = refused(fresh, campaign, {"type": "purchase_rg", "side": AXIS, "rg": "I7",
                                          "mode": "entry"})
        assert "no longer hashes to its pin" in str(error)
    finally:
        fresh.close()


@pytest.fixture
def other(other_database_url: str, tmp_path: Path) -> Iterator[Refit]:
    """The application on the other database, with only the packaged module data (and the
    same service key, so a re-export signs the same checkpoint)."""
    app = Refit(Settings(database_url=other_database_url, module_dir=tmp_path / "elsewhere",
                         signing_key_file=tmp_path / "refit-signing-key"))
    yield app
    app.close()


def test_an_export_carries_its_pinned_data_and_an_import_replays_with_it(
        refit: Refit, other: Refit, errata: Path) -> None:
    campaign = ranville(refit)
    load(refit, errata)
    do(refit, campaign, {"type": "upgrade_module"})
    exported = [dump_line(line) for line in refit.transfer.export(campaign, private=True)]
    tail = json.loads(exported[-1])
    assert len(tail["module_data"]) == 2  # as created, and as upgraded
    other.transfer.import_export(lambda: [json.loads(line) for line in exported])
    assert other.reads.status(campaign).module_data == refit.reads.status(campaign).module_data
    assert other.reads.verify(campaign).ok
    assert [dump_line(line) for line in other.transfer.export(campaign, private=True)] \
        == exported
    assert price_of_i7(other, campaign) == 13  # the errata it was upgraded to, not 12


def test_an_export_without_its_pinned_data_is_refused(refit: Refit, other: Refit) -> None:
    campaign = ranville(refit)
    lines = list(refit.transfer.export(campaign))
    del lines[-1]["module_data"]
    with pytest.raises(ImportRefused, match=r"version 1 .* is not kept: it is missing"):
        other.transfer.import_export(lambda: lines)


def as_schema_5(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An export as a service before pinning wrote it: no pin on `Created`, no module data
    in the tail (the chain linked again over what it then held)."""
    header, *events, tail = [dict(line) for line in lines]
    header["schema_version"] = 5
    events[0]["data"] = {k: v for k, v in events[0]["data"].items() if k != "module_hash"}
    prev = GENESIS_HASH
    for event in events:
        event["prev_hash"] = prev
        prev = record_hash({k: v for k, v in event.items() if k != "private"})
    return [header, *events, {"events": tail["events"], "head_hash": prev}]


def test_a_campaign_from_before_pinning_is_pinned_by_its_first_command(
        refit: Refit, other: Refit) -> None:
    campaign = ranville(refit)
    old = as_schema_5(list(refit.transfer.export(campaign, private=True)))
    other.transfer.import_export(lambda: old)
    report = other.reads.verify(campaign)
    assert report.ok and report.note == UNPINNED
    assert other.reads.status(campaign).module_data is None
    assert [dump_line(line) for line in other.transfer.export(campaign, private=True)][1:-1] \
        == [dump_line(line) for line in old][1:-1]  # its history as it was
    first = do(other, campaign, {"type": "credit_cpp", "side": AXIS, "amount": 1,
                                 "reason": "a late Initial Scenario CPP"})
    pinned = first.events[0]["data"]
    assert first.events[0]["type"] == "ModuleUpgraded" and pinned["old_hash"] is None
    assert (pinned["new_hash"], pinned["changes"], pinned["reason"]) == (
        other.store.loaded_data("pbr").hash, [], FIRST_PIN)
    assert other.reads.status(campaign).module_data == pinned["new_hash"]
    assert other.reads.verify(campaign) == other.reads.verify(campaign)
    assert other.reads.verify(campaign).ok and other.reads.verify(campaign).note is None


def test_an_undo_of_an_upgrade_plays_the_old_data_again(refit: Refit, errata: Path) -> None:
    campaign = ranville(refit)
    old, before = refit.reads.status(campaign).module_data, refit.store.campaign(campaign).version
    load(refit, errata)
    do(refit, campaign, {"type": "upgrade_module"})
    refit.audit.undo(campaign, "upgraded the wrong campaign", "director", to_version=before)
    assert refit.reads.status(campaign).module_data == old
    assert price_of_i7(refit, campaign) == 12
    assert refit.reads.verify(campaign).ok
