"""PBr 3.61426: in 3.614, on a Night CG Date, the mobile Isolated British tanks attempt
Escape (the Escape Table's Mobile Vehicle column); on a day CG Date, and for the Axis,
3.614 offers no Escape, and the ledger refuses one, naming 3.61426."""

from __future__ import annotations

from uuid import UUID

from domain.errors import RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import advance_to, do

AXIS, BRITISH = "Axis", "British"
ESCAPE = "3.606-vehicle"
ROLL = {"type": "roll", "table": ESCAPE, "subject": "unit:Cromwell.1", "dice": [3, 4]}


def at_3_614_after(refit: Refit, scenarios: int) -> UUID:
    """PBr CG I at 3.614 of the RePh after the `scenarios`-th CG Scenario."""
    campaign = refit.commands.create_campaign("pbr", "I", "Night", "entered").id
    for side in (AXIS, BRITISH):
        do(refit, campaign, {"type": "change_san", "side": side, "value": 2, "cause": "OB"})
    for played in range(scenarios):
        if played:  # the Axis attacks: a CG Scenario on the next CG Date (3.6213)
            advance_to(refit, campaign, "3.621")
            for side, chit in ((AXIS, "attack"), (BRITISH, "idle")):
                do(refit, campaign, {"type": "select_initiative", "side": side,
                                     "chit": chit})
        advance_to(refit, campaign, None)
        do(refit, campaign, {"type": "end_scenario"})
        advance_to(refit, campaign, "3.614")
    return campaign


def offered(refit: Refit, campaign: UUID, side: str) -> list[str]:
    """The tables the guide offers the side now."""
    part = refit.reads.guide(campaign, viewer=side)["sides"][side]
    return [work.get("table") for work in part["optional"] + part["due"]]


def test_by_day_3_614_offers_no_escape_and_refuses_one_naming_3_61426(refit: Refit) -> None:
    campaign = at_3_614_after(refit, 1)
    assert refit.store.campaign(campaign).reph.cg_date == "14PM"
    assert ESCAPE not in offered(refit, campaign, BRITISH)
    assert ESCAPE not in offered(refit, campaign, AXIS)
    error = refused(refit, campaign, ROLL | {"side": BRITISH})
    assert isinstance(error, RuleViolation) and error.rule == "3.61426"
    assert "on a Night CG Date only, not on 14PM" in error.message


def test_on_a_night_cg_date_the_british_tanks_attempt_escape_in_3_614(refit: Refit) -> None:
    campaign = at_3_614_after(refit, 2)
    assert refit.store.campaign(campaign).reph.cg_date == "14N"
    assert ESCAPE in offered(refit, campaign, BRITISH)
    assert ESCAPE not in offered(refit, campaign, AXIS)
    error = refused(refit, campaign, ROLL | {"side": AXIS})
    assert isinstance(error, RuleViolation) and error.rule == "3.61426"
    rolled = do(refit, campaign, ROLL | {"side": BRITISH}).events
    assert rolled[0]["type"] == "DiceRolled" and rolled[0]["data"]["table"] == ESCAPE


def test_a_missed_escape_the_director_authorizes_is_rolled_in_3_614_by_day(
        refit: Refit) -> None:
    # The ruling's roll belongs to 3.606, where it was missed: 3.614's `only` is not its.
    campaign = at_3_614_after(refit, 1)
    refit.audit.record_ruling(campaign, None, "corrected", "missed at 3.606", "director",
                              corrections=[{"kind": "missed_roll", "table": ESCAPE,
                                            "side": AXIS, "subject": "unit:PzIV.2",
                                            "reason": "missed"}])
    rolled = do(refit, campaign, ROLL | {"side": AXIS, "subject": "unit:PzIV.2"}).events
    assert rolled[0]["data"]["table"] == ESCAPE and rolled[0]["data"]["step"] == "3.606"
