"""A KGP side's page does what KGP asks of it beside the guide (a helper found none of it
there): the German's PF on the PF Usage Track (CG13) and Fanaticism (CG14), each side's
secret Objective Hexes (8.6198) and Holding Boxes (8.15), and the director's Massacre
record (CG4). What is secret stays off the other side's page and the observer's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.web.view import subject_label
from infra.settings import Settings
from tests.helpers.http import new_campaign, send, serving
from tests.helpers.paths import FIXTURE_KGP
from tests.helpers.web import text_of
from tests.web.test_director_tools import get, log_in
from tests.web.test_scenario_page import act, status

GERMAN, US = "German", "US"


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The service with the KGP stand-in owner data (Entry Areas by CG Date, fictitious)."""
    yield from serving(settings, FIXTURE_KGP)


@pytest.fixture
def campaign(client: TestClient) -> dict[str, Any]:
    """A KGP CG I, its 18AM Initial Scenario in play."""
    return new_campaign(client, "kgp", "Stoumont")


def page_as(client: TestClient, campaign: dict[str, Any], token: str) -> str:
    log_in(client, token)
    return text_of(get(client, f"/play/{campaign['id']}"))


def test_the_german_counts_its_pf_and_declares_fanaticism_from_its_page(
        client: TestClient, campaign: dict[str, Any]) -> None:
    tokens = campaign["tokens"]
    assert "0 PF available on the PF Usage Track" in page_as(client, campaign,
                                                              tokens["sides"][GERMAN])
    counted = act(client, campaign, {"action": "pf", "side": GERMAN, "reason": "setup",
                                     "count": "5"})
    assert counted.status_code == 303, counted.text
    declared = act(client, campaign, {"action": "fanaticism", "side": GERMAN})
    assert declared.status_code == 303, declared.text
    page = page_as(client, campaign, tokens["sides"][GERMAN])
    assert "7½ PF available" in page and "Declared for 18AM" in page
    assert "Declare Fanaticism for 18AM" not in page  # once a scenario
    us = page_as(client, campaign, tokens["sides"][US])  # public, but not the US's to change
    assert "7½ PF available" in us and "Fanaticism declared for 18AM" in us
    assert 'value="pf"' not in get(client, f"/play/{campaign['id']}")
    twice = act(client, campaign, {"action": "pf", "side": US, "reason": "used", "count": "1"})
    assert twice.status_code in (403, 422)


def test_a_sides_objective_hex_and_holding_box_stay_off_the_other_sides_page(
        client: TestClient, campaign: dict[str, Any]) -> None:
    tokens = campaign["tokens"]
    received = send(client, campaign, tokens["director"], {
        "type": "receive_rg", "side": GERMAN, "rg": "I1", "group_type": "I",
        "reason": "Initial Scenario OB"})
    assert received.status_code == 200, received.text
    german = page_as(client, campaign, tokens["sides"][GERMAN])
    assert "Objective Hexes 8.6198" in german and "#1 I1" in german
    marked = act(client, campaign, {"action": "objective", "side": GERMAN, "purchase": "1",
                                    "hex": "StQ10"})
    assert marked.status_code == 303, marked.text
    held = act(client, campaign, {"action": "holding", "side": GERMAN, "entry_area": "StGG1",
                                  "units": "2x 6-5-8 of KG Peiper", "held": "held"})
    assert held.status_code == 303, held.text
    german = page_as(client, campaign, tokens["sides"][GERMAN])
    assert "StQ10 · RG #1, 18AM · secret" in german
    assert "StGG1: 2x 6-5-8 of KG Peiper · held" in german
    for other in (tokens["sides"][US], tokens["observer"]):
        page = page_as(client, campaign, other)
        assert "StQ10" not in page and "KG Peiper" not in page, other
    log_in(client, tokens["sides"][GERMAN])
    # 8.2: once the German's Infantry Control it, it "must immediately be revealed"
    send(client, campaign, tokens["director"], {
        "type": "change_control", "location": "stq 10", "side": GERMAN,
        "kind": "Strategic Location", "infantry": True})
    assert "Objective Hexes revealed 8.2 : StQ10 (18AM)." in page_as(client, campaign,
                                                                     tokens["sides"][US])
    observer = page_as(client, campaign, tokens["observer"])
    assert "StQ10 · revealed 18AM" in observer and "RG #" not in observer
    log_in(client, tokens["sides"][GERMAN])
    refused = act(client, campaign, {"action": "holding", "side": GERMAN,
                                     "entry_area": "StGG1", "units": "", "held": "held"})
    assert refused.status_code == 422 and "Units: left empty" in text_of(refused.text)


def test_the_director_records_a_massacre_every_role_reads(
        client: TestClient, campaign: dict[str, Any]) -> None:
    tokens = campaign["tokens"]
    log_in(client, tokens["director"])
    recorded = act(client, campaign, {"action": "massacre", "side": US})
    assert recorded.status_code == 303, recorded.text
    assert status(client, campaign)["massacre"] == US
    for token in (tokens["sides"][GERMAN], tokens["observer"]):
        assert "A Massacre by the US: A20.3-.4's effects apply for the rest of the CG." in \
            page_as(client, campaign, token)
    log_in(client, tokens["sides"][GERMAN])
    assert act(client, campaign, {"action": "massacre", "side": GERMAN}).status_code == 403


def test_a_game_end_drs_subject_reads_as_its_turn() -> None:
    assert subject_label("turn:6/pt:1") == "Player Turn 1 of Game Turn 6"  # not "turn 6, pt 1"
    assert subject_label("turn:5") == "Game Turn 5"
