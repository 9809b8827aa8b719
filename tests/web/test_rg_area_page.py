"""An RG's Setup/Entry Area from the side's page (3.6179): recorded on its line as the side
bought it, on its CG Date of purchase, sealed from the other side as the line is; a
refused one comes back as typed, naming the field."""

from __future__ import annotations

import html as markup
from typing import Any

from fastapi.testclient import TestClient

from tests.helpers.http import auth, new_campaign, send
from tests.helpers.web import AXIS, BRITISH, text_of
from tests.http.test_reports import Table
from tests.web.test_director_tools import get, log_in
from tests.web.test_scenario_page import act


def bought(client: TestClient) -> dict[str, Any]:
    """PBr CG I at 14AM 3.617: the Axis has bought an I5 (line 1), in secret."""
    campaign = new_campaign(client)
    tokens = campaign["tokens"]
    for token, body in ((tokens["director"], {"type": "credit_cpp", "side": AXIS,
                                              "amount": 39, "reason": "3.6161"}),
                        (tokens["sides"][AXIS], {"type": "purchase_rg", "side": AXIS,
                                                 "rg": "I5"})):
        answer = send(client, campaign, token, body)
        assert answer.status_code == 200, answer.text
    return campaign


def line_one(client: TestClient, campaign: dict[str, Any], role: str) -> Any:
    """Line 1 of the RG Purchase Record as the role reads it."""
    token = campaign["tokens"]["sides"].get(role) or campaign["tokens"][role]
    rows = client.get(f"/campaigns/{campaign['id']}/purchase-record",
                      headers=auth(token)).json()
    return rows[0]


def test_a_side_records_its_rgs_area_from_its_page_sealed_from_the_other_side(
        client: TestClient) -> None:
    campaign = bought(client)
    log_in(client, campaign["tokens"]["sides"][AXIS])
    assert 'name="area"' in get(client, f"/play/{campaign['id']}")
    answer = act(client, campaign, {"action": "area", "side": AXIS, "purchase": "1",
                                    "area": "A3"})
    assert answer.status_code == 303, answer.text
    page = text_of(get(client, answer.headers["location"]))
    assert "Recorded: Axis RG #1 sets up/enters in A3." in page
    assert "Setup/Entry Area A3" in page
    assert line_one(client, campaign, AXIS)["setup_area"] == "A3"
    assert line_one(client, campaign, "director")["setup_area"] == "A3"
    for role in (BRITISH, "observer"):
        row = line_one(client, campaign, role)
        assert row["hidden"] and row.get("setup_area") is None
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    page = get(client, f"/play/{campaign['id']}")
    assert 'name="area"' not in page and "A3" not in text_of(page)


def test_the_area_form_is_gone_once_the_side_marked_its_part_of_the_step_done(
        client: TestClient) -> None:
    campaign = bought(client)
    done = send(client, campaign, campaign["tokens"]["sides"][AXIS],
                {"type": "advance", "side": AXIS})
    assert done.status_code == 200, done.text
    log_in(client, campaign["tokens"]["sides"][AXIS])
    page = get(client, f"/play/{campaign['id']}")
    assert "Done with step 3.617: waiting for the others." in text_of(page)
    assert "I5" in text_of(page)
    assert 'name="area"' not in page  # it would be refused: the side sends nothing more
    log_in(client, campaign["tokens"]["director"])  # ... but the director may record it
    assert 'name="area"' in get(client, f"/play/{campaign['id']}")


def test_a_refused_area_comes_back_as_typed_naming_the_field(client: TestClient) -> None:
    campaign = bought(client)
    log_in(client, campaign["tokens"]["sides"][AXIS])
    for area, said in ((" ", "Setup/Entry Area: left empty"),
                       ("A" * 41, "Setup/Entry Area: ")):
        answer = act(client, campaign, {"action": "area", "side": AXIS, "purchase": "1",
                                        "area": area})
        assert answer.status_code == 422, answer.text
        assert said in markup.unescape(text_of(answer.text))
        tag = answer.text.split('id="area-1"', 1)[1].split(">", 1)[0]
        assert f'value="{area}"' in tag and 'aria-invalid="true"' in tag
    answer = act(client, campaign, {"action": "area", "side": AXIS, "purchase": "2",
                                    "area": "A3"})
    assert answer.status_code == 422 and "no RG purchase #2" in markup.unescape(answer.text)
    assert line_one(client, campaign, AXIS).get("setup_area") is None


def test_the_area_is_recorded_in_the_reph_never_once_the_scenario_is_in_play(
        client: TestClient) -> None:
    table = Table(client)  # PBr CG I at 14AM 3.617; the Axis buys an I5 (line 1)
    table.ok("director", {"type": "credit_cpp", "side": AXIS, "amount": 39,
                          "reason": "3.6161"})
    table.ok(AXIS, {"type": "purchase_rg", "side": AXIS, "rg": "I5"})
    table.to("scenario")  # its RG strength DR and the other due rolls made on the way
    campaign = table.campaign
    log_in(client, campaign["tokens"]["sides"][AXIS])
    assert 'name="area"' not in get(client, f"/play/{campaign['id']}")
    answer = send(client, campaign, campaign["tokens"]["sides"][AXIS],
                  {"type": "record_rg_area", "side": AXIS, "purchase": 1, "area": "LATE"})
    assert answer.status_code == 422, answer.text
    assert "before the CG Scenario sets up" in answer.json()["error"]["message"]
    for area in ("A\u2028B", "\u200b"):
        assert send(client, campaign, campaign["tokens"]["sides"][AXIS],
                    {"type": "record_rg_area", "side": AXIS, "purchase": 1,
                     "area": area}).status_code == 422
    assert line_one(client, campaign, AXIS).get("setup_area") is None
    table.to("reph", "3.606")  # the RePh after it: still 14AM, its scenario played
    assert 'name="area"' not in get(client, f"/play/{campaign['id']}")
    late = send(client, campaign, campaign["tokens"]["sides"][AXIS],
                {"type": "record_rg_area", "side": AXIS, "purchase": 1, "area": "LATER"})
    assert late.status_code == 422 and late.json()["error"]["rule"] == "3.6179"


def test_the_area_form_cites_the_purchase_record_and_skips_an_rg_with_no_units(
        client: TestClient) -> None:
    campaign = bought(client)  # line 1: the I5
    answer = send(client, campaign, campaign["tokens"]["sides"][AXIS],
                  {"type": "purchase_rg", "side": AXIS, "rg": "M3"})  # line 2: 20 FPP
    assert answer.status_code == 200, answer.text
    log_in(client, campaign["tokens"]["sides"][AXIS])
    page = get(client, f"/play/{campaign['id']}")
    assert "PBr CG I" in text_of(page)  # as players write it, not "PBR"
    assert 'id="area-1"' in page and 'id="area-2"' not in page
    label = page.split('for="area-1"', 1)[1].split("</label>", 1)[0]
    assert '<span class="rule">3.6179</span>' in label
    answer = act(client, campaign, {"action": "area", "side": AXIS, "purchase": "2",
                                    "area": "A3"})  # a form sent anyway is refused
    assert answer.status_code == 422
    assert "(M3, Fortification) brings no units" in markup.unescape(text_of(answer.text))
