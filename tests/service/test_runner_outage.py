"""The projection runner survives a database outage: it resumes from its tracking position
and reads recover without a restart of the service."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import psycopg
import pytest
from eventsourcing.persistence import OperationalError

from infra.application import Refit
from infra.health import Health, Readiness
from infra.settings import Settings, backend_of
from tests.helpers.databases import PG_URL
from tests.helpers.processes import until
from tests.helpers.proxy import proxied_database
from tests.helpers.story import do


@pytest.fixture
def with_runner(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """The test's settings with the runner on PostgreSQL; every connection this process
    opens carries a name of the test's own, so an outage ends this test's connections only
    (the server is shared)."""
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("the projection runner needs PostgreSQL's LISTEN/NOTIFY")
    monkeypatch.setenv("PGAPPNAME", f"refit-outage-{uuid.uuid4().hex[:12]}")
    yield settings.model_copy(update={"projection_runner": True, "read_wait": 15.0})


def outage() -> int:
    """What a PostgreSQL restart does to this test's connections: each is terminated. The
    number ended."""
    import os

    with psycopg.connect(PG_URL, autocommit=True, application_name="refit-outage-killer") as conn:
        ended = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                             "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                             "AND application_name = %s", (os.environ["PGAPPNAME"],)).fetchone()
    assert ended is not None
    return int(ended[0])


def credit_from_another_process(settings: Settings, campaign: UUID, amount: int) -> None:
    """A command through a process of its own (fresh connections), without a runner."""
    writer = Refit(settings.model_copy(update={"projection_runner": False}))
    try:
        do(writer, campaign, {"type": "credit_cpp", "side": "Axis", "amount": amount,
                              "reason": "After"})
    finally:
        writer.close()


@contextmanager
def service_with_a_campaign(settings: Settings) -> Iterator[tuple[Refit, UUID]]:
    """The service (with its runner) and a campaign whose Axis has 5 CPP, read once."""
    service = Refit(settings)
    try:
        campaign = service.commands.create_campaign("pbr", "I", "Outage", "server").id
        do(service, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 5,
                               "reason": "Base"})
        assert service.reads.status(campaign).sides["Axis"]["cpp"] == 5
        yield service, campaign
    finally:
        service.close()


def test_the_runner_resumes_after_its_connections_end_and_reads_see_new_commands(
        with_runner: Settings) -> None:
    with service_with_a_campaign(with_runner) as (service, campaign):
        for outages, amount in ((1, 7), (2, 11)):
            assert outage() > 0
            credit_from_another_process(with_runner, campaign, amount)
            # Each event folded once: not 5 + 7 + 7, nor 5 + 5 + 7.
            assert service.reads.status(campaign).sides["Axis"]["cpp"] == \
                {1: 12, 2: 23}[outages]
            runner = service.views.runner
            assert runner is not None
            # A read no longer waits for the runner: its restart is waited for here.
            assert until(lambda r=runner, n=outages: r.restarts == n)
        assert Health(service).readiness() == Readiness(True, 0, "answers", "alive")


def test_a_runner_that_cannot_restart_at_once_retries_with_longer_delays_and_says_so(
        with_runner: Settings, caplog: pytest.LogCaptureFixture) -> None:
    with service_with_a_campaign(with_runner) as (service, campaign):
        runner = service.views.runner
        assert runner is not None
        start, tries = runner._start, []

        def flaky() -> Any:
            tries.append(1)
            if len(tries) <= 2:
                raise OperationalError("the database is starting up")
            return start()

        runner._start = flaky
        with caplog.at_level(logging.WARNING, logger="infra.supervisor"):
            outage()
            credit_from_another_process(with_runner, campaign, 7)
            assert service.reads.status(campaign).sides["Axis"]["cpp"] == 12
            assert until(lambda: runner.restarts == 1)
        failed = [r.getMessage() for r in caplog.records if "could not restart" in r.getMessage()]
        assert failed == ["the projection runner could not restart (OperationalError: the "
                          f"database is starting up); next try in {delay:.1f} s"
                          for delay in (0.4, 0.8)]
        assert runner.restarts == 1


def test_through_an_outage_readiness_says_why_and_after_it_the_service_heals(
        with_runner: Settings) -> None:
    with proxied_database(with_runner.database_url) as (proxy, url):
        through = with_runner.model_copy(update={"database_url": url})
        with service_with_a_campaign(through) as (service, campaign):
            health = Health(service)
            proxy.down()  # the database goes away, and stays away a while
            assert until(lambda: not health.readiness().ok)
            runner = service.views.runner
            assert runner is not None
            # The runner meets the outage (its connections end) and is started again: where
            # its thread waits meanwhile (for a connection, 10 s at a time) is not asserted,
            # so neither is what readiness says of it at one moment.
            assert until(lambda: runner.problem is not None or runner.restarts > 0)
            proxy.up()
            assert until(lambda: health.readiness().ok), health.readiness()
            assert runner.restarts >= 1 and runner.problem is None
            credit_from_another_process(with_runner, campaign, 7)
            assert service.reads.status(campaign).sides["Axis"]["cpp"] == 12


def test_while_the_runner_restarts_readiness_says_so_and_that_the_database_answers(
        with_runner: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    with service_with_a_campaign(with_runner) as (service, _):
        runner = service.views.runner
        assert runner is not None
        # Started first: a start still under way would clear the problem set below; and
        # caught up, so the lag asserted below is the view's, not a fold still under way.
        assert until(lambda: runner.alive() and runner.problem is None)
        assert until(lambda: Health(service).readiness().runner_lag == 0)

        def closed() -> int:  # the runner that ended: its pool is closed
            raise OperationalError("pool has already been opened/closed and cannot be reused")

        monkeypatch.setattr(runner, "alive", lambda: False)
        monkeypatch.setattr(runner, "position", closed)
        runner.problem = "restarting the projection runner: DatabaseAway"
        # It said "does not answer (OperationalError)" of a database that answered.
        assert Health(service).readiness() == Readiness(
            False, 0, "answers", "restarting the projection runner: DatabaseAway")
