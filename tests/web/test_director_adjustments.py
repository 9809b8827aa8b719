"""The director's adjustments from the pages: a ruling that credits or spends a side's CPP
or FPP, changes its ELR or SAN, or notes the CG Date's scenario, each the JSON command's
and refused alike; the page then says what was recorded. A side and the observer have no
such forms, and are refused the commands."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers.http import new_campaign, send
from tests.helpers.web import AXIS, BRITISH, csrf_of, inputs_of, text_of
from tests.web.test_director_tools import get, json_read, log_in, post

CREDIT = {"action": "points", "side": AXIS, "change": "credit_cpp", "amount": "5",
          "reason": "replenished by the director's ruling", "rule": "3.616"}


@pytest.fixture
def campaign(client: TestClient) -> dict[str, Any]:
    """A new PBr CG I campaign, the director's session open."""
    made = new_campaign(client)
    log_in(client, made["tokens"]["director"])
    return made


def adjusted(client: TestClient, campaign: dict[str, Any], fields: dict[str, str]) -> Any:
    """A director's adjustment posted from the session's own page (not followed)."""
    page = get(client, f"/play/{campaign['id']}")
    return post(client, f"/play/{campaign['id']}/act", {"csrf": csrf_of(page)} | fields)


def points(client: TestClient, campaign: dict[str, Any], side: str) -> dict[str, Any]:
    """The side's CPP, FPP, ELR and SAN, as the director's JSON status reads them."""
    found: dict[str, Any] = json_read(client, campaign, "")["sides"][side]
    return found


def test_the_director_credits_cpp_from_the_page_and_the_page_says_what_was_recorded(
        client: TestClient, campaign: dict[str, Any]) -> None:
    before = points(client, campaign, AXIS)["cpp"]
    answer = adjusted(client, campaign, CREDIT)
    assert answer.status_code == 303, answer.text
    assert "?done=" in answer.headers["location"]
    assert points(client, campaign, AXIS)["cpp"] == before + 5
    shown = text_of(get(client, answer.headers["location"]))
    assert "Recorded: Axis credited 5 CPP" in shown and "3.616" in shown.split("Recorded:")[1]


def test_a_spend_past_the_sides_cpp_is_refused_appends_nothing_and_comes_back_as_typed(
        client: TestClient, campaign: dict[str, Any]) -> None:
    version = json_read(client, campaign, "")["version"]
    spend = CREDIT | {"change": "spend_cpp", "amount": "9999"}
    answer = adjusted(client, campaign, spend)
    assert answer.status_code in (400, 409, 422), answer.text
    assert json_read(client, campaign, "")["version"] == version
    assert "has 0 CPP, not 9999 (field: Amount)" in text_of(answer.text)
    typed = inputs_of(answer.text, "adjust-points")
    assert typed["amount"]["value"] == "9999" and typed["reason"]["value"] == spend["reason"]


@pytest.mark.parametrize(("fields", "label"), [
    ({"action": "rating", "side": AXIS, "rating": "change_elr", "value": "6",
      "cause": "a ruling"}, "It becomes"),
    ({"action": "rating", "side": AXIS, "rating": "change_elr", "value": "3",
      "cause": ""}, "Cause"),
    ({"action": "rating", "side": AXIS, "rating": "end_cg", "value": "3",
      "cause": "a ruling"}, "Rating"),
    (CREDIT | {"change": "purchase_rg"}, "Change"),
    (CREDIT | {"amount": "five"}, "Amount"),
    ({"action": "scenario", "weather": " ", "wind": ""}, "Scenario type"),
], ids=["elr-past-5", "no-cause", "not-a-rating", "not-a-points-change", "amount-in-words",
        "no-note"])
def test_a_bad_adjustment_is_refused_naming_its_field_and_appends_nothing(
        client: TestClient, campaign: dict[str, Any], fields: dict[str, str],
        label: str) -> None:
    version = json_read(client, campaign, "")["version"]
    answer = adjusted(client, campaign, fields)
    assert answer.status_code in (400, 422), answer.text
    said = text_of(answer.text)
    assert f"(field: {label})" in said, said.split("Axis CPP")[0]
    assert json_read(client, campaign, "")["version"] == version


def test_the_director_changes_elr_and_san_and_notes_the_weather(
        client: TestClient, campaign: dict[str, Any]) -> None:
    for fields in ({"action": "rating", "side": BRITISH, "rating": "change_elr",
                    "value": "2", "cause": "ELR loss", "rule": "A19.1"},
                   {"action": "rating", "side": BRITISH, "rating": "change_san",
                    "value": "4", "cause": "a ruling"},
                   {"action": "scenario", "weather": "Overcast", "wind": "Mild Breeze"}):
        answer = adjusted(client, campaign, fields)
        assert answer.status_code == 303, answer.text
        shown = text_of(get(client, answer.headers["location"]))
        assert "Recorded:" in shown, fields
    assert points(client, campaign, BRITISH)["elr"] == 2
    assert points(client, campaign, BRITISH)["san"] == 4
    assert "Overcast" in shown and "Mild Breeze" in shown.split("Recorded:")[1]


def test_a_side_and_the_observer_have_no_adjustments_and_are_refused_them(
        client: TestClient, campaign: dict[str, Any]) -> None:
    assert "The director's adjustments" in text_of(get(client, f"/play/{campaign['id']}"))
    version = json_read(client, campaign, "")["version"]
    for token in (campaign["tokens"]["sides"][AXIS], campaign["tokens"]["observer"]):
        log_in(client, token)
        page = get(client, f"/play/{campaign['id']}")
        assert "The director's adjustments" not in text_of(page)
        mine = csrf_of(page) if "csrf" in page else ""  # an observer's page has no form
        answer = post(client, f"/play/{campaign['id']}/act", {"csrf": mine} | CREDIT)
        assert answer.status_code == 403, answer.text
        said = text_of(answer.text)
        assert "the credit_cpp command is the director" in said or not mine, \
            said[said.find("Refused"):][:300]
    log_in(client, campaign["tokens"]["director"])
    assert json_read(client, campaign, "")["version"] == version
    assert points(client, campaign, AXIS)["cpp"] == 0


def test_what_another_side_recorded_in_secret_is_said_as_a_sealed_fact(
        client: TestClient, campaign: dict[str, Any]) -> None:
    answer = adjusted(client, campaign, CREDIT | {"amount": "14"})  # an I5's price
    assert answer.status_code == 303, answer.text
    log_in(client, campaign["tokens"]["sides"][AXIS])
    page = get(client, f"/play/{campaign['id']}")
    bought = post(client, f"/play/{campaign['id']}/act",
                  {"csrf": csrf_of(page), "action": "purchase", "side": AXIS, "rg": "I5"})
    assert bought.status_code == 303, bought.text
    version = int(bought.headers["location"].rsplit("=", 1)[1])
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    shown = text_of(get(client, f"/play/{campaign['id']}?done={version}-{version}"))
    said = shown[shown.find("Recorded:"):].split(".")[0]
    assert said == "Recorded: sealed fact, secret to Axis", said


def test_a_new_campaigns_pages_say_its_initial_scenario_gives_cpp_elr_and_san(
        client: TestClient, campaign: dict[str, Any]) -> None:
    shown = text_of(get(client, f"/play/{campaign['id']}"))
    assert "No ELR or SAN recorded yet for the Axis and the British" in shown
    assert "record them under \"The director's adjustments\" below" in shown
    for side in (AXIS, BRITISH):
        answer = adjusted(client, campaign, {"action": "rating", "side": side,
                                             "rating": "change_elr", "value": "3",
                                             "cause": "Initial Scenario OB"})
        assert answer.status_code == 303, answer.text
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    assert "No ELR or SAN recorded yet" not in text_of(get(client, f"/play/{campaign['id']}"))


def test_in_the_reph_the_director_notes_the_weather_of_the_scenario_last_ended(
        client: TestClient, campaign: dict[str, Any]) -> None:
    director = campaign["tokens"]["director"]
    while json_read(client, campaign, "")["phase"] != "scenario":
        assert send(client, campaign, director, {"type": "advance"}).status_code == 200
    played = json_read(client, campaign, "")["cg_date"]
    assert 'name="previous"' not in get(client, f"/play/{campaign['id']}")  # in play
    assert send(client, campaign, director, {"type": "end_scenario"}).status_code == 200
    while json_read(client, campaign, "")["cg_date"] == played:  # on to the next CG Date
        assert send(client, campaign, director, {"type": "advance"}).status_code == 200
    answer = adjusted(client, campaign, {"action": "scenario", "weather": "Mist",
                                         "previous": "yes"})
    assert answer.status_code == 303, answer.text
    rows = {row["cg_date"]: row for row in json_read(client, campaign, "/roster")}
    assert rows[played]["weather"] == "Mist"
    assert rows[json_read(client, campaign, "")["cg_date"]]["weather"] is None
