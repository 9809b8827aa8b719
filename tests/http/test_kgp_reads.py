"""KGP's reads over HTTP, as each role reads them: a side's Holding Box entries (8.15) and
Objective Hexes (8.6198) are its own; the other side and the observer read nothing of
them, not even how many there are."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from infra.settings import Settings
from tests.helpers.http import auth, new_campaign, send, serving

GERMAN, US = "German", "US"


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The service with KGP as it ships (no owner data: any Entry Area is taken)."""
    yield from serving(settings)


def read(client: TestClient, campaign: dict[str, Any], token: str, path: str) -> Any:
    answer = client.get(f"/campaigns/{campaign['id']}{path}", headers=auth(token))
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_sides_holding_box_is_read_back_by_it_alone(client: TestClient) -> None:
    campaign = new_campaign(client, module="kgp", name="Stoumont")
    tokens = campaign["tokens"]
    german = tokens["sides"][GERMAN]
    held = send(client, campaign, german, {"type": "hold_units", "side": GERMAN,
                                           "entry_area": "StGG1",
                                           "units": "2x 6-5-8 exited (CG21)"})
    assert held.status_code == 200, held.text
    [entry] = read(client, campaign, german, "/holding")
    assert (entry["entry_area"], entry["units"], entry["held"], entry["cg_date"]) == (
        "StGG1", "2x 6-5-8 exited (CG21)", True, "18AM")
    assert read(client, campaign, tokens["director"], "/holding") == [entry]
    for other in (tokens["sides"][US], tokens["observer"]):
        assert read(client, campaign, other, "/holding") == []
        assert read(client, campaign, other, "/holding?as_of=2") == []


def test_a_refused_kgp_command_says_its_bounds_in_a_players_words(client: TestClient) -> None:
    campaign = new_campaign(client, module="kgp", name="Stoumont")
    german = campaign["tokens"]["sides"][GERMAN]
    long = send(client, campaign, german, {"type": "hold_units", "side": GERMAN,
                                           "entry_area": "StGG1", "units": "x" * 201})
    assert long.status_code == 422
    assert long.json()["error"]["message"] == "hold_units.units: at most 200 characters"
    text = send(client, campaign, german, {"type": "change_pf", "side": GERMAN,
                                           "reason": "setup", "count": -1})
    assert text.json()["error"]["message"] == "change_pf.count: must be 1 or more"
