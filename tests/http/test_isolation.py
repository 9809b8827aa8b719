"""One campaign's stored history that cannot be read harms that campaign alone: it answers
`history_unreadable` naming the version, every other campaign serves as before, and verify
names the version."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from infra.application import Refit
from infra.settings import Settings, backend_of
from tests.helpers.http import ADMIN, auth, new_campaign, send, serving
from tests.helpers.tamper import CORRUPTIONS, EVENTS, _ident, database, event_state, set_row

service = contextmanager(serving)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The service without its projection runner: a damaged event is damage to the
    fold, so no runner may fold the campaign before the test damages it."""
    yield from serving(settings.model_copy(update={"projection_runner": False}))
def played(client: TestClient) -> dict[str, Any]:
    """A campaign with a few commands recorded."""
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    for _ in range(3):
        assert send(client, campaign, director, {"type": "advance"}).status_code == 200
    return campaign


def head(client: TestClient, campaign: dict[str, Any]) -> int:
    answer = client.get(f"/campaigns/{campaign['id']}",
                        headers=auth(campaign["tokens"]["director"]))
    assert answer.status_code == 200, answer.text
    return int(answer.json()["version"])


def stored_head(url: str, campaign: UUID) -> int:
    """The campaign's last stored version, read with SQL (no read of the service folds)."""
    with database(url) as (kind, run, name):
        return int(run(f"SELECT max(originator_version) FROM {name(EVENTS[kind])} "
                       "WHERE originator_id=?", (_ident(kind, campaign),))[0][0])


@pytest.mark.parametrize("damage", [*CORRUPTIONS, "unknown topic"])
def test_a_campaign_with_an_unreadable_event_harms_no_other_campaign(
        client: TestClient, settings: Settings, damage: str) -> None:
    good = played(client)
    director = good["tokens"]["director"]
    assert client.get(f"/campaigns/{good['id']}/roster", headers=auth(director)).status_code == 200
    bad = played(client)  # its events are in the log, not yet folded into the view
    middle = stored_head(settings.database_url, UUID(bad["id"])) // 2
    if damage == "unknown topic":
        set_row(settings.database_url, UUID(bad["id"]), middle, topic="nowhere:NoSuchEvent")
    else:
        set_row(settings.database_url, UUID(bad["id"]), middle, CORRUPTIONS[damage])
    assert send(client, good, director, {"type": "advance"}).status_code == 200
    for path in ("", "/roster", "/purchase-record", "/events", "/verify"):
        answer = client.get(f"/campaigns/{good['id']}{path}", headers=auth(director))
        assert answer.status_code == 200, (path, answer.text)
    assert [line["id"] for line in client.get("/campaigns", headers=auth(ADMIN)).json()] == \
        [good["id"]]
    for path in ("", "/roster", "/events"):
        answer = client.get(f"/campaigns/{bad['id']}{path}",
                            headers=auth(bad["tokens"]["director"]))
        assert answer.status_code == 409, (path, answer.text)
        assert answer.json()["error"]["code"] == "history_unreadable"
        assert f"version {middle}" in answer.json()["error"]["message"]
    answer = send(client, bad, bad["tokens"]["director"], {"type": "advance"})
    assert (answer.status_code, answer.json()["error"]["code"]) == (409, "history_unreadable")


def test_a_damaged_campaign_tells_only_its_own_tokens_that_it_is_damaged(
        client: TestClient, settings: Settings) -> None:
    bad, other = played(client), played(client)
    set_row(settings.database_url, UUID(bad["id"]),
            stored_head(settings.database_url, UUID(bad["id"])) // 2,
            CORRUPTIONS["garbage state"])
    unknown = client.get(f"/campaigns/{UUID(int=7)}/roster",
                         headers=auth(other["tokens"]["director"]))
    for token in ("wrong", other["tokens"]["director"]):
        for path in ("", "/roster"):
            answer = client.get(f"/campaigns/{bad['id']}{path}", headers=auth(token))
            assert answer.status_code == 401, (token, path, answer.text)
            assert answer.json() == unknown.json()
        assert send(client, bad, token, {"type": "advance"}).status_code == 401
    for token in (bad["tokens"]["director"], *bad["tokens"]["sides"].values()):
        answer = client.get(f"/campaigns/{bad['id']}", headers=auth(token))
        assert (answer.status_code, answer.json()["error"]["code"]) == \
            (409, "history_unreadable")


def test_verify_names_the_version_that_cannot_be_read(
        client: TestClient, settings: Settings) -> None:
    bad = played(client)
    middle = stored_head(settings.database_url, UUID(bad["id"])) // 2
    set_row(settings.database_url, UUID(bad["id"]), middle, CORRUPTIONS["garbage state"])
    refit = Refit(settings)
    try:
        report = refit.reads.verify(UUID(bad["id"]))
    finally:
        refit.close()
    assert not report.ok and report.first_bad_version == middle
    assert report.problem.startswith(f"version {middle} cannot be read")


def test_the_projection_runner_passes_an_unreadable_event_over_and_folds_on(
        settings: Settings) -> None:
    if backend_of(settings.database_url) != "postgres":
        pytest.skip("the projection runner (LISTEN/NOTIFY) is PostgreSQL's")
    with service(settings.model_copy(update={"projection_runner": False})) as client:
        bad = played(client)
    set_row(settings.database_url, UUID(bad["id"]), 2, topic="nowhere:NoSuchEvent")
    with service(settings.model_copy(update={"projection_runner": True})) as client:
        good = played(client)  # the runner folds it after the damaged one
        director = good["tokens"]["director"]
        answer = client.get(f"/campaigns/{good['id']}/roster", headers=auth(director))
        assert answer.status_code == 200, answer.text
        answer = client.get(f"/campaigns/{bad['id']}/roster",
                            headers=auth(bad["tokens"]["director"]))
        assert answer.json()["error"]["code"] == "history_unreadable"


def test_a_mended_event_brings_its_campaign_back_without_a_restart(
        client: TestClient, settings: Settings) -> None:
    bad = played(client)
    ident, director = UUID(bad["id"]), auth(bad["tokens"]["director"])
    middle = stored_head(settings.database_url, ident) // 2
    kept = event_state(settings.database_url, ident, middle)
    set_row(settings.database_url, ident, middle, CORRUPTIONS["undecodable JSON"])
    assert client.get(f"/campaigns/{bad['id']}/roster", headers=director).status_code == 409
    set_row(settings.database_url, ident, middle, lambda _: kept)  # restored from a backup
    assert client.get(f"/campaigns/{bad['id']}/roster", headers=director).status_code == 200
    listed = client.get("/campaigns", headers=auth(ADMIN)).json()
    assert [line["id"] for line in listed] == [bad["id"]]
    assert send(client, bad, bad["tokens"]["director"], {"type": "advance"}).status_code == 200
