"""PBr RePh procedure beyond the charts: the 14PM forgo of CG III (3.616 EXC), the Axis
Attack chit (3.6212 *), unit withdrawal (3.6074), per-side dates and limits."""

from __future__ import annotations

from uuid import UUID

from domain.errors import RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import advance_to, do, to_reph_step

AXIS, BRITISH = "Axis", "British"


def at(refit: Refit, cg: str, step: str) -> UUID:
    """A PBr campaign of a CG at a step of the RePh after 14AM (dice typed in)."""
    campaign = refit.commands.create_campaign("pbr", cg, "Bénouville", "entered").id
    to_reph_step(refit, campaign, step)
    return campaign


def test_cg_iii_british_forgo_14pm_cpp_and_the_axis_base_loses_as_many(refit: Refit) -> None:
    campaign = at(refit, "III", "3.616")  # 14PM: Base # Axis 29, British 12
    do(refit, campaign, {"type": "forgo_cpp", "side": BRITISH, "amount": 5})
    too_many = refused(refit, campaign, {"type": "forgo_cpp", "side": BRITISH, "amount": 8})
    assert isinstance(too_many, RuleViolation) and "5 already forgone" in too_many.message
    advance_to(refit, campaign, "3.617")
    assert refit.store.campaign(campaign).points.cpp == {AXIS: 29 - 5, BRITISH: 12 - 5}
    line = refit.reads.roster(campaign, viewer=AXIS)[1]  # open: the Axis Base # loses them
    assert (line.cg_date, line.sides[BRITISH].cpp_forgone) == ("14PM", 5)


def test_only_the_british_of_cg_iii_forgo_and_only_on_14pm(refit: Refit) -> None:
    campaign = at(refit, "I", "3.616")
    error = refused(refit, campaign, {"type": "forgo_cpp", "side": BRITISH, "amount": 1})
    assert isinstance(error, RuleViolation) and error.rule == "3.616"
    assert "British on 14PM of CG III" in error.message


def test_no_axis_attack_chit_while_the_british_have_no_units_on_map(refit: Refit) -> None:
    campaign = at(refit, "I", "3.621")
    do(refit, campaign, {"type": "record_on_map", "side": BRITISH, "on_map": False})
    error = refused(refit, campaign, {"type": "select_initiative", "side": AXIS,
                                      "chit": "attack"})
    assert isinstance(error, RuleViolation) and error.rule == "3.6212"
    do(refit, campaign, {"type": "select_initiative", "side": BRITISH, "chit": "attack"})
    do(refit, campaign, {"type": "record_on_map", "side": BRITISH, "on_map": True})
    do(refit, campaign, {"type": "select_initiative", "side": AXIS, "chit": "attack"})


def test_3_6074_withdrawals_are_recorded_in_3_607_on_the_roster(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Bénouville", "entered",
                                              start_date="14PM").id  # 3.60741: after 14PM
    to_reph_step(refit, campaign, "3.606")
    paras = [{"kind": "squad", "count": 6}]
    early = refused(refit, campaign, {"type": "withdraw_units", "side": AXIS,
                                      "units": paras, "rule": "3.60742"})
    assert isinstance(early, RuleViolation) and "3.607" in early.message
    advance_to(refit, campaign, "3.607")
    do(refit, campaign, {"type": "withdraw_units", "side": BRITISH,
                         "units": [{"kind": "squad", "count": 12}], "rule": "3.60741"})
    do(refit, campaign, {"type": "withdraw_units", "side": AXIS, "units": paras,
                         "rule": "3.60742", "retained_off_map": True})
    cells = refit.reads.roster(campaign)[0].sides
    assert cells[AXIS].withdrawn == [{"units": [{"kind": "squad", "count": 6,
                                                 "captured": False, "unit": None}],
                                      "rule": "3.60742", "retained_off_map": True}]
    assert cells[BRITISH].withdrawn[0]["rule"] == "3.60741"


def test_3_61424_the_british_restore_special_ammo_only_from_15am(refit: Refit) -> None:
    campaign = at(refit, "I", "3.614")  # 14PM
    error = refused(refit, campaign, {"type": "roll", "table": "3.61424", "side": BRITISH,
                                      "dice": [2]})
    assert isinstance(error, RuleViolation) and "from 15AM on" in error.message
    do(refit, campaign, {"type": "roll", "table": "3.61424", "side": AXIS, "dice": [2]})


def test_3_619_note_f_the_axis_buys_no_more_than_5_roadblocks(refit: Refit) -> None:
    campaign = at(refit, "I", "3.619")
    for side in (AXIS, BRITISH):
        do(refit, campaign, {"type": "credit_fpp", "side": side, "amount": 60,
                             "reason": "M3 Fortification RG"})
        do(refit, campaign, {"type": "purchase_fortification", "side": side, "count": 5,
                             "reason": "Roadblock", "amount": 50})
    error = refused(refit, campaign, {"type": "purchase_fortification", "side": AXIS,
                                      "reason": "Roadblock", "amount": 10})
    assert isinstance(error, RuleViolation) and "at most 5 Roadblock per CG" in error.message
    do(refit, campaign, {"type": "purchase_fortification", "side": BRITISH,
                         "reason": "Roadblock", "amount": 10})


def test_3_6182_is_named_as_the_rule_names_it_for_full_british_i2_and_i4_roll_it_too(
        refit: Refit) -> None:
    table = refit.store.module("pbr").table("3.6182")
    assert table.title == "Support Weapon Allotment"  # not '(Depleted RG)': see its EXC
    assert any("Full Strength British I2 and I4" in note for note in table.notes)
