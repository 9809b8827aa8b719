"""PBr's numbers on what a side Retains and sets up, each refused with its rule and
appending nothing: HIP for at most 10% (FRU) of the Retained squads (3.619 b), FT/DC kept
after a usage DR <= 10, 1 FT/3 and 1 DC/elite squad per Area (3.61427), A-T mines only
while an airborne MMC is Retained (3.619 d), a Trench only where a Foxhole was (3.619 e),
and at most 3 leaders, 9 squad-equivalents and 1 SW Retained off map (3.60742)."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from api.forms import roster_csv
from domain.errors import InvalidCommand, RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import advance_to, do, to_reph_step

AXIS, BRITISH = "Axis", "British"


def at(refit: Refit, step: str) -> UUID:
    """A PBr CG I campaign in the RePh after the 14AM scenario (14PM from 3.612 on)."""
    campaign = refit.commands.create_campaign("pbr", "I", "Bénouville", "entered").id
    to_reph_step(refit, campaign, step)
    return campaign


def mmc(count: int, kind: str = "squad", area: str = "A1", **flags: Any) -> dict[str, Any]:
    """A line of Retained MMC (6-5-8 British paras unless said otherwise)."""
    return {"unit": "6-5-8" if kind == "squad" else "3-4-8", "kind": kind, "count": count,
            "area": area} | flags


def retain(refit: Refit, campaign: UUID, side: str, *units: dict[str, Any]) -> None:
    """The side records its Retained units (it sends them itself)."""
    do(refit, campaign, {"type": "retain_units", "side": side, "units": list(units)}, side)


def refused_retain(refit: Refit, campaign: UUID, side: str,
                   *units: dict[str, Any]) -> Exception:
    """The side's Retained units, refused."""
    return refused(refit, campaign, {"type": "retain_units", "side": side,
                                     "units": list(units)})


# -- 3.619 b: HIP ---------------------------------------------------------------------

def test_3_619_b_twelve_retained_squads_let_two_use_hip_in_a_daytime_scenario(
        refit: Refit) -> None:
    campaign = at(refit, "3.619")  # 14PM: a daytime CG Scenario
    error = refused_retain(refit, campaign, BRITISH, mmc(9), mmc(3, hip=True))
    assert isinstance(error, RuleViolation) and error.rule == "3.619"
    assert "12 squad-equivalents allow 2, not 3" in error.message  # 10% of 12 = 1.2, FRU 2
    retain(refit, campaign, BRITISH, mmc(10), mmc(2, hip=True))
    assert sum(u["count"] for u in refit.store.campaign(campaign).retained.units(BRITISH)
               if u["hip"]) == 2


def test_3_619_b_a_half_squad_counts_half_a_squad_retained_and_hidden(refit: Refit) -> None:
    campaign = at(refit, "3.619")
    # 10 + 2 squads and 2 HS Retained: 13 squad-equivalents, 10% FRU 2; hidden 2 + 1 = 3
    error = refused_retain(refit, campaign, AXIS, mmc(10), mmc(2, hip=True),
                           mmc(2, "HS", hip=True))
    assert isinstance(error, RuleViolation) and "allow 2, not 3" in error.message
    retain(refit, campaign, AXIS, mmc(10), mmc(1, hip=True), mmc(2, "HS", hip=True))


def test_3_619_b_leaders_and_sw_set_up_with_hip_units_are_not_counted(refit: Refit) -> None:
    campaign = at(refit, "3.619")
    retain(refit, campaign, BRITISH, mmc(9), mmc(1, hip=True),
           {"unit": "8-1 leader", "kind": "leader", "count": 1, "area": "A1", "hip": True},
           {"unit": "PIAT", "kind": "SW", "count": 1, "area": "A1", "hip": True})


def test_3_619_b_sets_no_limit_for_a_night_scenario(refit: Refit) -> None:
    campaign = at(refit, "3.621")
    for side in (AXIS, BRITISH):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "attack"})
    advance_to(refit, campaign, None)
    to_reph_step(refit, campaign, "3.606")  # 14PM's RePh: its units set up for 14N
    retain(refit, campaign, BRITISH, mmc(5), mmc(5, hip=True))


def test_3_619_b_a_hip_unit_must_say_what_it_is(refit: Refit) -> None:
    campaign = at(refit, "3.619")
    error = refused_retain(refit, campaign, BRITISH, mmc(10),
                           {"unit": "6-5-8", "count": 1, "area": "A1", "hip": True})
    assert isinstance(error, InvalidCommand) and error.rule == "3.619"
    assert "`kind`" in error.message and error.field == "units"


# -- 3.61427: FT/DC --------------------------------------------------------------------

def ft_dc(weapon: str, usage_dr: int, count: int = 1, area: str = "A1") -> dict[str, Any]:
    """An FT or DC removed in the scenario, Retained after its usage DR (3.61427)."""
    return {"unit": weapon, "kind": "SW", "weapon": weapon, "usage_dr": usage_dr,
            "count": count, "area": area}


def test_3_61427_an_ft_removed_by_a_usage_dr_above_10_is_not_retained(refit: Refit) -> None:
    campaign = at(refit, "3.614")
    error = refused_retain(refit, campaign, BRITISH, mmc(3, elite=True), ft_dc("FT", 11))
    assert isinstance(error, RuleViolation) and error.rule == "3.61427"
    assert "usage DR of 11" in error.message
    retain(refit, campaign, BRITISH, mmc(3, elite=True), ft_dc("FT", 10))


def test_3_61427_one_ft_per_three_and_one_dc_per_elite_squad_in_each_area(
        refit: Refit) -> None:
    campaign = at(refit, "3.614")
    two_ft = refused_retain(refit, campaign, BRITISH, mmc(5, elite=True), ft_dc("FT", 7, 2))
    assert isinstance(two_ft, RuleViolation) and "A1 has 5 elite squads, so 1 FT, not 2" \
        in two_ft.message
    not_elite = refused_retain(refit, campaign, BRITISH, mmc(2, elite=True), mmc(4),
                               ft_dc("DC", 4, 3))
    assert isinstance(not_elite, RuleViolation) and "so 2 DC, not 3" in not_elite.message
    other_area = refused_retain(refit, campaign, BRITISH, mmc(3, elite=True),
                                ft_dc("FT", 6, area="A2"))
    assert isinstance(other_area, RuleViolation) and "A2 has 0 elite squads" \
        in other_area.message
    retain(refit, campaign, BRITISH, mmc(3, elite=True), ft_dc("FT", 7), ft_dc("DC", 5, 3),
           {"unit": "FT", "kind": "SW", "weapon": "FT", "count": 1, "area": "A1"})


# -- 3.619 d and e ---------------------------------------------------------------------

def with_fpp(refit: Refit, step: str = "3.619") -> UUID:
    """At 3.619 on 14PM with 60 FPP a side."""
    campaign = at(refit, step)
    if step != "3.619":
        return campaign
    for side in (AXIS, BRITISH):
        do(refit, campaign, {"type": "credit_fpp", "side": side, "amount": 60,
                             "reason": "M3 Fortification RG"})
    return campaign


def mines(count: int = 1) -> dict[str, Any]:
    """The British buy A-T Mine factors (3 FPP each)."""
    return {"type": "purchase_fortification", "side": BRITISH, "amount": 3 * count,
            "reason": "A-T Mine factor", "count": count}


def offered(refit: Refit, campaign: UUID, side: str) -> dict[str, list[str]]:
    """The Fortifications the side's guide offers it now, each with the hexes it may go
    in (the page's Fortification form lists these)."""
    part = refit.reads.guide(campaign, viewer=side)["sides"][side]
    forts = [work for work in part["optional"] if work["purchase"] == "fortification"]
    return {row["item"]: row["hexes"] for fort in forts for row in fort["items"]}


def test_3_619_d_at_mines_only_while_an_airborne_mmc_is_retained(refit: Refit) -> None:
    campaign = with_fpp(refit)
    assert "Foxhole (2-squad)" in offered(refit, campaign, BRITISH)
    assert "A-T Mine factor" not in offered(refit, campaign, BRITISH)
    error = refused(refit, campaign, mines())
    assert isinstance(error, RuleViolation) and error.rule == "3.619"
    assert "note d" in error.message and "airborne MMC" in error.message
    retain(refit, campaign, BRITISH, mmc(4))  # not airborne
    assert isinstance(refused(refit, campaign, mines()), RuleViolation)
    retain(refit, campaign, BRITISH, mmc(4), mmc(1, "HS", airborne=True))
    assert offered(refit, campaign, BRITISH)["A-T Mine factor"] == []
    do(refit, campaign, mines(2), BRITISH)


def foxhole(hex_: str) -> dict[str, Any]:
    """A Foxhole the side set up, on its roster of Retained Fortifications."""
    return {"unit": "Foxhole 2S", "count": 1, "area": "A1", "fortification": True,
            "item": "Foxhole (2-squad)", "hex": hex_}


def trench(hex_: str | None) -> dict[str, Any]:
    """The Axis buy a Trench (10 FPP) for a hex."""
    return {"type": "purchase_fortification", "side": AXIS, "amount": 10,
            "reason": "Trench"} | ({"hex": hex_} if hex_ else {})


def test_3_619_e_a_trench_only_in_a_hex_that_held_a_foxhole_on_the_previous_cg_date(
        refit: Refit) -> None:
    campaign = at(refit, "3.606")  # still 14AM: the roster of the previous CG Date
    retain(refit, campaign, AXIS, mmc(4), foxhole("Q16"))
    advance_to(refit, campaign, "3.619")  # 14PM
    for side in (AXIS, BRITISH):
        do(refit, campaign, {"type": "credit_fpp", "side": side, "amount": 60,
                             "reason": "M3 Fortification RG"})
    retain(refit, campaign, AXIS, mmc(4), foxhole("Q16"), foxhole("R17"))  # R17: new today
    assert offered(refit, campaign, AXIS)["Trench"] == ["Q16"]
    no_hex = refused(refit, campaign, trench(None))
    assert isinstance(no_hex, InvalidCommand) and no_hex.field == "hex"
    assert no_hex.message == "a Trench (note e) is bought one at a time for the hex it is " \
        "placed in (give the hex, count 1)" and no_hex.rule == "3.619"
    error = refused(refit, campaign, trench("R17"))
    assert isinstance(error, RuleViolation) and error.rule == "3.619"
    assert "note e" in error.message and "R17 did not" in error.message
    do(refit, campaign, trench("Q16"), AXIS)
    assert "Trench" not in offered(refit, campaign, AXIS)  # its one Foxhole is dug in
    again = refused(refit, campaign, trench("Q16"))  # "the foxhole is removed"
    assert isinstance(again, RuleViolation) and again.rule == "3.619"
    assert "Q16 has its Trench already" in again.message
    (line,) = [row for row in refit.reads.roster(campaign, viewer=AXIS) if row.cg_date == "14PM"]
    assert {"item": "Trench", "count": 1, "fpp": 10, "hex": "Q16"} in \
        (line.sides[AXIS].fortifications or [])  # 3.6222: its hex on the Axis's roster
    assert "Trench in Q16 10 FPP" in roster_csv(refit.reads.roster(campaign, viewer=AXIS))
    # The hexes stay the Axis's own: on every read the British have, none shows.
    roster = refit.reads.roster(campaign, viewer=BRITISH)
    retained = refit.reads.retained(campaign, viewer=BRITISH)
    exported = [{k: v for k, v in line.items() if k != "checkpoint"}  # base64, public
                for line in refit.transfer.export(campaign, viewer=BRITISH)]
    shown = json.dumps([*exported, *(row.model_dump() for row in [*roster, *retained])])
    assert "Q16" not in shown and "R17" not in shown


def test_a_retained_fortification_names_a_line_of_the_table(refit: Refit) -> None:
    campaign = at(refit, "3.606")
    error = refused_retain(refit, campaign, AXIS, foxhole("Q16") | {"item": "Bunker"})
    assert isinstance(error, InvalidCommand) and error.rule == "3.619"


# -- 3.60742: withdrawal ---------------------------------------------------------------

def withdraw(*units: dict[str, Any], side: str = AXIS, rule: str = "3.60742",
             off_map: bool = True) -> dict[str, Any]:
    """A withdrawal the rule orders, its units by kind and count."""
    return {"type": "withdraw_units", "side": side, "rule": rule, "units": list(units),
            "retained_off_map": off_map}


def kind(name: str, count: int = 1, **flags: Any) -> dict[str, Any]:
    """Withdrawn units of one kind."""
    return {"kind": name, "count": count} | flags


def after_14pm(refit: Refit) -> UUID:
    """A PBr CG I opened at 14PM, at 3.607 of the RePh after its scenario: 3.60741 orders
    the British withdrawal after 14PM (on the map's conditions) or 14N."""
    campaign = refit.commands.create_campaign("pbr", "I", "Bénouville", "entered",
                                              start_date="14PM").id
    to_reph_step(refit, campaign, "3.607")
    return campaign


def test_3_60741_no_withdrawal_is_ordered_after_14am_nor_under_a_rule_the_module_lacks(
        refit: Refit) -> None:
    early = refused(refit, at(refit, "3.607"), withdraw(kind("squad"), side=BRITISH,
                                                        rule="3.60741", off_map=False))
    assert isinstance(early, RuleViolation) and early.rule == "3.60741"
    assert "in the RePh after the 14PM or 14N CG Scenario, not now (14AM)" in early.message
    made_up = refused(refit, after_14pm(refit), withdraw(kind("squad"), side=BRITISH,
                                                         rule="3.6074 x", off_map=False))
    assert isinstance(made_up, InvalidCommand) and (made_up.field, made_up.rule) == (
        "rule", "3.60741")
    assert "the British withdraws under 3.60741, not '3.6074 x'" in made_up.message


def test_3_60742_three_leaders_nine_squad_equivalents_and_one_sw_are_retained_off_map(
        refit: Refit) -> None:
    campaign = after_14pm(refit)
    leaders = refused(refit, campaign, withdraw(kind("leader", 4)))
    assert isinstance(leaders, RuleViolation) and leaders.rule == "3.60742"
    assert "4 leaders (most 3)" in leaders.message
    weapons = refused(refit, campaign, withdraw(kind("SW", 2)))
    assert isinstance(weapons, RuleViolation) and "2 non-captured SW" in weapons.message
    do(refit, campaign, withdraw(kind("leader", 3), kind("squad", 8), kind("HS", 2),
                                 kind("SW"), kind("SW", captured=True)))
    # The 9 squad-equivalents are full: a half-squad more is removed from play instead.
    more = refused(refit, campaign, withdraw(kind("HS")))
    assert isinstance(more, RuleViolation)
    assert "9.5 squad-equivalents of MMC, 9 of them recorded before (most 9)" in more.message
    do(refit, campaign, withdraw(kind("squad", 4), off_map=False))  # removed from play


def test_3_60741_british_withdrawal_keeps_nothing_and_is_not_limited(refit: Refit) -> None:
    campaign = after_14pm(refit)
    do(refit, campaign, withdraw(kind("squad", 20), kind("leader", 5), side=BRITISH,
                                 rule="3.60741", off_map=False))


def test_withdrawn_units_are_listed_by_kind_not_as_text(refit: Refit) -> None:
    campaign = after_14pm(refit)
    error = refused(refit, campaign, {"type": "withdraw_units", "side": AXIS,
                                      "units": "I4, I5", "rule": "3.60742"})
    assert "units" in str(error)
    do(refit, campaign, withdraw(kind("squad", 2, unit="4-6-7"), kind("leader")) |
       {"note": "RGs I4 and I5"})
    cell = refit.reads.roster(campaign)[0].sides[AXIS]
    assert cell.withdrawn == [{"units": [
        {"kind": "squad", "count": 2, "captured": False, "unit": "4-6-7"},
        {"kind": "leader", "count": 1, "captured": False, "unit": None}],
        "rule": "3.60742", "retained_off_map": True, "note": "RGs I4 and I5"}]


# -- RG chart note i: Bombardments ---------------------------------------------------------

def choose(refit: Refit, campaign: UUID, chit: str) -> None:
    """Both sides choose their chit at 3.621."""
    advance_to(refit, campaign, "3.621")
    for side in (AXIS, BRITISH):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": chit})


def bombardment_bought(refit: Refit, campaign: UUID) -> int:
    """The British buy a B1 Bombardment at 3.617 (on or after 14N, note p): its line."""
    advance_to(refit, campaign, "3.617")
    answer = do(refit, campaign, {"type": "purchase_rg", "side": BRITISH, "rg": "B1"},
                BRITISH)
    return int(answer.events[0]["data"]["purchase"])


def to_14n_reph(refit: Refit) -> UUID:
    """CG I, the 14PM scenario played: the RePh of 14N."""
    campaign = at(refit, "3.621")
    choose(refit, campaign, "attack")
    advance_to(refit, campaign, None)
    to_reph_step(refit, campaign, "3.617")
    return campaign


def guided(refit: Refit, campaign: UUID) -> list[dict[str, Any]]:
    """The Bombardments the guide offers the British to resolve now."""
    optional = refit.reads.guide(campaign, viewer=BRITISH)["sides"][BRITISH]["optional"]
    return [w for w in optional if w.get("command") == "resolve_bombardment"]


def resolve(purchase: int) -> dict[str, Any]:
    """The British resolve a Bombardment RG."""
    return {"type": "resolve_bombardment", "side": BRITISH, "purchase": purchase}


def test_note_i_one_bombardment_per_new_cg_date_since_the_last_scenario_end(
        refit: Refit) -> None:
    campaign = to_14n_reph(refit)
    first = bombardment_bought(refit, campaign)  # 14N
    choose(refit, campaign, "attack")
    advance_to(refit, campaign, None)
    to_reph_step(refit, campaign, "3.617")  # 15AM: one new CG Date since 14N's scenario
    second = bombardment_bought(refit, campaign)
    choose(refit, campaign, "attack")
    early = refused(refit, campaign, resolve(first))
    assert isinstance(early, RuleViolation) and "3.623" in early.message
    advance_to(refit, campaign, "3.623")
    do(refit, campaign, resolve(first), BRITISH)
    assert guided(refit, campaign) == []  # the guide offers no second one
    error = refused(refit, campaign, resolve(second))
    assert isinstance(error, RuleViolation) and error.rule == "3.6178"
    assert "note i" in error.message and "(1): 1, and 1 resolved" in error.message
    again = refused(refit, campaign, resolve(first))  # Eliminated once resolved
    assert "already left the OB" in str(again)


def test_note_i_ex_one_idle_date_between_scenarios_allows_two_bombardments(
        refit: Refit) -> None:
    campaign = to_14n_reph(refit)
    first = bombardment_bought(refit, campaign)  # 14N, an Idle CG Date
    choose(refit, campaign, "idle")
    second = bombardment_bought(refit, campaign)  # 15AM
    choose(refit, campaign, "attack")
    advance_to(refit, campaign, "3.623")
    assert [w["purchase"] for w in guided(refit, campaign)] == [first, second]
    resolved = [do(refit, campaign, resolve(first), BRITISH).version,
                do(refit, campaign, resolve(second), BRITISH).version]
    assert guided(refit, campaign) == []
    lines = refit.reads.purchase_record(campaign, viewer=BRITISH)
    assert [line.removed for line in lines if line.rg == "B1"] == [
        "15AM: Bombardment resolved, Eliminated (note i)"] * 2
    seen = [e for e in refit.reads.events(campaign, viewer=AXIS)
            if e["version"] in resolved]  # each one sealed fact, of no type, to the Axis
    assert [e["type"] for e in seen] == ["Sealed", "Sealed"]
    assert len(seen) == 2 and all("purchase" not in e["data"] for e in seen)


def test_note_i_only_a_bombardment_rg_is_resolved(refit: Refit) -> None:
    campaign = to_14n_reph(refit)
    answer = do(refit, campaign, {"type": "purchase_rg", "side": BRITISH, "rg": "M3"},
                BRITISH)
    choose(refit, campaign, "attack")
    advance_to(refit, campaign, "3.623")
    error = refused(refit, campaign, resolve(int(answer.events[0]["data"]["purchase"])))
    assert isinstance(error, RuleViolation) and "not a pre-game Bombardment" in error.message


def test_units_are_retained_off_map_only_under_the_rule_that_limits_them(
        refit: Refit) -> None:
    # 3.60742's limits are keyed by its rule: a withdrawal under another would keep units
    # off map past them. 3.60741's British withdrawal keeps nothing (removed from play).
    campaign = after_14pm(refit)
    for side, rule, said in ((AXIS, "3.6074", "withdraws under 3.60742, not '3.6074'"),
                             (AXIS, "3.60742 ", "withdraws under 3.60742, not '3.60742 '"),
                             (BRITISH, "3.60741", "off map under no rule of the module")):
        error = refused(refit, campaign, withdraw(kind("leader", 4), side=side, rule=rule))
        assert isinstance(error, InvalidCommand) and error.field == "rule", error
        assert said in error.message
    assert refit.reads.roster(campaign)[0].sides[AXIS].withdrawn == []


def initial_with_fpp(refit: Refit, name: str) -> UUID:
    """At 3.619 on 14AM, the Initial Scenario's purchases, with 60 FPP for the Axis."""
    campaign = refit.commands.create_campaign("pbr", "I", name, "entered").id
    advance_to(refit, campaign, "3.619")
    do(refit, campaign, {"type": "credit_fpp", "side": AXIS, "amount": 60,
                         "reason": "M3 Fortification RG"})
    return campaign


def test_no_trench_is_offered_on_the_first_cg_date_which_has_no_previous_one(
        refit: Refit) -> None:
    campaign = initial_with_fpp(refit, "Initial")
    items = offered(refit, campaign, AXIS)
    assert "Foxhole (2-squad)" in items and "Trench" not in items
    assert isinstance(refused(refit, campaign, trench("Q16")), RuleViolation)


def test_3_619_e_a_foxhole_bought_for_the_previous_cg_date_lets_a_trench_in_its_hex(
        refit: Refit) -> None:
    campaign = initial_with_fpp(refit, "Dug in")
    do(refit, campaign, {"type": "purchase_fortification", "side": AXIS,
                         "reason": "Foxhole (1-squad)", "hex": "S20"}, AXIS)
    to_reph_step(refit, campaign, "3.619")  # 14PM: no roster recorded for 14AM
    do(refit, campaign, {"type": "credit_fpp", "side": AXIS, "amount": 20,
                         "reason": "M3 Fortification RG"})
    assert offered(refit, campaign, AXIS)["Trench"] == ["S20"]
    elsewhere = refused(refit, campaign, trench("S21"))
    assert isinstance(elsewhere, RuleViolation) and "none bought for it there" in \
        elsewhere.message
    do(refit, campaign, trench("S20"), AXIS)
