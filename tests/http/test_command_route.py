"""The command route (api/command_route.py) reads its own body and headers: every request,
ordinary or odd, answers what the route answered when FastAPI read its declared body,
bearer token and headers, and a refusal appends nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi import Request, Response
from fastapi.testclient import TestClient

from api.app import create_app
from infra.modules import install_file
from infra.settings import Settings
from tests.helpers.http import ADMIN, auth, new_campaign
from tests.helpers.paths import FIXTURE_CHART

CPP = b'{"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "B"}'
JSON = {"Content-Type": "application/json"}


def version(client: TestClient, campaign: dict[str, Any]) -> int:
    """The campaign's version now."""
    answer = client.get(f"/campaigns/{campaign['id']}",
                        headers=auth(campaign["tokens"]["director"]))
    return int(answer.json()["version"])


def post(client: TestClient, campaign: dict[str, Any], body: bytes,
         headers: list[tuple[str, str]]) -> Any:
    """A command request with exactly these headers (repeats kept, in order)."""
    return client.post(f"/campaigns/{campaign['id']}/commands", content=body,
                       headers=[(k.encode(), v.encode()) for k, v in headers])


def director(campaign: dict[str, Any]) -> tuple[str, str]:
    """The director's Authorization header."""
    return ("Authorization", f"Bearer {campaign['tokens']['director']}")


def test_an_ordinary_request_reads_its_token_if_match_and_idempotency_key(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    headers = [director(campaign), ("Content-Type", "application/json"),
               ("If-Match", "1"), ("Idempotency-Key", "k-1")]
    first = post(client, campaign, CPP, headers)
    again = post(client, campaign, CPP, headers)
    assert first.status_code == again.status_code == 200 and again.json() == first.json()
    assert first.json()["version"] == version(client, campaign) == 2
    assert [e["type"] for e in first.json()["events"]] == ["CPPCredited"]
    status = client.get(f"/campaigns/{campaign['id']}", headers=auth(
        campaign["tokens"]["director"])).json()
    assert first.json()["head_hash"] == status["head_hash"]
    stale = post(client, campaign, CPP, [*headers[:3], ("Idempotency-Key", "k-2")])
    assert stale.status_code == 409


# (headers after the director's, body, status, error code, error field): what FastAPI
# answered for each when it read the route's body and headers.
ODD: list[tuple[list[tuple[str, str]], bytes, int, str | None, str | None]] = [
    ([("Content-Type", "text/plain")], CPP, 415, "unsupported_media_type", None),
    ([], CPP, 415, "unsupported_media_type", None),  # no content type: not read as JSON
    ([("Content-Type", "application/json; charset=utf-8")], CPP, 200, None, None),
    ([("Content-Type", "application/vnd.refit+json")], CPP, 200, None, None),
    ([("Content-Type", "application/json"), ("If-Match", "abc")], CPP, 422,
     "invalid_command", "if-match"),
    ([("Content-Type", "application/json"), ("If-Match", "-1")], CPP, 422,
     "invalid_command", "if-match"),
    ([("Content-Type", "application/json"), ("If-Match", "1" * 19)], CPP, 422,
     "invalid_command", "if-match"),
    ([("Content-Type", "application/json"), ("If-Match", "x")], b'{"type": "teleport"}', 422,
     "invalid_command", "if-match"),  # the headers' errors come before the body's
    ([("Content-Type", "application/json"), ("If-Match", "x")], b"{nope", 400,
     "invalid_body", None),  # but a body that is not JSON is refused before them (README)
    ([("Content-Type", "application/json"), ("If-Match", "1"), ("If-Match", "x")], CPP, 200,
     None, None),  # the first of a repeated header counts
    ([("Content-Type", "application/json"), ("Idempotency-Key", "k" * 200)], CPP, 200,
     None, None),
    ([("Content-Type", "application/json"), ("Idempotency-Key", "k" * 201)], CPP, 422,
     "invalid_command", "idempotency-key"),
    ([("Content-Type", "application/json"), ("Authorization", "Bearer other")], CPP, 200,
     None, None),
]


@pytest.mark.parametrize(("extra", "body", "status", "code", "field"), ODD)
def test_an_odd_request_answers_what_fastapi_answered(
        client: TestClient, extra: list[tuple[str, str]], body: bytes, status: int,
        code: str | None, field: str | None) -> None:
    campaign = new_campaign(client)
    answer = post(client, campaign, body, [director(campaign), *extra])
    assert answer.status_code == status, answer.text
    if status == 200:
        assert answer.json()["version"] == version(client, campaign) == 2
    else:
        assert answer.json()["error"]["code"] == code
        assert answer.json()["error"]["field"] == field
        assert version(client, campaign) == 1


@pytest.mark.parametrize(("authorization", "status"), [
    (None, 401), ("Bearer ", 401), ("Bearer a b", 401), ("Basic {token}", 401),
    ("{token}", 401), ("Bearer\t{token}", 401), ("bearer {token}", 200),
    ("BEARER {token}", 200), ("Bearer   {token}  ", 200),
])
def test_the_bearer_token_is_read_as_fastapis_http_bearer_reads_it(
        client: TestClient, authorization: str | None, status: int) -> None:
    campaign = new_campaign(client)
    given = [] if authorization is None else [
        ("Authorization", authorization.format(token=campaign["tokens"]["director"]))]
    answer = post(client, campaign, CPP, [*given, ("Content-Type", "application/json")])
    assert answer.status_code == status, answer.text
    assert version(client, campaign) == (2 if status == 200 else 1)


def test_of_two_authorization_headers_the_first_counts(client: TestClient) -> None:
    campaign = new_campaign(client)
    answer = post(client, campaign, CPP, [("Authorization", "Bearer other"),
                                          director(campaign), ("Content-Type", "application/json")])
    assert answer.status_code == 401 and version(client, campaign) == 1


# (body, extra headers, token key, status, code, field): each refused, nothing appended
REFUSED: list[tuple[bytes, dict[str, str], str, int, str, str | None]] = [
    (b'{"type": "teleport"}', {}, "director", 422, "invalid_command", "type"),
    (b"{}", {}, "director", 422, "invalid_command", "type"),
    (b'{"type": "roll", "table": "3.610", "side": "Axis", "subject": "unit:Lt.A"}', {},
     "director", 422,
     "rule_violation", None),
    (b'{"type": "credit_cpp", "side": "Axis", "amount": 5}', {}, "director", 422,
     "invalid_command", "credit_cpp.reason"),
    (b'{"type": "credit_cpp", "side": "Axis", "amount": 1.0, "reason": "B"}', {}, "director",
     422, "invalid_command", "credit_cpp.amount"),
    (b'{"type": "advance", "x": 1}', {}, "director", 422, "invalid_command", "advance.x"),
    (b"{nope", {}, "director", 400, "invalid_body", None),
    (b"", {}, "director", 400, "invalid_body", None),  # no body at all (issue 16)
    (b"null", {}, "director", 422, "invalid_command", "body"),
    (b"[1]", {}, "director", 422, "invalid_command", "body"),
    (b'{"type": "advance\xc3"}', {}, "director", 400, "invalid_body", None),
    (b"[" * 100_000, {}, "director", 400, "invalid_body", None),
    (CPP, {"If-Match": "99"}, "director", 409, "conflict", None),
    (CPP, {"If-Match": "x"}, "director", 422, "invalid_command", "if-match"),
    (CPP, {"Idempotency-Key": "k" * 201}, "director", 422, "invalid_command",
     "idempotency-key"),
    (CPP, {}, "observer", 403, "forbidden", None),
    (CPP, {}, "wrong", 401, "unauthorized", None),
    (CPP, {}, "Axis", 403, "forbidden", None),
    (b'{"type": "roll", "table": "T1", "side": "Axis"}', {}, "British", 403, "forbidden",
     "side"),
]


@pytest.mark.parametrize(("body", "extra", "who", "status", "code", "field"), REFUSED)
def test_a_refusal_is_the_contracts_error_body(
        client: TestClient, body: bytes, extra: dict[str, str], who: str, status: int,
        code: str, field: str | None) -> None:
    campaign = new_campaign(client)
    token = campaign["tokens"].get(who) or campaign["tokens"]["sides"].get(who, who)
    answer = client.post(f"/campaigns/{campaign['id']}/commands", content=body,
                         headers=auth(token) | JSON | extra)
    assert answer.status_code == status, answer.text
    assert set(answer.json()) == {"error"}
    assert set(answer.json()["error"]) == {"code", "message", "rule", "field"}
    assert (answer.json()["error"]["code"], answer.json()["error"]["field"]) == (code, field)
    assert version(client, campaign) == 1


def test_a_utf8_body_with_a_byte_order_mark_is_accepted(client: TestClient) -> None:
    campaign = new_campaign(client)
    answer = post(client, campaign, '\ufeff{"type": "advance"}'.encode(),
                  [director(campaign), ("Content-Type", "application/json")])
    assert answer.status_code == 200, answer.text
    assert version(client, campaign) == 2


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
def test_a_body_in_another_encoding_than_utf8_is_refused_400(
        client: TestClient, encoding: str) -> None:
    campaign = new_campaign(client)
    answer = post(client, campaign, '{"type": "advance"}'.encode(encoding),
                  [director(campaign), ("Content-Type", "application/json")])
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, "invalid_body")
    assert version(client, campaign) == 1


def test_a_bad_campaign_id_or_no_token_is_refused_as_the_route_refused_it(
        client: TestClient) -> None:
    unknown = "/campaigns/00000000-0000-0000-0000-000000000000/commands"
    for path, headers, status, code in [
            ("/campaigns/nope/commands", auth("t") | JSON, 422, "invalid_command"),
            ("/campaigns/nope/commands", JSON, 401, "unauthorized"),  # no token: refused first
            (unknown, auth("t") | JSON, 401, "unauthorized"),  # as a wrong token's
            (unknown, JSON, 401, "unauthorized")]:
        answer = client.post(path, content=CPP, headers=headers)
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)


def test_another_method_or_a_trailing_slash_is_starlettes_answer(client: TestClient) -> None:
    campaign = new_campaign(client)
    path = f"/campaigns/{campaign['id']}/commands"
    wrong = client.get(path, headers=auth(campaign["tokens"]["director"]))
    assert wrong.status_code == 405 and wrong.headers["Allow"] == "POST"
    slash = client.post(path + "/", content=CPP, follow_redirects=False,
                        headers=auth(campaign["tokens"]["director"]) | JSON)
    assert slash.status_code == 307 and slash.headers["Location"].endswith(path)
    assert version(client, campaign) == 1


def test_middleware_sees_every_command_request(settings: Settings) -> None:
    install_file(FIXTURE_CHART, settings.module_dir)
    app = create_app(settings.model_copy(update={"admin_token": ADMIN}))
    seen: list[str] = []

    @app.middleware("http")
    async def note(request: Request, call_next: Any) -> Response:
        seen.append(f"{request.method} {request.url.path}")
        response: Response = await call_next(request)
        response.headers["X-Seen"] = "yes"
        return response

    with TestClient(app) as test_client:
        campaign = new_campaign(test_client)
        path = f"/campaigns/{campaign['id']}/commands"
        answer = test_client.post(path, content=CPP, headers=auth(
            campaign["tokens"]["director"]) | JSON)
    assert answer.status_code == 200 and answer.headers["X-Seen"] == "yes"
    assert seen[-1] == f"POST {path}"


def test_the_openapi_schema_documents_the_body_headers_and_token(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    route = schema["paths"]["/campaigns/{campaign}/commands"]["post"]
    body = route["requestBody"]["content"]["application/json"]["schema"]
    assert route["requestBody"]["required"] is True
    assert body["discriminator"]["propertyName"] == "type"
    refs = [item["$ref"].rsplit("/", 1)[1] for item in body["oneOf"]]
    assert {"Roll", "PurchaseRG", "CreditCPP", "SelectInitiative"} <= set(refs)
    assert set(refs) <= set(schema["components"]["schemas"])
    assert body["discriminator"]["mapping"]["credit_cpp"] == "#/components/schemas/CreditCPP"
    assert "DRMClaim" in schema["components"]["schemas"]  # a command's own part
    headers = {p["name"]: p for p in route["parameters"] if p["in"] == "header"}
    assert set(headers) == {"if-match", "idempotency-key"}
    assert "117" in headers["if-match"]["description"]
    assert json.dumps(headers["if-match"]["schema"]).count('[0-9]{1,18}') == 2
    assert headers["idempotency-key"]["schema"]["anyOf"][0]["maxLength"] == 200
    assert route["security"] == [{"HTTPBearer": []}]
    assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    assert route["responses"]["200"]["content"]["application/json"]["schema"]["$ref"] \
        .endswith("/CommandAnswer")
