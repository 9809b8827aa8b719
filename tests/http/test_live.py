"""`GET /campaigns/{id}/live` (issue 17 item 4, issue 18 item 7): when one side acts, the
other side's stream and the director's carry it, each as that role reads the event log,
so a secret's content reaches the director and never the opponent; Last-Event-ID resumes;
a bad token, a bad version, a full process and an outage are refused before streaming."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest

from infra.modules import install_file
from infra.settings import Settings
from infra.store import CampaignStore
from tests.helpers.http import auth, serving
from tests.helpers.live import Message, Stream, live_service, streaming
from tests.helpers.paths import FIXTURE_CHART
from tests.helpers.processes import BOUND, until

AXIS, BRITISH = "Axis", "British"
PURCHASE = {"type": "purchase_rg", "side": AXIS, "rg": "X1"}  # secret (PBr 3.617)
SECRET_ROLL = {"type": "roll", "table": "T2", "side": AXIS, "subject": "unit:Oblt.Secret"}


@pytest.fixture
def url(settings: Settings) -> Iterator[str]:
    """The service on a socket, with the fictitious PBr test chart (RG X1, table T2)."""
    install_file(FIXTURE_CHART, settings.module_dir)
    with live_service(settings) as found:
        yield found


@pytest.fixture
def client(url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, timeout=BOUND) as found:
        yield found


class Game:
    """A PBr CG I with the Axis credited CPP: tokens by role, commands, reads."""

    def __init__(self, client: httpx.Client, url: str) -> None:
        self.client = client
        answer = client.post("/campaigns", headers=auth("admin-token-for-tests"),
                             json={"module": "pbr", "cg": "I", "name": "Ranville"})
        assert answer.status_code == 201, answer.text
        body = answer.json()
        self.id, self.live = body["id"], f"{url}/campaigns/{body['id']}/live"
        self.tokens = {"director": body["tokens"]["director"],
                       "observer": body["tokens"]["observer"], **body["tokens"]["sides"]}
        self.ok("director", {"type": "credit_cpp", "side": AXIS, "amount": 39,
                             "reason": "Base"})

    def ok(self, role: str, body: dict[str, Any]) -> dict[str, Any]:
        answer = self.client.post(f"/campaigns/{self.id}/commands", json=body,
                                  headers=auth(self.tokens[role]))
        assert answer.status_code == 200, answer.text
        found: dict[str, Any] = answer.json()
        return found

    def read(self, role: str, path: str = "") -> Any:
        answer = self.client.get(f"/campaigns/{self.id}{path}", headers=auth(self.tokens[role]))
        assert answer.status_code == 200, answer.text
        return answer.json()

    def events_after(self, role: str, version: int) -> list[dict[str, Any]]:
        """The event log as the role reads it, after a version."""
        return [e for e in self.read(role, "/events") if e["version"] > version]

    def stream(self, role: str, **headers: str) -> Any:
        return streaming(self.live, self.tokens[role], **headers)


@pytest.fixture
def game(client: httpx.Client, url: str) -> Game:
    return Game(client, url)


def ready(stream: Stream) -> Message:
    """The stream's `ready` message (it is subscribed from then on)."""
    assert stream.opened() == 200
    return stream.next("ready")


def test_the_opponent_sees_that_a_secret_happened_and_the_director_what_it_was(
        game: Game) -> None:
    with game.stream(BRITISH) as british, game.stream("director") as director:
        start = int(ready(british).id or 0)
        assert ready(director).id == str(start)
        for body, secret in ((PURCHASE, '"X1"'), (SECRET_ROLL, "Oblt.Secret")):
            done = game.ok(AXIS, body)
            seen, told = british.next("appended"), director.next("appended")
            assert seen.id == told.id == str(done["version"])
            assert seen.data["version"] == done["version"]
            assert seen.data["head_hash"] == done["head_hash"] == told.data["head_hash"]
            assert seen.data["events"] == game.events_after(BRITISH, start)
            assert told.data["events"] == game.events_after("director", start)
            assert any(e["redacted"] for e in seen.data["events"]), body
            assert secret not in json.dumps(seen.data), body
            assert secret in json.dumps(told.data), body
            start = done["version"]


def test_an_observer_stream_carries_no_token_material(game: Game) -> None:
    with game.stream("observer") as observer:
        ready(observer)
        replaced = game.client.post(f"/campaigns/{game.id}/tokens/{BRITISH}",
                                    headers=auth(game.tokens["director"]))
        assert replaced.status_code == 200, replaced.text
        seen = observer.next("appended")
        assert seen.data["events"] and not any("tokens" in e for e in seen.data["events"])
        assert replaced.json()["token"] not in json.dumps(seen.data)


def test_last_event_id_sends_what_was_missed_then_ready_at_the_head(game: Game) -> None:
    missed_from = game.read("director")["version"]
    game.ok(AXIS, PURCHASE)
    head = game.ok(AXIS, SECRET_ROLL)
    with game.stream(BRITISH, **{"Last-Event-ID": str(missed_from)}) as british:
        assert british.opened() == 200
        caught = british.next()
        assert caught.event == "appended" and caught.id == str(head["version"])
        assert caught.data["events"] == game.events_after(BRITISH, missed_from)
        assert caught.data["head_hash"] == head["head_hash"]
        assert british.next().event == "ready"
        game.ok("director", {"type": "advance"})
        assert british.next().data["version"] == head["version"] + 1


def test_after_in_the_query_resumes_as_the_header_does(game: Game) -> None:
    with streaming(f"{game.live}?after=1", game.tokens[BRITISH]) as british:
        assert british.opened() == 200
        caught = british.next()
        assert caught.event == "appended"
        assert caught.data["events"] == game.events_after(BRITISH, 1)


@pytest.mark.parametrize(("headers", "status", "field"), [
    ({"Authorization": "Bearer not-a-token"}, 401, None),
    ({}, 401, None),
    ({"Last-Event-ID": "seven"}, 422, "Last-Event-ID"),
    ({"Last-Event-ID": "99999"}, 422, "Last-Event-ID"),
])
def test_a_refused_stream_answers_before_it_starts(game: Game, headers: dict[str, str],
                                                   status: int, field: str | None) -> None:
    sent = auth(game.tokens[BRITISH]) | headers
    if "Authorization" in headers or not headers:
        sent = headers
    answer = game.client.get(f"/campaigns/{game.id}/live", headers=sent)
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["field"] == field


def test_another_campaigns_token_opens_no_stream(game: Game, client: httpx.Client,
                                                 url: str) -> None:
    other = Game(client, url)
    answer = client.get(f"/campaigns/{game.id}/live", headers=auth(other.tokens[BRITISH]))
    assert answer.status_code == 401, answer.text


def test_streams_beyond_the_process_maximum_answer_503(settings: Settings) -> None:
    full = settings.model_copy(update={"live_max_streams": 1})
    with live_service(full) as url, httpx.Client(base_url=url, timeout=BOUND) as client:
        game = Game(client, url)
        with game.stream(BRITISH) as first:
            ready(first)
            answer = client.get(f"/campaigns/{game.id}/live", headers=auth(game.tokens[AXIS]))
            assert answer.status_code == 503, answer.text
            assert answer.json()["error"]["code"] == "streams_full"
            assert "Retry-After" in answer.headers
        with game.stream(AXIS) as second:  # the first's slot is free again
            assert ready(second).event == "ready"


def test_an_outage_on_connecting_answers_503(settings: Settings,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    for client in serving(settings):
        game = Game(client, "")

        def down(*_: Any, **__: Any) -> Any:
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        monkeypatch.setattr(CampaignStore, "campaign", down)
        answer = client.get(f"/campaigns/{game.id}/live", headers=auth(game.tokens[BRITISH]))
        assert answer.status_code == 503, answer.text
        assert answer.json()["error"]["code"] == "unavailable"
        monkeypatch.undo()


def test_an_idle_stream_sends_heartbeats(game: Game) -> None:
    with game.stream(AXIS) as axis:
        ready(axis)
        assert until(lambda: axis.beats >= 2), "no heartbeat comment came"
        assert axis.messages.empty()  # a comment is no message


def test_an_outage_mid_stream_sends_the_error_and_ends_it(
        game: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    with game.stream(BRITISH) as british:
        ready(british)

        def down(*_: Any, **__: Any) -> Any:
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        monkeypatch.setattr(CampaignStore, "campaign", down)  # the next heartbeat reads
        failed = british.next()
        assert failed.event == "error" and failed.data["error"]["code"] == "unavailable"
        assert "closed the connection" not in json.dumps(failed.data)  # never the driver's
        assert british.ended.wait(BOUND) and british.finished


def test_a_replaced_token_ends_the_streams_it_opened(game: Game) -> None:
    with game.stream(BRITISH) as british:
        ready(british)
        replaced = game.client.post(f"/campaigns/{game.id}/tokens/{BRITISH}",
                                    headers=auth(game.tokens["director"]))
        assert replaced.status_code == 200, replaced.text
        ended = british.next()
        assert ended.event == "error" and ended.data["error"]["code"] == "unauthorized"
        assert british.ended.wait(BOUND) and british.finished
