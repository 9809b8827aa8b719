"""The materialized view follows the notification log with eventsourcing's tracking."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, Tracking
from eventsourcing.projection import ProjectionRunner

from infra.application import Refit
from infra.settings import Settings, backend_of
from projections.runner import CampaignLog, CampaignProjection
from projections.view_postgres import PostgresProjectionView
from tests.helpers.databases import PG_URL
from tests.helpers.story import do


@pytest.fixture
def with_runner(settings: Settings) -> Settings:
    """The test's settings with eventsourcing's projection runner (PostgreSQL only)."""
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("the projection runner needs PostgreSQL's LISTEN/NOTIFY")
    return settings.model_copy(update={"projection_runner": True})


@contextmanager
def running(*confs: Settings) -> Iterator[list[Refit]]:
    """Service processes on these settings, closed afterwards."""
    apps = [Refit(conf) for conf in confs]
    try:
        yield apps
    finally:
        for app in apps:
            app.close()


def test_reads_catch_up_so_a_read_after_a_command_reflects_it(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "RYW", "server").id
    for value in (3, 4, 2):
        do(refit, campaign, {"type": "change_elr", "side": "German", "value": value,
                             "cause": "test"})
        assert refit.reads.elr(campaign).current["German"] == value


def test_tracking_records_the_last_notification_folded(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Tracked", "server").id
    do(refit, campaign, {"type": "change_san", "side": "German", "value": 3, "cause": "OB"})
    refit.views.catch_up()
    assert refit.views.view.max_tracking_id("refit") == refit.store.recorder.max_notification_id()


def test_a_batch_already_folded_by_another_process_is_not_counted_twice(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Twice", "server").id
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 5, "reason": "x"})
    refit.views.catch_up()
    last = refit.store.recorder.max_notification_id()
    assert last is not None
    events = [refit.store.mapper.to_domain_event(n)
              for n in refit.store.recorder.select_notifications(start=1, limit=100)]
    with pytest.raises(IntegrityError):
        refit.views.projection.process_batch(events, Tracking("refit", last))
    assert refit.reads.roster(campaign)[0].sides["Axis"].cpp_credited == 5


def test_eventsourcing_projection_runner_drives_the_same_projection(
        refit: Refit, settings: Settings) -> None:
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("eventsourcing 9.5's SQLite recorder has no subscriptions: "
                    "SQLite views catch up from the notification log instead")
    campaign = refit.commands.create_campaign("pbr", "I", "Runner", "server").id
    do(refit, campaign, {"type": "credit_cpp", "side": "British", "amount": 17,
                         "reason": "CPP Base", "rule": "3.6161"})
    env = settings.eventsourcing_env()
    with ProjectionRunner(application_class=CampaignLog, projection_class=CampaignProjection,
                          view_class=PostgresProjectionView, env=env) as runner:
        runner.wait(refit.store.recorder.max_notification_id(), timeout=10)
        roster = runner.view.select_rows(str(campaign), "roster")
    assert roster[0]["sides"]["British"]["cpp_credited"] == 17


def test_overlapping_catch_ups_never_fold_an_event_twice(settings: Settings) -> None:
    first, second = Refit(settings), Refit(settings)
    try:
        campaign = first.commands.create_campaign("pbr", "I", "Overlap", "server").id
        first.views.catch_up()
        do(first, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 5, "reason": "a"})
        last = first.views.view.max_tracking_id("refit") or 0

        def batch(app: Refit) -> tuple[list, Tracking]:
            notes = app.store.recorder.select_notifications(start=last + 1, limit=100)
            return ([app.store.mapper.to_domain_event(n) for n in notes],
                    Tracking("refit", notes[-1].id))

        read_early = batch(first)
        do(first, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 7, "reason": "b"})
        read_late = batch(second)
        first.views.projection.process_batch(*read_early, last)
        with pytest.raises(IntegrityError):
            second.views.projection.process_batch(*read_late, last)
        assert second.reads.roster(campaign)[0].sides["Axis"].cpp_credited == 12
        assert second.reads.status(campaign).sides["Axis"]["cpp"] == 12
    finally:
        first.close()
        second.close()


def test_a_catch_up_another_process_overtakes_midway_folds_on_from_the_view(
        settings: Settings) -> None:
    from projections.runner import catch_up

    first, second = Refit(settings), Refit(settings)
    try:
        campaign = first.commands.create_campaign("pbr", "I", "Ahead", "server").id
        for amount in range(1, 13):
            do(first, campaign, {"type": "credit_cpp", "side": "Axis", "amount": amount,
                                 "reason": "r"})
        own, moved = first.views.projection, second.views.projection
        head = first.store.recorder.max_notification_id() or 0

        class Racing:
            """The view, which another process folds to the head after the first batch."""

            def __init__(self) -> None:
                self.asked = 0

            def __getattr__(self, name: str) -> object:
                return getattr(own.view, name)

            def write(self, *args: Any, **kwargs: Any) -> None:
                self.asked += 1
                if self.asked == 2:  # the other folds 4 past the first's 3: not a batch of 3
                    notes = second.store.recorder.select_notifications(start=4, limit=4)
                    events = [second.store.mapper.to_domain_event(n) for n in notes]
                    moved.process_batch(events, Tracking("refit", notes[-1].id), 3)
                own.view.write(*args, **kwargs)

        racing = CampaignProjection(Racing(), own.reader)
        assert catch_up(first.store, racing, batch=3) == head - 4
        assert moved.view.max_tracking_id("refit") == head
        assert second.reads.status(campaign).sides["Axis"]["cpp"] == sum(range(1, 13))
    finally:
        first.close()
        second.close()


def test_a_catch_up_keeps_the_collector_paused_from_its_first_batch_to_its_last(
        refit: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from projections import runner

    campaign = refit.commands.create_campaign("pbr", "I", "Paused", "server").id
    for amount in range(1, 7):
        do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": amount,
                             "reason": "Base"})
    assert (refit.views.view.max_tracking_id("refit") or 0) < 4  # not folded yet
    seen: list[bool] = []
    read = runner.Prefetch.batch

    def batch(log: runner.Prefetch, start: int) -> runner.Batch:
        seen.append(gc.isenabled())  # between batches: what a pass would walk is all held
        return read(log, start)

    monkeypatch.setattr(runner.Prefetch, "batch", batch)
    assert runner.catch_up(refit.store, refit.views.projection, batch=2) > 3
    assert len(seen) > 3 and not any(seen)
    assert gc.isenabled()


def test_threads_folding_at_once_leave_the_collector_on() -> None:
    import gc
    from concurrent.futures import ThreadPoolExecutor

    from projections.collector import collector_paused

    def fold_often(_: int) -> None:
        for _ in range(2000):
            with collector_paused():
                pass

    assert gc.isenabled()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(fold_often, range(4)))
    assert gc.isenabled()


def test_the_service_reads_through_the_projection_runner_on_postgres(
        with_runner: Settings) -> None:
    with running(with_runner) as (refit,):
        campaign = refit.commands.create_campaign("pbr", "I", "Runner reads", "server").id
        for amount in (5, 7):
            do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": amount,
                                 "reason": "Base"})
            assert refit.reads.status(campaign).sides["Axis"]["cpp"] == amount + (5 if amount == 7
                                                                           else 0)


def test_on_sqlite_the_runner_is_the_processs_own_and_folds_the_views(
        tmp_path: Path) -> None:
    from tests.helpers.processes import until

    refit = Refit(Settings(database_url=f"sqlite:///{tmp_path / 'r.db'}",
                           module_dir=tmp_path / "m", projection_runner=True))
    try:
        campaign = refit.commands.create_campaign("pbr", "I", "Local", "server").id
        do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 5, "reason": "x"})
        head = refit.store.recorder.max_notification_id()
        assert until(lambda: refit.views.view.max_tracking_id("refit") == head)  # no read
        assert refit.views.view.select_rows(str(campaign), "meta")[0]["cpp"]["Axis"] == 5
    finally:
        refit.close()


def test_a_runner_meeting_an_event_another_process_folded_goes_on(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Two runners", "server").id
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 5, "reason": "x"})
    refit.views.catch_up()  # "the other process" has folded everything
    last = refit.store.recorder.max_notification_id()
    assert last is not None
    (note,) = refit.store.recorder.select_notifications(start=last, limit=1)
    refit.views.projection.process_event(refit.store.mapper.to_domain_event(note),
                                         Tracking("refit", last))
    assert refit.reads.roster(campaign)[0].sides["Axis"].cpp_credited == 5  # not counted twice


def test_two_service_processes_each_with_a_runner_count_every_event_once(
        with_runner: Settings) -> None:
    with running(with_runner, with_runner) as (first, second):
        campaign = first.commands.create_campaign("pbr", "I", "Two runners", "server").id
        for app, amount in ((first, 1), (second, 2), (first, 4), (second, 8)):
            do(app, campaign, {"type": "credit_cpp", "side": "Axis", "amount": amount,
                               "reason": "x"})
        for app in (first, second):
            assert app.reads.status(campaign).sides["Axis"]["cpp"] == 15


def test_a_process_without_the_runner_folds_on_from_where_the_runner_is(
        with_runner: Settings) -> None:
    # A director's `refit roster ID --db ...` (no runner) beside the service.
    without = with_runner.model_copy(update={"projection_runner": False})
    with running(with_runner, without) as (service, cli):
        campaign = service.commands.create_campaign("pbr", "I", "Mixed", "server").id
        credited = 0
        for app, amount in ((service, 1), (service, 2), (cli, 4), (service, 8), (cli, 16)):
            do(app, campaign, {"type": "credit_cpp", "side": "Axis", "amount": amount,
                               "reason": "x"})
            credited += amount
            for reader in (service, cli):
                assert reader.reads.roster(campaign)[0].sides["Axis"].cpp_credited == credited
        # a read of one campaign folds its own events only (the runner the rest, in its
        # time); a listing's read brings the whole view to the log's head, counted once
        cli.views.up_to_date()
        assert cli.views.view.max_tracking_id("refit") == cli.store.recorder.max_notification_id()
        assert cli.reads.roster(campaign)[0].sides["Axis"].cpp_credited == credited


def test_a_view_the_runner_tracked_in_a_table_of_its_own_is_not_folded_again(
        settings: Settings) -> None:
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("the projection runner needs PostgreSQL's LISTEN/NOTIFY")
    schema = settings.eventsourcing_env()["POSTGRES_SCHEMA"]
    before = Refit(settings)
    try:
        campaign = before.commands.create_campaign("kgp", "I", "Upgraded", "server").id
        do(before, campaign, {"type": "record_casualty", "side": "US", "unit": "7-4-7",
                              "cvp": 2})
        assert before.reads.cvp(campaign).totals["US"] == 2
        with before.store.recorder.datastore.transaction(commit=True) as curs:  # as it was kept
            curs.execute(f'ALTER TABLE "{schema}".refit_tracking '
                         'RENAME TO boundprojection_tracking')
    finally:
        before.close()
    after = Refit(settings)
    try:
        assert after.reads.cvp(campaign).totals["US"] == 2
        with after.store.recorder.datastore.transaction(commit=False) as curs:
            curs.execute("SELECT to_regclass(%s) AS old", (f"{schema}.boundprojection_tracking",))
            assert curs.fetchone()["old"] is None
    finally:
        after.close()


def test_a_schema_whose_name_holds_dollars_gets_its_tables_and_views(
        settings: Settings, tmp_path: Path) -> None:
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("schemas are PostgreSQL's")
    schema = f"refit_test_{uuid.uuid4().hex[:8]}$$"  # valid unquoted, and dollar-quote's mark
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        refit = Refit(Settings(database_url=f"{PG_URL}?schema={schema}",
                               module_dir=tmp_path / "dollars"))
        try:
            campaign = refit.commands.create_campaign("pbr", "I", "Dollars", "server").id
            do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 3,
                                 "reason": "x"})
            assert refit.reads.roster(campaign)[0].sides["Axis"].cpp_credited == 3
        finally:
            refit.close()
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def test_closing_the_service_closes_every_connection_its_runner_opened(
        with_runner: Settings) -> None:
    refit = Refit(with_runner)
    runner = refit.views.runner
    assert runner is not None
    pools = [runner.view.datastore.pool, runner.app.recorder.datastore.pool]
    assert not any(pool.closed for pool in pools)
    refit.close()
    assert all(pool.closed for pool in pools)


def test_the_projection_runner_folds_an_undo_as_the_as_of_answer(with_runner: Settings) -> None:
    with running(with_runner) as (refit,):
        campaign = refit.commands.create_campaign("pbr", "I", "Runner undo", "server").id
        do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 5, "reason": "x"})
        target = refit.store.campaign(campaign).version
        do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 7, "reason": "y"})
        do(refit, campaign, {"type": "spend_cpp", "side": "Axis", "amount": 3, "reason": "z"})
        refit.audit.undo(campaign, "credited twice", "director", to_version=target)
        assert refit.reads.status(campaign).sides["Axis"]["cpp"] == 5
        assert refit.reads.roster(campaign) == refit.reads.roster(campaign, as_of=target)
        assert refit.reads.cvp(campaign) == refit.reads.cvp(campaign, as_of=target)


def test_a_campaign_of_many_rows_keeps_its_checkpoints_further_apart() -> None:
    from projections.runner import MemoryRows, spaced

    kept: list[int] = []
    offer = spaced(lambda version, rows: kept.append(version))
    few, many = MemoryRows(), MemoryRows()
    many.rows = {("roll", str(n)): (n, {}) for n in range(8 * 1500)}  # spacing 1,500
    for version in range(500, 3001, 500):
        offer(version, few)
    for version in range(3500, 9001, 500):
        offer(version, many)
    assert kept == [500, 1000, 1500, 2000, 2500, 3000, 4500, 6000, 7500, 9000]


def test_a_catch_up_reads_ahead_in_a_second_thread_on_postgresql_only(refit: Refit) -> None:
    from projections.runner import reads_ahead

    on_postgres = backend_of(refit.settings.database_url) == "postgres"
    assert reads_ahead(refit.store) is on_postgres


def test_a_catch_up_that_writes_up_to_the_head_reads_the_tracking_once(
        refit: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Tracked", "server").id
    for number in range(3):
        do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 1,
                             "reason": f"credit {number}"})
    view, reads = refit.views.view, []
    tracked = view.max_tracking_id

    def counted(name: str) -> int | None:
        reads.append(name)
        return tracked(name)
    monkeypatch.setattr(view, "max_tracking_id", counted)

    folded = refit.views.catch_up()

    assert folded == 4  # Created and three credits, in one batch
    assert len(reads) == 1  # where to start; the batch's own tracking is the head
    assert view.max_tracking_id(refit.store.name) == refit.store.recorder.max_notification_id()
