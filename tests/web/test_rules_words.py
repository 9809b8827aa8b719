"""Words on the pages as the rules print them. A DRM the rules compute from a count the
side states (the DRM is its value times the count) is labelled by what is counted and how,
never by a fixed sign alone: a 9-2's leadership DRM of -2 makes the Leader/Hero DRM of
3.606 negative. A point after the CG Scenario is named so, not as a step."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.helpers.http import auth, new_campaign, send
from tests.helpers.web import AXIS, text_of
from tests.web.test_director_tools import get, log_in
from tests.web.test_scenario_page import campaign, status  # noqa: F401 (a fixture)


def test_the_shift_dr_names_its_per_five_hexes_drm_as_a_count_times_its_value(
        client: TestClient, campaign: dict[str, Any]) -> None:  # noqa: F811
    director = campaign["tokens"]["director"]
    assert send(client, campaign, director, {"type": "end_scenario"}).status_code == 200
    while status(client, campaign)["step"] != "3.613":
        assert send(client, campaign, director, {"type": "advance"}).status_code == 200
    log_in(client, campaign["tokens"]["sides"][AXIS])
    page = text_of(get(client, f"/play/{campaign['id']}"))
    assert "per five (FRD) Uncontrolled-Territory hexes along the path between the current " \
           "and the desired Setup/Entry Area 3.613 : +1 \u00d7 (Uncontrolled-Territory hexes " \
           "along the path between the current and the desired Setup/Entry Area) \u00f7 5, FRD" \
           in page
    assert "+1 per five" not in page  # its value alone, as if it were the DRM


def test_the_point_picker_names_the_cg_scenario_not_a_step_called_scenario(
        client: TestClient, campaign: dict[str, Any]) -> None:  # noqa: F811
    director = campaign["tokens"]["director"]
    assert send(client, campaign, director, {"type": "end_scenario"}).status_code == 200
    log_in(client, campaign["tokens"]["sides"][AXIS])
    page = text_of(get(client, f"/play/{campaign['id']}/forms"))
    assert "14AM, after the CG Scenario (version" in page
    assert "after step scenario" not in page


def test_the_initial_scenarios_3_621_says_why_no_chit_is_chosen(client: TestClient) -> None:
    made = new_campaign(client)
    director = made["tokens"]["director"]
    while (now := status(client, made))["step"] != "3.621":
        assert now["phase"] == "setup", now
        assert send(client, made, director, {"type": "advance"}).status_code == 200
    log_in(client, made["tokens"]["sides"][AXIS])
    page = text_of(get(client, f"/play/{made['id']}"))
    assert "Nothing due for the Axis in 3.621." in page
    assert "No Initiative chit is chosen for the Initial Scenario" in page
    assert "from the next CG Date on 3.6212 ." in page


def test_a_point_after_a_cg_scenario_not_played_yet_is_named_so(
        client: TestClient, campaign: dict[str, Any]) -> None:  # noqa: F811
    answer = client.get(f"/campaigns/{campaign['id']}/roster",
                        params={"as_of": "14AM/scenario"},
                        headers=auth(campaign["tokens"]["director"]))
    assert answer.status_code == 422, answer.text
    said = answer.json()["error"]["message"]
    assert "has not done the CG Scenario of 14AM" in said and "step scenario" not in said
