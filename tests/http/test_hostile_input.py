"""Hostile input (issue 16, item 5): a body over the limit answers 413 unread, a token is
checked before a body is read, a wrong content type answers 415 and a body that is not
UTF-8 JSON 400, an unknown campaign answers as a wrong token does, CSV cells cannot be
formulas, and names refuse bidirectional controls, each error naming its field."""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.types import Message

from api.forms import inert
from api.guard import BodyGuard
from infra.settings import Settings
from tests.helpers.http import ADMIN, auth, new_campaign, send, serving
from tests.helpers.paths import FIXTURE_CHART

LIMIT = 4096
UNKNOWN = "00000000-0000-0000-0000-000000000000"
CPP = {"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "B"}


@pytest.fixture
def small(settings: Settings) -> Iterator[TestClient]:
    """The service with a body limit of 4 KiB (8 KiB for an import)."""
    yield from serving(settings.model_copy(update={"max_body_bytes": LIMIT,
                                                   "max_import_bytes": 2 * LIMIT}),
                       FIXTURE_CHART)


def error(answer: Any) -> tuple[int, str]:
    """The status and the contract's error code of an answer."""
    return answer.status_code, answer.json()["error"]["code"]


def version(client: TestClient, campaign: dict[str, Any]) -> int:
    return int(client.get(f"/campaigns/{campaign['id']}",
                          headers=auth(campaign["tokens"]["director"])).json()["version"])


def padded(size: int) -> bytes:
    """A command whose reason makes the body `size` bytes or more."""
    return b'{"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "' + \
        b"x" * size + b'"}'


def test_a_body_over_the_limit_answers_413_and_appends_nothing(small: TestClient) -> None:
    campaign = new_campaign(small)
    answer = small.post(f"/campaigns/{campaign['id']}/commands", content=padded(LIMIT),
                        headers=auth(campaign["tokens"]["director"]) |
                        {"Content-Type": "application/json"})
    assert error(answer) == (413, "too_large") and str(LIMIT) in answer.text
    assert version(small, campaign) == 1


def test_a_chunked_body_is_counted_as_it_arrives(small: TestClient) -> None:
    campaign = new_campaign(small)
    chunks = iter([padded(LIMIT)[:LIMIT // 2], padded(LIMIT)[LIMIT // 2:]])
    answer = small.post(f"/campaigns/{campaign['id']}/commands", content=chunks,
                        headers=auth(campaign["tokens"]["director"]) |
                        {"Content-Type": "application/json"})
    assert error(answer) == (413, "too_large")
    assert version(small, campaign) == 1


def test_an_import_has_its_own_larger_limit(small: TestClient) -> None:
    within = small.post("/campaigns/import", content=b"x" * (LIMIT + 1), headers=auth(ADMIN))
    over = small.post("/campaigns/import", content=b"x" * (2 * LIMIT + 1), headers=auth(ADMIN))
    assert within.status_code == 422 and error(over) == (413, "too_large")


def guarded(headers: list[tuple[bytes, bytes]], path: str = "/campaigns") -> tuple[int, bool]:
    """The status BodyGuard answers for a POST, and whether anything read its body."""
    read, sent = [], []

    async def receive() -> Message:
        read.append(True)
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send_(message: Message) -> None:
        sent.append(message)

    async def app(scope: Any, receive_: Any, send__: Any) -> None:
        await receive_()
        await send__({"type": "http.response.start", "status": 200, "headers": []})
        await send__({"type": "http.response.body", "body": b""})
    scope = {"type": "http", "method": "POST", "path": path, "headers": headers}
    # On a thread of its own: the browser tests' Playwright leaves this one's loop running.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, BodyGuard(app, LIMIT, {})(scope, receive, send_)).result()
    return sent[0]["status"], bool(read)


@pytest.mark.parametrize(("headers", "status", "read"), [
    ([(b"content-length", str(LIMIT + 1).encode()), (b"authorization", b"Bearer t"),
      (b"content-type", b"application/json")], 413, False),
    ([(b"content-length", b"2"), (b"content-type", b"application/json")], 401, False),
    ([(b"content-length", b"2"), (b"authorization", b"Basic t"),
      (b"content-type", b"application/json")], 401, False),
    ([(b"content-length", b"2"), (b"authorization", b"Bearer t"),
      (b"content-type", b"text/plain")], 415, False),
    ([(b"content-length", b"2"), (b"authorization", b"Bearer t"),
      (b"content-type", b"application/json")], 200, True),
])
def test_the_guard_refuses_before_any_of_the_body_is_read(
        headers: list[tuple[bytes, bytes]], status: int, read: bool) -> None:
    assert guarded(headers) == (status, read)


def test_the_web_clients_login_form_passes_the_guard_without_a_token() -> None:
    form = [(b"content-length", b"2"), (b"content-type", b"application/x-www-form-urlencoded")]
    assert guarded(form, "/login") == (200, True)
    assert guarded(form, "/campaigns")[0] == 401


@pytest.mark.parametrize("path", ["/campaigns", "/campaigns/{id}/commands",
                                  "/campaigns/{id}/undo", "/campaigns/{id}/rerolls",
                                  "/campaigns/{id}/rulings", "/campaigns/{id}/verify",
                                  f"/campaigns/{UNKNOWN}/undo"])
def test_a_wrong_token_is_refused_before_the_body_is_read(
        client: TestClient, path: str) -> None:
    campaign = new_campaign(client)
    for token in ("wrong", new_campaign(client)["tokens"]["director"]):
        answer = client.post(path.format(id=campaign["id"]), content=b"{not json",
                             headers=auth(token) | {"Content-Type": "application/json"})
        assert error(answer) == (401, "unauthorized"), token  # not the body's 400


@pytest.mark.parametrize(("content_type", "body", "status", "code"), [
    ("text/plain", b'{"module": "pbr", "cg": "I", "name": "X"}', 415, "unsupported_media_type"),
    ("application/x-www-form-urlencoded", b"module=pbr&cg=I&name=X", 415,
     "unsupported_media_type"),
    ("application/json", b'{"module": "pbr", ', 400, "invalid_body"),
    ("application/json", b"", 400, "invalid_body"),
    ("application/json", '{"module": "pbr", "cg": "I", "name": "X"}'.encode("utf-16"), 400,
     "invalid_body"),
    ("application/json", b'{"module": "pbr", "cg": "I", "name": "X\xff"}', 400, "invalid_body"),
])
def test_a_body_that_is_not_utf8_json_is_refused_as_such(
        client: TestClient, content_type: str, body: bytes, status: int, code: str) -> None:
    answer = client.post("/campaigns", content=body,
                         headers=auth(ADMIN) | {"Content-Type": content_type})
    assert error(answer) == (status, code)
    assert client.get("/campaigns", headers=auth(ADMIN)).json() == []


def test_an_undo_body_that_is_not_json_answers_400(client: TestClient) -> None:
    campaign = new_campaign(client)
    answer = client.post(f"/campaigns/{campaign['id']}/undo", content=b"{to_version",
                         headers=auth(campaign["tokens"]["director"]) |
                         {"Content-Type": "application/json"})
    assert error(answer) == (400, "invalid_body")


def test_an_empty_command_body_answers_400_and_appends_nothing(client: TestClient) -> None:
    campaign = new_campaign(client)
    director = auth(campaign["tokens"]["director"])
    for path in ("/commands", "/undo"):
        answer = client.post(f"/campaigns/{campaign['id']}{path}", content=b"",
                             headers=director | {"Content-Type": "application/json"})
        assert error(answer) == (400, "invalid_body"), path
        assert "empty" in answer.json()["error"]["message"]
    assert client.get(f"/campaigns/{campaign['id']}", headers=director).json()["version"] == 1


def test_an_unknown_campaign_answers_as_a_wrong_token_does(client: TestClient) -> None:
    campaign = new_campaign(client)
    other = new_campaign(client)["tokens"]["director"]  # valid, for another campaign
    for path in ("", "/roster", "/events", "/export"):
        known = client.get(f"/campaigns/{campaign['id']}{path}", headers=auth(other))
        unknown = client.get(f"/campaigns/{UNKNOWN}{path}", headers=auth(other))
        assert error(known) == error(unknown) == (401, "unauthorized"), path
        assert known.json() == unknown.json()
    for token in ("wrong", other):
        known = send(client, campaign, token, CPP)
        unknown = send(client, {"id": UNKNOWN}, token, CPP)
        assert error(known) == error(unknown) == (401, "unauthorized")


def test_only_the_admin_learns_that_a_campaign_does_not_exist(client: TestClient) -> None:
    answer = client.get(f"/campaigns/{UNKNOWN}/export", headers=auth(ADMIN))
    assert error(answer) == (404, "not_found")


@pytest.mark.parametrize("token", ["not-the-admin", None])
def test_an_admin_route_answers_401_to_no_or_a_bad_token(
        client: TestClient, token: str | None) -> None:
    headers = auth(token) if token else {}
    created = client.post("/campaigns", json={"module": "pbr", "cg": "I", "name": "X"},
                          headers=headers)
    assert error(created) == (401, "unauthorized")
    assert error(client.get("/campaigns", headers=headers)) == (401, "unauthorized")


def test_the_openapi_schema_documents_400_413_and_415(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/campaigns", "/campaigns/{campaign}/commands", "/campaigns/import"):
        assert {"400", "413", "415"} <= set(paths[path]["post"]["responses"]), path


def cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def test_a_csv_cell_cannot_be_a_formula(client: TestClient) -> None:
    campaign = client.post("/campaigns", headers=auth(ADMIN), json={
        "module": "pbr", "cg": "I", "name": "=HYPERLINK(\"http://evil\")"}).json()
    director = campaign["tokens"]["director"]
    cause = "=cmd|' /C calc'!A0"
    for value, why in ((3, cause), (2, "@SUM(1+1)")):
        assert send(client, campaign, director, {"type": "change_elr", "side": "Axis",
                                                 "value": value, "cause": why}).status_code == 200
    elr = cells(client.get(f"/campaigns/{campaign['id']}/forms", params={"form": "elr"},
                           headers=auth(director)).text)
    assert f"'{cause}" in elr and "'@SUM(1+1)" in elr
    assert not [cell for cell in elr if cell[:1] in ("=", "+", "@")]


@pytest.mark.parametrize(("cell", "written"), [
    ("=1+2", "'=1+2"), ("+SUM(A1)", "'+SUM(A1)"), ("-2+3", "'-2+3"), ("@A1", "'@A1"),
    ("\t=1", "'\t=1"), ("\r=1", "'\r=1"), ("-1", "-1"), ("+3", "+3"), ("2.5", "2.5"),
    ("4-6-8", "4-6-8"), ("", ""),
])
def test_a_cell_that_starts_as_a_formula_is_quoted_a_number_is_not(
        cell: str, written: str) -> None:
    assert inert(cell) == written


@pytest.mark.parametrize("bidi", ["\u202e", "\u202a", "\u2066", "\u2069", "\u200f"])
def test_a_name_with_a_bidirectional_control_is_refused_naming_the_field(
        client: TestClient, bidi: str) -> None:
    created = client.post("/campaigns", headers=auth(ADMIN),
                          json={"module": "pbr", "cg": "I", "name": f"Ranville{bidi}gpj.exe"})
    assert error(created) == (422, "invalid_command")
    assert created.json()["error"]["field"] == "name" and "U+" in created.text
    campaign = new_campaign(client)
    lost = send(client, campaign, campaign["tokens"]["director"], {
        "type": "record_casualty", "side": "Axis", "unit": f"4-6-8{bidi}", "cvp": 2})
    assert lost.status_code == 422 and lost.json()["error"]["field"] == "record_casualty.unit"
    assert version(client, campaign) == 1


@pytest.mark.parametrize(("body", "field"), [
    ({"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "r" * 201},
     "credit_cpp.reason"),
    ({"type": "retain_units", "side": "Axis",
      "units": [{"unit": "4-6-8", "area": "A"}] * 501}, "retain_units.units"),
    ({"type": "determine_rg", "side": "Axis", "purchase": 1, "sw": ["LMG"] * 21},
     "determine_rg.sw"),
])
def test_an_overlong_name_or_list_is_refused_naming_the_field(
        client: TestClient, body: dict[str, Any], field: str) -> None:
    campaign = new_campaign(client)
    answer = send(client, campaign, campaign["tokens"]["director"], body)
    assert error(answer) == (422, "invalid_command") and answer.json()["error"]["field"] == field
    assert version(client, campaign) == 1


def test_a_token_another_process_issued_passes_the_gate(settings: Settings) -> None:
    shared = settings.model_copy(update={"shared_database": True})
    first, second = serving(shared, FIXTURE_CHART), serving(shared, FIXTURE_CHART)
    one, other = next(first), next(second)
    campaign = new_campaign(one)
    director = campaign["tokens"]["director"]
    assert send(one, campaign, director, CPP).status_code == 200  # cached in the first
    fresh = other.post(f"/campaigns/{campaign['id']}/tokens/Axis", headers=auth(director))
    roll = {"type": "select_initiative", "side": "Axis", "chit": "idle"}
    answer = send(one, campaign, fresh.json()["token"], roll)
    assert error(answer) == (422, "rule_violation")  # past the gate, to the rules (3.621)
    for client in (first, second):
        client.close()
