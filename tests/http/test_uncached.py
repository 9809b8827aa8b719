"""Answers to a request with a token or the session cookie are never stored by a browser
or a proxy (`Cache-Control: no-store`): a side's secrets must not stay in the disk cache
of a tournament's shared machine. The pages' own files stay cacheable."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.helpers.http import auth, new_campaign
from tests.helpers.web import BRITISH


def test_a_sides_reads_with_its_token_are_never_stored(client: TestClient) -> None:
    campaign = new_campaign(client)
    base = f"/campaigns/{campaign['id']}"
    for path in ("", "/roster", "/purchase-record", "/guide", "/forms?form=html",
                 "/report?format=html", "/charts/cvp.svg"):
        answer = client.get(base + path, headers=auth(campaign["tokens"]["sides"][BRITISH]))
        assert answer.status_code == 200, (path, answer.text)
        assert "no-store" in answer.headers["cache-control"], path
        assert answer.headers["x-content-type-options"] == "nosniff", path


def test_reads_with_the_session_cookie_are_never_stored_and_the_pages_files_are(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    login = client.post("/login", data={"token": campaign["tokens"]["sides"][BRITISH]},
                        follow_redirects=False)
    assert login.status_code == 303, login.text
    printed = client.get(f"/campaigns/{campaign['id']}/forms?form=html")
    assert printed.status_code == 200 and printed.headers["cache-control"] == "no-store"
    style = client.get("/static/refit.css")
    assert style.status_code == 200 and "no-store" not in style.headers.get("cache-control", "")


def test_an_answer_without_credentials_is_left_to_its_route(client: TestClient) -> None:
    assert "cache-control" not in client.get("/healthz").headers
