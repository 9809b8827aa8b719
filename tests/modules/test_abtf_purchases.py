"""ABtF purchases (9.617-9.618): CG22 attack coordination with its EXs, rolls written on the
RG Purchase Record, and the 9.616 CPP replenishment credited by its own DR."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.errors import InvalidCommand, RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import advance_to, do, load_abtf_owner_data, rg_subject, to_reph_step


@pytest.fixture(autouse=True)
def owner_data(refit: Refit) -> None:
    """The ABtF RG charts and CG parameters an owner would load (EX costs, else fictitious)."""
    load_abtf_owner_data(refit)


def buy(refit: Refit, campaign: UUID, rg: str, kg: str | None = None,
        side: str = "German") -> dict[str, Any]:
    """Purchase one RG; its RGPurchased data."""
    body = {"type": "purchase_rg", "side": side, "rg": rg} | ({"kg": kg} if kg else {})
    data: dict[str, Any] = do(refit, campaign, body).events[0]["data"]
    return data


def with_cpp(refit: Refit, campaign: UUID, amount: int, side: str = "German") -> None:
    """Credit the CPP a worked example starts from."""
    do(refit, campaign, {"type": "credit_cpp", "side": side, "amount": amount,
                         "reason": "CPP available in the EX"})


@pytest.fixture
def at_purchase(refit: Refit) -> UUID:
    """An ABtF CG I at 9.617 of 18AM, dice typed in."""
    campaign = refit.commands.create_campaign("abtf", "I", "Arnhem", "entered").id
    to_reph_step(refit, campaign, "9.617")
    return campaign


def test_cg22_ex_one_i_and_one_a_from_three_kgs_frees_a_second_i_for_harder(
        refit: Refit, at_purchase: UUID) -> None:
    replenished = refit.store.campaign(at_purchase).points.cpp["German"]  # 9.616 on 18AM
    with_cpp(refit, at_purchase, 38)
    for rg, kg in [("I1", "K"), ("A3", "K"), ("I2", "B"), ("A4", "B"),
                   ("I6", "H"), ("A5", "H"), ("I7", "H")]:
        buy(refit, at_purchase, rg, kg)
    assert refit.store.campaign(at_purchase).points.cpp["German"] == replenished + 38 - 35


def test_cg22_ex_without_knaust_the_second_harder_i_is_refused(
        refit: Refit, at_purchase: UUID) -> None:
    with_cpp(refit, at_purchase, 38)
    for rg, kg in [("I2", "B"), ("A4", "B"), ("I6", "H"), ("A5", "H")]:
        buy(refit, at_purchase, rg, kg)
    error = refused(refit, at_purchase,
                    {"type": "purchase_rg", "side": "German", "rg": "I7", "kg": "H"})
    assert isinstance(error, RuleViolation) and error.rule == "CG22"
    assert "KG Harder" in error.message and "KG Brinkmann" in error.message


def test_cg22_ex_a_kg_with_no_i_left_counts_once_it_buys_an_a(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "EX 2", "entered").id
    advance_to(refit, campaign, "9.617")  # 17N, the Initial Scenario's purchases
    with_cpp(refit, campaign, 3)
    buy(refit, campaign, "I6", "H")
    to_reph_step(refit, campaign, "9.617")  # 18AM
    with_cpp(refit, campaign, 4)
    buy(refit, campaign, "I7", "H")  # KG Harder has bought every I RG it has
    to_reph_step(refit, campaign, "9.617")  # 18PM
    with_cpp(refit, campaign, 36)
    for rg, kg in [("I1", "K"), ("A4", "K"), ("I2", "B"), ("A3", "B")]:
        buy(refit, campaign, rg, kg)
    early = refused(refit, campaign, {"type": "purchase_rg", "side": "German", "rg": "I3",
                                      "kg": "K"})
    assert isinstance(early, RuleViolation) and early.rule == "CG22"
    buy(refit, campaign, "A6", "H")  # fulfils the Attack Coordination Requirement
    buy(refit, campaign, "I3", "K")  # "free to expend the remaining CPP as he sees fit"


def test_cg22_never_holds_back_a_gun_rg(refit: Refit, at_purchase: UUID) -> None:
    with_cpp(refit, at_purchase, 20)
    buy(refit, at_purchase, "I1", "K")
    held = refused(refit, at_purchase,
                   {"type": "purchase_rg", "side": "German", "rg": "I3", "kg": "K"})
    assert isinstance(held, RuleViolation) and held.rule == "CG22"  # no KG has coordinated
    first = buy(refit, at_purchase, "G9", "G")
    second = buy(refit, at_purchase, "G9", "G")  # Gun and General RG: only their maximums apply
    assert (first["number"], second["number"]) == (1, 2)
    assert [(r.rg, r.kg, r.p) for r in refit.reads.purchase_record(at_purchase)
            if r.side == "German" and r.group_type == "G"] == [("G9", "G", 1), ("G9", "G", 2)]


def test_a_german_rg_names_its_kg_and_the_kg_must_have_it(refit: Refit,
                                                          at_purchase: UUID) -> None:
    with_cpp(refit, at_purchase, 20)
    missing = refused(refit, at_purchase, {"type": "purchase_rg", "side": "German", "rg": "I1"})
    assert isinstance(missing, InvalidCommand) and missing.field == "kg"
    assert "KG Harder" in missing.message
    wrong = refused(refit, at_purchase,
                    {"type": "purchase_rg", "side": "German", "rg": "I6", "kg": "K"})
    assert isinstance(wrong, RuleViolation) and "KG Knaust has no I6" in wrong.message
    british = refused(refit, at_purchase,
                      {"type": "purchase_rg", "side": "British", "rg": "I1", "kg": "K"})
    assert isinstance(british, InvalidCommand) and british.field == "kg"


def test_german_maximums_count_per_kg(refit: Refit, at_purchase: UUID) -> None:
    with_cpp(refit, at_purchase, 20)
    first = buy(refit, at_purchase, "I1", "K")
    other = buy(refit, at_purchase, "I1", "B")  # CG Date max 1 is KG Knaust's, not Brinkmann's
    assert (first["number"], other["number"]) == (1, 1)
    error = refused(refit, at_purchase,
                    {"type": "purchase_rg", "side": "German", "rg": "I1", "kg": "K"})
    assert isinstance(error, RuleViolation) and "I1 for K: CG Date max 1" in error.message
    rows = [r for r in refit.reads.purchase_record(at_purchase) if r.side == "German"]
    assert [(r.rg, r.kg, r.p, r.r) for r in rows] == [("I1", "K", 1, 2), ("I1", "B", 1, 2)]


def roll_for(refit: Refit, campaign: UUID, table: str, purchase: int, dice: list[int],
             side: str = "German", sw: str | None = None) -> dict[str, Any]:
    """A roll made for one RG of the purchase record (`sw`: the SW a 9.6182 dr is for);
    its DiceRolled data."""
    body = {"type": "roll", "table": table, "side": side, "dice": dice,
            "subject": rg_subject(refit, campaign, table, purchase, sw=sw)}
    data: dict[str, Any] = do(refit, campaign, body).events[0]["data"]
    return data


@pytest.fixture
def ss_rifle_pltn(refit: Refit, at_purchase: UUID) -> UUID:
    """18AM: KG Knaust has bought an I1 (SS Rifle Pltn, #3) and an A3 (#4); the RePh is at
    9.618. Lines #1 and #2 are the British I1 and I2 that 9.6152 gives on 18AM."""
    with_cpp(refit, at_purchase, 20)
    buy(refit, at_purchase, "I1", "K")
    buy(refit, at_purchase, "A3", "K")
    advance_to(refit, at_purchase, "9.618")
    return at_purchase


def test_a_full_rg_gets_its_units_and_every_sw_with_the_psk_dr_deciding_the_type(
        refit: Refit, ss_rifle_pltn: UUID) -> None:
    roll_for(refit, ss_rifle_pltn, "9.6181", 3, [3, 4])  # 7 + 0 (18AM exhaustion 0): Full
    line = refit.reads.purchase_record(ss_rifle_pltn)[2]
    assert (line.strength, line.units, line.sw) == ("F", "4x 6-5-8", ["LMG", "PSK/Lt. Mtr"])
    roll_for(refit, ss_rifle_pltn, "9.6182-psk", 3, [5])  # 3-6: PSK
    assert refit.reads.purchase_record(ss_rifle_pltn)[2].sw == ["LMG", "PSK"]


def test_9_6182_ex_a_depleted_ss_rifle_pltn_rolls_for_each_sw_against_its_number(
        refit: Refit, ss_rifle_pltn: UUID) -> None:
    roll_for(refit, ss_rifle_pltn, "9.6181", 3, [5, 5])  # 10: Depleted
    assert refit.reads.purchase_record(ss_rifle_pltn)[2].units == "3x 6-5-8"
    too_early = refused(refit, ss_rifle_pltn, {"type": "roll", "table": "9.6182",
                                               "side": "German", "dice": [1],
                                               "subject": "rg:3/sw:2"})  # PSK/Lt. Mtr
    assert isinstance(too_early, RuleViolation) and "9.6182-psk first" in too_early.message
    roll_for(refit, ss_rifle_pltn, "9.6182-psk", 3, [4])  # EX: type dr 4, PSK
    lmg = roll_for(refit, ss_rifle_pltn, "9.6182", 3, [3], sw="LMG")  # <= 3: received
    psk = roll_for(refit, ss_rifle_pltn, "9.6182", 3, [3], sw="PSK")  # > 2: not received
    assert (lmg["target"], lmg["result"]) == (3, "SW received")
    assert (psk["target"], psk["result"]) == (2, "SW not received")
    assert refit.reads.purchase_record(ss_rifle_pltn)[2].sw == ["LMG"]


def test_leader_and_composition_rolls_land_on_the_rg_record(refit: Refit,
                                                            ss_rifle_pltn: UUID) -> None:
    early = refused(refit, ss_rifle_pltn, {"type": "roll", "table": "9.6183-german",
                                           "side": "German", "subject": "rg:3/leader:1",
                                           "dice": [2, 1]})
    assert isinstance(early, RuleViolation) and "roll its strength first" in early.message
    roll_for(refit, ss_rifle_pltn, "9.6181", 3, [3, 4])  # 7: Full
    roll_for(refit, ss_rifle_pltn, "9.6183-german", 3, [2, 1])  # 3: 9-2
    roll_for(refit, ss_rifle_pltn, "9.6184-A3", 4, [3])  # dr 3: PzKpfw VIE(L) x2
    rows = refit.reads.purchase_record(ss_rifle_pltn)
    assert rows[2].leader == "9-2" and rows[3].composition == "PzKpfw VIE(L) x2"
    wrong = refused(refit, ss_rifle_pltn, {"type": "roll", "table": "9.6184-A2",
                                           "side": "German", "dice": [1], "subject": "rg:4"})
    assert isinstance(wrong, RuleViolation) and wrong.rule == "9.6184"


def test_the_other_side_sees_neither_the_strength_nor_its_roll(refit: Refit,
                                                               ss_rifle_pltn: UUID) -> None:
    roll_for(refit, ss_rifle_pltn, "9.6181", 3, [5, 5])
    british = refit.reads.purchase_record(ss_rifle_pltn, viewer="British")
    assert british[2].hidden and british[2].strength is None
    assert refit.reads.rolls(ss_rifle_pltn, viewer="British")[-1].dice is None


def test_9_6184_is_not_rolled_for_kg_graebners_a4(refit: Refit, at_purchase: UUID) -> None:
    with_cpp(refit, at_purchase, 20)
    buy(refit, at_purchase, "A4", "G")
    advance_to(refit, at_purchase, "9.618")
    error = refused(refit, at_purchase, {"type": "roll", "table": "9.6184-A4",
                                         "side": "German", "dice": [1], "subject": "rg:3"})
    assert isinstance(error, RuleViolation) and "KG G" in error.message


def test_9_616_credits_the_cpp_base_plus_the_secret_dr_once_per_date(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "CPP", "entered").id
    to_reph_step(refit, campaign, "9.616")  # 18AM: British Base # 20
    roll = do(refit, campaign, {"type": "roll", "table": "9.6162", "side": "British",
                                "dice": [4, 4]})
    credited = roll.events[1]["data"]
    assert (credited["amount"], credited["reason"]) == (28, "CPP Base # 20 + DR 8")
    assert refit.store.campaign(campaign).points.cpp["British"] == 28
    again = refused(refit, campaign, {"type": "roll", "table": "9.6162", "side": "British",
                                      "dice": [1, 1]})
    assert isinstance(again, RuleViolation) and "once per CG Date" in again.message
    assert refit.reads.roster(campaign, viewer="German")[-1].sides["British"].cpp_credited is None


def test_an_rgs_result_is_found_once_so_no_roll_can_be_fished_again(
        refit: Refit, ss_rifle_pltn: UUID) -> None:
    roll_for(refit, ss_rifle_pltn, "9.6181", 3, [5, 5])  # Depleted
    again = refused(refit, ss_rifle_pltn, {"type": "roll", "table": "9.6181", "side": "German",
                                           "dice": [1, 1], "subject": "rg:3"})
    assert isinstance(again, RuleViolation) and "already has its strength: D" in again.message
    tank = refused(refit, ss_rifle_pltn, {"type": "roll", "table": "9.6181", "side": "German",
                                          "dice": [1, 1], "subject": "rg:4"})
    assert isinstance(tank, RuleViolation) and "not subject to Depletion" in tank.message
    roll_for(refit, ss_rifle_pltn, "9.6182", 3, [6], sw="LMG")  # one LMG, one dr
    second = refused(refit, ss_rifle_pltn, {"type": "roll", "table": "9.6182",
                                            "side": "German", "dice": [1],
                                            "subject": "rg:3/sw:1"})  # its LMG again
    assert isinstance(second, RuleViolation) and "has been rolled for rg:3/sw:1" in \
        second.message
    roll_for(refit, ss_rifle_pltn, "9.6182-psk", 3, [5])
    type_again = refused(refit, ss_rifle_pltn, {"type": "roll", "table": "9.6182-psk",
                                                "side": "German", "dice": [1],
                                                "subject": "rg:3"})
    assert isinstance(type_again, RuleViolation) and "already has its PSK/Lt. Mtr: PSK" in \
        type_again.message
    unnamed = refused(refit, ss_rifle_pltn, {"type": "roll", "table": "9.6182",
                                             "side": "German", "dice": [1],
                                             "subject": "rg:3"})
    assert isinstance(unnamed, InvalidCommand) and unnamed.field == "subject"
    beyond = refused(refit, ss_rifle_pltn, {"type": "roll", "table": "9.6182",
                                            "side": "German", "dice": [1],
                                            "subject": "rg:3/sw:3"})
    assert isinstance(beyond, RuleViolation) and "lists 2 SW" in beyond.message


def test_an_rgs_rolls_belong_to_its_cg_date(refit: Refit, ss_rifle_pltn: UUID) -> None:
    roll_for(refit, ss_rifle_pltn, "9.6181", 3, [1, 1])
    advance_to(refit, ss_rifle_pltn, "9.621")
    for side in ("British", "German"):
        do(refit, ss_rifle_pltn, {"type": "select_initiative", "side": side, "chit": "attack"})
    advance_to(refit, ss_rifle_pltn, None)  # the 18AM scenario
    to_reph_step(refit, ss_rifle_pltn, "9.618")  # 18PM
    late = refused(refit, ss_rifle_pltn, {"type": "roll", "table": "9.6183-german",
                                          "side": "German", "dice": [1, 1],
                                          "subject": "rg:3/leader:1"})
    assert isinstance(late, RuleViolation) and "came on 18AM" in late.message


def test_a_roll_for_an_rg_is_as_secret_as_the_rg(refit: Refit, ss_rifle_pltn: UUID) -> None:
    roll_for(refit, ss_rifle_pltn, "9.6184-A3", 4, [3])  # a public table, a secret RG
    shown = refit.reads.rolls(ss_rifle_pltn, viewer="British")[-1]
    assert shown.hidden and shown.result is None


def test_a_hit_and_a_miss_leave_the_same_sealed_trace(refit: Refit,
                                                      ss_rifle_pltn: UUID) -> None:
    roll_for(refit, ss_rifle_pltn, "9.6181", 3, [5, 5])  # Depleted
    hit = do(refit, ss_rifle_pltn, {"type": "roll", "table": "9.6182", "side": "German",
                                    "dice": [1], "subject": "rg:3/sw:1"}).events  # LMG
    roll_for(refit, ss_rifle_pltn, "9.6182-psk", 3, [5])
    miss = do(refit, ss_rifle_pltn, {"type": "roll", "table": "9.6182", "side": "German",
                                     "dice": [6], "subject": "rg:3/sw:2"}).events  # PSK
    assert [e["type"] for e in hit] == [e["type"] for e in miss] == [
        "DiceRolled", "RGDetermined"]
    assert all(e["sealed"] for e in hit + miss)


def test_an_owners_fpp_rg_credits_its_fpp_as_it_is_bought_sealed_like_the_rg(
        refit: Refit, at_purchase: UUID) -> None:
    with_cpp(refit, at_purchase, 5)
    events = do(refit, at_purchase, {"type": "purchase_rg", "side": "German", "rg": "M9",
                                     "kg": "K"}).events
    assert [(e["type"], e["data"].get("amount"), e["data"].get("rule")) for e in events] == [
        ("RGPurchased", None, None), ("FPPCredited", 10, "9.617")]
    assert events[1]["sealed"] is not None
    assert refit.store.campaign(at_purchase).points.fpp["German"] == 20 + 10  # 9.6152's 20
