"""The director's chat webhook page (issue 18 item 7): the director sets, replaces and
removes the webhook with a form (CSRF and same-site checked) and sees it masked with how
its posts go; a side and the observer are refused it and never see its URL, on any page."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers.http import auth, new_campaign
from tests.helpers.receiver import TOKEN
from tests.helpers.web import AXIS, csrf_of, text_of

URL = f"https://chat.example.com/api/webhooks/42/{TOKEN}"


def log_in(client: TestClient, token: str) -> None:
    answer = client.post("/login", data={"token": token}, follow_redirects=False)
    assert answer.status_code == 303, answer.text


def version(client: TestClient, campaign: dict[str, Any]) -> int:
    answer = client.get(f"/campaigns/{campaign['id']}",
                        headers=auth(campaign["tokens"]["director"]))
    return int(answer.json()["version"])


def post_form(client: TestClient, campaign: dict[str, Any], **fields: str) -> Any:
    page = client.get(f"/play/{campaign['id']}/webhook")
    return client.post(f"/play/{campaign['id']}/webhook", follow_redirects=False,
                       data={"csrf": csrf_of(page.text)} | fields)


@pytest.fixture
def campaign(client: TestClient) -> dict[str, Any]:
    return new_campaign(client)


def test_the_director_sets_sees_masked_and_removes_the_webhook_recording_no_event(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    home = client.get(f"/play/{campaign['id']}")
    assert f'href="/play/{campaign["id"]}/webhook"' in home.text
    before = version(client, campaign)
    done = post_form(client, campaign, action="set", url=URL)
    assert done.status_code == 303, done.text
    shown = client.get(done.headers["location"])
    words = text_of(shown.text)
    assert "The webhook is set" in words and "https://chat.example.com/api/…" in words
    assert TOKEN not in shown.text and "webhooks/42" not in shown.text
    assert version(client, campaign) == before  # no event: nothing in the log or stream
    removed = post_form(client, campaign, action="remove")
    assert removed.status_code == 303
    assert "No webhook" in text_of(client.get(removed.headers["location"]).text)


def test_a_url_refused_is_said_on_the_page_naming_the_field(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    refused = post_form(client, campaign, action="set", url="http://10.0.0.7/hook")
    assert refused.status_code == 422
    assert "field: url" in text_of(refused.text) and "No webhook" in text_of(refused.text)


def test_an_action_the_page_does_not_send_is_refused_naming_it(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    refused = post_form(client, campaign, action="bogus", url=URL)
    assert refused.status_code == 422
    said = text_of(refused.text)
    assert "the page sends set or remove" in said and "No webhook" in said


def test_a_form_from_another_site_sets_nothing(client: TestClient,
                                               campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = client.get(f"/play/{campaign['id']}/webhook")
    refused = client.post(f"/play/{campaign['id']}/webhook", follow_redirects=False,
                          data={"csrf": csrf_of(page.text), "action": "set", "url": URL},
                          headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403
    stale = client.post(f"/play/{campaign['id']}/webhook", follow_redirects=False,
                        data={"csrf": "not-the-token", "action": "set", "url": URL})
    assert stale.status_code == 403
    assert "No webhook" in text_of(client.get(f"/play/{campaign['id']}/webhook").text)


@pytest.mark.parametrize("role", [AXIS, "observer"])
def test_a_side_or_the_observer_is_refused_it_and_never_sees_its_url(
        client: TestClient, campaign: dict[str, Any], role: str) -> None:
    log_in(client, campaign["tokens"]["director"])
    assert post_form(client, campaign, action="set", url=URL).status_code == 303
    client.cookies.clear()
    tokens = campaign["tokens"]
    log_in(client, tokens["sides"].get(role) or tokens[role])
    seen = client.get(f"/play/{campaign['id']}/webhook")
    assert seen.status_code == 403 and "director" in text_of(seen.text)
    tried = client.post(f"/play/{campaign['id']}/webhook", follow_redirects=False,
                        data={"csrf": "x", "action": "remove"})
    assert tried.status_code == 403
    for path in ("", "/forms"):
        page = client.get(f"/play/{campaign['id']}{path}")
        assert page.status_code == 200 and TOKEN not in page.text
        assert "chat.example.com" not in page.text and "/webhook" not in page.text
    client.cookies.clear()
    log_in(client, tokens["director"])
    assert "https://chat.example.com/api/…" in text_of(
        client.get(f"/play/{campaign['id']}/webhook").text)  # still set
