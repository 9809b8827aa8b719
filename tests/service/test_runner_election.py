"""Several service processes on one PostgreSQL run one projection runner, elected by an
advisory lock; when its process goes, another takes over (issue 17, item 5)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from infra import election, supervisor
from infra.application import Refit
from infra.election import lock_key
from infra.settings import Settings, backend_of
from tests.helpers.databases import PG_URL
from tests.helpers.processes import BOUND, serving_process, until
from tests.helpers.story import do

HOLDER = """
import sys, time
from infra.application import Refit
from infra.settings import Settings
refit = Refit(Settings(database_url=sys.argv[1], module_dir=sys.argv[2],
                       signing_key_file=sys.argv[3], projection_runner=True))
while not refit.views.runner.runner.leading.is_set():
    time.sleep(0.05)
print("leading", flush=True)
time.sleep(600)
"""


@pytest.fixture
def with_runner(settings: Settings) -> Settings:
    """The test's settings with the runner (PostgreSQL only)."""
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("the runner's election is a PostgreSQL advisory lock")
    return settings.model_copy(update={"projection_runner": True})


def leads(refit: Refit) -> bool:
    """Whether this instance's runner holds the lock and folds."""
    assert refit.views.runner is not None
    return bool(refit.views.runner.runner.leading.is_set())


def lock_holders(settings: Settings) -> int:
    """How many sessions hold the runner lock of the settings' schema."""
    key = lock_key(settings.eventsourcing_env()["POSTGRES_SCHEMA"]) & 0xFFFFFFFFFFFFFFFF
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        found = conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND "
            "database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "AND classid::bigint = %s AND objid::bigint = %s AND objsubid = 1",
            (key >> 32, key & 0xFFFFFFFF)).fetchone()
    assert found is not None
    return int(found[0])


def folded_by_the_runner(refit: Refit) -> bool:
    """Whether the view's tracking has reached the log's head (no read folds it)."""
    return refit.views.view.max_tracking_id("refit") == refit.store.recorder.max_notification_id()


@pytest.fixture
def holder(with_runner: Settings, tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process whose runner has won the lock; killed by its id afterwards."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, with_runner.database_url, str(tmp_path / "modules"),
         str(tmp_path / "holder-key")], text=True, stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL)
    try:
        assert process.stdout is not None and process.stdout.readline() == "leading\n"
        yield process
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        process.wait(BOUND)


def test_two_instances_elect_one_runner_and_the_other_takes_over(
        with_runner: Settings) -> None:
    first, second = Refit(with_runner), Refit(with_runner)
    try:
        assert until(lambda: leads(first) or leads(second))
        leader, standby = (first, second) if leads(first) else (second, first)
        assert not leads(standby) and lock_holders(with_runner) == 1
        leader.close()
        assert until(lambda: leads(standby))
        campaign = standby.commands.create_campaign("pbr", "I", "Failover", "server").id
        do(standby, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 5,
                               "reason": "x"})
        assert until(lambda: folded_by_the_runner(standby))
        assert lock_holders(with_runner) == 1
    finally:
        first.close()
        second.close()


def test_when_the_runners_process_dies_a_standby_takes_over(
        with_runner: Settings, holder: subprocess.Popen[str]) -> None:
    standby = Refit(with_runner)
    try:
        campaign = standby.commands.create_campaign("pbr", "I", "Killed", "server").id
        assert until(lambda: folded_by_the_runner(standby))  # the other process folded it
        assert not leads(standby) and lock_holders(with_runner) == 1
        os.kill(holder.pid, signal.SIGKILL)
        assert until(lambda: leads(standby))
        do(standby, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 5,
                               "reason": "x"})
        assert until(lambda: folded_by_the_runner(standby))
        assert standby.reads.status(campaign).sides["Axis"]["cpp"] == 5
    finally:
        standby.close()


def test_serve_with_two_workers_runs_one_runner(with_runner: Settings, tmp_path: Path) -> None:
    with serving_process(with_runner.database_url, tmp_path, 2,
                         REFIT_PROJECTION_RUNNER="true"):
        assert until(lambda: lock_holders(with_runner) == 1)


def test_a_runner_whose_batch_fails_holds_the_lock_no_longer_even_before_it_is_closed(
        with_runner: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(*args: object, **kwargs: object) -> int:
        raise RuntimeError("a batch that fails (not the database: its pool stays open)")
    monkeypatch.setattr(election, "catch_up", failing)
    refit = Refit(with_runner.model_copy(update={"projection_runner": False}))
    try:
        runner = refit.views._start_runner()  # not supervised: nothing closes it for us
        with pytest.raises(RuntimeError, match="a batch that fails"):
            runner.run_forever()
        assert lock_holders(with_runner) == 0  # its pool still open, the lock gone
        runner.app.close()
    finally:
        refit.close()


def test_a_failed_batch_frees_the_lock_for_a_standby_at_once(
        with_runner: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    failing: dict[str, object] = {"app": None}
    real = election.catch_up

    def catch_up(app: object, *args: object, **kwargs: object) -> int:
        # Only the first instance's runner fails: catch_up is this module's for every
        # runner in the process, another test's among them if one is still running.
        if app is failing["app"]:
            failing["app"] = None
            raise RuntimeError("a batch that fails (not the database: its pool stays open)")
        return real(app, *args, **kwargs)  # type: ignore[arg-type]
    monkeypatch.setattr(election, "catch_up", catch_up)
    monkeypatch.setattr(supervisor, "FIRST_DELAY", 30.0)  # the failed runner stays down
    first = Refit(with_runner)
    try:
        assert until(lambda: leads(first))
        second = Refit(with_runner)
        try:
            assert first.views.runner is not None
            failing["app"] = first.views.runner.runner.app
            first.store.recorder.max_notification_id()  # nothing to wake it: it polls
            assert until(lambda: leads(second))  # the supervisor closed the failed runner
            assert lock_holders(with_runner) == 1
        finally:
            second.close()
    finally:
        first.close()


class Notifying:
    """A LISTEN connection holding NOTIFYs: psycopg's `notifies`, without a server."""

    def __init__(self, pending: int) -> None:
        self.pending, self.waits = pending, []

    def notifies(self, timeout: float | None = None,
                 stop_after: int | None = None) -> Iterator[str]:
        self.waits.append(timeout)
        while self.pending and (stop_after is None or stop_after > 0):
            self.pending -= 1
            stop_after = None if stop_after is None else stop_after - 1
            yield "append"


class Waits:
    """A stop event that records how long the runner waited on it."""

    def __init__(self) -> None:
        self.waited: list[float] = []

    def is_set(self) -> bool:
        return False

    def wait(self, seconds: float) -> bool:
        self.waited.append(seconds)
        return False


def test_a_burst_of_appends_wakes_the_runner_once_for_one_catch_up() -> None:
    from types import SimpleNamespace

    projection = SimpleNamespace(view=None, reader=None)
    runner = election.ElectedRunner(None, projection, 0)  # type: ignore[arg-type]
    runner.is_interrupted = Waits()  # type: ignore[assignment]
    burst = Notifying(pending=5)  # five commits' NOTIFYs, one after another
    runner._notified_or_idle(burst)  # type: ignore[arg-type]
    # Woken by the first, it waits for the burst's others, then takes them all: the next
    # wait is for the appends after them, not a catch-up of nothing for each.
    assert runner.is_interrupted.waited == [election.GATHER]  # type: ignore[attr-defined]
    assert burst.pending == 0 and burst.waits == [election.STOP_CHECK, 0]
