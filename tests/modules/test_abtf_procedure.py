"""ABtF RePh procedure the ledger applies by itself: 9.6152 OB-given reinforcements, CG19
Walking Wounded, the 9.6122 SAN floor, chit limits (9.62131) and the CG's starting data."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain import commands as cmd
from domain.errors import RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import advance, advance_to, do, due, load_abtf_owner_data, to_reph_step


@pytest.fixture(autouse=True)
def owner_data(refit: Refit) -> None:
    """The ABtF RG charts and CG parameters an owner would load (EX costs, else fictitious)."""
    load_abtf_owner_data(refit)


def test_a_cg_starts_with_the_elr_san_and_ammunition_level_of_its_parameters(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Start", "server").id
    state = refit.store.campaign(campaign)
    assert (state.points.elr, state.points.san) == ({"British": 4, "German": 3},
                                                    {"British": 3, "German": 4})
    assert refit.reads.roster(campaign)[0].levels == {"ammo_shortage": 1}


def test_9_6152_gives_18am_rgs_fpp_and_san_outside_every_maximum(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "18AM", "server").id
    to_reph_step(refit, campaign, "9.615")
    do(refit, campaign, {"type": "change_san", "side": "British", "value": 6, "cause": "test"})
    do(refit, campaign, {"type": "change_san", "side": "German", "value": 2, "cause": "test"})
    do(refit, campaign, {"type": "advance"})
    state = refit.store.campaign(campaign)
    assert state.points.san == {"British": 7, "German": 2}  # +2 capped at 7; -1 floored at 2
    assert state.points.fpp["German"] == 20 and state.purchases.rg_total["British"] == {}
    given = [(r.side, r.rg, r.p) for r in refit.reads.purchase_record(campaign)]
    assert given == [("British", "I1", None), ("British", "I2", None)]
    assert refit.reads.san(campaign)[-1].rule == "9.6152"


def test_9_6152_says_what_leaving_9_615_gives_each_side_before_it_is_left(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Told", "server").id
    to_reph_step(refit, campaign, "9.615")

    def leaving(viewer: str | None, side: str) -> list[str]:
        notes: list[str] = refit.reads.guide(campaign, viewer=viewer)["sides"][side][
            "on_leaving"]
        return notes
    [british] = leaving("British", "British")
    assert british.startswith("9.6152: leaving 9.615 on 18AM gives the British side")
    assert "I1 (" in british and "I2 (" in british and "SAN +2" in british
    [german] = leaving("German", "German")
    assert "20 FPP" in german and "SAN -1" in german and "I1" not in german
    # An observer reads the OB's RGs (public, 3.6179), never a side's FPP or SAN change.
    assert leaving("observer", "German") == [] and "SAN" not in leaving("observer", "British")[0]
    do(refit, campaign, {"type": "change_san", "side": "British", "value": 6, "cause": "test"})
    do(refit, campaign, {"type": "change_san", "side": "German", "value": 2, "cause": "test"})
    do(refit, campaign, {"type": "advance"})
    assert leaving("British", "British") == []  # given: 9.616 says nothing of it


def test_9_6152_waits_for_a_san_it_must_change(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "III", "No SAN", "entered",
                                              start_date="17N").id
    to_reph_step(refit, campaign, "9.615")  # 18AM, and CG III's SAN was never recorded
    error = refused(refit, campaign, {"type": "advance"})
    assert isinstance(error, RuleViolation) and error.rule == "9.6152"
    assert "record the British SAN first" in error.message


def test_9_6152_is_not_applied_twice_or_on_other_dates(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "18PM", "server", start_date="18AM").id
    to_reph_step(refit, campaign, "9.616")  # 18PM: British G1, A1, SAN -1; German SAN +2
    state = refit.store.campaign(campaign)
    assert state.points.san == {"British": 2, "German": 6}
    assert [(line["side"], line["rg"]) for line in state.purchases.lines] == [
        ("British", "G1"), ("British", "A1")]


def test_cg19_one_4_4_7_per_squad_equivalent_in_the_ww_box_the_rest_discarded(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "WW", "server").id
    advance_to(refit, campaign, None)  # the 17N Initial Scenario
    for unit, half_squads in [("6-4-8", 2), ("6-4-8", 2), ("3-4-8", 1)]:
        do(refit, campaign, {"type": "record_casualty", "side": "British", "unit": unit,
                             "cvp": 2 * half_squads, "ww_half_squads": half_squads})
    do(refit, campaign, {"type": "end_scenario"})
    advance_to(refit, campaign, "9.611")
    received = refit.reads.roster(campaign)[0].sides["British"].ww_received
    assert received == {"unit": "4-4-7", "count": 2, "discarded_half_squads": 1}
    assert refit.store.campaign(campaign).scenario.ww_box == 0  # never carried to the next CG Date


def test_cg19_keeps_no_german_ww_box(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "No German WW", "server").id
    advance_to(refit, campaign, None)
    error = refused(refit, campaign, {"type": "record_casualty", "side": "German",
                                      "unit": "4-6-7", "cvp": 2, "ww_half_squads": 2})
    assert isinstance(error, RuleViolation) and error.rule == "CG19"


def test_9_6122_raises_a_san_below_2_to_2_as_the_new_cg_date_begins(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "II", "Low SAN", "server").id  # British SAN 1
    to_reph_step(refit, campaign, "9.612")
    change = refit.reads.san(campaign)[-1]
    assert (change.side, change.before, change.after, change.rule) == (
        "British", 1, 2, "9.6122")


def test_9_62131_a_side_may_not_exceed_its_cg_attack_chits(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "II", "Chit limits", "server").id
    to_reph_step(refit, campaign, "9.621")  # 18PM: CG II allows the British one Attack chit
    do(refit, campaign, {"type": "select_initiative", "side": "British", "chit": "attack"})
    do(refit, campaign, {"type": "select_initiative", "side": "German", "chit": "idle"})
    advance(refit, campaign)
    to_reph_step(refit, campaign, "9.621")
    error = refused(refit, campaign,
                    {"type": "select_initiative", "side": "British", "chit": "attack"})
    assert isinstance(error, RuleViolation) and error.rule == "9.62131"
    assert "player has chosen 1 Attack chits: CG II allows 1" in error.message
    do(refit, campaign, {"type": "select_initiative", "side": "British", "chit": "idle"})



def test_no_purchase_before_9_616_replenishment_is_rolled_for_both_sides(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Order", "entered").id
    to_reph_step(refit, campaign, "9.616")  # 18AM
    early = refused(refit, campaign, {"type": "purchase_rg", "side": "British", "rg": "I1"})
    assert isinstance(early, RuleViolation) and early.rule == "9.617"
    do(refit, campaign, {"type": "roll", "table": "9.6162", "side": "British", "dice": [2, 2]})
    unfinished = refused(refit, campaign, {"type": "advance"})
    assert isinstance(unfinished, RuleViolation) and unfinished.rule == "9.616"
    assert "still due the German 9.6162 (CG CPP Variable Arrival Points)" in unfinished.message


def test_a_required_roll_that_does_not_apply_is_skipped_with_its_reason(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Skips", "server").id
    to_reph_step(refit, campaign, "9.613")  # 18AM's 9.612 done: both SANs below the dr
    step = [r for r in refit.store.records(campaign) if r["type"] == "StepAdvanced"][-1]["data"]
    assert step["previous"] == "9.612" and step["skipped"] == [
        "British: table 9.6122 is rolled only when the British SAN is 4 or more",
        "German: table 9.6122 is rolled only when the German SAN is 5 or more"]


def test_9_618_waits_for_the_strength_of_each_rg_received_that_day(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Strength", "server").id
    advance_to(refit, campaign, "9.618")  # 17N: nothing bought, nothing to roll
    assert due(refit, campaign) == []
    to_reph_step(refit, campaign, "9.618")  # 18AM: the 9.6152 British I1 and I2
    assert due(refit, campaign) == [("9.6181", "British", "rg:1"), ("9.6181", "British", "rg:2")]
    error = refused(refit, campaign, {"type": "advance"})  # the director sees every line
    assert isinstance(error, RuleViolation) and error.rule == "9.618"
    assert "the British 9.6181 (RG Strength Table) for rg:1; the British 9.6181" in \
        error.message


def british_roll(refit: Refit, campaign: UUID, table: str, dice: list[int]) -> dict[str, Any]:
    """A British roll with dice typed in; its recorded data."""
    data: dict[str, Any] = do(refit, campaign, {"type": "roll", "table": table,
                                                "side": "British", "dice": dice}
                              ).events[0]["data"]
    return data


def test_9_6216_weather_ec_and_wind_follow_the_previous_scenario_and_the_night(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Weather", "entered").id
    advance_to(refit, campaign, None)  # 17N: its SSR sets Mist and Wet ground
    do(refit, campaign, {"type": "record_scenario", "weather": "Mist", "ec": "Wet",
                         "wind": "No Wind"})
    early = refused(refit, campaign, {"type": "roll", "table": "9.62164", "side": "British",
                                      "dice": [4]})
    assert isinstance(early, RuleViolation)  # the wind waits for this CG Date's weather
    to_reph_step(refit, campaign, "9.621")  # 18AM, after the Mist, Wet 17N scenario
    chits(refit, campaign, "attack", "idle")  # a British Assault: a scenario is played
    weather = british_roll(refit, campaign, "9.62161", [3, 3])
    assert [(d["reason"], d["value"]) for d in weather["drm"]] == [
        ("Previous CG Scenario was Mist", -2)]
    assert (weather["final"], weather["result"]) == (4, "Overcast")
    assert british_roll(refit, campaign, "9.62163", [3])["result"] == "Moist"  # 3 - 1 (Wet)
    wind = british_roll(refit, campaign, "9.62164", [4])
    assert [d["reason"] for d in wind["drm"]] == ["Weather is Overcast"]
    assert wind["result"] == "Mild Breeze"
    first, second = refit.reads.roster(campaign)[:2]
    assert (first.weather, first.ec, first.wind) == ("Mist", "Wet", "No Wind")
    twice = refused(refit, campaign, {"type": "roll", "table": "9.62164", "side": "British",
                                      "dice": [4]})
    assert "once per CG Date" in str(twice)
    assert (second.weather, second.ec, second.wind) == ("Overcast", "Moist", "Mild Breeze")
    again = refused(refit, campaign, {"type": "roll", "table": "9.62161", "side": "British",
                                      "dice": [1, 1]})
    assert isinstance(again, RuleViolation) and "once per CG Date" in again.message


def chits(refit: Refit, campaign: UUID, british: str, german: str) -> None:
    """Both sides' Initiative chits for the CG Date (9.6213), revealed together."""
    for side, chit in (("British", british), ("German", german)):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": chit})


@pytest.mark.parametrize("british,german,said", [
    (None, None, "not before both are revealed"),
    ("idle", "idle", "an Idle CG Date plays none"),
])
def test_9_6216_weather_is_rolled_for_the_scenario_the_chits_make(
        refit: Refit, british: str | None, german: str | None, said: str) -> None:
    # 9.62161: "the weather for the upcoming CG Scenario", determined after 9.6213's
    # chits; Idle and Idle play no scenario (9.62132: the RePh repeats 9.612-9.620).
    campaign = refit.commands.create_campaign("abtf", "I", "Weather", "entered").id
    to_reph_step(refit, campaign, "9.621")
    if british and german:
        chits(refit, campaign, british, german)
    for table, dice in (("9.62161", [3, 3]), ("9.62163", [3])):
        error = refused(refit, campaign, {"type": "roll", "table": table,
                                          "side": "British", "dice": dice})
        assert isinstance(error, RuleViolation) and said in error.message
        assert "(9.62132)" in error.message and error.rule == table
    assert not [table for table, _, _ in due(refit, campaign, "British")
                if table.startswith("9.6216")]


def test_9_6215_the_first_move_dr_follows_the_set_up_dr_in_a_dual_assault(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Dual", "entered").id
    to_reph_step(refit, campaign, "9.621")
    chits(refit, campaign, "attack", "attack")
    early = refused(refit, campaign, {"type": "roll", "table": "9.6215", "side": "German",
                                      "dice": [2]})
    assert isinstance(early, RuleViolation) and "after table 9.62133" in early.message
    do(refit, campaign, {"type": "roll", "table": "9.62133", "side": "German", "dice": [5]})
    do(refit, campaign, {"type": "roll", "table": "9.6215", "side": "German", "dice": [2]})


def test_the_initial_scenario_weather_is_not_rolled(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "SSR weather", "entered").id
    advance_to(refit, campaign, "9.621")
    error = refused(refit, campaign, {"type": "roll", "table": "9.62161", "side": "British",
                                      "dice": [3, 4]})
    assert isinstance(error, RuleViolation) and "Initial Scenario" in error.message


def test_only_the_british_roll_the_weather(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Weather", "entered").id
    to_reph_step(refit, campaign, "9.621")
    error = refused(refit, campaign, {"type": "roll", "table": "9.62161", "side": "German",
                                      "dice": [3, 4]})
    assert isinstance(error, RuleViolation) and "British only" in error.message


def test_status_names_the_rolls_a_step_waits_for_keeping_rg_rolls_to_their_side(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "To roll", "server").id
    to_reph_step(refit, campaign, "9.616")
    assert refit.reads.status(campaign).to_roll == ["9.6162 British", "9.6162 German"]
    to_reph_step(refit, campaign, "9.618")  # the 9.6152 British I1 and I2 wait for F/D
    assert refit.reads.status(campaign, viewer="British").to_roll == [
        "9.6181 British for rg:1", "9.6181 British for rg:2"]
    assert refit.reads.status(campaign, viewer="German").to_roll == []


def test_after_an_idle_date_abtf_keeps_its_san_floor_open_each_san_announced_at_9_621(
        refit: Refit) -> None:
    # ABtF announces each SAN as the RePh enters 9.621, where the chits are chosen: when
    # both are Idle and 9.612 repeats, no SAN is secret, and the floor raise is open.
    # (PBr's 3.623 comes after its chits: there the repeated check is sealed.)
    campaign = refit.commands.create_campaign("abtf", "I", "Idle floor", "entered").id
    to_reph_step(refit, campaign, "9.621")
    for side, san in (("British", 6), ("German", 1)):
        do(refit, campaign, {"type": "change_san", "side": side, "value": san, "cause": "OB"})
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "idle"})
    advance(refit, campaign)
    raised = [e for e in refit.reads.events(campaign, viewer="British")
              if e["type"] == "SANChanged"][-1]
    assert (raised["data"]["side"], raised["data"]["before"], raised["data"]["after"],
            raised["sealed"]) == ("German", 1, 2, None)
    assert refit.reads.status(campaign, viewer="British").sides["German"]["san"] == 2


def ended_unnoted(refit: Refit) -> UUID:
    """An ABtF CG I whose Initial Scenario (17N) ended with no notes of its weather."""
    campaign = refit.commands.create_campaign("abtf", "I", "Unnoted", "entered").id
    advance_to(refit, campaign, None)
    refit.commands.execute(campaign, cmd.parse_command({"type": "end_scenario"}), "director")
    return campaign


def test_9_6216_the_weather_waits_for_the_previous_scenarios_weather_to_be_recorded(
        refit: Refit) -> None:
    campaign = ended_unnoted(refit)
    to_reph_step(refit, campaign, "9.621")
    chits(refit, campaign, "attack", "idle")
    waits = refused(refit, campaign, {"type": "roll", "table": "9.62161", "side": "British",
                                      "dice": [3, 3]})
    assert isinstance(waits, RuleViolation) and waits.rule == "9.62161"
    assert "records the 17N CG Scenario's weather first" in waits.message
    assert ("9.62161", "British", "step") in due(refit, campaign)  # still asked for ...
    [asked] = [w for w in refit.reads.guide(campaign, viewer="British")["sides"]["British"][
        "due"] if w.get("table") == "9.62161"]
    assert "records the 17N CG Scenario's weather first" in asked["waits"]  # ... saying why
    do(refit, campaign, {"type": "record_scenario", "weather": "Mist", "previous": True})
    weather = british_roll(refit, campaign, "9.62161", [3, 3])
    assert [d["reason"] for d in weather["drm"]] == ["Previous CG Scenario was Mist"]
    ec = refused(refit, campaign, {"type": "roll", "table": "9.62163", "side": "British",
                                   "dice": [3]})
    assert "the 17N CG Scenario's EC first" in str(ec)


def test_a_condition_typed_in_another_case_is_recorded_as_the_table_words_it(
        refit: Refit) -> None:
    # 9.62161's DRM read "Previous CG Scenario was Mist" as the table prints it: a director
    # typing "mist" would have lost the -2 unsaid.
    campaign = ended_unnoted(refit)
    do(refit, campaign, {"type": "record_scenario", "weather": " mist ", "ec": "MOIST",
                         "wind": "Rain and sleet"})
    assert refit.store.campaign(campaign).scenario.previous_conditions == {
        "weather": "Mist", "ec": "Moist", "wind": "Rain and sleet"}  # an SSR's word stays
    to_reph_step(refit, campaign, "9.621")
    chits(refit, campaign, "attack", "idle")
    weather = british_roll(refit, campaign, "9.62161", [3, 3])
    assert [d["reason"] for d in weather["drm"]] == ["Previous CG Scenario was Mist"]


def test_notes_recorded_in_the_reph_of_the_scenario_just_played_are_the_previous_ones(
        refit: Refit) -> None:
    campaign = ended_unnoted(refit)  # still 17N: its RePh, before 9.6121's new CG Date
    do(refit, campaign, {"type": "record_scenario", "weather": "Overcast", "ec": "Dry"})
    to_reph_step(refit, campaign, "9.621")
    chits(refit, campaign, "attack", "idle")
    weather = british_roll(refit, campaign, "9.62161", [3, 3])
    assert [d["reason"] for d in weather["drm"]] == ["Previous CG Scenario was Overcast"]
    assert [d["reason"] for d in british_roll(refit, campaign, "9.62163", [3])["drm"]] == \
        ["Previous CG Scenario was Dry"]


def test_notes_of_a_previous_scenario_need_one_to_have_ended(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "None yet", "entered").id
    error = refused(refit, campaign, {"type": "record_scenario", "weather": "Mist",
                                      "previous": True})
    assert isinstance(error, RuleViolation) and error.field == "previous"
