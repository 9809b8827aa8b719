"""Control from the pages: a side reports a Location it Controls now (A26.11-.12) and the
other side confirms it from its own page; the form offers only the kinds of Location the
module records Control of (PBr 3.605, ABtF 9.605's Blocks) and, in KGP, an LVP
Location's Map Group (8.2); a refusal comes back as typed and appends nothing."""

from __future__ import annotations

import html as markup
from typing import Any

from fastapi.testclient import TestClient

from api.web.view import control_choices
from infra.application import Refit
from projections.read import CampaignStatus
from tests.helpers.http import new_campaign, send
from tests.helpers.web import AXIS, BRITISH, inputs_of, text_of
from tests.web.test_director_tools import get, log_in
from tests.web.test_scenario_page import act, forms_of, status


def in_play(client: TestClient, module: str = "pbr") -> dict[str, Any]:
    """A campaign of the module whose Initial Scenario is in play."""
    campaign = new_campaign(client, module)
    while status(client, campaign)["phase"] != "scenario":
        answer = send(client, campaign, campaign["tokens"]["director"], {"type": "advance"})
        assert answer.status_code == 200, answer.text
    return campaign


def in_the_reph_as_the_axis(client: TestClient) -> dict[str, Any]:
    """A campaign whose Initial Scenario the director has ended, the session the Axis's."""
    campaign = in_play(client)
    director = campaign["tokens"]["director"]
    assert send(client, campaign, director, {"type": "end_scenario"}).status_code == 200
    log_in(client, campaign["tokens"]["sides"][AXIS])
    return campaign


def control_forms(client: TestClient, campaign: dict[str, Any]) -> list[str]:
    """The Control forms on the session's page."""
    return [form for form in forms_of(get(client, f"/play/{campaign['id']}"))
            if 'value="control"' in form]


def test_a_side_reports_a_location_it_controls_and_the_other_side_confirms_it(
        client: TestClient) -> None:
    campaign = in_play(client)
    log_in(client, campaign["tokens"]["sides"][AXIS])
    forms = control_forms(client, campaign)
    assert len(forms) == 1 and f'value="{AXIS}"' in forms[0]
    assert "Report a Location the Axis Controls now" in text_of(forms[0])
    answer = act(client, campaign, {"action": "control", "side": AXIS,
                                    "location": "Ranville church", "kind": "Strategic Location"})
    assert answer.status_code == 303, answer.text
    assert status(client, campaign, "/control") == []  # not until the British confirm it
    page = text_of(get(client, answer.headers["location"]))
    assert "Ranville church" in page and "Recorded:" in page

    log_in(client, campaign["tokens"]["sides"][BRITISH])
    page = text_of(get(client, f"/play/{campaign['id']}"))
    assert "the Axis Controls Ranville church (Strategic Location)" in page
    answer = act(client, campaign, {"action": "answer", "side": BRITISH, "report": "1",
                                    "answer": "confirm_report"})
    assert answer.status_code == 303, answer.text
    [row] = status(client, campaign, "/control")
    assert (row["location"], row["side"], row["kind"]) == (
        "Ranville church", AXIS, "Strategic Location")


def test_the_observer_has_no_control_form_and_a_side_has_only_its_own(
        client: TestClient) -> None:
    campaign = in_play(client)
    log_in(client, campaign["tokens"]["observer"])
    assert control_forms(client, campaign) == []
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    [form] = control_forms(client, campaign)
    assert f'value="{BRITISH}"' in form and f'value="{AXIS}"' not in form


def test_the_kinds_offered_are_the_modules_own(client: TestClient, refit: Refit) -> None:
    pbr = in_play(client, "pbr")
    log_in(client, pbr["tokens"]["director"])
    pbr_form = control_forms(client, pbr)[0]
    assert 'value="Strategic Location"' in pbr_form and 'value="Block"' not in pbr_form
    assert "Kind (3.605)" in pbr_form
    assert 'name="map_group"' not in pbr_form and 'name="infantry"' not in pbr_form
    # ABtF's Initial Scenario waits on owner data: its choices, as each role has them.
    def abtf(phase: str, step: str | None, director: bool) -> list[str]:
        status = CampaignStatus.model_construct(module="abtf", phase=phase, step=step)
        choices = control_choices(refit, status, director)
        assert choices["rule"] == "9.605"
        return list(choices["kinds"])
    assert abtf("scenario", None, director=False) == ["Strategic Location", "Location"]
    assert abtf("reph", "9.605", director=False) == ["Block", "Strategic Location", "Location"]
    assert abtf("reph", "9.606", director=False) == ["Strategic Location", "Location"]
    assert abtf("scenario", None, director=True) == ["Strategic Location", "Location", "Block"]
    assert abtf("setup", "9.617", director=True) == []  # before the Initial Scenario


def test_the_control_form_is_open_in_the_setup_area_step_and_folded_in_the_rest_of_the_reph(
        client: TestClient) -> None:
    campaign = in_the_reph_as_the_axis(client)
    director = campaign["tokens"]["director"]

    def folded() -> bool:
        page = get(client, f"/play/{campaign['id']}")
        [form] = control_forms(client, campaign)
        return '<details class="control-later">' in page and "Kind (3.605)" in form
    while status(client, campaign)["step"] != "3.605":
        assert folded(), status(client, campaign)["step"]
        assert send(client, campaign, director, {"type": "advance"}).status_code == 200
    assert not folded()
    assert send(client, campaign, director, {"type": "advance"}).status_code == 200
    assert folded()
    assert "<summary>Report a Location the Axis Controls now</summary>" in \
        get(client, f"/play/{campaign['id']}")
    log_in(client, director)  # the director records, at once: no report to confirm
    page = get(client, f"/play/{campaign['id']}")
    assert "<summary>Record a Location the Axis Controls now</summary>" in page
    assert "<summary>Report a Location" not in page


def test_a_kgp_director_records_an_lvp_location_with_its_map_group(client: TestClient) -> None:
    campaign = in_play(client, "kgp")
    log_in(client, campaign["tokens"]["director"])
    form = control_forms(client, campaign)[0]
    assert 'value="Lg"' in form and 'name="infantry"' in form and "8.2" in form
    side = campaign_sides(client, campaign)[0]
    answer = act(client, campaign, {"action": "control", "side": side, "location": "La Gleize",
                                    "kind": "Strategic Location", "lvp": "3",
                                    "map_group": "Lg"})
    assert answer.status_code == 303, answer.text
    [row] = status(client, campaign, "/control")
    assert (row["location"], row["side"], row["lvp"], row["map_group"]) == (
        "La Gleize", side, 3, "Lg")


def campaign_sides(client: TestClient, campaign: dict[str, Any]) -> list[str]:
    """The campaign's sides, in order."""
    return list(status(client, campaign)["sides"])


def test_a_refused_control_comes_back_as_typed_names_the_field_and_appends_nothing(
        client: TestClient) -> None:
    campaign = in_play(client)
    log_in(client, campaign["tokens"]["sides"][AXIS])
    before = status(client, campaign)["version"]
    answer = act(client, campaign, {"action": "control", "side": AXIS,
                                    "location": "Ranville church", "kind": "Block"})
    assert answer.status_code == 422, answer.text
    said = markup.unescape(text_of(answer.text))
    assert "Kind" in said and "3.605" in said and "not what PBr records Control of" in said
    inputs = inputs_of(answer.text, "control")
    assert inputs["location"]["value"] == "Ranville church"
    answer = act(client, campaign, {"action": "control", "side": AXIS, "location": " ",
                                    "kind": "Location"})
    assert answer.status_code == 422 and "Location: left empty" in markup.unescape(answer.text)
    assert inputs_of(answer.text, "control")["location"].get("aria-invalid") == "true"
    answer = act(client, campaign, {"action": "control", "side": BRITISH,
                                    "location": "Ranville church"})
    assert answer.status_code == 403, answer.text  # the Axis reports only its own Control
    assert status(client, campaign)["version"] == before


def test_what_pbr_keeps_no_record_of_is_refused_naming_its_field(client: TestClient) -> None:
    campaign = in_play(client)
    log_in(client, campaign["tokens"]["sides"][AXIS])
    for name, value, label in (("infantry", "yes", "Controlled by Infantry"),
                               ("map_group", "A", "Its Map Group"), ("lvp", "2", "Its LVP")):
        answer = act(client, campaign, {"action": "control", "side": AXIS,
                                        "location": "Ranville church",
                                        "kind": "Strategic Location", name: value})
        assert answer.status_code == 422, answer.text
        said = markup.unescape(text_of(answer.text))
        assert "PBr keeps no LVP, Map Groups or Objective Hexes (KGP 8.2): a Control " \
               f"change here names none (field: {label})" in said


def test_a_control_report_awaiting_its_answer_is_not_sent_again(client: TestClient) -> None:
    campaign = in_play(client)
    log_in(client, campaign["tokens"]["sides"][AXIS])
    fields = {"action": "control", "side": AXIS, "location": "Ranville church",
              "kind": "Strategic Location"}
    assert act(client, campaign, fields).status_code == 303
    before = status(client, campaign)["version"]
    again = act(client, campaign, fields)
    assert again.status_code == 422, again.text
    assert "report 1 already says the Axis Controls Ranville church" in \
        markup.unescape(again.text)
    assert status(client, campaign)["version"] == before
    for same in ("ranville  CHURCH", " \uff32anville church", "Ranville church\u00a0"):
        again = act(client, campaign, fields | {"location": same, "kind": "Location"})
        assert again.status_code == 422, (same, again.text)
    for forged in ("Hill\u202823", "Hill\u200b23"):
        answer = act(client, campaign, fields | {"location": forged})
        assert answer.status_code == 422 and "Location: " in markup.unescape(answer.text)
    assert status(client, campaign)["version"] == before
    assert act(client, campaign, fields | {"location": "Le Port"}).status_code == 303


def test_a_control_report_refused_in_a_folded_step_comes_back_open_as_typed(
        client: TestClient) -> None:
    campaign = in_the_reph_as_the_axis(client)
    assert '<details class="control-later">' in get(client, f"/play/{campaign['id']}")
    answer = act(client, campaign, {"action": "control", "side": AXIS,
                                    "location": "Ranville church", "kind": "Block"})
    assert answer.status_code == 422, answer.text
    assert '<details class="control-later" open>' in answer.text
    assert inputs_of(answer.text, "control")["location"]["value"] == "Ranville church"


def test_a_disputed_control_report_tells_both_sides_the_reason_and_the_director_no_none(
        client: TestClient) -> None:
    campaign = in_play(client)
    tokens = campaign["tokens"]
    reported = send(client, campaign, tokens["sides"][AXIS],
                    {"type": "change_control", "side": AXIS, "location": "Ranville church",
                     "kind": "Strategic Location"})
    assert reported.status_code == 200, reported.text
    disputed = send(client, campaign, tokens["sides"][BRITISH],
                    {"type": "dispute_report", "report": 1, "side": BRITISH,
                     "reason": "our 6-5-8 still holds it"})
    assert disputed.status_code == 200, disputed.text
    log_in(client, tokens["sides"][AXIS])  # who reported it: why it waits
    assert "Report 1 awaits the director, disputed (“our 6-5-8 still holds it”): the Axis " \
           "Controls Ranville church" in text_of(get(client, f"/play/{campaign['id']}"))
    log_in(client, tokens["sides"][BRITISH])  # who disputed it: that it still waits
    assert "Report 1 of the Axis, disputed by the British (“our 6-5-8 still holds it”), " \
           "awaits the director: the Axis Controls Ranville church" in \
           text_of(get(client, f"/play/{campaign['id']}"))
    log_in(client, tokens["director"])  # a Control report cites no rule of its own
    home = text_of(get(client, f"/play/{campaign['id']}"))
    assert "Report 1 : the Axis Controls Ranville church" in home and "None" not in home
