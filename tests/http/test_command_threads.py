"""Commands run on threads of their own (api/command_route.py): while commands hold every
one of them (each waiting for its campaign's turn or the database), a read is still
answered on the reads' threads, and the commands finish afterwards (issue 17, item 4)."""

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


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The service with two threads for reads and two for commands."""
    yield from serving(settings.model_copy(update={"threads": THREADS}), FIXTURE_CHART)


def test_a_read_is_answered_while_commands_hold_every_command_thread(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    holding, release = threading.Semaphore(0), threading.Event()
    command = api.command_route.execute

    def held(*args: Any) -> Any:
        holding.release()
        assert release.wait(30), "the test never let the commands go"
        return command(*args)
    monkeypatch.setattr(api.command_route, "execute", held)
    credit = {"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "base"}
    with ThreadPoolExecutor(THREADS + 2) as pool:  # the commands, and the read
        sent = [pool.submit(send, client, campaign, director, credit)
                for _ in range(THREADS + 1)]
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
    after = client.get(f"/campaigns/{campaign['id']}", headers=auth(director))
    assert after.json()["version"] == 1 + THREADS + 1
