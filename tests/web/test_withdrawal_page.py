"""PBr 3.607 from the director's page: a withdrawal the rules order (3.6074) and whether a
side has on-map Retained units (3.6212 *). After the 14N CG Scenario the British must
remove every unit left (3.60741) and the Axis its I4 and I5 (3.60742), Retaining off map
at most three leaders, nine squad-equivalents and one non-captured SW."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers.http import new_campaign, send
from tests.helpers.web import AXIS, BRITISH, text_of
from tests.web.test_director_tools import get, log_in
from tests.web.test_scenario_page import act, status, to_reph_step

OVER = {"count.0": "3", "kind.0": "leader", "unit.0": "8-1, 9-1, 7-0",
        "count.1": "10", "kind.1": "squad", "unit.1": "4-6-7"}


@pytest.fixture
def campaign(client: TestClient) -> dict[str, Any]:
    """A PBr CG I whose Initial Scenario is in play."""
    campaign = new_campaign(client)
    while status(client, campaign)["phase"] != "scenario":
        send(client, campaign, campaign["tokens"]["director"], {"type": "advance"})
    return campaign


def at_3_607(client: TestClient, campaign: dict[str, Any]) -> str:
    """The director at 3.607 of the RePh after the 14AM scenario; the page."""
    to_reph_step(client, campaign, "3.607", "14AM")
    log_in(client, campaign["tokens"]["director"])
    return get(client, f"/play/{campaign['id']}")


def test_the_director_records_a_withdrawal_within_3_60742s_limits_from_the_page(
        client: TestClient, campaign: dict[str, Any]) -> None:
    page = text_of(at_3_607(client, campaign))
    assert "Withdrawal of the Axis 3.607" in page and "Withdrawal of the British" in page
    fields = {"action": "withdraw", "side": AXIS, "rule": "3.60742",
              "retained_off_map": "yes", "note": "RGs I4 and I5"}
    over = act(client, campaign, fields | OVER)  # ten squads: one more than nine
    assert over.status_code == 422, over.text
    assert "3.60742" in text_of(over.text) and status(client, campaign, "/roster")[0][
        "sides"][AXIS]["withdrawn"] == []
    kept = act(client, campaign, fields | OVER | {"count.1": "9", "count.2": "1",
                                                  "kind.2": "SW", "unit.2": "MMG"})
    assert kept.status_code == 303, kept.text
    [done] = status(client, campaign, "/roster")[0]["sides"][AXIS]["withdrawn"]
    assert (done["rule"], done["retained_off_map"], [u["count"] for u in done["units"]]) == (
        "3.60742", True, [3, 9, 1])
    assert "Withdrawn under 3.60742: 3 leader (8-1, 9-1, 7-0); 9 squad (4-6-7); 1 SW (MMG)" \
        " · Retained off map · RGs I4 and I5." in text_of(get(client, f"/play/{campaign['id']}"))


def test_a_side_with_no_units_left_on_the_map_is_recorded_and_the_axis_may_not_attack(
        client: TestClient, campaign: dict[str, Any]) -> None:
    at_3_607(client, campaign)
    kept = act(client, campaign, {"action": "withdraw", "side": BRITISH, "rule": "3.607",
                                  "retained_off_map": "yes", "count.0": "2", "kind.0": "squad"})
    assert kept.status_code == 422 and "the British Retains withdrawn units off map under " \
        "no rule of the module" in text_of(kept.text)  # 3.60741: "not retained"
    assert "(field: Under the rule)" in text_of(kept.text)
    gone = act(client, campaign, {"action": "on_map", "side": BRITISH, "on_map": "no"})
    assert gone.status_code == 303, gone.text
    assert status(client, campaign)["off_map"] == [BRITISH]
    assert "The British has no on-map Retained units on record 3.6212" in text_of(
        get(client, f"/play/{campaign['id']}"))
    log_in(client, campaign["tokens"]["sides"][AXIS])  # nor a side's to send
    assert act(client, campaign, {"action": "on_map", "side": AXIS, "on_map": "no"}
               ).status_code == 403
    page = get(client, f"/play/{campaign['id']}")
    assert 'value="withdraw"' not in page and 'value="on_map"' not in page


def test_the_withdrawal_form_is_the_directors_in_3_607_only(
        client: TestClient, campaign: dict[str, Any]) -> None:
    to_reph_step(client, campaign, "3.606", "14AM")
    log_in(client, campaign["tokens"]["director"])
    assert 'value="withdraw"' not in get(client, f"/play/{campaign['id']}")
    director = campaign["tokens"]["director"]
    assert send(client, campaign, director, {"type": "advance"}).status_code == 200
    assert 'value="withdraw"' in get(client, f"/play/{campaign['id']}")
