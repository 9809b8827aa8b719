"""ABtF RePh tables (9.6x) as data: each rolled in its step, its DRM derived or checked."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.errors import InvalidCommand, RuleViolation
from infra.application import Refit
from tests.helpers.story import advance, advance_to, do, load_abtf_owner_data, to_reph_step


@pytest.fixture(autouse=True)
def owner_data(refit: Refit) -> None:
    """The ABtF RG charts and CG parameters an owner would load (fixture, partly fictitious)."""
    load_abtf_owner_data(refit)


def with_rg(refit: Refit, campaign: UUID, side: str, rg: str, kg: str | None = None) -> str:
    """An RG the OB gives the side at 9.617; the RePh at 9.618; its line's subject."""
    advance_to(refit, campaign, "9.617")
    do(refit, campaign, {"type": "receive_rg", "side": side, "rg": rg, "kg": kg,
                         "reason": "the story's OB"})
    advance_to(refit, campaign, "9.618", rolls=False)
    return f"rg:{len(refit.store.campaign(campaign).purchases.lines)}"


def at_step(refit: Refit, step: str) -> UUID:
    """An ABtF CG at a RePh step after its Initial Scenario, with dice typed in."""
    campaign = refit.commands.create_campaign("abtf", "I", "Arnhem", "entered").id
    to_reph_step(refit, campaign, step)
    return campaign


def roll(refit: Refit, campaign: UUID, table: str, side: str, dice: list[int],
         drm: list[dict[str, Any]] | None = None, subject: str | None = None) -> dict[str, Any]:
    """One roll with physical dice (for `subject`, else the one the guide lists first);
    its recorded data."""
    body = {"type": "roll", "table": table, "side": side, "dice": dice, "drm": drm or []}
    result = do(refit, campaign, body | ({"subject": subject} if subject else {}))
    data: dict[str, Any] = result.events[0]["data"]
    return data


PANTHER = [{"id": "9.6142-vehicular"}, {"id": "9.6142-repair", "count": 1}]
ARMOR_LEADER_9_2 = {"id": "9.6142-leader", "count": -2}  # a 9-2: leadership DRM -2


@pytest.mark.parametrize("die,result", [(3, "Repaired"), (4, "Eliminated*")])
def test_9_6142_ex_a_panther_ma_repairs_on_an_original_dr_of_3_or_less(
        refit: Refit, die: int, result: str) -> None:
    campaign = at_step(refit, "9.614")
    rolled = roll(refit, campaign, "9.6142", "German", [die], PANTHER)
    assert rolled["result"] == result


@pytest.mark.parametrize("die,result", [(5, "Repaired"), (6, "Eliminated*")])
def test_9_6142_ex_with_a_9_2_armor_leader_any_dr_but_6_repairs(
        refit: Refit, die: int, result: str) -> None:
    campaign = at_step(refit, "9.614")
    rolled = roll(refit, campaign, "9.6142", "German", [die], [*PANTHER, ARMOR_LEADER_9_2])
    assert (rolled["final"], rolled["result"]) == (die - 4, result)
    assert [d["reason"] for d in rolled["drm"]] == [
        "vehicular-mounted", "Weapon Repair Number", "Armor Leader Leadership Rating"]


def test_a_counted_drm_keeps_its_printed_sign(refit: Refit) -> None:
    campaign = at_step(refit, "9.614")
    with pytest.raises(InvalidCommand) as refused:
        roll(refit, campaign, "9.6142", "German", [3], [{"id": "9.6142-leader", "count": 2}])
    assert refused.value.rule == "9.6142" and refused.value.field == "drm[0]"
    assert "-3 to 0, not 2" in refused.value.message


def test_9_6122_san_drm_is_derived_from_the_sides_san(refit: Refit) -> None:
    campaign = at_step(refit, "9.612")
    do(refit, campaign, {"type": "change_san", "side": "British", "value": 6, "cause": "OB"})
    do(refit, campaign, {"type": "change_san", "side": "German", "value": 6, "cause": "OB"})
    british = roll(refit, campaign, "9.6122", "British", [2])
    german = roll(refit, campaign, "9.6122", "German", [2])
    assert [(d["value"], d["reason"]) for d in british["drm"]] == [(2, "British SAN minus four")]
    assert (british["final"], british["result"]) == (4, "SAN reduced by two")
    assert refit.store.campaign(campaign).points.san["British"] == 4
    assert [(d["value"], d["reason"]) for d in german["drm"]] == [(1, "German SAN minus five")]
    assert (german["final"], german["result"]) == (3, "SAN unchanged")


def test_9_6181_rg_strength_is_a_secret_dr_with_british_and_exhaustion_drm(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Late", "entered", start_date="20EVE").id
    to_reph_step(refit, campaign, "9.617")  # now 20N: Campaign Exhaustion +3, half FRD +1
    line = with_rg(refit, campaign, "British", "I1")
    rolled = do(refit, campaign, {"type": "roll", "table": "9.6181", "side": "British",
                                  "dice": [5, 5], "subject": line}).events[0]
    assert rolled["sealed"] is not None and rolled["data"]["secret_for"] == "British"
    assert [(d["value"], d["reason"]) for d in rolled["data"]["drm"]] == [
        (-2, "British"), (1, "Campaign Exhaustion DRM/2 (FRD)")]
    assert (rolled["data"]["final"], rolled["data"]["result"]) == (9, "Full")


def test_9_6184_a3_composition_dr(refit: Refit) -> None:
    campaign = at_step(refit, "9.617")
    line = with_rg(refit, campaign, "German", "A3", "K")
    assert roll(refit, campaign, "9.6184-A3", "German", [6], subject=line)["result"] == \
        "PzKpfw VIE x2"


def test_every_reph_table_is_rolled_in_its_own_step(refit: Refit) -> None:
    module = refit.store.module("abtf")
    owners = {t: s.rule for s in module.steps for t in s.tables}
    assert owners["9.6054-personnel"] == owners["9.6054-vehicle"] == "9.605"
    assert owners["9.6202"] == "9.620"
    assert owners["9.62161"] == "9.621" and owners["9.6183-armor"] == "9.618"
    assert set(owners) == {t.id for t in module.tables} - {"CG4"}  # CG4: during play


def test_a_derived_drm_claimed_by_hand_is_refused(refit: Refit) -> None:
    campaign = at_step(refit, "9.613")
    with pytest.raises(InvalidCommand) as refused:
        roll(refit, campaign, "9.613", "German", [3, 3], [{"id": "9.613-after-idle"}])
    assert "the ledger derives it" in refused.value.message
    assert refused.value.rule == "9.613"


def choose(refit: Refit, campaign: UUID, chit: str) -> None:
    """Both sides pick the same Initiative chit at 9.621, and the RePh moves on."""
    for side in ("British", "German"):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": chit})
    advance(refit, campaign)


def test_9_6202_ex_elr_drm_come_out_itemized_plus_7_british_plus_3_german(
        refit: Refit) -> None:
    # The EX's story, moved one CG Date on so that Campaign Exhaustion is +4 (RULES-GUIDE):
    # an Idle 21AM, a 21PM scenario both attacked in, the British inflicting 42 CVP and
    # the Germans 38, then the ELR rolls of 21EVE with British Ammunition Shortage Level 2.
    campaign = refit.commands.create_campaign("abtf", "I", "EX 9.6202", "entered",
                                              start_date="20N").id
    to_reph_step(refit, campaign, "9.621")  # 21AM
    choose(refit, campaign, "idle")
    to_reph_step(refit, campaign, "9.621")  # 21PM
    choose(refit, campaign, "attack")
    for side, cvp in (("German", 42), ("British", 38)):
        do(refit, campaign, {"type": "record_casualty", "side": side, "unit": "losses",
                             "cvp": cvp})
    to_reph_step(refit, campaign, "9.620")  # 21EVE
    do(refit, campaign, {"type": "change_level", "level": "ammo_shortage", "value": 2,
                         "cause": "as the EX says"})
    for side, elr in (("British", 5), ("German", 4)):
        # the story's own ELR rolls moved it
        if refit.store.campaign(campaign).points.elr[side] != elr:
            do(refit, campaign, {"type": "change_elr", "side": side, "value": elr,
                                 "cause": "as the EX says"})
    british = roll(refit, campaign, "9.6202", "British", [3, 3])
    german = roll(refit, campaign, "9.6202", "German", [3, 3])
    assert [d["value"] for d in british["drm"]] == [-1, 1, 1, 4, 2]
    assert sum(d["value"] for d in british["drm"]) == 7
    assert [d["value"] for d in german["drm"]] == [-1, 1, 1, 2]
    assert sum(d["value"] for d in german["drm"]) == 3
    assert [d["reason"] for d in german["drm"]] == [
        "Per 30 CVP (FRD) of enemy units Eliminated during the last CG Scenario",
        "Per CG Scenario since the last Idle CG Date",
        "Per Attack Chit selected by that side since the last Idle CG Date",
        "Campaign Exhaustion DRM (FRD) (German Only)"]
    assert (british["final"], british["result"]) == (13, "ELR -1")
    assert (german["final"], german["result"]) == (9, "No Change")
    assert refit.reads.elr(campaign).current == {"British": 4, "German": 4}
    assert refit.reads.elr(campaign).changes[-1].cause == \
        "9.6202 ELR Loss/Gain Chart: Final 13, ELR -1"


def test_9_6202_an_idle_date_since_the_last_scenario_is_minus_3(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Idle", "entered", start_date="19N").id
    to_reph_step(refit, campaign, "9.621")  # 20AM
    choose(refit, campaign, "idle")
    to_reph_step(refit, campaign, "9.620")  # 20PM: the Idle 20AM repeated 9.612-9.620
    rolled = roll(refit, campaign, "9.6202", "German", [4, 4])
    assert [(d["value"], d["reason"]) for d in rolled["drm"]] == [
        (-3, "Per Idle CG Date since the last CG Scenario"),
        (1, "Campaign Exhaustion DRM (FRD) (German Only)")]


def test_9_6201_is_not_rolled_before_19am(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Early", "entered", start_date="18AM").id
    to_reph_step(refit, campaign, "9.620")  # 18PM
    with pytest.raises(RuleViolation) as refused:
        roll(refit, campaign, "9.6201", "British", [5, 5])
    assert refused.value.rule == "9.6201" and "from 19AM on" in refused.value.message


def test_9_6201_raises_the_cg17_level_and_stops_at_five(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Ammo", "entered", start_date="19AM").id
    do(refit, campaign, {"type": "change_level", "level": "ammo_shortage", "value": 4,
                         "cause": "CG SSR"})
    to_reph_step(refit, campaign, "9.620")  # 19PM: Campaign Exhaustion +1
    roll(refit, campaign, "9.6201", "British", [5, 4])  # Final 10: one Level more
    assert refit.reads.status(campaign).levels == {"ammo_shortage": 5}
    assert refit.reads.roster(campaign)[-1].levels == {"ammo_shortage": 5}
    with pytest.raises(RuleViolation) as refused:  # once per CG Date
        roll(refit, campaign, "9.6201", "British", [6, 6])
    assert "once per CG Date" in refused.value.message
    to_reph_step(refit, campaign, "9.621")  # 19PM: on to 19EVE
    for side in ("British", "German"):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "attack"})
    advance(refit, campaign)  # the 19PM scenario
    to_reph_step(refit, campaign, "9.620")
    again = do(refit, campaign, {"type": "roll", "table": "9.6201", "side": "British",
                                 "dice": [6, 6]})
    assert [e["type"] for e in again.events] == ["DiceRolled"]  # no Level above Five


def test_9_6201_is_skipped_after_an_idle_date(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Idle ammo", "entered",
                                              start_date="19AM").id
    to_reph_step(refit, campaign, "9.621")  # 19PM
    for side in ("British", "German"):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "idle"})
    to_reph_step(refit, campaign, "9.620")  # 19EVE, after the Idle 19PM
    with pytest.raises(RuleViolation) as refused:
        roll(refit, campaign, "9.6201", "British", [5, 5])
    assert "previous CG Date was Idle" in refused.value.message


def test_a_result_that_moves_an_unrecorded_elr_is_refused(refit: Refit) -> None:
    # CG III has no parameters in the fixture, so no ELR is known until one is recorded.
    campaign = refit.commands.create_campaign("abtf", "III", "No ELR", "entered",
                                              start_date="20PM").id
    to_reph_step(refit, campaign, "9.620")
    with pytest.raises(RuleViolation) as refused:
        roll(refit, campaign, "9.6202", "German", [6, 6])  # Final 13: ELR -1
    assert refused.value.rule == "9.6202" and "record it first" in refused.value.message


def test_an_unknown_level_is_named(refit: Refit) -> None:
    campaign = at_step(refit, "9.620")
    with pytest.raises(InvalidCommand) as refused:
        do(refit, campaign, {"type": "change_level", "level": "water", "value": 1,
                             "cause": "CG21"})
    assert refused.value.field == "level"


def test_9_6182_ex_a_depleted_ss_rifle_pltn_rolls_for_each_sw(refit: Refit) -> None:
    chart = refit.store.module("abtf").sw_charts["German"].rows
    assert [(a.sw, a.count, a.depleted) for a in chart["I1"]] == [
        ("LMG", 1, 3), ("PSK/Lt. Mtr", 1, 2)]
    assert [(a.sw, a.count) for a in chart["I3"]] == [("LMG", 1)]  # the VG Pltn's one LMG
    campaign = at_step(refit, "9.617")
    line = with_rg(refit, campaign, "German", "I1", "K")
    roll(refit, campaign, "9.6181", "German", [6, 6], subject=line)  # Depleted
    which = roll(refit, campaign, "9.6182-psk", "German", [4], subject=line)
    assert which["result"] == "PSK"  # "Assume a 4 was rolled (making a PSK available)"

    def allot(k: int, die: int, target: int | None = None) -> dict[str, Any]:
        body = {"type": "roll", "table": "9.6182", "side": "German", "dice": [die],
                "subject": f"{line}/sw:{k}"}
        rolled = do(refit, campaign, body | ({"target": target} if target else {}))
        return dict(rolled.events[0]["data"])

    with pytest.raises(InvalidCommand) as given:  # the chart gives the number, not the player
        allot(1, 3, target=6)
    assert given.value.field == "target"
    assert allot(1, 3)["result"] == "SW received"  # the LMG on a dr <= 3
    psk = allot(2, 3)
    assert (psk["target"], psk["result"]) == (2, "SW not received")  # the PSK on a dr <= 2


def test_both_attack_chits_make_a_dual_assault_with_its_set_up_dr(refit: Refit) -> None:
    campaign = at_step(refit, "9.621")  # 18AM
    for side in ("British", "German"):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "attack"})
    assert refit.reads.roster(campaign)[-1].scenario_type == "Dual Assault"
    assert roll(refit, campaign, "9.62133", "German", [3])["result"] == "British sets up first"
    assert roll(refit, campaign, "9.6215", "German", [5])["result"] == "British moves first"
    line = refit.reads.roster(campaign, viewer="German")[-1]  # the drs are open
    assert (line.sets_up_first, line.moves_first) == ("British", "British")


def test_a_german_assault_has_the_british_set_up_first_and_the_germans_move_first(
        refit: Refit) -> None:
    campaign = at_step(refit, "9.621")  # 18AM
    do(refit, campaign, {"type": "select_initiative", "side": "British", "chit": "idle"})
    decided = do(refit, campaign, {"type": "select_initiative", "side": "German",
                                   "chit": "attack"}).events[-1]
    assert (decided["type"], decided["data"]["rule"]) == ("OrderDecided", "9.62133b")
    line = refit.reads.roster(campaign, viewer="British")[-1]
    assert (line.scenario_type, line.sets_up_first, line.moves_first) == (
        "German Assault", "British", "German")


def fortify(refit: Refit, campaign: UUID, side: str, item: str, count: int,
            amount: int) -> None:
    """Buy Fortifications at 9.619."""
    do(refit, campaign, {"type": "purchase_fortification", "side": side, "reason": item,
                         "count": count, "amount": amount})


@pytest.fixture
def at_9_619(refit: Refit) -> UUID:
    """An ABtF CG at 9.619 with FPP for both sides."""
    campaign = refit.commands.create_campaign("abtf", "I", "Forts", "server").id
    to_reph_step(refit, campaign, "9.619")  # FPP unspent at 9.619 are forfeit: credit here
    for side in ("British", "German"):
        do(refit, campaign, {"type": "credit_fpp", "side": side, "amount": 200,
                             "reason": "RG", "rule": "9.617"})
    return campaign


def test_9_619_a_p_factors_cost_each_side_its_own_fpp(refit: Refit, at_9_619: UUID) -> None:
    fortify(refit, at_9_619, "German", "A-P minefield factor", 4, 12)
    fortify(refit, at_9_619, "British", "a-p minefield factor", 2, 12)
    with pytest.raises(InvalidCommand) as refused:
        fortify(refit, at_9_619, "German", "A-P minefield factor", 2, 12)
    assert refused.value.field == "amount" and refused.value.rule == "9.619"
    cells = refit.reads.roster(at_9_619)[-1].sides
    assert cells["German"].fortifications == [
        {"item": "A-P minefield factor", "count": 4, "fpp": 12}]
    assert cells["British"].fpp == 188


def test_9_619_no_more_than_12_a_p_factors_per_cg_date(refit: Refit, at_9_619: UUID) -> None:
    fortify(refit, at_9_619, "German", "A-P minefield factor", 10, 30)
    with pytest.raises(RuleViolation) as refused:
        fortify(refit, at_9_619, "German", "A-P minefield factor", 3, 9)
    assert refused.value.message == ("German may buy at most 12 A-P minefield factor per CG "
                                     "Date (10 bought)")


def test_9_619_a_t_mines_and_breaches_are_british_wire_german(refit: Refit,
                                                               at_9_619: UUID) -> None:
    for side, item, amount, only in (("German", "A-T Mine factor", 4, "British"),
                                     ("German", "Breach", 5, "British"),
                                     ("British", "Wire", 10, "German")):
        with pytest.raises(RuleViolation) as refused:
            fortify(refit, at_9_619, side, item, 1, amount)
        assert refused.value.rule == "9.619"
        assert f"the table prices it for the {only} only" in refused.value.message
    fortify(refit, at_9_619, "British", "A-T Mine factor", 2, 8)
    with pytest.raises(RuleViolation):
        fortify(refit, at_9_619, "British", "A-T Mine factor", 1, 4)  # 2 per CG Date


def test_9_619_an_item_not_on_the_table_is_named(refit: Refit, at_9_619: UUID) -> None:
    with pytest.raises(InvalidCommand) as refused:
        fortify(refit, at_9_619, "German", "Pillbox", 1, 10)
    assert refused.value.field == "reason" and "not on the Fortification" in str(refused.value)


@pytest.mark.parametrize("table,side,dice,why", [
    ("9.6201", "German", [3, 3], "rolled by the British only"),
    ("9.6143", "British", [3], "rolled by the German only"),
    ("9.62133", "German", [3], "for a Dual Assault only"),
    ("CG4", "British", [3], "during a CG Scenario"),
])
def test_a_table_refuses_the_wrong_roller_or_moment(refit: Refit, table: str, side: str,
                                                     dice: list[int], why: str) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Who rolls", "entered",
                                              start_date="19AM").id
    to_reph_step(refit, campaign, {"9.62133": "9.621", "9.6143": "9.614"}.get(table, "9.620"))
    turn = {"subject": "turn:6"} if table == "CG4" else {}  # a Game End dr names its turn
    with pytest.raises(RuleViolation) as refused:
        do(refit, campaign, {"type": "roll", "table": table, "side": side, "dice": dice,
                             "target": 3} | turn)
    assert why in refused.value.message and refused.value.rule == table


def test_9_6122_needs_a_san_of_4_british_and_never_takes_it_below_2(refit: Refit) -> None:
    campaign = at_step(refit, "9.612")  # the fixture's CG I starts the British at SAN 3
    with pytest.raises(RuleViolation) as refused:
        roll(refit, campaign, "9.6122", "British", [6])
    assert "SAN is 4 or more" in refused.value.message
    do(refit, campaign, {"type": "change_san", "side": "British", "value": 4, "cause": "OB"})
    roll(refit, campaign, "9.6122", "British", [6])
    assert refit.store.campaign(campaign).points.san["British"] == 2


def test_only_the_germans_win_abtf_by_sudden_death(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Block H", "server").id
    advance_to(refit, campaign, None)
    with pytest.raises(RuleViolation) as refused:
        do(refit, campaign, {"type": "end_cg", "reason": "sudden_death", "side": "British"})
    assert "no Sudden Death Victory" in refused.value.message


def test_no_chits_before_an_initial_scenario(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Setup", "server").id
    with pytest.raises(RuleViolation):
        do(refit, campaign, {"type": "select_initiative", "side": "German", "chit": "idle"})


def test_a_secret_rolls_elr_change_names_its_table_not_its_dice(refit: Refit) -> None:
    campaign = at_step(refit, "9.620")
    do(refit, campaign, {"type": "change_elr", "side": "German", "value": 4, "cause": "OB"})
    do(refit, campaign, {"type": "roll", "table": "9.6202", "side": "German", "dice": [6, 6],
                         "secret": True})
    change = refit.reads.elr(campaign).changes[-1]
    assert (change.after, change.cause) == (3, "9.6202 ELR Loss/Gain Chart")


def test_setting_a_level_to_its_value_is_refused(refit: Refit) -> None:
    campaign = at_step(refit, "9.620")
    with pytest.raises(InvalidCommand):
        do(refit, campaign, {"type": "change_level", "level": "ammo_shortage", "value": 1,
                             "cause": "SSR"})  # the fixture's CG I starts at Level One


def test_9_6201_counts_british_attack_chits_beyond_the_first(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "Chits", "entered",
                                              start_date="18EVE").id
    for _ in range(2):  # attack on 18N and 19AM
        to_reph_step(refit, campaign, "9.621")
        for side in ("British", "German"):
            do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "attack"})
        advance(refit, campaign)
    to_reph_step(refit, campaign, "9.620")  # 19PM
    rolled = roll(refit, campaign, "9.6201", "British", [2, 2])
    # 18N, 19AM and the Initial Scenario's assumed British Attack chit of CG I (9.5): 3 - 1
    assert [d["value"] for d in rolled["drm"]] == [1, 2]
    assert rolled["drm"][1]["reason"].startswith("British Attack Chits selected")


def test_cg17_ex_level_two_lowers_a_british_b_number_by_one(refit: Refit) -> None:
    shortage = refit.store.module("abtf").levels["ammo_shortage"]
    two = shortage.penalty(2)
    assert two is not None and (two.b_change, two.elr_drm, two.elr_loss_dr) == (-1, 2, 12)
    assert shortage.reduced_b(10, 2) == 9  # EX: a British PIAT malfunctions on a TH DR of 9
    assert shortage.reduced_b(11, 2) == 10  # the 6pdr AT Gun's circled B# 11
    assert shortage.reduced_b(10, 5) is None  # Level Five: malfunction after first use
    assert shortage.reduced_b(10, 0) == 10  # no shortage, no change


def test_9_6054_a_stack_reads_the_infantry_column_and_a_tank_the_mobile_vehicle_one(
        refit: Refit) -> None:
    # 9.6054's two columns: 17N is Night (-1); a British squad alone (+1 per HS-equivalent
    # > 1 HS) Encircled (+2), and a German CT AFV (-2) three hexes out (+1 per two, FRU).
    campaign = at_step(refit, "9.605")
    stack = roll(refit, campaign, "9.6054-personnel", "British", [5, 4],
                 [{"id": "9.6054-p-hs", "count": 2}, {"id": "9.6054-p-encircled"}])
    assert (stack["final"], stack["result"]) == (11, "Escapes, Replaced(2,3), then Casualty "
                                                     "Reduced")
    tank = roll(refit, campaign, "9.6054-vehicle", "German", [4, 4],
                [{"id": "9.6054-v-ct-afv"}, {"id": "9.6054-v-hexes", "count": 3}])
    assert (tank["final"], tank["result"]) == (7, "Escapes")
    with pytest.raises(InvalidCommand) as refused:  # a dagger DRM is not the vehicle's
        roll(refit, campaign, "9.6054-vehicle", "German", [4, 4],
             [{"id": "9.6054-p-encircled"}])
    assert "9.6054-p-encircled" in refused.value.message


def test_the_escape_table_of_old_is_named_by_its_two_columns(refit: Refit) -> None:
    campaign = at_step(refit, "9.605")
    with pytest.raises(InvalidCommand) as old:
        roll(refit, campaign, "9.6054", "German", [5, 4], subject="unit:sq1")
    assert old.value.field == "table" and old.value.message == (
        "ABtF has no table '9.6054': its tables are 9.6054-personnel, 9.6054-vehicle")


def test_9_6054_a_unit_makes_one_escape_attempt_on_one_column(refit: Refit) -> None:
    # "Each still-Isolated unit must now attempt Escape": once, on its column's table.
    campaign = at_step(refit, "9.605")
    roll(refit, campaign, "9.6054-personnel", "German", [5, 4], subject="unit:sq1")
    with pytest.raises(RuleViolation) as again:
        roll(refit, campaign, "9.6054-vehicle", "German", [1, 1], subject="unit:sq1")
    assert again.value.rule == "9.6054" and "one attempt" in again.value.message
    roll(refit, campaign, "9.6054-vehicle", "German", [1, 1], subject="unit:stug")  # another


@pytest.mark.parametrize("table,dice,follows", [
    ("9.6054-vehicle", [6, 5], True), ("9.6054-vehicle", [5, 5], False)])
def test_9_60541_follows_a_vehicle_or_crew_eliminated_not_one_abandoned(
        refit: Refit, table: str, dice: list[int], follows: bool) -> None:
    # Mobile Vehicle column: Final 10 "Eliminated", Final 9 "Abandoned; crew Escapes".
    campaign = at_step(refit, "9.605")
    roll(refit, campaign, table, "German", dice, subject="unit:stug")
    body = {"type": "roll", "table": "9.60541", "side": "German", "dice": [2],
            "subject": "unit:stug"}
    if follows:
        assert do(refit, campaign, body).events[0]["data"]["result"].startswith("Equipment left")
    else:
        with pytest.raises(RuleViolation):
            do(refit, campaign, body)


@pytest.mark.parametrize("dice,follows", [([5, 5], True), ([4, 5], False)])
def test_9_60541_a_unit_replaced_while_escaping_may_lose_its_equipment(
        refit: Refit, dice: list[int], follows: bool) -> None:
    # 9.6054 note 2: a unit Replaced "which would otherwise become Disrupted, is Eliminated
    # instead"; 9.60541: Equipment of a unit "Eliminated (via Replacement/Casualty-
    # Reduction) while escaping" is Eliminated on a dr of 4-6. 17N is Night: -1.
    campaign = at_step(refit, "9.605")
    escaped = roll(refit, campaign, "9.6054-personnel", "British", dice, subject="unit:crew-6pdr")
    assert escaped["final"] == (9 if follows else 8)
    body = {"type": "roll", "table": "9.60541", "side": "British", "dice": [5],
            "subject": "unit:crew-6pdr"}
    if follows:
        assert do(refit, campaign, body).events[0]["data"]["result"] == "Equipment Eliminated"
    else:
        with pytest.raises(RuleViolation) as refused:
            do(refit, campaign, body)
        assert "is rolled only after" in refused.value.message
