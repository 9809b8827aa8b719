"""Commands run on threads of their own (api/command_route.py), each once its campaign's
turn has come (api/turns.py): while commands hold every one of them, a read is still
answered on the reads' threads; while one campaign's commands queue for their turn,
another campaign's command is answered; and the commands finish afterwards (issue 17,
item 4)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient

import api.command_route
from infra.settings import Settings
from tests.helpers.http import auth, new_campaign, send, serving
from tests.helpers.paths import FIXTURE_CHART

THREADS = 2
CREDIT = {"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "base"}


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The service with two threads for reads and two for commands."""
    conf = settings.model_copy(update={"threads": THREADS, "command_threads": THREADS,
                                       "turn_wait": 30.0})
    yield from serving(conf, FIXTURE_CHART)


def held_commands(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Semaphore,
                                                             threading.Event]:
    """Commands held on their thread until the event is set; the semaphore counts them."""
    holding, release = threading.Semaphore(0), threading.Event()
    command = api.command_route.execute

    def held(*args: Any) -> Any:
        holding.release()
        assert release.wait(30), "the test never let the commands go"
        return command(*args)
    monkeypatch.setattr(api.command_route, "execute", held)
    return holding, release


def test_a_read_is_answered_while_commands_hold_every_command_thread(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    campaigns = [new_campaign(client, name=f"Ranville {n}") for n in range(THREADS + 1)]
    campaign, director = campaigns[0], campaigns[0]["tokens"]["director"]
    holding, release = held_commands(monkeypatch)
    with ThreadPoolExecutor(THREADS + 2) as pool:  # the commands, and the read
        sent = [pool.submit(send, client, each, each["tokens"]["director"], CREDIT)
                for each in campaigns]
        for _ in range(THREADS):  # every command thread taken, one command waiting for one
            assert holding.acquire(timeout=30)
        read = pool.submit(client.get, f"/campaigns/{campaign['id']}", headers=auth(director))
        try:
            status = read.result(timeout=30)
        finally:
            release.set()
        answers = [done.result(timeout=60) for done in sent]
    assert status.status_code == 200 and status.json()["version"] == 1, status.text
    assert [answer.status_code for answer in answers] == [200] * (THREADS + 1)
    for each in campaigns:
        after = client.get(f"/campaigns/{each['id']}", headers=auth(each["tokens"]["director"]))
        assert after.json()["version"] == 2


def test_commands_queued_on_one_campaign_hold_no_thread_another_campaign_needs(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    busy, other = new_campaign(client), new_campaign(client, name="Breville")
    holding, release = held_commands(monkeypatch)
    queued = 3 * THREADS
    with ThreadPoolExecutor(queued + 1) as pool:
        sent = [pool.submit(send, client, busy, busy["tokens"]["director"], CREDIT)
                for _ in range(queued)]
        assert holding.acquire(timeout=30)  # the busy campaign's first command runs
        assert not holding.acquire(timeout=0.5)  # its others wait for their turn
        elsewhere = pool.submit(send, client, other, other["tokens"]["director"], CREDIT)
        try:
            assert holding.acquire(timeout=30)  # on the thread they left free
        finally:
            release.set()
        answers = [done.result(timeout=60) for done in [*sent, elsewhere]]
    assert [answer.status_code for answer in answers] == [200] * (queued + 1)
    versions = [client.get(f"/campaigns/{c['id']}", headers=auth(c["tokens"]["director"])
                           ).json()["version"] for c in (busy, other)]
    assert versions == [1 + queued, 2]


def test_a_command_that_waits_past_the_turn_wait_is_answered_busy_and_appends_nothing(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = settings.model_copy(update={"turn_wait": 0.5})
    for client in serving(conf, FIXTURE_CHART):
        campaign = new_campaign(client)
        director = campaign["tokens"]["director"]
        holding, release = held_commands(monkeypatch)
        with ThreadPoolExecutor(2) as pool:
            first = pool.submit(send, client, campaign, director, CREDIT)
            assert holding.acquire(timeout=30)
            try:
                late = send(client, campaign, director, CREDIT)
            finally:
                release.set()
            assert first.result(timeout=60).status_code == 200
        assert late.status_code == 503, late.text
        assert late.json()["error"]["code"] == "busy"
        assert "0.5 s" in late.json()["error"]["message"]
        answer = client.get(f"/campaigns/{campaign['id']}", headers=auth(director))
        assert answer.json()["version"] == 2  # the first command's event alone


def test_a_command_that_finds_no_command_thread_within_the_turn_wait_is_answered_busy(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = settings.model_copy(update={"command_threads": 1, "turn_wait": 0.5})
    for client in serving(conf, FIXTURE_CHART):
        held, waiting = new_campaign(client), new_campaign(client, name="Breville")
        holding, release = held_commands(monkeypatch)
        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(send, client, held, held["tokens"]["director"], CREDIT)
            assert holding.acquire(timeout=30)  # the one command thread is taken
            try:
                late = send(client, waiting, waiting["tokens"]["director"], CREDIT)
            finally:
                release.set()
            assert first.result(timeout=60).status_code == 200
        assert late.status_code == 503, late.text
        assert late.json()["error"]["code"] == "busy"
        assert "every command thread for 0.5 s" in late.json()["error"]["message"]
        assert late.headers["retry-after"]
        director = waiting["tokens"]["director"]
        assert client.get(f"/campaigns/{waiting['id']}",
                          headers=auth(director)).json()["version"] == 1
        # the thread and the campaign's turn were both given back: it is answered now
        assert send(client, waiting, director, CREDIT).status_code == 200
