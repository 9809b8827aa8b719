"""Import is all or nothing (issue 15 item 6): `refit import` killed (SIGKILL) at any point
leaves either no campaign, with no view rows, snapshot or listing, or the whole one; the
import run again then succeeds, or is refused as a conflict. Two imports of one campaign
at once give one campaign and a conflict, never a fork."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from uuid import UUID

import psycopg
import pytest
from psycopg.sql import SQL, Identifier

from domain import commands as cmd
from domain.errors import CampaignExists, CampaignNotFound
from infra.application import Refit
from infra.settings import Settings
from infra.staging import SQLiteStaging
from infra.staging_postgres import PostgresStaging
from infra.transfer import dump_line, parse_lines
from tests.helpers.databases import fresh_database

EVENTS = 4000  # four pages of the import's thousand: a kill by time lands while it writes
# `refit import` with one method of the staging paused (after its call, before the import
# goes on) at its Nth call, saying so on stderr: where a kill must leave nothing. Test code
# only, so the command itself carries no hook.
PAUSED = """
import sys, time
from infra.staging import SQLiteStaging
from infra.staging_postgres import PostgresStaging
method, nth = sys.argv[1], int(sys.argv[2])
del sys.argv[1:3]
calls = []
def paused(original):
    def run(self, *args):
        original(self, *args)
        calls.append(1)
        if len(calls) == nth:
            print("paused", file=sys.stderr, flush=True)
            time.sleep(600)
    return run
for cls in (PostgresStaging, SQLiteStaging):
    setattr(cls, method, paused(getattr(cls, method)))
from api.cli import main
main()
"""


@dataclass(frozen=True)
class Export:
    """The operator's export of a long campaign, with an undo near its end."""

    path: Path
    campaign: UUID
    events: int
    head_hash: str


def _credits(refit: Refit, campaign: UUID, count: int) -> None:
    state = refit.store.campaign(campaign)
    for _ in range(count):
        state.execute(cmd.CreditCPP(side="Axis", amount=1, reason="test", rule="3.616"),
                      "director")
    refit.store.save(state)


def made_export(work: Path, events: int) -> Export:
    """A campaign made on SQLite, `events` credits a command of 500 at a time, an undo and
    a hundred more; the operator's export of it."""
    refit = Refit(Settings(database_url=f"sqlite:///{work / 'source.db'}",
                           module_dir=work / "modules", signing_key_file=work / "key"))
    try:
        campaign = refit.commands.create_campaign("pbr", "I", "Long", "server").id
        while refit.store.campaign(campaign).version < events:
            _credits(refit, campaign, 500)
        target = refit.store.campaign(campaign).version
        _credits(refit, campaign, 10)
        refit.audit.undo(campaign, "credited by mistake", "director", to_version=target)
        _credits(refit, campaign, 100)
        path = work / "export.jsonl"
        path.write_text("".join(map(dump_line, refit.transfer.export(campaign,
                                                                      private=True))))
        state = refit.store.campaign(campaign)
        return Export(path, campaign, state.version, state.head_hash)
    finally:
        refit.close()


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Export:
    """Made once for the module: long enough that a kill by time lands while it writes."""
    return made_export(tmp_path_factory.mktemp("long"), EVENTS)


@pytest.fixture(scope="module")
def short_export(tmp_path_factory: pytest.TempPathFactory) -> Export:
    """Made once for the module: a few pages (the projection runner folds it in time)."""
    return made_export(tmp_path_factory.mktemp("short"), 1000)


def lines_of(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        yield from parse_lines(lines)


def importing(conf: Settings, export: Export, pause: tuple[str, int] | None = None
              ) -> subprocess.Popen[str]:
    """`refit import FILE --db URL --json` started on these settings' database, with their
    key (which seals the snapshot), paused as `pause` says if given."""
    args = ["-c", PAUSED, pause[0], str(pause[1])] if pause else ["-m", "api.cli"]
    env = os.environ | {"REFIT_MODULE_DIR": str(conf.module_dir),
                        "REFIT_SIGNING_KEY_FILE": str(conf.signing_key_file)}
    return subprocess.Popen([sys.executable, *args, "import", str(export.path), "--db",
                             conf.database_url, "--json"], cwd=conf.module_dir.parent,
                            env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def killed(process: subprocess.Popen[str]) -> None:
    """SIGKILL, as a crash or the OOM killer would end it."""
    process.send_signal(signal.SIGKILL)
    process.communicate()


def events_table(settings: Settings) -> str:
    """The events table's name, its tables made."""
    refit = Refit(settings)
    try:
        return str(cast(Any, refit.store.recorder).events_table_name)
    finally:
        refit.close()


def stored(url: str, table: str, campaign: UUID) -> int:
    """How many of the campaign's events another connection reads from the events table
    (read directly: a service starting would wait for the events table's lock to make
    its tables)."""
    if url.startswith("sqlite:///"):
        with contextlib.closing(sqlite3.connect(url[len("sqlite:///"):])) as lite:
            return int(lite.execute(f"SELECT count(*) FROM {table} WHERE originator_id=?",
                                    (campaign.hex,)).fetchone()[0])
    base, schema = url.split("?schema=")
    with psycopg.connect(base) as conn:
        found = conn.execute(SQL("SELECT count(*) FROM {0}.{1} WHERE originator_id=%s").format(
            Identifier(schema), Identifier(table)), (campaign,)).fetchone()
    return int(found[0]) if found else 0


def whole_or_none(conf: Settings, export: Export) -> bool:
    """Whether the campaign is here whole (verified, the export's head, its snapshot sealed
    by this service); if not, nothing of it is: no event, no listing, no view rows once
    the view catches up, no snapshot."""
    refit = Refit(conf)
    try:
        found = len(refit.store.recorder.select_events(export.campaign))
        refit.views.catch_up()  # what the service's first read does
        if found == 0:
            with pytest.raises(CampaignNotFound):
                refit.store.campaign(export.campaign)
            assert str(export.campaign) not in [c.id for c in refit.reads.campaigns()]
            assert refit.views.view.count_rows(str(export.campaign)) == 0
            assert refit.store.snapshots is not None
            assert list(refit.store.snapshots.get(export.campaign)) == []
            return False
        assert found == export.events
        report = refit.reads.verify(export.campaign)
        assert report.ok and report.head_hash == export.head_hash, report
        assert refit.store.snapshots is not None
        assert [s.originator_version for s in refit.store.snapshots.get(export.campaign)] \
            == [export.events]
        return True
    finally:
        refit.close()


def imported_again(conf: Settings, export: Export, whole: bool) -> None:
    """Importing again succeeds after a kill that left nothing, and is refused as a
    conflict after one that left the whole campaign; either way it is then whole."""
    process = importing(conf, export)
    out, err = process.communicate(timeout=300)
    answer = json.loads(out)
    if whole:
        assert process.returncode == 2 and answer["error"]["code"] == "conflict", err
    else:
        assert process.returncode == 0, err
        assert answer["head_hash"] == export.head_hash
    assert whole_or_none(conf, export)


@pytest.fixture
def database_kind(settings: Settings) -> str:
    return "sqlite" if settings.database_url.startswith("sqlite") else "postgres"


@pytest.fixture
def fresh(database_kind: str, tmp_path: Path,
          postgres_problem: str | None) -> Iterator[Any]:
    """Another fresh database of the test's kind, for each kill."""
    def make(name: str) -> Any:
        (tmp_path / name).mkdir()
        return fresh_database(database_kind, tmp_path / name, postgres_problem)
    yield make


def test_an_import_killed_at_random_moments_leaves_no_campaign_or_the_whole_one(
        settings: Settings, export: Export, fresh: Any) -> None:
    started = time.monotonic()
    whole = importing(settings, export)
    assert whole.wait(timeout=300) == 0
    took = time.monotonic() - started
    seed = random.randrange(2**32)
    pick = random.Random(seed)
    # Early (often before the import has started writing), twice while it writes, late.
    moments = [took * pick.uniform(*span) for span in
               ((0.02, 0.2), (0.3, 0.6), (0.6, 0.9), (0.9, 1.05))]
    print(f"seed {seed}: a whole import took {took:.2f} s; killed at {moments}")
    for number, moment in enumerate(moments):
        with fresh(f"kill-{number}") as url:
            conf = settings.model_copy(update={"database_url": url})
            process = importing(conf, export)
            time.sleep(moment)
            killed(process)
            imported_again(conf, export, whole_or_none(conf, export))


@pytest.mark.parametrize("pause", [("stage", 1), ("stage", 5), ("switch_in", 1)],
                         ids=["after-the-first-page", "after-five-pages", "inside-the-switch"])
def test_an_import_killed_while_it_writes_leaves_no_campaign(
        settings: Settings, export: Export, pause: tuple[str, int]) -> None:
    table = events_table(settings)
    process = importing(settings, export, pause)
    assert process.stderr is not None
    assert process.stderr.readline().strip() == "paused", process.stderr.read()
    # Inside the switch its events are in the events table, uncommitted: unseen (the view
    # is not read here: on SQLite it would wait for the paused writer).
    assert stored(settings.database_url, table, export.campaign) == 0
    killed(process)
    assert not whole_or_none(settings, export)
    imported_again(settings, export, whole=False)


def test_two_imports_of_one_campaign_at_once_give_one_campaign_and_a_conflict(
        settings: Settings, export: Export, monkeypatch: pytest.MonkeyPatch) -> None:
    first_in, second_in = threading.Event(), threading.Event()

    def racing(original: Any) -> Any:
        def switch_in(self: Any, *args: Any) -> None:
            if not first_in.is_set():  # the first, staged: it waits for the second
                first_in.set()
                second_in.wait(60)
            else:  # the second, past its own check (nothing was committed) and staged
                second_in.set()
            original(self, *args)
        return switch_in
    for cls in (PostgresStaging, SQLiteStaging):
        monkeypatch.setattr(cls, "switch_in", racing(cls.switch_in))
    outcomes: dict[str, Any] = {}

    def one_import(name: str) -> None:
        refit = Refit(settings)
        try:
            outcomes[name] = refit.transfer.import_export(lambda: lines_of(export.path))
        except CampaignExists as error:
            outcomes[name] = error
        finally:
            refit.close()
    first = threading.Thread(target=one_import, args=("first",))
    first.start()
    assert first_in.wait(60)
    second = threading.Thread(target=one_import, args=("second",))
    second.start()
    for thread in (first, second):
        thread.join(120)
    imported = [o for o in outcomes.values() if not isinstance(o, CampaignExists)]
    refused = [o for o in outcomes.values() if isinstance(o, CampaignExists)]
    assert [o.head_hash for o in imported] == [export.head_hash] and len(refused) == 1
    assert refused[0].code == "conflict"  # 409 over HTTP
    assert "imported by another import meanwhile" in refused[0].message
    assert whole_or_none(settings, export)


def test_an_import_that_fails_while_it_writes_leaves_nothing_and_the_next_succeeds(
        refit: Refit, export: Export, monkeypatch: pytest.MonkeyPatch) -> None:
    pages: list[int] = []

    def failing(original: Any) -> Any:
        def stage(self: Any, events: Any) -> None:
            pages.append(len(events))
            if len(pages) == 3:
                raise OSError("the disk is full")
            original(self, events)
        return stage
    for cls in (PostgresStaging, SQLiteStaging):
        monkeypatch.setattr(cls, "stage", failing(cls.stage))
    with pytest.raises(OSError, match="disk is full"):
        refit.transfer.import_export(lambda: lines_of(export.path))
    with pytest.raises(CampaignNotFound):
        refit.store.campaign(export.campaign)
    monkeypatch.undo()  # the same service, its connections back in their pool, again
    assert refit.transfer.import_export(lambda: lines_of(export.path)).head_hash == \
        export.head_hash
    assert whole_or_none(refit.settings, export)


def test_the_projection_runner_folds_a_whole_import_after_a_killed_one(
        settings: Settings, short_export: Export, database_kind: str) -> None:
    export = short_export
    if database_kind == "sqlite":
        pytest.skip("the projection runner needs PostgreSQL's LISTEN/NOTIFY")
    service = Refit(settings.model_copy(update={"projection_runner": True, "read_wait": 120}))
    try:
        process = importing(settings, export, ("switch_in", 1))
        assert process.stderr is not None and process.stderr.readline().strip() == "paused"
        killed(process)
        with pytest.raises(CampaignNotFound):
            service.reads.status(export.campaign)
        process = importing(settings, export)
        assert process.wait(timeout=300) == 0
        assert service.reads.status(export.campaign).version == export.events
    finally:
        service.close()
