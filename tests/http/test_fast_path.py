"""The command route's fast path (api/fast.py): it takes only ordinary requests, and every
answer, a command's or a refusal, is the one the FastAPI route gives."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import RefitAPI
from api.fast import Plain, plain_request
from tests.helpers.http import auth, new_campaign

PATH = "/campaigns/abc/commands"
ORDINARY = {"authorization": "Bearer tok", "content-type": "application/json"}


def scope(headers: dict[str, str], method: str = "POST", path: str = PATH,
          extra: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """An HTTP request's ASGI scope."""
    raw = [(k.encode(), v.encode("latin-1")) for k, v in headers.items()]
    raw += [(k.encode(), v.encode()) for k, v in extra or []]
    return {"type": "http", "method": method, "path": path, "root_path": "",
            "headers": raw}


def test_an_ordinary_command_request_is_read_for_the_fast_path() -> None:
    plain = plain_request(scope(ORDINARY | {"if-match": "12", "idempotency-key": "k-1"}))
    assert isinstance(plain, Plain)
    assert (plain.campaign, plain.token, plain.if_match, plain.key) == \
        ("abc", "tok", 12, "k-1")
    bare = plain_request(scope(ORDINARY))
    assert bare is not None and bare.if_match is None and bare.key is None


@pytest.mark.parametrize("odd", [
    {"method": "GET"},
    {"path": "/campaigns/abc/commands/"},
    {"path": "/campaigns/abc/roster"},
    {"headers": ORDINARY | {"authorization": "bearer tok"}},
    {"headers": ORDINARY | {"authorization": "Bearer "}},
    {"headers": ORDINARY | {"authorization": "Bearer a b"}},
    {"headers": {"content-type": "application/json"}},
    {"headers": ORDINARY | {"content-type": "text/plain"}},
    {"headers": ORDINARY | {"content-type": "application/json; charset=utf-8"}},
    {"headers": ORDINARY | {"if-match": "abc"}},
    {"headers": ORDINARY | {"if-match": "-1"}},
    {"headers": ORDINARY | {"idempotency-key": "k" * 201}},
    {"extra": [("authorization", "Bearer other")]},
])
def test_anything_out_of_the_ordinary_goes_to_fastapi(odd: dict[str, Any]) -> None:
    kwargs = {"headers": ORDINARY} | odd
    assert plain_request(scope(**kwargs)) is None


def both_ways(client: TestClient, path: str, body: bytes,
              headers: dict[str, str]) -> list[tuple[int, Any]]:
    """The answer with the fast path in front, then with FastAPI's route alone."""
    app = client.app
    assert isinstance(app, RefitAPI) and app.fast_path is not None
    answers = []
    fast = app.fast_path
    for path_in_front in (fast, None):
        app.fast_path = path_in_front
        try:
            answer = client.post(path, content=body, headers=headers)
        finally:
            app.fast_path = fast
        answers.append((answer.status_code, answer.json()))
    return answers


REFUSED = [  # (body, extra headers, token key): each refused, so nothing is appended
    (b'{"type": "teleport"}', {}, "director"),
    (b'{"type": "roll", "table": "3.610", "side": "Axis"}', {}, "director"),
    (b'{"type": "credit_cpp", "side": "Axis", "amount": 5}', {}, "director"),
    (b"{nope", {}, "director"),
    (b"", {}, "director"),
    (b'{"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "B"}',
     {"If-Match": "99"}, "director"),
    (b'{"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "B"}',
     {"If-Match": "x"}, "director"),
    (b'{"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "B"}',
     {"Idempotency-Key": "k" * 201}, "director"),
    (b'{"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "B"}', {}, "observer"),
    (b'{"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "B"}', {}, "wrong"),
    (b'{"type": "roll", "table": "T1", "side": "Axis"}', {}, "British"),
]


@pytest.mark.parametrize(("body", "extra", "who"), REFUSED)
def test_a_refusal_is_the_routes_own(client: TestClient, body: bytes,
                                      extra: dict[str, str], who: str) -> None:
    campaign = new_campaign(client)
    token = campaign["tokens"].get(who) or campaign["tokens"]["sides"].get(who, who)
    headers = auth(token) | {"Content-Type": "application/json"} | extra
    fast, route = both_ways(client, f"/campaigns/{campaign['id']}/commands", body, headers)
    assert fast == route
    assert fast[0] in (401, 403, 409, 422) and set(fast[1]) == {"error"}


def test_a_bad_campaign_id_or_no_token_is_refused_as_the_route_refuses(
        client: TestClient) -> None:
    body = b'{"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "B"}'
    json_only = {"Content-Type": "application/json"}
    for path, headers in [("/campaigns/nope/commands", auth("t") | json_only),
                          ("/campaigns/00000000-0000-0000-0000-000000000000/commands",
                           auth("t") | json_only),
                          ("/campaigns/00000000-0000-0000-0000-000000000000/commands",
                           json_only)]:
        fast, route = both_ways(client, path, body, headers)
        assert fast == route and fast[0] in (401, 404, 422)


def test_a_command_answers_the_same_either_way(client: TestClient) -> None:
    campaign = new_campaign(client)
    headers = auth(campaign["tokens"]["director"]) | {"Content-Type": "application/json"}
    body = b'{"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "Base"}'
    (fast_status, fast), (route_status, route) = both_ways(
        client, f"/campaigns/{campaign['id']}/commands", body, headers)
    assert fast_status == route_status == 200
    assert (fast["version"], route["version"]) == (2, 3)
    assert [e["type"] for e in fast["events"]] == [e["type"] for e in route["events"]]
    assert fast["events"][0]["data"] == route["events"][0]["data"]


def test_a_body_too_deep_to_read_is_answered_as_fastapi_answers_it(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    headers = auth(campaign["tokens"]["director"]) | {"Content-Type": "application/json"}
    fast, route = both_ways(client, f"/campaigns/{campaign['id']}/commands",
                            b"[" * 100_000, headers)
    assert fast == route and fast[0] >= 400
