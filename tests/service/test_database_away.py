"""While PostgreSQL is out of reach the service refuses at once, 503 `unavailable`,
appending nothing; once it is back the service heals by itself within seconds
(infra/healing_pool.py; bench/chaos.py `db_away` measures it under load)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.errors import http_body, status_of
from infra.application import Refit
from infra.drivers import DatabaseAway
from infra.healing_pool import HealingPool, SteadyAttempt, heal
from infra.settings import Settings, backend_of
from tests.helpers.databases import PG_URL, without_postgres
from tests.helpers.http import auth, new_campaign, send, serving
from tests.helpers.processes import until
from tests.helpers.proxy import Proxy, proxied_database
from tests.helpers.story import do

CREDIT = {"type": "credit_cpp", "side": "Axis", "amount": 5, "reason": "Base"}


def test_a_pool_out_of_reach_tries_again_every_second_for_as_long_as_it_takes() -> None:
    attempt, now, delays = SteadyAttempt(), 0.0, []
    for _ in range(600):  # ten minutes of tries: psycopg_pool's own gave up after five
        assert not attempt.time_to_give_up(now)
        attempt.update_delay(now)
        delays.append(attempt.delay)
        now += attempt.delay
    # psycopg_pool doubles its delay after each failed try: its 10th would be 512 s away.
    assert min(delays) >= 0.9 and max(delays) <= 1.1
    assert attempt.give_up_at == math.inf


def test_a_server_that_takes_no_new_connection_still_serves_the_pools_own(
        postgres_problem: str | None) -> None:
    if postgres_problem is not None:
        without_postgres(postgres_problem, "a PostgreSQL pool needs PostgreSQL")
    pool = HealingPool(PG_URL, min_size=1, max_size=2, open=True)
    attempts: list[object] = []
    schedule = pool.schedule_task
    pool.schedule_task = lambda task, delay: (  # type: ignore[method-assign]
        attempts.append(getattr(task, "attempt", SteadyAttempt())), schedule(task, delay))
    try:
        pool.wait()
        held = pool.getconn()
        # As at max_connections: the server refuses new connections, keeps its old ones.
        pool.conninfo = "host=127.0.0.1 port=1 connect_timeout=1"
        with pytest.raises(DatabaseAway):
            # None idle: the pool grows, its try fails, and the wait ends with it (not
            # after 30 s, as psycopg_pool would let it).
            pool.getconn(timeout=30)
        assert pool.away_since is not None
        with pytest.raises(DatabaseAway):
            pool.getconn()  # none idle still: refused within AWAY_WAIT, not 30 s
        # Its try to grow is made again every second, never given up.
        assert attempts and all(isinstance(a, SteadyAttempt) for a in attempts)
        pool.putconn(held)  # back whole: the server serves
        assert pool.away_since is None
        again = pool.getconn()  # the one it has is handed out, not refused
        assert again is held and again.execute("SELECT 1").fetchone() == (1,)
        pool.putconn(again)
    finally:
        pool.close()


def test_when_the_database_is_back_the_connections_idle_through_the_outage_are_replaced(
        postgres_problem: str | None) -> None:
    if postgres_problem is not None:
        without_postgres(postgres_problem, "a PostgreSQL pool needs PostgreSQL")
    with proxied_database(PG_URL) as (proxy, through):
        pool = HealingPool(through, min_size=3, max_size=4, open=True)
        try:
            pool.wait()
            proxy.down()  # the three idle connections end, and nobody has noticed
            pool.resize(4, 4)  # a try to connect: it fails, the pool is away
            assert until(lambda: pool.away_since is not None)
            proxy.up()
            assert until(lambda: pool.away_since is None)
            # Each idle one is tried and replaced, not handed to a request to fail on.
            assert until(lambda: pool.get_stats().get("connections_lost", 0) >= 3)
            with pool.connection() as conn:
                assert conn.execute("SELECT 1").fetchone() == (1,)
        finally:
            pool.close()


@pytest.fixture
def through_a_proxy(settings: Settings) -> Iterator[tuple[Settings, Proxy]]:
    """The test's PostgreSQL settings, reaching the database through a proxy to cut."""
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("an embedded SQLite file cannot be out of reach")
    with proxied_database(settings.database_url) as (proxy, through):
        yield settings.model_copy(update={"database_url": through}), proxy


def refused(action: Any) -> BaseException:
    """The error `action()` raised (it must raise one)."""
    with pytest.raises(Exception) as raised:
        action()
    return raised.value


def test_every_pool_of_the_service_heals_from_its_first_try(
        through_a_proxy: tuple[Settings, Proxy]) -> None:
    from eventsourcing.postgres import ConnectionPool

    settings, _ = through_a_proxy
    service = Refit(settings.model_copy(update={"projection_runner": True,
                                                "shared_database": True}))
    try:
        runner, lock = service.views.runner, service.commands.store_lock
        assert runner is not None and lock is not None
        pools = [service.store.recorder.datastore.pool, service.views.view.datastore.pool,
                 runner.runner.app.recorder.datastore.pool, runner.runner.view.datastore.pool]
        heal(service.store.recorder.datastore)  # twice is once
        for pool in pools:
            assert type(pool) is HealingPool
        assert HealingPool.__mro__[1] is ConnectionPool  # eventsourcing's, and no other
        assert type(lock.pool) is HealingPool
    finally:
        service.close()


@pytest.mark.parametrize("away", ["stopped", "silent"])
def test_a_command_while_the_database_is_away_is_refused_at_once_and_appends_nothing(
        through_a_proxy: tuple[Settings, Proxy], away: str) -> None:
    settings, proxy = through_a_proxy
    service = Refit(settings)
    try:
        campaign = service.commands.create_campaign("pbr", "I", "Away", "server").id
        do(service, campaign, CREDIT)
        # Stopped: a new connection is refused at once. Silent: taken and never answered,
        # until the pool's try gives up after CONNECT_TRY (psycopg's own wait is 130 s).
        proxy.down() if away == "stopped" else proxy.silent()
        # The first finds its pooled connection dead, the pool's try to connect fails,
        # and the request waiting for a connection is refused with it; from then on the
        # pool refuses at once, where it used to wait 10 s for one ten times over.
        error = refused(lambda: do(service, campaign, CREDIT | {"amount": 7}))
        assert isinstance(error, DatabaseAway)
        assert status_of(error) == 503 and http_body(error)["error"]["code"] == "unavailable"
        assert isinstance(refused(lambda: service.reads.status(campaign)), DatabaseAway)
        proxy.up()  # back: within about a second the pool takes a connection again
        assert until(lambda: _credited(service, campaign, 11))
        assert service.reads.status(campaign).sides["Axis"]["cpp"] == 16  # 5 + 11, not 7
    finally:
        service.close()


def _credited(service: Refit, campaign: Any, amount: int) -> bool:
    """Whether the credit was recorded now (False while the database is still away)."""
    try:
        do(service, campaign, CREDIT | {"amount": amount})
    except DatabaseAway:
        return False
    return True


@contextmanager
def client_of(settings: Settings) -> Iterator[TestClient]:
    """The HTTP service on `settings`."""
    yield from serving(settings)


def test_over_http_an_outage_is_503_unavailable_with_retry_after_and_then_heals(
        through_a_proxy: tuple[Settings, Proxy]) -> None:
    settings, proxy = through_a_proxy
    with client_of(settings) as client:
        campaign = new_campaign(client)
        director = campaign["tokens"]["director"]
        assert send(client, campaign, director, CREDIT).status_code == 200
        proxy.down()
        answers = [send(client, campaign, director, CREDIT | {"amount": 7}) for _ in range(3)]
        read = client.get(f"/campaigns/{campaign['id']}", headers=auth(director))
        for answer in [*answers, read]:
            assert answer.status_code == 503, answer.text
            assert answer.json()["error"]["code"] == "unavailable"
            assert answer.headers["Retry-After"] == "2"
            assert "127.0.0.1" not in answer.text  # the driver's words stay in the log
        proxy.up()
        assert until(lambda: send(client, campaign, director, CREDIT | {"amount": 11})
                     .status_code == 200)
        status = client.get(f"/campaigns/{campaign['id']}", headers=auth(director)).json()
        assert status["sides"]["Axis"]["cpp"] == 16
