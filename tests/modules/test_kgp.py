"""KGP campaign bookkeeping (8.2, 8.4 CG SSR): LVP totals across Map Groups, Objective Hexes,
PF, Fanaticism, Massacre, the Balance, Entry Areas, Holding Boxes and Reserve RG. The KGP RePh
is not in the seeds: `tests/data/fixture_kgp.json` stands in for an owner's file (fictitious)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.errors import InvalidCommand, RefitError, RuleViolation
from infra.application import Refit
from tests.helpers.paths import FIXTURE_KGP
from tests.helpers.refusals import refused
from tests.helpers.story import do, load_fixture_chart

GERMAN, US = "German", "US"


def kgp(refit: Refit, cg: str = "I", owner_data: bool = True, **options: Any) -> UUID:
    """A KGP campaign (dice typed in), its 18AM scenario in play."""
    if owner_data:
        load_fixture_chart(refit, FIXTURE_KGP)
    return refit.commands.create_campaign("kgp", cg, "Peiper", "entered", **options).id


def control(refit: Refit, campaign: UUID, location: str, side: str | None, lvp: int = 0,
            map_group: str | None = None, infantry: bool = False) -> None:
    """A control change, with the Location's LVP and Map Group."""
    body: dict[str, Any] = {"type": "change_control", "location": location, "side": side,
                            "kind": "Strategic Location", "infantry": infantry}
    if lvp:
        body |= {"lvp": lvp, "map_group": map_group}
    do(refit, campaign, body)


def test_8_2_current_and_cg_lvp_totals_across_two_map_groups(refit: Refit) -> None:
    campaign = kgp(refit)
    control(refit, campaign, "StAA15", GERMAN, 20, "St")  # EX: ten Locations x 2 LVP
    control(refit, campaign, "StN5", US, 3, "St")
    control(refit, campaign, "ChL7", US, 4, "Ch")
    control(refit, campaign, "ChP2", GERMAN, 2, "Ch")
    control(refit, campaign, "StAA15", GERMAN, 16, "St")  # EX: two Locations rubbled
    do(refit, campaign, {"type": "end_scenario"})
    (first,) = refit.reads.lvp(campaign)
    assert first.current == {GERMAN: 18, US: 7} and first.cg_total == {GERMAN: 18, US: 7}
    assert first.by_map_group == {"St": {GERMAN: 16, US: 3}, "Ch": {GERMAN: 2, US: 4}}
    do(refit, campaign, {"type": "advance"})  # the fictitious RePh: 18PM begins
    do(refit, campaign, {"type": "advance"})
    control(refit, campaign, "ChL7", GERMAN, 4, "Ch")
    do(refit, campaign, {"type": "end_scenario"})
    second = refit.reads.lvp(campaign)[1]
    assert second.cg_date == "18PM" and second.current == {GERMAN: 22, US: 3}
    assert second.cg_total == {GERMAN: 18 + 22, US: 7 + 3}  # 8.6033: added date by date
    roster = refit.reads.roster(campaign)
    assert (roster[1].sides[GERMAN].lvp_current, roster[1].sides[GERMAN].lvp_cg) == (22, 40)


def test_an_lvp_location_names_a_map_group_of_the_module(refit: Refit) -> None:
    campaign = kgp(refit)
    error = refused(refit, campaign, {"type": "change_control", "location": "XX1", "side": US,
                                      "lvp": 2, "map_group": "Zz"})
    assert isinstance(error, InvalidCommand) and error.field == "map_group"


def test_no_lvp_outside_kgp(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "No LVP", "server").id
    error = refused(refit, campaign, {"type": "change_control", "location": "Q16",
                                      "side": "Axis", "lvp": 2})
    assert isinstance(error, InvalidCommand) and error.field == "lvp"


def test_8_6198_an_objective_hex_is_secret_until_its_sides_infantry_control_it(
        refit: Refit) -> None:
    campaign = kgp(refit)
    for rg, group in (("I1", "I"), ("G1", "G")):
        do(refit, campaign, {"type": "receive_rg", "side": GERMAN, "rg": rg,
                             "group_type": group, "reason": "Initial Scenario OB"})
    do(refit, campaign, {"type": "designate_objective", "side": GERMAN, "purchase": 1,
                         "hex": "StQ10"})
    gun = refused(refit, campaign, {"type": "designate_objective", "side": GERMAN,
                                    "purchase": 2, "hex": "StR3"})
    assert isinstance(gun, RuleViolation) and gun.rule == "8.6198"
    # Not even that one was designated: that would count the German's "I"/"HW" RGs.
    assert refit.reads.objectives(campaign, viewer=US) == []
    assert refit.reads.objectives(campaign, viewer="observer") == []
    assert [row.hex for row in refit.reads.objectives(campaign, viewer=GERMAN)] == ["StQ10"]
    control(refit, campaign, "StQ10", GERMAN)  # a vehicle, not Infantry: still secret
    assert refit.reads.objectives(campaign, viewer=US) == []
    control(refit, campaign, "StQ10", US)
    control(refit, campaign, "StQ10", GERMAN, infantry=True)
    (revealed,) = refit.reads.objectives(campaign, viewer=US)
    assert (revealed.hex, revealed.revealed, revealed.revealed_on) == ("StQ10", True, "18AM")


def test_cg13_german_pf_one_and_a_half_per_squad(refit: Refit) -> None:
    campaign = kgp(refit)
    for reason, count, shown in (("setup", 5, "7½"), ("released", 1, "9"), ("used", 3, "6"),
                                 ("entered", 1, "7½")):
        do(refit, campaign, {"type": "change_pf", "side": GERMAN, "reason": reason,
                             "count": count})
        assert refit.reads.status(campaign).pf == {GERMAN: shown}
    too_many = refused(refit, campaign, {"type": "change_pf", "side": GERMAN,
                                         "reason": "used", "count": 8})
    assert isinstance(too_many, RuleViolation) and "have 7½ PF" in too_many.message
    us = refused(refit, campaign, {"type": "change_pf", "side": US, "reason": "setup",
                                   "count": 2})
    assert isinstance(us, RuleViolation) and us.rule == "CG13"


def test_cg13_the_pf_initially_available_are_counted_once_before_play(refit: Refit) -> None:
    # "the number of PF initially available": a second count would undo the PF used.
    campaign = kgp(refit)
    setup = {"type": "change_pf", "side": GERMAN, "reason": "setup", "count": 4}
    do(refit, campaign, setup)
    do(refit, campaign, {"type": "change_pf", "side": GERMAN, "reason": "used", "count": 2})
    again = refused(refit, campaign, setup)
    assert isinstance(again, RuleViolation) and (again.rule, again.field) == ("CG13", "reason")
    assert "counted already (4 PF now)" in again.message
    other = kgp(refit, owner_data=False)
    do(refit, other, {"type": "end_turn", "turn": 1, "player_turn": 1})
    late = refused(refit, other, setup)
    assert isinstance(late, RuleViolation) and "Game Turn 1 has ended" in late.message


def test_cg13_pf_are_each_cg_scenarios_none_carried_over_to_the_next(refit: Refit) -> None:
    campaign = kgp(refit)  # the stand-in RePh: two advances to 18PM's scenario
    do(refit, campaign, {"type": "change_pf", "side": GERMAN, "reason": "setup", "count": 9})
    do(refit, campaign, {"type": "end_scenario"})
    do(refit, campaign, {"type": "advance"})
    do(refit, campaign, {"type": "advance"})
    assert refit.reads.status(campaign).pf == {}  # 18AM's 13½ are gone
    spent = refused(refit, campaign, {"type": "change_pf", "side": GERMAN, "reason": "used",
                                      "count": 5})
    assert isinstance(spent, RuleViolation) and "have 0 PF" in spent.message
    do(refit, campaign, {"type": "change_pf", "side": GERMAN, "reason": "released",
                         "count": 2})
    assert refit.reads.status(campaign).pf == {GERMAN: "3"}


def test_cg14_german_fanaticism_once_in_cg_ii(refit: Refit) -> None:
    campaign = kgp(refit, "II")
    do(refit, campaign, {"type": "declare_fanaticism", "side": GERMAN})
    assert refit.reads.status(campaign).fanaticism == ["18AM"]
    do(refit, campaign, {"type": "end_scenario"})
    do(refit, campaign, {"type": "advance"})
    do(refit, campaign, {"type": "advance"})  # 18PM in play
    again = refused(refit, campaign, {"type": "declare_fanaticism", "side": GERMAN})
    assert isinstance(again, RuleViolation) and "1 CG Scenario(s) of CG II" in again.message


def test_cg14_fanaticism_is_declared_as_setup_ends_not_once_play_has_begun(
        refit: Refit) -> None:
    campaign = kgp(refit)
    do(refit, campaign, {"type": "end_turn", "turn": 1, "player_turn": 1})
    late = refused(refit, campaign, {"type": "declare_fanaticism", "side": GERMAN})
    assert isinstance(late, RuleViolation) and late.rule == "CG14"
    assert "on-map setup ends, before play: Game Turn 1 has ended" in late.message
    assert refit.reads.status(campaign).fanaticism == []


def test_8_2_an_objective_hex_is_the_same_hex_however_it_is_spelled(refit: Refit) -> None:
    campaign = kgp(refit)
    do(refit, campaign, {"type": "receive_rg", "side": GERMAN, "rg": "I1",
                         "group_type": "I", "reason": "Initial Scenario OB"})
    control(refit, campaign, "StK10", US)  # a Strategic Location already
    taken = refused(refit, campaign, {"type": "designate_objective", "side": GERMAN,
                                      "purchase": 1, "hex": "stk10"})
    assert isinstance(taken, RuleViolation) and taken.rule == "8.6198"
    do(refit, campaign, {"type": "designate_objective", "side": GERMAN, "purchase": 1,
                         "hex": "StQ10"})
    control(refit, campaign, "stq 10", GERMAN, infantry=True)  # as the director types it
    (revealed,) = refit.reads.objectives(campaign, viewer=US)
    assert (revealed.hex, revealed.revealed) == ("StQ10", True)


def test_cg4_a_massacre_is_recorded_once_for_the_rest_of_the_cg(refit: Refit) -> None:
    campaign = kgp(refit)
    do(refit, campaign, {"type": "record_massacre", "side": GERMAN})
    assert refit.reads.status(campaign).massacre == GERMAN
    again = refused(refit, campaign, {"type": "record_massacre", "side": US})
    assert isinstance(again, RuleViolation) and again.rule == "CG4"


def test_8_31_the_balance_halves_that_sides_secret_dr_frd(refit: Refit) -> None:
    campaign = kgp(refit, balance=GERMAN)
    do(refit, campaign, {"type": "end_scenario"})
    do(refit, campaign, {"type": "advance"})  # the fictitious 8.612 of 18PM
    rolled = do(refit, campaign, {"type": "roll", "table": "T-8.616", "side": GERMAN,
                                  "dice": [6, 5]}).events[0]["data"]
    assert (rolled["original"], rolled["final"], rolled["result"]) == (11, 5, "low")
    assert rolled["drm"][-1]["reason"] == "CG Balance: DR halved (FRD)"
    us = do(refit, campaign, {"type": "roll", "table": "T-8.616", "side": US,
                              "dice": [6, 5]}).events[0]["data"]
    assert us["final"] == 11
    assert refit.reads.verify(campaign).ok


def test_a_balance_needs_a_module_that_has_one(refit: Refit) -> None:
    with pytest.raises(InvalidCommand) as error:
        refit.commands.create_campaign("pbr", "I", "No balance", "server", balance="Axis")
    assert error.value.field == "balance"


def refusal(refit: Refit, campaign: UUID, body: dict[str, Any]) -> RefitError:
    """A command the rules refuse (422, rule named), appending nothing."""
    error = refused(refit, campaign, body)
    assert isinstance(error, RefitError)
    return error


def end_player_turns(refit: Refit, campaign: UUID, turn: int, player_turn: int) -> None:
    """End each Player Turn up to Player Turn `player_turn` of Game Turn `turn`, the German
    making each Game End dr due on the way (a dr of 6); the director gives the number
    circled in a box the seeds do not circle (1), where the guide asks."""
    state = refit.store.campaign(campaign)
    last = (state.scenario.turn, state.scenario.player_turn)
    order = [(t, p) for t in range(1, turn + 1) for p in (1, 2)]
    for t, p in [pt for pt in order if last < pt <= (turn, player_turn)]:
        for work in refit.reads.guide(campaign, viewer=GERMAN)["sides"][GERMAN]["due"]:
            do(refit, campaign, {"type": "roll", "table": "CG23", "side": GERMAN,
                                 "subject": work["subject"], "dice": [6]})
        asked = refit.reads.guide(campaign)["turn"]["circled"]
        do(refit, campaign, {"type": "end_turn", "turn": t, "player_turn": p} |
           ({"circled": 1} if asked else {}))
        last = (t, p)


@pytest.mark.parametrize("dice,night,player_turn,result", [
    ([3], False, 1, "Scenario ends"),  # EX: Turn 7 by day, ends on an Original dr <= 3
    ([3], False, 2, "Scenario ends"),  # ... at the end of either Player Turn
    ([4], False, 1, "Play continues"),
    ([3], True, 2, "Play continues"),  # +1 at night
])
def test_cg23_game_end_dr_ex(refit: Refit, dice: list[int], night: bool, player_turn: int,
                             result: str) -> None:
    campaign = refit.commands.create_campaign("kgp", "I", "Game End", "entered",
                                              start_date="18N" if night else "18AM").id
    end_player_turns(refit, campaign, 7, player_turn)
    events = do(refit, campaign, {"type": "roll", "table": "CG23", "side": GERMAN,
                                  "subject": f"turn:7/pt:{player_turn}",
                                  "dice": dice}).events  # Game Turn 7 circles 4: dr < 4
    assert (events[0]["data"]["target"], events[0]["data"]["result"]) == (4, result)
    assert ("ScenarioEnded" in [e["type"] for e in events]) == (result == "Scenario ends")


@pytest.mark.parametrize("circled", [1, 7])  # dr 2: play continues (< 1), ends (< 7)
def test_cg23_an_open_report_holds_the_game_end_dr_whatever_it_would_roll(
        refit: Refit, circled: int) -> None:
    # Refused only when it would end play (the scenario cannot end with a report open),
    # the refusal told the German its dice, appending nothing: it could leave them unrolled.
    campaign = refit.commands.create_campaign("kgp", "I", "Game End", "server").id
    end_player_turns(refit, campaign, 5, 2)
    do(refit, campaign, {"type": "end_turn", "turn": 6, "player_turn": 1, "circled": circled})
    do(refit, campaign, {"type": "record_casualty", "side": US, "unit": "7-4-7", "cvp": 2},
       actor=US)  # a report the German has still to answer
    before = refit.store.campaign(campaign).version
    held = refused(refit, campaign, {"type": "roll", "table": "CG23", "side": GERMAN,
                                     "subject": "turn:6/pt:1"})
    assert isinstance(held, RuleViolation) and held.rule == "CG23"
    assert "waits for the open reports" in held.message and "report 1" in held.message
    assert refit.store.campaign(campaign).version == before
    [due] = refit.reads.guide(campaign, viewer=GERMAN)["sides"][GERMAN]["due"][:1]
    assert due["table"] == "CG23" and "open reports are answered first" in due["waits"]


def test_cg23_is_due_at_the_end_of_each_player_turn_from_turn_6_by_the_attacker(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("kgp", "I", "Game End", "entered").id
    end_player_turns(refit, campaign, 5, 2)
    assert refit.reads.guide(campaign)["sides"][GERMAN]["due"] == []
    do(refit, campaign, {"type": "end_turn", "turn": 6, "player_turn": 1, "circled": 3})
    guide = refit.reads.guide(campaign)["sides"]  # no Attack chit on record: either side
    assert [[w["subject"] for w in guide[side]["due"]] for side in (GERMAN, US)] == [
        ["turn:6/pt:1"], ["turn:6/pt:1"]]
    held = refusal(refit, campaign, {"type": "end_turn", "turn": 6, "player_turn": 2})
    assert held.rule == "CG23" and "is due first" in held.message
    do(refit, campaign, {"type": "roll", "table": "CG23", "side": US,
                         "subject": "turn:6/pt:1", "dice": [6]})
    assert refit.reads.guide(campaign)["sides"][GERMAN]["due"] == []  # made once, by one
    again = refusal(refit, campaign, {"type": "roll", "table": "CG23", "side": GERMAN,
                                      "subject": "turn:6/pt:1", "dice": [1], "target": 3})
    assert again.rule == "CG23" and "has been made" in again.message
    whole = refusal(refit, campaign, {"type": "end_turn", "turn": 6})
    assert isinstance(whole, InvalidCommand) and whole.field == "player_turn"
    # Player Turn 2 of Game Turn 6 reads the same box: the director's 3, asked no more.
    assert refit.reads.guide(campaign)["turn"]["circled"] is None
    do(refit, campaign, {"type": "end_turn", "turn": 6, "player_turn": 2})
    made = do(refit, campaign, {"type": "roll", "table": "CG23", "side": GERMAN,
                                "subject": "turn:6/pt:2", "dice": [2]}).events[0]["data"]
    assert (made["target"], made["result"]) == (3, "Scenario ends")  # CG23: dr < 3


def test_eligible_entry_areas_by_cg_date_and_holding_boxes(refit: Refit) -> None:
    campaign = kgp(refit)
    assert refit.reads.status(campaign).entry_areas == {GERMAN: ["StGG1"], US: ["ChA10"]}
    do(refit, campaign, {"type": "hold_units", "side": US, "entry_area": "ChA10",
                         "units": "2x 7-4-7 exited (CG21)"})
    wrong = refused(refit, campaign, {"type": "hold_units", "side": US,
                                      "entry_area": "StGG1", "units": "1x 7-4-7"})
    assert isinstance(wrong, InvalidCommand) and wrong.field == "entry_area"
    early = refused(refit, campaign, {"type": "hold_units", "side": US,
                                      "entry_area": "StN56", "units": "1x 7-4-7"})
    assert isinstance(early, RuleViolation) and (early.rule, early.field) == (
        "CG6", "entry_area")
    assert "StN56 is an Eligible Entry Area of the US from 19AM on, not on 18AM" in \
        early.message
    assert refit.reads.holding(campaign, viewer=GERMAN) == []
    assert refit.reads.holding(campaign, viewer=US)[0].units == "2x 7-4-7 exited (CG21)"
    do(refit, campaign, {"type": "end_scenario"})
    do(refit, campaign, {"type": "advance"})  # 18PM
    do(refit, campaign, {"type": "advance"})
    do(refit, campaign, {"type": "end_scenario"})
    do(refit, campaign, {"type": "advance"})
    do(refit, campaign, {"type": "advance"})  # 18N
    do(refit, campaign, {"type": "end_scenario"})
    do(refit, campaign, {"type": "advance"})  # 19AM: StN56 becomes Eligible
    assert refit.reads.status(campaign).entry_areas[US] == ["StN56", "ChA10"]
    do(refit, campaign, {"type": "hold_units", "side": US, "entry_area": "StN56",
                         "units": "1x 7-4-7"})


def test_cg7a_german_i_v_hw_rg_bought_for_the_date_set_up_in_reserve(refit: Refit) -> None:
    campaign = kgp(refit)
    do(refit, campaign, {"type": "end_scenario"})
    do(refit, campaign, {"type": "credit_cpp", "side": GERMAN, "amount": 40, "reason": "x"})
    for rg, mode in (("I1", "entry"), ("I1", "on_map"), ("G1", "entry")):
        do(refit, campaign, {"type": "purchase_rg", "side": GERMAN, "rg": rg, "mode": mode})
    record = refit.reads.purchase_record(campaign)
    assert [(r.rg, r.cpp, r.mode, r.reserve) for r in record] == [
        ("I1", 10, "entry", True), ("I1", 15, "on_map", False), ("G1", 4, "entry", False)]
    assert refit.reads.purchase_record(campaign, viewer=US)[0].reserve is False  # hidden line


def test_the_initial_scenario_a_kgp_cg_opens_in_is_played_on_the_cg_roster(
        refit: Refit) -> None:
    campaign = kgp(refit, owner_data=False)  # no RePh before it: play opens at 18AM
    assert [(row.cg_date, row.scenario_played) for row in refit.reads.roster(campaign)] == [
        ("18AM", True)]
    pbr = refit.commands.create_campaign("pbr", "I", "Primosole", "server").id
    assert not refit.reads.roster(pbr)[0].scenario_played  # its set-up comes first


def test_the_kgp_reph_is_refused_until_an_owner_supplies_it(refit: Refit) -> None:
    campaign = kgp(refit, owner_data=False)
    do(refit, campaign, {"type": "end_scenario"})
    error = refused(refit, campaign, {"type": "advance"})
    assert error.__class__.__name__ == "MissingTable" and "KGP RePh steps" in str(error)
    again = refused(refit, campaign, {"type": "end_scenario"})
    assert isinstance(again, RuleViolation) and again.message == \
        "no CG Scenario is in play: the campaign is in the Refit Phase"  # no step: no "None"


def test_an_opponents_secret_objective_never_shows_in_a_refusal(refit: Refit) -> None:
    campaign = kgp(refit)
    for side in (GERMAN, US):
        do(refit, campaign, {"type": "receive_rg", "side": side, "rg": "I1",
                             "group_type": "I", "reason": "Initial Scenario OB"})
    do(refit, campaign, {"type": "designate_objective", "side": GERMAN, "purchase": 1,
                         "hex": "StQ9"})
    do(refit, campaign, {"type": "designate_objective", "side": US, "purchase": 2,
                         "hex": "StQ9"})  # the US cannot know: both may hold it
    control(refit, campaign, "StQ9", GERMAN, infantry=True)
    german, us = refit.reads.objectives(campaign, viewer=US)
    assert (german.hex, german.purchase, german.cg_date) == ("StQ9", None, None)
    assert (us.hex, us.revealed, us.purchase) == ("StQ9", False, 2)


def test_a_control_change_without_lvp_keeps_the_locations_lvp(refit: Refit) -> None:
    campaign = kgp(refit)
    control(refit, campaign, "StAA15", GERMAN, 20, "St")
    control(refit, campaign, "StAA15", US)
    do(refit, campaign, {"type": "end_scenario"})
    assert refit.reads.lvp(campaign)[0].by_map_group == {"St": {GERMAN: 0, US: 20}}


@pytest.mark.parametrize("command", [
    {"type": "hold_units", "side": "British", "entry_area": "Nowhere", "units": "anything"},
    {"type": "change_pf", "side": "Axis", "reason": "setup", "count": 1},
    {"type": "declare_fanaticism", "side": "Axis"},
])
def test_a_kgp_command_in_a_pbr_campaign_is_refused_and_records_nothing(
        refit: Refit, command: dict[str, Any]) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Primosole", "server").id
    before = refit.store.campaign(campaign).version
    error = refused(refit, campaign, command)
    assert isinstance(error, RuleViolation) and error.message.startswith("PBr ")  # as written
    assert refit.store.campaign(campaign).version == before
