"""A director's upgrade to the module data loaded now, through the ordinary command route."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.helpers.http import auth, new_campaign, send


def test_an_upgrade_is_the_directors_and_refused_422_when_nothing_is_new(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    tokens = campaign["tokens"]
    upgrade = {"type": "upgrade_module"}
    assert send(client, campaign, tokens["sides"]["Axis"], upgrade).status_code == 403
    answer = send(client, campaign, tokens["director"], upgrade)
    assert answer.status_code == 422 and "nothing to upgrade" in answer.json()["error"]["message"]
    status = client.get(f"/campaigns/{campaign['id']}", headers=auth(tokens["observer"]))
    events = client.get(f"/campaigns/{campaign['id']}/events", headers=auth(tokens["director"]))
    assert status.json()["module_data"] == events.json()[0]["data"]["module_hash"]
    assert len(events.json()) == 1  # the refusal appended nothing
