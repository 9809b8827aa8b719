"""Input that could be read two ways is refused, naming what is wrong, and appends nothing:
a key given twice, a charset that is not UTF-8, an integer for a yes/no, a field the
route does not know, an `as_of` a read cannot honour, a body that is not an object."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers.http import ADMIN, auth, new_campaign
from tests.http.test_hostile_input import CPP, version

JSON = {"Content-Type": "application/json"}


def refusal(answer: Any) -> tuple[int, str | None, str]:
    """The status, field and message of a refusal."""
    found = answer.json()["error"]
    return answer.status_code, found["field"], found["message"]


def test_a_command_that_names_a_key_twice_is_refused_naming_it_and_appends_nothing(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    body = b'{"type": "advance", "type": "record_casualty", "side": "Axis", "unit": "x", ' \
           b'"cvp": 1}'
    answer = client.post(f"/campaigns/{campaign['id']}/commands", content=body,
                         headers=auth(campaign["tokens"]["director"]) | JSON)
    status, field, message = refusal(answer)
    assert (status, field) == (400, "type") and "repeats 'type'" in message
    assert version(client, campaign) == 1


def test_a_key_given_twice_deep_in_another_routes_body_is_refused_too(
        client: TestClient) -> None:
    answer = client.post("/campaigns", content=b'{"module": "pbr", "cg": "I", "name": "A", '
                                               b'"name": "B"}', headers=auth(ADMIN) | JSON)
    assert refusal(answer)[:2] == (400, "name")
    assert client.get("/campaigns", headers=auth(ADMIN)).json() == []


@pytest.mark.parametrize("charset", ["utf-16", "latin-1"])
def test_a_body_declared_in_another_charset_than_utf8_is_refused(
        client: TestClient, charset: str) -> None:
    campaign = new_campaign(client)
    answer = client.post(f"/campaigns/{campaign['id']}/commands", json=CPP,
                         headers=auth(campaign["tokens"]["director"]) |
                         {"Content-Type": f"application/json; charset={charset}"})
    status, _, message = refusal(answer)
    assert status == 415 and f"charset={charset}" in message and "RFC 8259" in message
    assert version(client, campaign) == 1


def test_a_body_declared_utf8_is_read(client: TestClient) -> None:
    campaign = new_campaign(client)
    answer = client.post(f"/campaigns/{campaign['id']}/commands", json=CPP,
                         headers=auth(campaign["tokens"]["director"]) |
                         {"Content-Type": "application/json; charset=UTF-8"})
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("value", [0, 1, "yes"])
def test_a_yes_or_no_field_takes_true_or_false_only(client: TestClient, value: Any) -> None:
    campaign = new_campaign(client)
    answer = client.post(f"/campaigns/{campaign['id']}/commands",
                         json={"type": "record_on_map", "side": "Axis", "on_map": value},
                         headers=auth(campaign["tokens"]["director"]))
    status, field, _ = refusal(answer)
    assert (status, field) == (422, "record_on_map.on_map")
    assert version(client, campaign) == 1


@pytest.mark.parametrize("body", [b"[1, 2]", b"null", b'"roll"'])
def test_a_body_that_is_not_an_object_is_refused_as_the_body(client: TestClient,
                                                               body: bytes) -> None:
    campaign = new_campaign(client)
    answer = client.post(f"/campaigns/{campaign['id']}/commands", content=body,
                         headers=auth(campaign["tokens"]["director"]) | JSON)
    status, field, message = refusal(answer)
    assert (status, field) == (422, "body") and message.startswith("body: ")
    assert "None" not in message


def test_a_new_campaign_with_a_field_it_does_not_know_is_refused(client: TestClient) -> None:
    answer = client.post("/campaigns", json={"module": "pbr", "cg": "I", "name": "X",
                                             "evil": 1}, headers=auth(ADMIN))
    assert refusal(answer)[:2] == (422, "evil")
    assert client.get("/campaigns", headers=auth(ADMIN)).json() == []


def test_a_start_that_is_no_cg_date_is_refused_naming_start(client: TestClient) -> None:
    answer = client.post("/campaigns", json={"module": "pbr", "cg": "I", "name": "X",
                                             "start": "99ZZ"}, headers=auth(ADMIN))
    status, field, message = refusal(answer)
    assert (status, field) == (422, "start") and "'99ZZ' is not a CG Date" in message


def test_verify_takes_no_as_of_and_the_guide_none_past_the_head(client: TestClient) -> None:
    campaign = new_campaign(client)
    base, director = f"/campaigns/{campaign['id']}", auth(campaign["tokens"]["director"])
    refused = client.get(f"{base}/verify?as_of=1", headers=director)
    assert refusal(refused)[:2] == (422, "as_of") and "whole history" in refused.text
    assert client.get(f"{base}/verify", headers=director).json()["ok"] is True
    past = client.get(f"{base}/guide?as_of=5000", headers=director)
    assert refusal(past)[:2] == (422, "as_of") and "1 to 1 (the head)" in past.text
    assert client.get(f"{base}/guide?as_of=1", headers=director).status_code == 200


def test_a_roll_asked_for_by_a_version_that_is_none_names_the_version(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    answer = client.get(f"/campaigns/{campaign['id']}/rolls/audit?version=1",
                        headers=auth(campaign["tokens"]["director"]))
    assert refusal(answer)[:2] == (422, "version")


def test_a_campaign_id_that_is_none_is_refused_naming_the_campaign(
        client: TestClient) -> None:
    answer = client.get("/campaigns/xyz/live", headers=auth(ADMIN))
    assert refusal(answer)[:2] == (422, "campaign")


def test_head_is_answered_as_get_is(client: TestClient) -> None:
    campaign = new_campaign(client)
    director = auth(campaign["tokens"]["director"])
    got = client.get(f"/campaigns/{campaign['id']}", headers=director)
    head = client.head(f"/campaigns/{campaign['id']}", headers=director)
    assert (head.status_code, head.headers["content-type"]) == (200, "application/json")
    assert head.headers["content-length"] == got.headers["content-length"]
    assert client.head("/readyz").status_code == 200
    assert client.head(f"/campaigns/{campaign['id']}").status_code == 401  # as GET is
    # a live stream never ends: run as GET, unread, it would hold the connection
    assert client.head(f"/campaigns/{campaign['id']}/live", headers=director).status_code == 405
