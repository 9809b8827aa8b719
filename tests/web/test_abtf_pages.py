"""What a helper met playing ABtF on the pages. A unit lost in the Refit Phase: Melee,
Encirclement and Escape award CVP "normally" (ABtF 9.601, 9.6041, 9.6054; PBr 3.6061), so
each side's page keeps its casualty form, folded, through the RePh; it counts for the CG
Scenario just played, and the side whose module keeps a Walking Wounded box (ABtF CG19:
the British) says how many half-squads go to it. An ABtF purchase names no PBr way of
buying."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from infra.settings import Settings
from tests.helpers.http import new_campaign, send, serving
from tests.helpers.paths import FIXTURE_ABTF, FIXTURE_CHART
from tests.helpers.web import AXIS, BRITISH, text_of
from tests.web.test_control_page import in_the_reph_as_the_axis
from tests.web.test_director_tools import get, log_in
from tests.web.test_scenario_page import act, status


def test_a_side_reports_a_unit_lost_in_the_reph_from_its_folded_form(
        client: TestClient) -> None:
    campaign = in_the_reph_as_the_axis(client)
    page = get(client, f"/play/{campaign['id']}")
    assert '<details class="casualty-later">' in page
    assert "Report a unit the Axis lost in this RePh" in text_of(page)
    answer = act(client, campaign, {"action": "casualty", "side": AXIS, "unit": "4-6-8",
                                    "cvp": "2"})
    assert answer.status_code == 303, answer.text
    send(client, campaign, campaign["tokens"]["sides"][BRITISH],
         {"type": "confirm_report", "side": BRITISH, "report": 1})
    [played] = {row["scenario"] for row in status(client, campaign, "/cvp")["scenarios"]}
    assert status(client, campaign, "/cvp")["totals"] == {AXIS: 2, BRITISH: 0}
    assert played == status(client, campaign)["cg_date"]  # the scenario just played


def test_the_refit_phase_casualty_form_has_no_walking_wounded_field_in_pbr(
        client: TestClient) -> None:
    campaign = in_the_reph_as_the_axis(client)
    assert 'name="ww_half_squads"' not in get(client, f"/play/{campaign['id']}")


@pytest.fixture
def abtf_client(settings: Settings) -> Iterator[TestClient]:
    """The service with the ABtF owner data the tests use (its ELR and SAN known)."""
    yield from serving(settings, FIXTURE_CHART, FIXTURE_ABTF)


def abtf_in_play(client: TestClient) -> dict[str, Any]:
    """An ABtF CG I whose Initial Scenario is in play (the set-up's rolls by server dice)."""
    campaign = new_campaign(client, "abtf", "Arnhem")
    director = campaign["tokens"]["director"]
    while (guide := status(client, campaign, "/guide"))["phase"] != "scenario":
        for side, part in guide["sides"].items():
            for due in part["due"]:
                rolled = send(client, campaign, director, {
                    "type": "roll", "table": due["table"], "side": side,
                    "subject": due["subject"]})
                assert rolled.status_code == 200, rolled.text
        assert send(client, campaign, director, {"type": "advance"}).status_code == 200
    return campaign


def test_the_british_say_how_many_half_squads_go_to_the_cg19_walking_wounded_box(
        abtf_client: TestClient) -> None:
    campaign = abtf_in_play(abtf_client)
    log_in(abtf_client, campaign["tokens"]["director"])
    page = get(abtf_client, f"/play/{campaign['id']}")
    british, _, german = page.partition("a casualty of the German")
    assert 'name="ww_half_squads"' in british and "WW box (CG19; a squad 2)" in british
    assert 'name="ww_half_squads"' not in german
    answer = act(abtf_client, campaign, {"action": "casualty", "side": BRITISH,
                                         "unit": "6-4-8", "cvp": "2", "ww_half_squads": "2"})
    assert answer.status_code == 303, answer.text
    log_in(abtf_client, campaign["tokens"]["sides"][BRITISH])  # a side's report, confirmed
    answer = act(abtf_client, campaign, {"action": "casualty", "side": BRITISH,
                                         "unit": "4-4-7", "cvp": "1", "ww_half_squads": "1"})
    assert answer.status_code == 303, answer.text
    log_in(abtf_client, campaign["tokens"]["sides"]["German"])
    said = text_of(get(abtf_client, f"/play/{campaign['id']}"))
    assert "the British lost 4-4-7 (1 CVP, 1 HS to the WW box)" in said  # what it confirms
    [row] = [r for r in status(abtf_client, campaign, "/cvp")["scenarios"] if r["side"] == BRITISH]
    # the side's own report waits for the German to confirm it
    assert [(c["unit"], c["ww_half_squads"]) for c in row["casualties"]] == [("6-4-8", 2)]


def test_an_abtf_buy_button_and_bought_line_name_no_pbr_way_of_buying(
        abtf_client: TestClient) -> None:
    # ABtF 9.617 prices each RG once: "entry" (PBr 3.6175's words, beside reserve and on
    # map) would tell an ABtF player of a choice the module does not have.
    campaign = new_campaign(abtf_client, "abtf", "Arnhem")
    director = campaign["tokens"]["director"]
    credit = {"type": "credit_cpp", "side": BRITISH, "amount": 12, "reason": "9.616"}
    assert send(abtf_client, campaign, director, credit).status_code == 200
    log_in(abtf_client, campaign["tokens"]["sides"][BRITISH])
    page = text_of(get(abtf_client, f"/play/{campaign['id']}"))
    assert "Buy I1 buy · " in page and "entry ·" not in page
    answer = act(abtf_client, campaign, {"action": "purchase", "side": BRITISH, "rg": "I1",
                                         "mode": "entry"})
    assert answer.status_code == 303, answer.text
    page = text_of(get(abtf_client, answer.headers["location"]))
    assert "Bought I1 (" in page and "at entry" not in page


def test_the_directors_notes_offer_the_weather_as_abtfs_tables_word_it(
        abtf_client: TestClient) -> None:
    campaign = abtf_in_play(abtf_client)
    log_in(abtf_client, campaign["tokens"]["director"])
    raw = abtf_client.get(f"/play/{campaign['id']}").text  # as the browser reads the markup
    assert 'name="weather" type="text" maxlength="100" placeholder="e.g. Clear" ' \
        'list="known-weather"' in raw  # (escaped attributes had dropped the list: a helper)
    page = get(abtf_client, f"/play/{campaign['id']}")
    assert '<option value="Clear & Gusty">' in page
    assert '<datalist id="known-ec"><option value="Wet">' in page
    assert '<datalist id="known-wind"><option value="No Wind">' in page


def test_pbr_prints_no_weather_table_so_its_notes_offer_none(client: TestClient) -> None:
    campaign = in_the_reph_as_the_axis(client)
    log_in(client, campaign["tokens"]["director"])
    assert "known-weather" not in get(client, f"/play/{campaign['id']}")
