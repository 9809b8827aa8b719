"""A side keeps its Retained units (PBr 3.6055, 3.613) on its page in the RePh: it adds a
line at a time and takes one off by its number; a refusal names the field or the rule and
appends nothing; the opponent's page, guide and Retained units show only the open part,
never a HIP unit nor an RG line."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.helpers.web import AXIS, BRITISH, text_of
from tests.http.test_reports import Table
from tests.web.test_director_tools import get, log_in
from tests.web.test_scenario_page import act

TENTH = {"unit": "6-5-8", "count": "10", "area": "A1", "kind": "squad"}


def in_the_reph(client: TestClient) -> Table:
    """PBr CG I in the RePh after the 14AM scenario, at 3.612 (14PM)."""
    table = Table(client, name="Bénouville")
    table.to("reph", "3.612")
    return table


def card(page: str) -> str:
    """The words of the page's Retained units card."""
    return text_of(page.split('class="retained"', 1)[1].split("</section>", 1)[0])


def retain(client: TestClient, campaign: dict[str, Any], **fields: str) -> Any:
    """The British page's form: a line of Retained units."""
    return act(client, campaign, {"action": "retain", "side": BRITISH} | fields)


def test_the_british_keep_their_retained_units_a_line_at_a_time_on_their_page(
        client: TestClient) -> None:
    table = in_the_reph(client)
    campaign = table.campaign
    log_in(client, table.tokens[BRITISH])
    assert "None recorded for 14PM yet." in card(get(client, f"/play/{campaign['id']}"))

    added = retain(client, campaign, **TENTH)
    assert added.status_code == 303, added.text
    said = text_of(get(client, added.headers["location"]))
    assert "British Retained: 10 x 6-5-8 in A1" in said
    retain(client, campaign, unit="6-5-8", count="2", area="A1", kind="squad", hip="yes")
    retain(client, campaign, unit="8-1 leader", area="A2", kind="leader", isolated="yes")

    shown = card(get(client, f"/play/{campaign['id']}"))
    assert "1 6-5-8 squad 10 A1" in shown and "2 8-1 leader leader, Isolated 1 A2" in shown
    assert "3 6-5-8 squad, HIP, sealed 2 A1" in shown
    answer = act(client, campaign, {"action": "unretain", "side": BRITISH, "line": "2"})
    assert answer.status_code == 303, answer.text
    units = table.read(BRITISH, "/retained").json()
    assert [(u["unit"], u["count"], u["hip"]) for u in units] == [("6-5-8", 10, False),
                                                                  ("6-5-8", 2, True)]


def test_a_refused_line_names_its_field_or_rule_and_appends_nothing(
        client: TestClient) -> None:
    table = in_the_reph(client)
    campaign = table.campaign
    log_in(client, table.tokens[BRITISH])
    retain(client, campaign, **TENTH)
    before = table.read("director", "").json()["version"]

    too_many = retain(client, campaign, unit="6-5-8", count="3", area="A1", kind="squad",
                      hip="yes")
    no_area = retain(client, campaign, unit="6-5-8", area="", kind="squad")
    no_kind = retain(client, campaign, unit="6-5-8", area="A1", kind="tank")
    past = act(client, campaign, {"action": "unretain", "side": BRITISH, "line": "5"})

    assert too_many.status_code == 422
    assert "Refused by rule 3.619" in text_of(too_many.text)
    assert 'value="3"' in too_many.text  # the form back as typed, to correct
    assert no_area.status_code == 422 and "(field: Setup/Entry Area)" in text_of(no_area.text)
    assert no_kind.status_code == 422 and "Kind (what the limits count)" in text_of(
        no_kind.text)
    assert past.status_code == 422
    assert "the British has 1 line(s) of Retained units on 14PM (field: Line #)" in text_of(
        past.text)
    assert table.read("director", "").json()["version"] == before


def test_the_axis_sees_only_the_open_part_and_never_an_rg_line(client: TestClient) -> None:
    table = Table(client, name="Bénouville")
    table.to("reph", "3.617")
    table.ok("director", {"type": "credit_cpp", "side": BRITISH, "amount": 20,
                          "reason": "3.6161"})
    table.ok(BRITISH, {"type": "purchase_rg", "side": BRITISH, "rg": "I2"})  # line 1
    campaign = table.campaign
    log_in(client, table.tokens[BRITISH])
    retain(client, campaign, unit="6-5-8", count="4", area="A1", kind="squad", purchase="1")
    hid = retain(client, campaign, unit="3-4-8", area="A2", kind="HS", hip="yes")
    assert hid.status_code == 303, hid.text
    mine = card(get(client, f"/play/{campaign['id']}"))
    assert "1 6-5-8 squad 4 A1 #1" in mine and "3-4-8 HS, HIP, sealed 1 A2" in mine

    log_in(client, table.tokens[AXIS])
    page = get(client, f"/play/{campaign['id']}")
    seen = text_of(page)
    assert "Retained units of the British" not in seen and "3-4-8" not in seen
    assert "Retained units, 14PM 3.605, 3.613" in card(page)  # the Axis's own, empty
    assert "None recorded for 14PM yet." in card(page) and "Take off" not in card(page)
    guide = table.read(AXIS, "/guide").json()
    assert BRITISH not in guide["sides"]
    assert [(u["unit"], u["purchase"]) for u in table.read(AXIS, "/retained").json()] == [
        ("6-5-8", None)]
    observer = table.read("observer", "/guide").json()
    assert all(part["retained"] == [] for part in observer["sides"].values())
    log_in(client, table.tokens["observer"])
    assert 'class="retained"' not in get(client, f"/play/{campaign['id']}")
