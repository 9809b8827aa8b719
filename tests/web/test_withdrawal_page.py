"""PBr 3.607 from the director's page: a withdrawal the rules order (3.6074) and whether a
side has on-map Retained units (3.6212 *). After the 14N CG Scenario the British must
remove every unit left (3.60741) and the Axis its I4 and I5 (3.60742), Retaining off map
at most three leaders, nine squad-equivalents and one non-captured SW."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from infra.application import Refit
from tests.helpers import story
from tests.helpers.http import new_campaign
from tests.helpers.web import AXIS, BRITISH, text_of
from tests.web.test_director_tools import get, log_in
from tests.web.test_scenario_page import act, status

OVER = {"count.0": "3", "kind.0": "leader", "unit.0": "8-1, 9-1, 7-0",
        "count.1": "10", "kind.1": "squad", "unit.1": "4-6-7"}


@pytest.fixture
def campaign(client: TestClient) -> dict[str, Any]:
    """A PBr CG I played through 14AM and 14PM (server dice, the rolls each step needs)
    into the 14N CG Scenario."""
    campaign = new_campaign(client)
    refit: Refit = client.app.state.refit  # type: ignore[attr-defined]
    ident = UUID(campaign["id"])
    story.advance_to(refit, ident, None)  # the 14AM Initial Scenario
    for _ in ("14AM", "14PM"):
        story.to_reph_step(refit, ident, "3.621")
        for side, chit in ((AXIS, "attack"), (BRITISH, "idle")):  # an Axis Attack
            story.do(refit, ident, {"type": "select_initiative", "side": side, "chit": chit},
                     side)
        story.advance_to(refit, ident, None)
    assert status(client, campaign)["cg_date"] == "14N"
    return campaign


def at_3_607(client: TestClient, campaign: dict[str, Any]) -> str:
    """The director at 3.607 of the RePh after the 14N scenario; the page."""
    refit: Refit = client.app.state.refit  # type: ignore[attr-defined]
    story.to_reph_step(refit, UUID(campaign["id"]), "3.607")
    log_in(client, campaign["tokens"]["director"])
    return get(client, f"/play/{campaign['id']}")


def withdrawn(client: TestClient, campaign: dict[str, Any], side: str) -> list[Any]:
    """The side's withdrawals on the CG Roster's 14N line."""
    [row] = [r for r in status(client, campaign, "/roster") if r["cg_date"] == "14N"]
    found: list[Any] = row["sides"][side]["withdrawn"]
    return found


def test_the_director_records_a_withdrawal_within_3_60742s_limits_from_the_page(
        client: TestClient, campaign: dict[str, Any]) -> None:
    page = text_of(at_3_607(client, campaign))
    assert "Withdrawal of the Axis 3.607" in page and "Withdrawal of the British" in page
    fields = {"action": "withdraw", "side": AXIS, "rule": "3.60742",
              "retained_off_map": "yes", "note": "RGs I4 and I5"}
    over = act(client, campaign, fields | OVER)  # ten squads: one more than nine
    assert over.status_code == 422, over.text
    assert "3.60742" in text_of(over.text) and withdrawn(client, campaign, AXIS) == []
    kept = act(client, campaign, fields | OVER | {"count.1": "9", "count.2": "1",
                                                  "kind.2": "SW", "unit.2": "MMG"})
    assert kept.status_code == 303, kept.text
    [done] = withdrawn(client, campaign, AXIS)
    assert (done["rule"], done["retained_off_map"], [u["count"] for u in done["units"]]) == (
        "3.60742", True, [3, 9, 1])
    assert "Withdrawn under 3.60742: 3 leader (8-1, 9-1, 7-0); 9 squad (4-6-7); 1 SW (MMG)" \
        " · Retained off map · RGs I4 and I5." in text_of(get(client, f"/play/{campaign['id']}"))


def test_the_british_withdraw_under_3_60741_keeping_nothing(
        client: TestClient, campaign: dict[str, Any]) -> None:
    at_3_607(client, campaign)
    mine = act(client, campaign, {"action": "withdraw", "side": BRITISH, "rule": "3.60742",
                                  "count.0": "2", "kind.0": "squad"})
    assert mine.status_code == 422 and "the British withdraws under 3.60741, not " \
        "&#39;3.60742&#39;" in text_of(mine.text)  # a rule is the module's, not free text
    assert "(field: Under the rule)" in text_of(mine.text)
    gone = act(client, campaign, {"action": "withdraw", "side": BRITISH, "rule": "3.60741",
                                  "count.0": "4", "kind.0": "squad", "unit.0": "5-4-8"})
    assert gone.status_code == 303, gone.text
    [done] = withdrawn(client, campaign, BRITISH)
    assert (done["rule"], done["retained_off_map"]) == ("3.60741", False)
    said = "Withdrawn on 14N under 3.60741: 4 squad (5-4-8)."  # public: they leave in view
    for token in (campaign["tokens"]["sides"][BRITISH], campaign["tokens"]["sides"][AXIS],
                  campaign["tokens"]["observer"]):
        log_in(client, token)
        assert said in text_of(get(client, f"/play/{campaign['id']}")), token


def test_a_side_with_no_units_left_on_the_map_is_recorded_and_the_axis_may_not_attack(
        client: TestClient, campaign: dict[str, Any]) -> None:
    at_3_607(client, campaign)
    gone = act(client, campaign, {"action": "on_map", "side": BRITISH, "on_map": "no"})
    assert gone.status_code == 303, gone.text
    assert status(client, campaign)["off_map"] == [BRITISH]
    assert "The British have no on-map Retained units on record 3.6212" in text_of(
        get(client, f"/play/{campaign['id']}"))
    log_in(client, campaign["tokens"]["sides"][AXIS])  # nor a side's to send
    assert act(client, campaign, {"action": "on_map", "side": AXIS, "on_map": "no"}
               ).status_code == 403
    page = get(client, f"/play/{campaign['id']}")
    assert 'value="withdraw"' not in page and 'value="on_map"' not in page


def test_no_withdrawal_form_where_no_rule_orders_one(client: TestClient) -> None:
    campaign = new_campaign(client)  # 3.60741: after 14PM or 14N, not after 14AM
    refit: Refit = client.app.state.refit  # type: ignore[attr-defined]
    story.to_reph_step(refit, UUID(campaign["id"]), "3.607")
    log_in(client, campaign["tokens"]["director"])
    assert 'value="withdraw"' not in get(client, f"/play/{campaign['id']}")
    early = act(client, campaign, {"action": "withdraw", "side": BRITISH, "rule": "3.60741",
                                   "count.0": "1", "kind.0": "squad"})
    assert early.status_code == 422 and "3.60741 orders the British withdrawal in the RePh " \
        "after the 14PM or 14N CG Scenario, not now (14AM)" in text_of(early.text)
