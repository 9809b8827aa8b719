"""The play test's DRM cheats, tried again on PBr: each is refused with its rule and appends
nothing, and the DRM the record decides come out without being asked for."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from pydantic import ValidationError

from domain.errors import InvalidCommand, RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import (
    advance_to,
    do,
    load_abtf_owner_data,
    rg_subject,
    to_reph_step,
)

AXIS, BRITISH = "Axis", "British"


def roll(refit: Refit, campaign: UUID, table: str, side: str, dice: list[int],
         purchase: int | None = None, *claims: dict[str, Any]) -> dict[str, Any]:
    """One roll with physical dice; its recorded data."""
    body = {"type": "roll", "table": table, "side": side, "dice": dice, "drm": list(claims)}
    if purchase is not None:
        body["subject"] = rg_subject(refit, campaign, table, purchase)
    data: dict[str, Any] = do(refit, campaign, body).events[0]["data"]
    return data


def drm_of(data: dict[str, Any]) -> dict[str, int]:
    """A roll's DRM, by id."""
    return {item["id"]: item["value"] for item in data["drm"]}


@pytest.fixture
def bought(refit: Refit) -> UUID:
    """PBr CG I at 14AM's 3.618: the Axis bought a Signal Coy (line 1), an Italian Infantry
    Coy (2) and an AA Section (3); the British an Airborne Pltn (4)."""
    campaign = refit.commands.create_campaign("pbr", "I", "Ranville", "entered").id
    for side, amount in ((AXIS, 60), (BRITISH, 20)):
        do(refit, campaign, {"type": "credit_cpp", "side": side, "amount": amount,
                             "reason": "Initial Scenario CPP"})
    for side, rg in ((AXIS, "I4"), (AXIS, "I7"), (AXIS, "G4"), (BRITISH, "I2")):
        do(refit, campaign, {"type": "purchase_rg", "side": side, "rg": rg})
    advance_to(refit, campaign, "3.618", rolls=False)
    return campaign


def test_the_3_6181_gv_drm_claimed_for_an_i_rg_is_refused(refit: Refit, bought: UUID) -> None:
    error = refused(refit, bought, {"type": "roll", "table": "3.6181", "side": AXIS,
                                    "dice": [4, 4], "subject": "rg:1",
                                    "drm": [{"id": "3.6181-gv"}]})
    assert isinstance(error, InvalidCommand) and error.rule == "3.6181"
    assert "the ledger derives it" in error.message
    assert drm_of(roll(refit, bought, "3.6181", AXIS, [4, 4], 1)) == {}


def test_the_3_6181_gv_drm_is_derived_for_a_g_rg(refit: Refit, bought: UUID) -> None:
    aa = roll(refit, bought, "3.6181", AXIS, [5, 5], 3)
    assert drm_of(aa) == {"3.6181-gv": -1}
    assert (aa["final"], aa["result"]) == (9, "Full Strength")


def test_a_british_airborne_rg_gets_its_plus_one_on_3_6181(refit: Refit, bought: UUID) -> None:
    airborne = roll(refit, bought, "3.6181", BRITISH, [4, 5], 4)
    assert drm_of(airborne) == {"3.6181-british-airborne": 1}
    assert airborne["result"] == "Depleted"


def test_italian_plus_2_and_depleted_plus_1_are_derived_without_being_asked(
        refit: Refit, bought: UUID) -> None:
    assert roll(refit, bought, "3.6181", AXIS, [6, 6], 2)["result"] == "Depleted"
    leader = roll(refit, bought, "3.6183-personnel", AXIS, [3, 3], 2)
    assert drm_of(leader) == {"3.6183-depleted": 1, "3.6183-italian": 2}
    assert (leader["final"], leader["result"]) == (9, "8-0")


def test_the_signal_coy_minus_4_is_derived_on_its_first_leader_roll_only(
        refit: Refit, bought: UUID) -> None:
    roll(refit, bought, "3.6181", AXIS, [1, 1], 1)  # Full
    first, second = (roll(refit, bought, "3.6183-personnel", AXIS, [4, 4], 1) for _ in "12")
    assert drm_of(first) == {"3.6183-signal": -4, "3.6183-airborne": -1}
    assert drm_of(second) == {"3.6183-airborne": -1}


def test_the_signal_coy_minus_4_on_another_rg_is_refused(refit: Refit, bought: UUID) -> None:
    roll(refit, bought, "3.6181", AXIS, [1, 1], 2)
    error = refused(refit, bought, {"type": "roll", "table": "3.6183-personnel", "side": AXIS,
                                    "dice": [4, 4], "subject": "rg:2/leader:1",
                                    "drm": [{"id": "3.6183-signal"}]})
    assert isinstance(error, InvalidCommand) and error.rule == "3.6183"
    assert "3.6183-signal" not in drm_of(roll(refit, bought, "3.6183-personnel", AXIS,
                                              [4, 4], 2))


@pytest.fixture
def after_scenario(refit: Refit) -> UUID:
    """PBr CG I after its Initial Scenario, at 3.606 Escape."""
    campaign = refit.commands.create_campaign("pbr", "I", "Ranville", "entered").id
    to_reph_step(refit, campaign, "3.606")
    return campaign


def test_minus_6_my_lucky_charm_is_refused(refit: Refit, after_scenario: UUID) -> None:
    as_before = refused(refit, after_scenario, {
        "type": "roll", "table": "3.606-personnel", "side": AXIS, "dice": [3, 3],
        "drm": [{"value": -6, "reason": "my lucky charm"}]})
    assert isinstance(as_before, ValidationError)  # a DRM is claimed by id only
    by_name = refused(refit, after_scenario, {
        "type": "roll", "table": "3.606-personnel", "side": AXIS, "dice": [3, 3],
        "drm": [{"id": "-6 my lucky charm"}]})
    assert isinstance(by_name, InvalidCommand) and by_name.rule == "3.606"
    assert "lists no DRM '-6 my lucky charm'" in by_name.message


def test_both_3_606_setup_area_drm_are_refused_together(refit: Refit,
                                                         after_scenario: UUID) -> None:
    error = refused(refit, after_scenario, {
        "type": "roll", "table": "3.606-personnel", "side": BRITISH, "dice": [3, 3],
        "drm": [{"id": "3.606-p-adjacent"}, {"id": "3.606-p-two-hexes"}]})
    assert isinstance(error, RuleViolation) and error.rule == "3.606"
    assert error.field == "drm[1]"
    assert error.message == "DRM 3.606-p-two-hexes (two hexes away from a friendly Setup " \
        "Area): is not combined with DRM 3.606-p-adjacent (adjacent to a friendly Setup " \
        "Area), claimed with it"
    escaped = roll(refit, after_scenario, "3.606-personnel", BRITISH, [3, 3], None,
                   {"id": "3.606-p-adjacent"}, {"id": "3.606-p-hs", "count": 3})
    assert drm_of(escaped) == {"3.606-p-adjacent": -2, "3.606-p-hs": 2}


def test_the_3_610_british_airborne_drm_on_an_axis_roll_is_refused(
        refit: Refit, after_scenario: UUID) -> None:
    advance_to(refit, after_scenario, "3.610")
    error = refused(refit, after_scenario, {
        "type": "roll", "table": "3.610", "side": AXIS, "dice": [3],
        "drm": [{"id": "3.610-british-airborne"}]})
    assert isinstance(error, RuleViolation) and error.rule == "3.610"
    assert "for the British only" in error.message
    british = roll(refit, after_scenario, "3.610", BRITISH, [3], None,
                   {"id": "3.610-british-airborne"})
    assert drm_of(british) == {"3.610-british-airborne": -1}


def test_a_shift_counts_its_hexes_and_the_ledger_computes_the_drm(
        refit: Refit, after_scenario: UUID) -> None:
    advance_to(refit, after_scenario, "3.613")
    shift = roll(refit, after_scenario, "3.613", AXIS, [3, 3], None,
                 {"id": "3.613-hexes", "count": 12})
    assert [(d["id"], d["value"], d["count"]) for d in shift["drm"]] == [("3.613-hexes", 2, 12)]


def test_abtf_9_6181_vg_plus_one_is_derived_for_a_vg_rg_only(refit: Refit) -> None:
    load_abtf_owner_data(refit)
    campaign = refit.commands.create_campaign("abtf", "I", "Arnhem", "entered").id
    to_reph_step(refit, campaign, "9.617")
    do(refit, campaign, {"type": "credit_cpp", "side": "German", "amount": 20, "reason": "CPP"})
    for rg, kg in (("I3", "K"), ("I1", "B")):  # the fixture's VG Pltn, then another
        do(refit, campaign, {"type": "purchase_rg", "side": "German", "rg": rg, "kg": kg})
    advance_to(refit, campaign, "9.618", rolls=False)
    vg = len(refit.store.campaign(campaign).purchases.lines) - 1  # the last two lines
    other = vg + 1
    assert "9.6181-vg" in drm_of(roll(refit, campaign, "9.6181", "German", [3, 3], vg))
    assert "9.6181-vg" not in drm_of(roll(refit, campaign, "9.6181", "German", [3, 3], other))


def test_3_6061_equipment_is_rolled_only_for_a_unit_its_escape_attempt_eliminated(
        refit: Refit, after_scenario: UUID) -> None:
    escaped = roll_for(refit, after_scenario, "3.606-personnel", "unit:Sqd1", [3, 3])
    assert escaped["result"] == "Escapes(1)"
    lost = roll_for(refit, after_scenario, "3.606-personnel", "unit:Sqd2", [6, 6])
    assert lost["result"] == "All units and Equipment Eliminated"
    error = refused(refit, after_scenario, {"type": "roll", "table": "3.6061",
                                            "side": BRITISH, "dice": [5],
                                            "subject": "unit:Sqd1"})
    assert isinstance(error, RuleViolation) and error.rule == "3.6061"
    assert "by the British for unit:Sqd1" in error.message
    # each table it follows by its title and rule, as the page lists it, not by its id
    assert "only after a roll on the Escape Table (Infantry column) (3.606) gave " \
           "'All units and Equipment Eliminated'" in error.message
    assert "3.606-personnel" not in error.message
    assert roll_for(refit, after_scenario, "3.6061", "unit:Sqd2", [5])["result"] == \
        "Equipment Eliminated"


def roll_for(refit: Refit, campaign: UUID, table: str, subject: str,
             dice: list[int]) -> dict[str, Any]:
    """A British roll with physical dice for a unit; its recorded data."""
    body = {"type": "roll", "table": table, "side": BRITISH, "dice": dice,
            "subject": subject}
    data: dict[str, Any] = do(refit, campaign, body).events[0]["data"]
    return data


def test_the_guide_offers_3_6061_for_each_unit_its_escape_attempt_eliminated_by_name(
        refit: Refit, after_scenario: UUID) -> None:
    def offered() -> list[str]:
        optional = refit.reads.guide(after_scenario, viewer=BRITISH)["sides"][BRITISH][
            "optional"]
        return [work["subject"] for work in optional if work.get("table") == "3.6061"]

    assert offered() == []  # no Escape attempt has eliminated a unit yet
    roll_for(refit, after_scenario, "3.606-personnel", "unit:Sqd1", [3, 3])  # escapes
    roll_for(refit, after_scenario, "3.606-personnel", "unit:Sqd2", [6, 6])  # eliminated
    assert offered() == ["unit:Sqd2"]  # named: not a unit the side must type again
    roll_for(refit, after_scenario, "3.6061", "unit:Sqd2", [5])
    assert offered() == []
