"""A database that stops answering (its connections cut, its file locked) answers 503 with
Retry-After, for commands and reads, never 500; the next request after it is back
succeeds without a restart; a command recorded before its lock's connection died is
answered as recorded."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest

from api.errors import headers_of, status_of
from infra import settings as settings_module
from infra.settings import Settings, backend_of, persistence_env
from infra.store import CampaignStore
from tests.helpers.http import auth, new_campaign, send, serving

service = contextmanager(serving)
TRIES = 30  # requests the pools need at most to replace every dropped connection


def cut(url: str, app_name: str) -> int:
    """Terminate every connection the service has open (named by its application_name),
    as a database restart does; how many were cut."""
    with psycopg.connect(url.split("?")[0], autocommit=True) as pg:
        return len(pg.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
            "current_database() AND pid <> pg_backend_pid() AND application_name = %s",
            (app_name,)).fetchall())


def named_connections(settings: Settings, monkeypatch: pytest.MonkeyPatch, why: str) -> str:
    """The name libpq gives every connection of this test (PostgreSQL only: else skipped,
    saying why), so that `cut` ends this test's connections and no other's."""
    if backend_of(settings.database_url) != "postgres":
        pytest.skip(why)
    app_name = f"refit-outage-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("PGAPPNAME", app_name)
    return app_name


@contextmanager
def locked(path: str) -> Iterator[None]:
    """Another program holds the SQLite file's write lock."""
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def unavailable(answer: Any) -> bool:
    """A 503 outage answer: Retry-After, the contract's body, the retry made safe."""
    if answer.status_code != 503:
        return False
    error = answer.json()["error"]
    assert answer.headers["Retry-After"].isdigit(), answer.headers
    assert error["code"] == "unavailable" and "Idempotency-Key" in error["message"]
    return True


def recovered(call: Any) -> list[int]:
    """The statuses of `call` until it answers 200: each one before is an outage 503."""
    statuses = []
    for _ in range(TRIES):
        answer = call()
        statuses.append(answer.status_code)
        if answer.status_code == 200:
            return statuses
        assert unavailable(answer), answer.text
    raise AssertionError(f"no 200 after {TRIES} tries: {statuses}")


@pytest.mark.parametrize("error", [
    psycopg.errors.AdminShutdown("terminating connection due to administrator command"),
    psycopg.OperationalError("server closed the connection unexpectedly"),
    psycopg.InterfaceError("the connection is closed"),
    sqlite3.OperationalError("database is locked"),
    sqlite3.OperationalError("unable to open database file"),
])
def test_every_database_outage_is_a_503_with_retry_after(error: Exception) -> None:
    assert status_of(error) == 503 and headers_of(error) == {"Retry-After": "2"}
    wrapped = RuntimeError("a read failed")
    wrapped.__cause__ = error
    assert status_of(wrapped) == 503


def test_an_unexpected_failure_is_still_a_500_without_retry_after() -> None:
    assert status_of(KeyError("x")) == 500 and headers_of(KeyError("x")) is None


@pytest.mark.parametrize("workers", [1, 2])
def test_cut_connections_answer_no_500_and_the_next_requests_succeed(
        settings: Settings, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    app_name = named_connections(settings, monkeypatch, "cutting connections is "
                                 "PostgreSQL's outage; SQLite's is a locked file")
    shared = settings.model_copy(update={"shared_database": workers > 1})
    with service(shared) as client:
        campaign = new_campaign(client)
        director = campaign["tokens"]["director"]
        assert send(client, campaign, director, {"type": "advance"}).status_code == 200
        assert cut(settings.database_url, app_name) > 0
        statuses = recovered(lambda: send(client, campaign, director, {"type": "advance"},
                                          **{"Idempotency-Key": "after-the-cut"}))
        assert cut(settings.database_url, app_name) > 0
        statuses += recovered(lambda: client.get(f"/campaigns/{campaign['id']}/roster",
                                                 headers=auth(director)))
        assert 500 not in statuses and statuses[-1] == 200


def test_a_locked_sqlite_file_answers_503_then_recovers(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    if backend_of(settings.database_url) != "sqlite":
        pytest.skip("a locked file is SQLite's outage; PostgreSQL's is a cut connection")
    def quick(url: str) -> dict[str, str]:  # a lock waited for a second, not 30
        return persistence_env(url) | {"SQLITE_LOCK_TIMEOUT": "1"}
    monkeypatch.setattr(settings_module, "persistence_env", quick)
    path = persistence_env(settings.database_url)["SQLITE_DBNAME"]
    with service(settings) as client:
        campaign = new_campaign(client)
        director = campaign["tokens"]["director"]
        assert send(client, campaign, director, {"type": "advance"}).status_code == 200
        with locked(path):
            answer = send(client, campaign, director, {"type": "advance"})
            assert unavailable(answer), answer.text
            # A read writes nothing (its campaign's missing events fold in memory): it
            # answers while another process holds the file's write lock.
            answer = client.get(f"/campaigns/{campaign['id']}/roster", headers=auth(director))
            assert answer.status_code == 200, answer.text
        assert send(client, campaign, director, {"type": "advance"}).status_code == 200
        assert client.get(f"/campaigns/{campaign['id']}/roster",
                          headers=auth(director)).status_code == 200


def test_a_command_recorded_as_its_lock_connection_dies_is_answered_as_recorded(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    app_name = named_connections(settings, monkeypatch, "the campaign's advisory lock "
                                 "(refit serve --workers N) is PostgreSQL's")
    saved = CampaignStore.save

    def save_then_cut(store: CampaignStore, *objs: Any, **kwargs: Any) -> Any:
        recordings = saved(store, *objs, **kwargs)
        if cutting:  # the database restarts between the commit and the unlock
            cutting.pop()
            cut(settings.database_url, app_name)
        return recordings
    cutting: list[bool] = []
    monkeypatch.setattr(CampaignStore, "save", save_then_cut)
    with service(settings.model_copy(update={"shared_database": True})) as client:
        campaign = new_campaign(client)
        director = campaign["tokens"]["director"]
        cutting.append(True)
        first = send(client, campaign, director, {"type": "advance"},
                     **{"Idempotency-Key": "k1"})
        assert first.status_code == 200, first.text
        again = send(client, campaign, director, {"type": "advance"},
                     **{"Idempotency-Key": "k1"})
        assert again.json()["version"] == first.json()["version"]


def test_after_an_outage_the_first_command_takes_a_fresh_lock_connection(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    app_name = named_connections(settings, monkeypatch, "the campaign's advisory lock "
                                 "(refit serve --workers N) is PostgreSQL's")
    with service(settings.model_copy(update={"shared_database": True})) as client:
        campaign = new_campaign(client)
        director = campaign["tokens"]["director"]
        assert send(client, campaign, director, {"type": "advance"}).status_code == 200
        assert cut(settings.database_url, app_name) > 0  # the outage is over: it is back
        answer = send(client, campaign, director, {"type": "advance"})
        assert answer.status_code == 200, answer.text  # not a 503 for a pooled dead lock


@pytest.mark.parametrize("shared", [False, True])
def test_once_the_database_is_back_no_request_meets_a_connection_it_dropped(
        settings: Settings, monkeypatch: pytest.MonkeyPatch, shared: bool) -> None:
    app_name = named_connections(settings, monkeypatch, "cutting connections is "
                                 "PostgreSQL's outage; SQLite's is a locked file")
    with service(settings.model_copy(update={"shared_database": shared})) as client:
        campaign = new_campaign(client)
        director = campaign["tokens"]["director"]
        for _ in range(3):  # connections in every pool, idle once answered
            assert send(client, campaign, director, {"type": "advance"}).status_code == 200
            assert client.get(f"/campaigns/{campaign['id']}/roster",
                              headers=auth(director)).status_code == 200
        assert cut(settings.database_url, app_name) > 0  # a restart that is over at once
        answers = [send(client, campaign, director, {"type": "advance"}),
                   client.get(f"/campaigns/{campaign['id']}/roster", headers=auth(director)),
                   client.get(f"/campaigns/{campaign['id']}", headers=auth(director))]
        assert [answer.status_code for answer in answers] == [200, 200, 200], \
            [answer.text for answer in answers]
