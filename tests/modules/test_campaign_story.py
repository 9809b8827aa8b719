"""A PBr CG I told as a story, its forms checked against values worked out by hand."""

from __future__ import annotations

from uuid import UUID

import pytest

from domain.errors import InvalidCommand, RuleViolation
from infra.application import Refit
from infra.settings import Settings
from tests.helpers.story import abtf_campaign, advance, advance_to, do, load_fixture_chart


def play_initial_scenario_and_first_reph(refit: Refit) -> UUID:
    """Initial Scenario on 14AM, then the RePh into 14PM with purchases and casualties."""
    load_fixture_chart(refit)
    campaign = refit.commands.create_campaign("pbr", "I", "Story", "server").id
    # Before the Initial Scenario only the "!" steps run (3.617-3.623).
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 39,
                         "reason": "CPP Base # 14AM", "rule": "3.6161"})
    do(refit, campaign, {"type": "credit_cpp", "side": "British", "amount": 17,
                         "reason": "CPP Base # 14AM", "rule": "3.6161"})
    do(refit, campaign, {"type": "purchase_rg", "side": "Axis", "rg": "X1"})
    do(refit, campaign, {"type": "determine_rg", "side": "Axis", "purchase": 1,
                         "strength": "F", "sw": ["LMG"], "leader": "8-1"})
    for side, value in (("Axis", 3), ("British", 5)):
        do(refit, campaign, {"type": "change_elr", "side": side, "value": value,
                             "cause": "Initial Scenario OB"})
    do(refit, campaign, {"type": "record_scenario", "scenario_type": "Initial Scenario",
                         "weather": "Clear"})
    advance_to(refit, campaign, None)
    for side, unit, cvp in (("British", "6-4-8", 2), ("British", "2-3-8", 1),
                            ("Axis", "4-6-8", 3)):
        do(refit, campaign, {"type": "record_casualty", "side": side, "unit": unit, "cvp": cvp})
    do(refit, campaign, {"type": "end_scenario"})
    advance_to(refit, campaign, "3.612")
    do(refit, campaign, {"type": "change_elr", "side": "British", "value": 4,
                         "cause": "ELR loss after 14AM", "rule": "3.615"})
    advance_to(refit, campaign, "3.617")  # leaving 3.616 credits each CPP Base # (3.6161)
    do(refit, campaign, {"type": "purchase_rg", "side": "Axis", "rg": "X1"})
    do(refit, campaign, {"type": "purchase_rg", "side": "British", "rg": "Y1"})
    return campaign


def test_the_cg_roster_matches_the_paper_form(refit: Refit) -> None:
    campaign = play_initial_scenario_and_first_reph(refit)
    roster = refit.reads.roster(campaign)
    assert [row.cg_date for row in roster] == ["14AM", "14PM"]
    am, pm = roster
    axis_am, british_am = am.sides["Axis"], am.sides["British"]
    # 14AM: Axis 0 + 39 - 8 (X1) = 31; British 0 + 17 = 17.
    assert (axis_am.cpp_start, axis_am.cpp_credited, axis_am.cpp_spent, axis_am.cpp_left) == (
        0, 39, 8, 31)
    assert (british_am.cpp_start, british_am.cpp_credited, british_am.cpp_left) == (0, 17, 17)
    assert axis_am.rg_purchased == [{"rg": "X1", "kg": None, "cpp": 8}]
    assert am.scenario_type == "Initial Scenario" and am.weather == "Clear"
    assert am.scenario_played is True
    # 14PM starts with what 14AM left: Axis 31 + 29 - 8 = 52; British 17 + 12 - 6 = 23.
    axis_pm, british_pm = pm.sides["Axis"], pm.sides["British"]
    assert (axis_pm.cpp_start, axis_pm.cpp_credited, axis_pm.cpp_spent, axis_pm.cpp_left) == (
        31, 29, 8, 52)
    assert (british_pm.cpp_start, british_pm.cpp_spent, british_pm.cpp_left) == (17, 6, 23)
    assert (axis_pm.elr, british_pm.elr) == (3, 4)


def test_the_rg_purchase_record_counts_purchased_and_remaining(refit: Refit) -> None:
    campaign = play_initial_scenario_and_first_reph(refit)
    record = refit.reads.purchase_record(campaign)
    assert [(r.purchase, r.side, r.cg_date, r.rg, r.p, r.r) for r in record] == [
        (1, "Axis", "14AM", "X1", 1, 1),
        (2, "Axis", "14PM", "X1", 2, 0),
        (3, "British", "14PM", "Y1", 1, 2),
    ]
    assert (record[0].strength, record[0].sw, record[0].leader) == ("F", ["LMG"], "8-1")


def test_cvp_count_per_scenario_and_side(refit: Refit) -> None:
    campaign = play_initial_scenario_and_first_reph(refit)
    answer = refit.reads.cvp(campaign)
    assert answer.totals == {"Axis": 3, "British": 3}
    assert [(r.scenario, r.side, r.cvp) for r in answer.scenarios] == [
        ("14AM", "British", 3), ("14AM", "Axis", 3)]


def test_elr_history_names_each_cause(refit: Refit) -> None:
    campaign = play_initial_scenario_and_first_reph(refit)
    answer = refit.reads.elr(campaign)
    assert answer.current == {"Axis": 3, "British": 4}
    assert [(c.side, c.before, c.after, c.cause) for c in answer.changes] == [
        ("Axis", None, 3, "Initial Scenario OB"),
        ("British", None, 5, "Initial Scenario OB"),
        ("British", 5, 4, "ELR loss after 14AM"),
    ]


def test_the_cg_max_refuses_a_third_x1_naming_the_rule(refit: Refit) -> None:
    campaign = play_initial_scenario_and_first_reph(refit)
    version = refit.store.campaign(campaign).version
    advance_to(refit, campaign, "3.621")
    for side in ("Axis", "British"):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "attack"})
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})
    advance_to(refit, campaign, "3.617")  # 14N: the CPP left on 14PM were lost (3.617)
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 42,
                         "reason": "CPP Base # 14N", "rule": "3.6161"})
    moved = refit.store.campaign(campaign).version
    with pytest.raises(RuleViolation) as refused:
        do(refit, campaign, {"type": "purchase_rg", "side": "Axis", "rg": "X1"})
    assert refused.value.rule == "3.617" and "CG max 2" in refused.value.message
    assert refit.store.campaign(campaign).version == moved > version


def test_the_cg_date_max_refuses_a_second_x1_on_one_date(refit: Refit) -> None:
    campaign = play_initial_scenario_and_first_reph(refit)
    with pytest.raises(RuleViolation) as refused:
        do(refit, campaign, {"type": "purchase_rg", "side": "Axis", "rg": "X1"})
    assert "CG Date max 1" in refused.value.message


def test_a_purchase_beyond_the_cpp_held_is_refused(refit: Refit) -> None:
    load_fixture_chart(refit)
    campaign = refit.commands.create_campaign("pbr", "I", "Poor", "server").id
    with pytest.raises(RuleViolation) as refused:
        do(refit, campaign, {"type": "purchase_rg", "side": "British", "rg": "Y1"})
    assert refused.value.message == "Y1 costs 6 CPP; the British side has 0"


def test_the_live_view_equals_the_fold_at_the_head_after_a_restart(
        refit: Refit, settings: Settings) -> None:
    campaign = play_initial_scenario_and_first_reph(refit)
    before = refit.reads.roster(campaign)
    do(refit, campaign, {"type": "credit_fpp", "side": "Axis", "amount": 4, "reason": "RG"})
    refit.close()
    restarted = Refit(settings)
    try:
        head = restarted.store.campaign(campaign).version
        live = restarted.reads.roster(campaign)
        assert live == restarted.reads.roster(campaign, as_of=head)
        assert live[1].sides["Axis"].fpp == 4
        assert live[0] == before[0]
        restarted.views.catch_up()  # reads fold in memory: the view is folded here
        assert restarted.views.catch_up() == 0
        assert restarted.reads.roster(campaign) == live
    finally:
        restarted.close()


def test_as_of_reads_show_the_campaign_as_it_stood(refit: Refit) -> None:
    campaign = play_initial_scenario_and_first_reph(refit)
    history = list(refit.store.records(campaign))
    date_started = next(r["version"] for r in history if r["type"] == "CGDateStarted")
    assert [row.cg_date for row in refit.reads.roster(campaign, as_of=date_started - 1)] == ["14AM"]
    assert refit.reads.status(campaign, as_of=date_started).cg_date == "14PM"
    assert refit.reads.status(campaign, as_of=1).sides["Axis"]["cpp"] == 0


def test_new_cg_date_starts_at_the_new_cg_date_step(refit: Refit) -> None:
    campaign = play_initial_scenario_and_first_reph(refit)
    state = refit.store.campaign(campaign)
    assert (state.reph.cg_date, state.reph.phase, state.reph.step) == ("14PM", "reph", "3.617")


def test_the_cg_ends_after_the_last_cg_date_and_reveals_the_seed(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Short", "server", start_date="17PM").id
    advance_to(refit, campaign, None)
    result = do(refit, campaign, {"type": "end_scenario"})
    assert [e["type"] for e in result.events] == ["ScenarioEnded", "CGEnded", "SeedRevealed"]
    status = refit.reads.status(campaign)
    assert status.phase == "ended" and status.seed is not None
    assert refit.reads.verify(campaign).ok
    with pytest.raises(RuleViolation):
        advance(refit, campaign)


def test_advancing_during_a_scenario_is_refused(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Arnhem")
    advance_to(refit, campaign, None)
    with pytest.raises(RuleViolation) as refused:
        advance(refit, campaign)
    assert "17N CG Scenario is in play" in refused.value.message


def test_an_ob_given_rg_is_on_the_record_but_never_counts_toward_the_maximums(
        refit: Refit) -> None:
    load_fixture_chart(refit)
    campaign = refit.commands.create_campaign("pbr", "I", "OB", "server").id
    do(refit, campaign, {"type": "receive_rg", "side": "Axis", "rg": "X1",
                         "reason": "Initial Scenario OB"})
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 20, "reason": "Base"})
    do(refit, campaign, {"type": "purchase_rg", "side": "Axis", "rg": "X1"})
    given, bought = refit.reads.purchase_record(campaign)
    assert (given.rg, given.group_type, given.given, given.p, given.cpp) == (
        "X1", "Fictitious Test Pltn", "Initial Scenario OB", None, None)
    assert (bought.p, bought.r) == (1, 1)


def test_a_strength_fills_in_the_charts_units(refit: Refit) -> None:
    load_fixture_chart(refit)
    campaign = refit.commands.create_campaign("pbr", "I", "Units", "server").id
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 20, "reason": "Base"})
    do(refit, campaign, {"type": "purchase_rg", "side": "Axis", "rg": "X1"})
    do(refit, campaign, {"type": "determine_rg", "side": "Axis", "purchase": 1,
                         "strength": "D"})
    assert refit.reads.purchase_record(campaign)[0].units == "2x 4-6-8"


def test_as_of_beyond_the_head_is_refused_by_field(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Head")
    for as_of in (0, 2, 10**20):
        with pytest.raises(InvalidCommand) as refused:
            refit.reads.roster(campaign, as_of=as_of)
        assert refused.value.field == "as_of"


def test_the_reph_waits_at_initiative_for_both_chits(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Chits", "server").id
    advance_to(refit, campaign, None)  # the Initial Scenario needs no chits (3.6211)
    do(refit, campaign, {"type": "end_scenario"})
    advance_to(refit, campaign, "3.621")
    do(refit, campaign, {"type": "select_initiative", "side": "British", "chit": "idle"})
    with pytest.raises(RuleViolation) as refused:
        do(refit, campaign, {"type": "advance"})
    assert refused.value.rule == "3.621" and refused.value.message.startswith("Axis must choose")


def test_an_idle_date_repeats_the_reph_from_the_new_cg_date_step(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Idle", "server").id
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})
    advance_to(refit, campaign, "3.621")  # 14PM
    for side in ("Axis", "British"):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "idle"})
    result = do(refit, campaign, {"type": "advance"})
    assert [(e["type"], e["data"].get("step"), e["data"].get("cg_date")) for e in result.events] \
        == [("StepAdvanced", "3.612", None), ("CGDateStarted", None, "14N")]
    state = refit.store.campaign(campaign)
    assert (state.reph.cg_date, state.reph.phase, state.reph.step) == ("14N", "reph", "3.612")
    roster = refit.reads.roster(campaign)
    assert [(r.cg_date, r.scenario_type, r.scenario_played) for r in roster] == [
        ("14AM", None, True), ("14PM", "Idle CG Date", False), ("14N", None, False)]


def test_an_idle_last_cg_date_is_cg_end(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Idle end", "server",
                                              start_date="17AM").id
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})
    advance_to(refit, campaign, "3.621")  # 17PM, the last CG Date
    for side in ("Axis", "British"):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "idle"})
    result = do(refit, campaign, {"type": "advance"})
    assert [e["type"] for e in result.events] == ["CGEnded", "SeedRevealed"]
    assert refit.reads.status(campaign).phase == "ended"


def test_abtf_unspent_cpp_is_halved_rounding_up_as_9_617_ends(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Halving")
    do(refit, campaign, {"type": "credit_cpp", "side": "German", "amount": 15,
                         "reason": "Initial Scenario", "rule": "9.5"})
    result = do(refit, campaign, {"type": "advance"})
    assert [e["type"] for e in result.events] == ["PointsAdjusted"] * 2 + ["StepAdvanced"]
    assert refit.store.campaign(campaign).points.cpp == {"British": 0, "German": 8}
    assert refit.reads.roster(campaign)[0].sides["German"].cpp_left == 8
    assert refit.reads.roster(campaign, viewer="British")[0].sides["German"].cpp_left is None


def test_abtf_unspent_fpp_is_forfeit_as_9_619_ends(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Forfeit")
    do(refit, campaign, {"type": "credit_fpp", "side": "British", "amount": 3,
                         "reason": "RG", "rule": "9.617"})
    advance_to(refit, campaign, "9.620")
    assert refit.store.campaign(campaign).points.fpp["British"] == 0


def test_pbr_cpp_left_after_3_617_on_14pm_are_lost_but_not_on_14am(refit: Refit) -> None:
    campaign = play_initial_scenario_and_first_reph(refit)
    assert refit.store.campaign(campaign).points.cpp == {"Axis": 52, "British": 23}
    do(refit, campaign, {"type": "advance"})  # 14PM leaves 3.617
    assert refit.store.campaign(campaign).points.cpp == {"Axis": 0, "British": 0}
    assert refit.reads.roster(campaign)[0].sides["Axis"].cpp_left == 31  # 14AM kept its CPP


def test_the_initiative_matrix_names_the_scenario_type_night_dual_attack_included(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Matrix", "server").id
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})
    advance_to(refit, campaign, "3.621")  # 14PM
    do(refit, campaign, {"type": "select_initiative", "side": "Axis", "chit": "attack"})
    _, revealed, order = do(refit, campaign, {"type": "select_initiative", "side": "British",
                                              "chit": "idle"}).events
    assert (revealed["type"], revealed["data"]["scenario_type"]) == ("ChitsRevealed",
                                                                     "Axis Attack")
    assert (order["type"], order["data"]["rule"]) == ("OrderDecided", "3.6213c")
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})
    advance_to(refit, campaign, "3.621")  # 14N, a Night CG Date
    for side in ("Axis", "British"):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "attack"})
    assert [r.scenario_type for r in refit.reads.roster(campaign)] == [
        None, "Axis Attack", "Night Dual Attack"]


def test_a_concession_is_cg_end_and_opens_every_secret(refit: Refit) -> None:
    load_fixture_chart(refit)
    campaign = refit.commands.create_campaign("pbr", "I", "Concede", "server").id
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 39, "reason": "Base"})
    do(refit, campaign, {"type": "purchase_rg", "side": "Axis", "rg": "X1"})
    result = do(refit, campaign, {"type": "end_cg", "reason": "concession", "side": "British"})
    assert [e["type"] for e in result.events] == ["CGDecided", "CGEnded", "SeedRevealed"]
    assert result.events[0]["data"]["winner"] == "Axis"
    assert refit.reads.purchase_record(campaign, viewer="British")[0].rg == "X1"
    assert refit.reads.verify(campaign).ok


def test_sudden_death_is_won_only_during_a_scenario(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Block H")
    with pytest.raises(RuleViolation):
        do(refit, campaign, {"type": "end_cg", "reason": "sudden_death", "side": "German",
                             "rule": "9.6212"})
    advance_to(refit, campaign, None)
    result = do(refit, campaign, {"type": "end_cg", "reason": "sudden_death",
                                  "side": "German", "rule": "9.6212"})
    assert result.events[0]["data"]["winner"] == "German"
    assert refit.reads.status(campaign).phase == "ended"
