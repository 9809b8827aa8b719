"""ABtF numbers the seeds give, enforced: the 9.613 footnote 2 Shift casualty dr, the
9.6183 Leader Table rolls of the RG the chart indicates, and the CG4 Game End dr (due at
the end of Game Turn 5 and each turn after it, against the turn's circled number)."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import pytest

from domain.campaign.turns import TurnEnded
from domain.errors import InvalidCommand, RefitError, RuleViolation
from infra.application import Refit
from infra.modules import describe_table
from tests.helpers.refusals import refused
from tests.helpers.story import (
    QUIET_DICE,
    advance_to,
    do,
    due,
    load_abtf_owner_data,
    roll_what_is_required,
    to_reph_step,
)

BRITISH, GERMAN = "British", "German"


@pytest.fixture(autouse=True)
def owner_data(refit: Refit) -> None:
    """The ABtF RG charts and CG parameters an owner would load (fixture, partly fictitious)."""
    load_abtf_owner_data(refit)


def roll(refit: Refit, campaign: UUID, table: str, side: str, subject: str,
         dice: list[int], **extra: Any) -> dict[str, Any]:
    """One roll with physical dice; its DiceRolled data."""
    body = {"type": "roll", "table": table, "side": side, "subject": subject,
            "dice": dice} | extra
    data: dict[str, Any] = do(refit, campaign, body).events[0]["data"]
    return data


def refusal(refit: Refit, campaign: UUID, body: dict[str, Any]) -> RefitError:
    """A command the rules refuse (422, rule named), appending nothing."""
    error = refused(refit, campaign, body)
    assert isinstance(error, RefitError)
    return error


# -- 9.613 footnote 2: the per-unit casualty dr after a Final DR 11 -------------------------

CASUALTIES = {"type": "roll", "table": "9.613-casualties", "side": GERMAN,
              "subject": "unit:SS-Pltn", "dice": [4]}


def reph_at(refit: Refit, step: str) -> UUID:
    """An ABtF CG I, dice typed in, at a step of the 18AM RePh."""
    campaign = refit.commands.create_campaign("abtf", "I", "Arnhem", "entered").id
    to_reph_step(refit, campaign, step)
    return campaign


@pytest.fixture
def at_shift(refit: Refit) -> UUID:
    """18AM, RePh step 9.613."""
    return reph_at(refit, "9.613")


def test_9_613_the_casualty_dr_is_refused_until_a_shift_dr_gives_11(
        refit: Refit, at_shift: UUID) -> None:
    before = refusal(refit, at_shift, CASUALTIES)
    assert isinstance(before, RuleViolation) and before.rule == "9.613"
    assert "Successful Shift, Casualty Reduction(2)" in before.message
    shifted = roll(refit, at_shift, "9.613", GERMAN, "unit:SS-Pltn", [4, 4])  # 8
    assert shifted["result"] == "Successful Shift"
    assert refusal(refit, at_shift, CASUALTIES).rule == "9.613"  # an 8 calls for none


@pytest.mark.parametrize("die,result", [
    (3, "No effect"),
    (4, "Personnel: Casualty Reduction; vehicle: Eliminated (CS DR for its Inherent crew, "
        "Casualty Reduction NA; no wreck)"),
])
def test_9_613_footnote_2_after_an_11_each_unit_is_reduced_on_a_dr_of_4_or_more(
        refit: Refit, at_shift: UUID, die: int, result: str) -> None:
    eleven = roll(refit, at_shift, "9.613", GERMAN, "unit:SS-Pltn", [5, 6])
    assert eleven["result"] == "Successful Shift, Casualty Reduction(2)"
    casualty = do(refit, at_shift, CASUALTIES | {"dice": [die]}).events[0]["data"]
    assert (casualty["final"], casualty["result"], casualty["drm"]) == (die, result, [])
    british = refit.reads.rolls(at_shift, viewer=BRITISH)[-1]  # sealed like the Shift DR
    assert british.hidden and british.result is None


def test_9_613_the_casualty_dr_lists_no_drm_so_any_claim_is_refused(
        refit: Refit, at_shift: UUID) -> None:
    roll(refit, at_shift, "9.613", GERMAN, "unit:SS-Pltn", [5, 6])
    claimed = refusal(refit, at_shift, CASUALTIES | {"drm": [{"id": "9.613-hexes",
                                                              "count": 2}]})
    assert isinstance(claimed, InvalidCommand) and "lists no DRM" in claimed.message
    assert claimed.rule == "9.613"


# -- 9.6183: Leader Table rolls for the RG the chart indicates, on its side's column -------

@pytest.fixture
def leaders_due(refit: Refit) -> UUID:
    """18AM 9.618 with every strength rolled: British I1 (#1, indicated: British column)
    and I2 (#2, not) from 9.6152; German I1 (#3, indicated: German column), I2 (#4, not),
    A3 (#5, a Heavy Tank pltn indicated for the (Armor) column)."""
    campaign = reph_at(refit, "9.617")
    do(refit, campaign, {"type": "credit_cpp", "side": GERMAN, "amount": 30,
                         "reason": "CPP for the story"})
    for rg, kg in (("I1", "K"), ("I2", "B"), ("A3", "K")):
        do(refit, campaign, {"type": "purchase_rg", "side": GERMAN, "rg": rg, "kg": kg})
    advance_to(refit, campaign, "9.618", rolls=False)
    for table, side, subject in due(refit, campaign):
        if table == "9.6181":
            roll(refit, campaign, table, side, subject, [2, 3])  # Full
    return campaign


def leader_rolls(refit: Refit, campaign: UUID) -> list[tuple[str, str, str]]:
    """The Leader Table rolls the guide lists as due."""
    return [(table, side, subject) for table, side, subject in due(refit, campaign)
            if table.startswith("9.6183")]


def test_9_6183_each_side_rolls_its_own_column_for_exactly_the_indicated_rg(
        refit: Refit, leaders_due: UUID) -> None:
    assert leader_rolls(refit, leaders_due) == [
        ("9.6183-british", BRITISH, "rg:1/leader:1"),
        ("9.6183-german", GERMAN, "rg:3/leader:1"),
        ("9.6183-armor", GERMAN, "rg:5/leader:1")]
    optional = refit.reads.guide(leaders_due, viewer=GERMAN)["sides"][GERMAN]["optional"]
    assert not [w for w in optional if w.get("table", "").startswith("9.6183")]
    for other in (BRITISH, "observer"):  # another side's RG lines are its secret (9.617)
        shown = json.dumps(refit.reads.guide(leaders_due, viewer=other))
        assert "9.6183-german" not in shown and "9.6183-armor" not in shown, other


def test_9_6183_9_618_is_not_left_before_the_leader_rolls(refit: Refit,
                                                          leaders_due: UUID) -> None:
    rules = refit.store.campaign(leaders_due).rules
    for table, side, subject in due(refit, leaders_due):
        if not table.startswith("9.6183"):
            roll(refit, leaders_due, table, side, subject, QUIET_DICE[rules.table(table).roll])
    early = refusal(refit, leaders_due, {"type": "advance"})
    assert early.rule == "9.618" and "9.6183-british" in early.message
    assert "9.6183-armor (Leader Table ((Armor) column)) for rg:5/leader:1" in early.message
    armor = roll(refit, leaders_due, "9.6183-armor", GERMAN, "rg:5/leader:1", [2, 2])
    assert [(d["id"], d["value"]) for d in armor["drm"]] == [("9.6183-hvy-tank", -2)]
    assert armor["result"] == "9-2 Armor Leader"  # Final DR 2
    roll_what_is_required(refit, leaders_due)
    do(refit, leaders_due, {"type": "advance"})
    assert refit.store.campaign(leaders_due).reph.step == "9.619"


def test_9_6183_dagger_a_hvy_tank_pltns_final_5_gives_a_9_1_armor_leader(
        refit: Refit, leaders_due: UUID) -> None:
    armor = roll(refit, leaders_due, "9.6183-armor", GERMAN, "rg:5/leader:1", [3, 4])
    assert (armor["final"], armor["result"]) == (5, "9-1 Armor Leader")  # 7 - 2 Hvy Tank
    assert refit.reads.purchase_record(leaders_due)[4].leader == "9-1 Armor Leader"
    five = refit.store.campaign(leaders_due).rules.table("9.6183-armor").band(5)
    assert five is not None and five.for_traits(frozenset({"Med Tank"})) == "8-1 Armor Leader"


@pytest.mark.parametrize("table,side,subject,why", [
    ("9.6183-british", GERMAN, "rg:3/leader:1", "I1 rolls on table 9.6183-german"),
    ("9.6183-german", BRITISH, "rg:1/leader:1", "I1 rolls on table 9.6183-british"),
    ("9.6183-german", GERMAN, "rg:4/leader:1", "I2 rolls on no Leader Table"),
    ("9.6183-armor", GERMAN, "rg:3/leader:1", "I1 rolls on table 9.6183-german"),
    ("9.6183-british", BRITISH, "rg:2/leader:1", "I2 rolls on no Leader Table"),
])
def test_9_6183_another_sides_column_or_an_rg_not_indicated_is_refused(
        refit: Refit, leaders_due: UUID, table: str, side: str, subject: str,
        why: str) -> None:
    error = refusal(refit, leaders_due, {"type": "roll", "table": table, "side": side,
                                         "subject": subject, "dice": [3, 3]})
    assert isinstance(error, RuleViolation) and error.rule == "9.6183"
    assert why in error.message


# -- CG4: the Game End dr --------------------------------------------------------------

def in_scenario(refit: Refit, cg: str = "II") -> UUID:
    """An ABtF campaign's Initial Scenario in play: CG II's is 18AM, a day scenario (the
    fixture), CG I's 17N, a Night one."""
    campaign = refit.commands.create_campaign("abtf", cg, "Game End", "entered").id
    advance_to(refit, campaign, None)
    return campaign


def end_turns(refit: Refit, campaign: UUID, last: int, circled: int = 1) -> None:
    """End Game Turns up to `last`, making each Game End dr due on the way with a dr of 6;
    the director gives `circled` for a box the seeds do not circle, where the guide asks."""
    first = refit.store.campaign(campaign).scenario.turn + 1
    for turn in range(first, last + 1):
        for table, side, subject in due(refit, campaign):
            roll(refit, campaign, table, side, subject, [6])
        asked = refit.reads.guide(campaign)["turn"]["circled"]
        do(refit, campaign, {"type": "end_turn", "turn": turn} |
           ({"circled": circled} if asked else {}))


@pytest.mark.parametrize("die,result,ended", [(3, "Scenario ends", True),
                                              (4, "Play continues", False)])
def test_cg4_ex_at_the_end_of_game_turn_6_a_day_scenario_ends_on_3_or_less(
        refit: Refit, die: int, result: str, ended: bool) -> None:
    campaign = in_scenario(refit)
    end_turns(refit, campaign, 6)
    assert due(refit, campaign) == [("CG4", BRITISH, "turn:6")]
    events = do(refit, campaign, {"type": "roll", "table": "CG4", "side": BRITISH,
                                  "subject": "turn:6", "dice": [die]}).events  # target: 3
    game_end = events[0]["data"]
    assert (game_end["target"], game_end["drm"], game_end["result"]) == (3, [], result)
    assert ("ScenarioEnded" in [e["type"] for e in events]) == ended
    assert (refit.store.campaign(campaign).reph.phase == "reph") == ended
    assert due(refit, campaign) == []


def test_cg4_the_director_gives_the_number_a_box_the_seeds_do_not_circle_as_it_ends(
        refit: Refit) -> None:
    campaign = in_scenario(refit)
    end_turns(refit, campaign, 3)
    early = refusal(refit, campaign, {"type": "end_turn", "turn": 4, "circled": 2})
    assert (early.rule, early.field) == ("CG4", "circled")  # no dr ends Turn 4: no number
    assert "no Game End dr is made at the end of Game Turn 4" in early.message
    end_turns(refit, campaign, 4)
    assert refit.reads.guide(campaign)["turn"]["circled"] == \
        "the number circled in Game Turn 5's box of the CG Turn Record Chart"
    missing = refusal(refit, campaign, {"type": "end_turn", "turn": 5})
    assert (missing.rule, missing.field) == ("CG4", "circled")
    assert "give the number circled in Game Turn 5's box" in missing.message and \
        "as printed on the map" in missing.message and "`" not in missing.message
    do(refit, campaign, {"type": "end_turn", "turn": 5, "circled": 2})
    assert refit.reads.guide(campaign)["turn"]["circled"] is None  # Turn 6: the data's 3


def test_cg4_is_data_that_get_modules_shows(refit: Refit) -> None:
    abtf = refit.store.modules["abtf"]
    cg4 = describe_table(abtf.table("CG4"), abtf)
    assert cg4["game_end"] | {"doubts": []} == {
        "rule": "CG4", "from_turn": 5, "each": "game_turn", "by": BRITISH,
        "circled": {"6": 3}, "doubts": []}


def test_cg4_the_dr_is_due_from_the_end_of_game_turn_5_and_holds_up_the_next_turn(
        refit: Refit) -> None:
    campaign = in_scenario(refit)
    end_turns(refit, campaign, 4)
    assert due(refit, campaign) == []  # Game Turns 1-4 end with no Game End dr
    early = refusal(refit, campaign, {"type": "roll", "table": "CG4", "side": BRITISH,
                                      "subject": "turn:4", "dice": [1], "target": 3})
    assert early.rule == "CG4" and "end of Game Turn 5" in early.message
    do(refit, campaign, {"type": "end_turn", "turn": 5, "circled": 2})
    guide = refit.reads.guide(campaign, viewer=BRITISH)["sides"][BRITISH]
    assert [(w["table"], w["subject"], w["secret"]) for w in guide["due"]] == [
        ("CG4", "turn:5", False)]
    assert refit.reads.guide(campaign, viewer=GERMAN)["sides"][GERMAN]["due"] == []
    held = refusal(refit, campaign, {"type": "end_turn", "turn": 6})
    assert held.rule == "CG4" and "Game End dr for Game Turn 5 is due first" in held.message


def test_cg4_the_rolling_side_cannot_change_the_number_the_director_gave(
        refit: Refit) -> None:
    # CG4: the scenario ends on a Game End dr <= the circled number; the British rolls, so
    # a number of its own (0: never ends; 6: always) would choose the result.
    campaign = in_scenario(refit)
    end_turns(refit, campaign, 5, circled=2)
    assert refit.reads.guide(campaign, viewer=BRITISH)["sides"][BRITISH]["due"][0].get(
        "target") is None  # nothing for the side to type in
    chosen = refusal(refit, campaign, {"type": "roll", "table": "CG4", "side": BRITISH,
                                       "subject": "turn:5", "dice": [2], "target": 6})
    assert isinstance(chosen, InvalidCommand) and chosen.field == "target"
    assert "Game Turn 5's box of the CG Turn Record Chart circles 2" in chosen.message
    made = roll(refit, campaign, "CG4", BRITISH, "turn:5", [2])
    assert (made["target"], made["result"]) == (2, "Scenario ends")


def test_a_turn_ended_before_end_turn_took_the_number_still_takes_the_sides(
        refit: Refit) -> None:
    # A campaign whose Game Turn 5 ended as end_turn recorded it before `circled`: the
    # roll cannot wait on a number nobody can give any more, so the side's is taken.
    campaign = in_scenario(refit)
    end_turns(refit, campaign, 4)
    state = refit.store.campaign(campaign)
    state._record(TurnEnded, "director", cg_date=state.reph.cg_date, turn=5, player_turn=None,
                  rule="CG4")
    refit.store.save(state)
    unnumbered = refusal(refit, campaign, {"type": "roll", "table": "CG4", "side": BRITISH,
                                           "subject": "turn:5", "dice": [2]})
    assert unnumbered.field == "target" and "Game Turn 5's box" in unnumbered.message
    typed = roll(refit, campaign, "CG4", BRITISH, "turn:5", [2], target=2)
    assert (typed["target"], typed["result"]) == (2, "Scenario ends")


def test_cg4_game_turn_6_circles_3_so_another_number_is_refused(refit: Refit) -> None:
    campaign = in_scenario(refit)
    end_turns(refit, campaign, 5)
    roll(refit, campaign, "CG4", BRITISH, "turn:5", [6])
    ruled = refusal(refit, campaign, {"type": "end_turn", "turn": 6, "circled": 4})
    assert isinstance(ruled, InvalidCommand) and ruled.field == "circled"
    do(refit, campaign, {"type": "end_turn", "turn": 6})  # the data's 3: none asked
    wrong = refusal(refit, campaign, {"type": "roll", "table": "CG4", "side": BRITISH,
                                      "subject": "turn:6", "dice": [4], "target": 4})
    assert isinstance(wrong, InvalidCommand) and wrong.field == "target"
    assert "circles 3" in wrong.message


@pytest.mark.parametrize("die,result", [(1, "Scenario ends"), (2, "Play continues")])
def test_cg4_at_night_the_dr_gets_plus_2(refit: Refit, die: int, result: str) -> None:
    campaign = in_scenario(refit, "I")  # 17N
    end_turns(refit, campaign, 6)
    night = roll(refit, campaign, "CG4", BRITISH, "turn:6", [die])
    assert [(d["id"], d["value"]) for d in night["drm"]] == [("CG4-night", 2)]
    assert (night["final"], night["result"]) == (die + 2, result)


@pytest.mark.parametrize("body,error,field,words", [
    ({"type": "roll", "table": "CG4", "side": GERMAN, "subject": "turn:6", "dice": [1]},
     RuleViolation, None, "made by the British"),
    ({"type": "roll", "table": "CG4", "side": BRITISH, "subject": "turn:5", "dice": [1],
      "target": 3}, RuleViolation, None, "for the turn just ended (Game Turn 6), not Game Turn 5"),
    ({"type": "roll", "table": "CG4", "side": BRITISH, "subject": "unit:turn-6",
      "dice": [1]}, InvalidCommand, "subject", "per turn just ended"),
    ({"type": "end_turn", "turn": 8}, RuleViolation, None, "Game Turn 7 is the next"),
    ({"type": "end_turn", "turn": 7, "player_turn": 1}, InvalidCommand, "player_turn",
     "each game turn"),
])
def test_cg4_refusals_name_the_rule_and_append_nothing(
        refit: Refit, body: dict[str, Any], error: type[Exception], field: str | None,
        words: str) -> None:
    campaign = in_scenario(refit)
    end_turns(refit, campaign, 6)
    if body["type"] == "end_turn":
        roll(refit, campaign, "CG4", BRITISH, "turn:6", [6])
    why = refusal(refit, campaign, body)
    assert isinstance(why, error) and (why.rule, why.field) == ("CG4", field)
    assert words in why.message


def test_a_game_end_dr_is_made_once_per_turn(refit: Refit) -> None:
    campaign = in_scenario(refit)
    end_turns(refit, campaign, 6)
    roll(refit, campaign, "CG4", BRITISH, "turn:6", [6])
    again = refusal(refit, campaign, {"type": "roll", "table": "CG4", "side": BRITISH,
                                      "subject": "turn:6", "dice": [1]})
    assert isinstance(again, RuleViolation) and "made for Game Turn 6" in again.message
