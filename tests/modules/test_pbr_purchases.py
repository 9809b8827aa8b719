"""PBr purchases and points (3.616-3.620) with the RG charts as printed: the lettered notes
that limit a purchase (3.6178), Reserve and on-map prices (3.6175), the CPP Base #, Loss
Points (3.6162) and Recon (3.620)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.errors import RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import advance, advance_to, do, to_reph_step

AXIS, BRITISH = "Axis", "British"


def buy(refit: Refit, campaign: UUID, side: str, rg: str,
        mode: str = "entry") -> dict[str, Any]:
    """Purchase an RG (3.617); its RGPurchased data."""
    data: dict[str, Any] = do(refit, campaign, {"type": "purchase_rg", "side": side,
                                                "rg": rg, "mode": mode}).events[0]["data"]
    return data


def cpp(refit: Refit, campaign: UUID, side: str, amount: int) -> None:
    """CPP a story starts from (e.g. the Initial Scenario's)."""
    do(refit, campaign, {"type": "credit_cpp", "side": side, "amount": amount,
                         "reason": "Initial Scenario CPP"})


def refused_purchase(refit: Refit, campaign: UUID, side: str, rg: str,
                     mode: str = "entry") -> RuleViolation:
    """A purchase that must be refused; the refusal."""
    error = refused(refit, campaign, {"type": "purchase_rg", "side": side, "rg": rg,
                                      "mode": mode})
    assert isinstance(error, RuleViolation)
    return error


def next_date(refit: Refit, campaign: UUID, step: str, chits: tuple[str, str]) -> None:
    """Play the current CG Date out with these chits (Axis, British), to `step` of the next."""
    if refit.store.campaign(campaign).reph.phase == "reph":
        advance_to(refit, campaign, "3.621")
        for side, chit in zip((AXIS, BRITISH), chits, strict=True):
            do(refit, campaign, {"type": "select_initiative", "side": side, "chit": chit})
        if set(chits) == {"idle"}:
            advance(refit, campaign)  # an Idle CG Date: on to 3.612 of the next
        else:
            advance_to(refit, campaign, None)
    to_reph_step(refit, campaign, step)


@pytest.fixture
def at_14am(refit: Refit) -> UUID:
    """PBr CG I, the 14AM Initial Scenario's purchases (3.617, a ! step)."""
    campaign = refit.commands.create_campaign("pbr", "I", "Ranville", "entered").id
    assert refit.store.campaign(campaign).reph.step == "3.617"
    return campaign


def test_an_rg_the_chart_gives_no_maximum_in_this_cg_is_not_available_whatever_cpp_is_left(
        refit: Refit, at_14am: UUID) -> None:
    # British G2 (Airlanding AT Pltn): CG Date max NA, CG max 0 in CG I, II and III
    cpp(refit, at_14am, BRITISH, 1)  # too few for its 8 CPP: the chart is why, not the CPP
    error = refused_purchase(refit, at_14am, BRITISH, "G2")
    assert "is not available in CG I (the chart's CG max is 0)" in error.message
    assert error.rule == "3.617"
    no = next(r for r in refit.reads.guide(at_14am, viewer=BRITISH)["sides"][BRITISH]
              ["refused"] if r["rg"] == "G2")
    assert no["why"] == error.message


def test_note_k_an_axis_pioneer_coy_only_after_july_14_pm(refit: Refit,
                                                        at_14am: UUID) -> None:
    cpp(refit, at_14am, AXIS, 39)
    error = refused_purchase(refit, at_14am, AXIS, "I1")
    assert error.rule == "3.6178" and "I1 (note k)" in error.message
    assert "not on 14AM" in error.message


def test_note_m_no_more_than_two_coys_per_cg_date_nor_four_per_day(refit: Refit,
                                                                  at_14am: UUID) -> None:
    cpp(refit, at_14am, AXIS, 39)
    buy(refit, at_14am, AXIS, "I5")  # Alert Infantry Coy, 14
    buy(refit, at_14am, AXIS, "I7")  # Italian Infantry Coy, 12
    third = refused_purchase(refit, at_14am, AXIS, "I10")
    assert "no more than two coys per CG Date; 2 already bought" in third.message
    next_date(refit, at_14am, "3.617", ("idle", "attack"))  # 14PM
    cpp(refit, at_14am, AXIS, 10)
    buy(refit, at_14am, AXIS, "I4")
    buy(refit, at_14am, AXIS, "I10")  # four coys on July 14
    next_date(refit, at_14am, "3.617", ("idle", "attack"))  # 14N: still July 14
    cpp(refit, at_14am, AXIS, 21)
    fifth = refused_purchase(refit, at_14am, AXIS, "I1")
    assert "no more than four coys per calendar day; 4 already bought" in fifth.message
    buy(refit, at_14am, AXIS, "I2")  # an MG Pltn is no coy (no note m)


def test_note_n_the_alert_coy_only_after_every_i1(refit: Refit, at_14am: UUID) -> None:
    next_date(refit, at_14am, "3.617", ("idle", "attack"))  # 14PM
    next_date(refit, at_14am, "3.617", ("idle", "attack"))  # 14N
    cpp(refit, at_14am, AXIS, 60)
    buy(refit, at_14am, AXIS, "I1")
    error = refused_purchase(refit, at_14am, AXIS, "I3")
    assert "only after all I1 have been purchased; I1 not all purchased yet" in error.message


@pytest.mark.parametrize("side,rg,mode,price", [
    (AXIS, "I7", "entry", 12),
    (AXIS, "I7", "reserve", 9),  # 12 x 0.8 = 9.6, FRD
    (AXIS, "I7", "on_map", 15),  # 12 x 1.2 = 14.4, FRU
    (AXIS, "G3", "reserve", 5),  # 7 x 0.8 = 5.6, FRD
    (AXIS, "G3", "on_map", 7),  # note g: on-map at the printed price
    (BRITISH, "I3", "on_map", 9),  # 7 x 1.2 = 8.4, FRU
    (BRITISH, "I5", "on_map", 7),  # note f
])
def test_3_6175_reserve_and_on_map_prices(refit: Refit, at_14am: UUID, side: str, rg: str,
                                          mode: str, price: int) -> None:
    next_date(refit, at_14am, "3.617", ("idle", "attack"))  # 14PM
    next_date(refit, at_14am, "3.617", ("idle", "attack"))  # 14N: notes k and p allow all
    cpp(refit, at_14am, side, 30)
    bought = buy(refit, at_14am, side, rg, mode)
    assert (bought["cost"], bought["mode"]) == (price, mode)
    assert bought["reserve"] is (mode == "reserve")  # bought for Reserve sets up in it


def test_only_the_axis_buys_in_reserve_and_only_i_and_g_rg(refit: Refit,
                                                           at_14am: UUID) -> None:
    cpp(refit, at_14am, AXIS, 30)
    cpp(refit, at_14am, BRITISH, 30)
    british = refused_purchase(refit, at_14am, BRITISH, "I2", "reserve")
    assert british.rule == "3.6175" and "entry, on_map, not reserve" in british.message
    assert "entry, not reserve" in refused_purchase(refit, at_14am, AXIS, "M1",
                                                    "reserve").message


def test_3_616_credits_each_cpp_base_and_14pm_loses_what_is_left(refit: Refit,
                                                                at_14am: UUID) -> None:
    next_date(refit, at_14am, "3.617", ("idle", "attack"))  # 14PM
    assert refit.store.campaign(at_14am).points.cpp == {AXIS: 29, BRITISH: 12}
    row = refit.reads.roster(at_14am)[1]
    assert (row.sides[AXIS].cpp_credited, row.sides[BRITISH].cpp_credited) == (29, 12)
    advance(refit, at_14am)  # leaves 3.617 on 14PM: "any CPP remaining ... are lost"
    assert refit.store.campaign(at_14am).points.cpp == {AXIS: 0, BRITISH: 0}


def test_3_6162_loss_points_go_to_a_side_that_lost_twice_as_many_and_8_more(
        refit: Refit, at_14am: UUID) -> None:
    advance_to(refit, at_14am, None)
    do(refit, at_14am, {"type": "record_casualty", "side": AXIS, "unit": "4-6-8",
                        "cvp": 20})
    do(refit, at_14am, {"type": "record_casualty", "side": BRITISH, "unit": "6-4-8",
                        "cvp": 6})  # 20 >= 2 x 6 and 20 >= 6 + 8
    do(refit, at_14am, {"type": "end_scenario"})
    advance_to(refit, at_14am, "3.616")
    not_british = refused(refit, at_14am, {"type": "roll", "table": "3.6162",
                                           "side": BRITISH, "dice": [4]})
    assert isinstance(not_british, RuleViolation) and not_british.rule == "3.6162"
    offered = refit.reads.guide(at_14am, viewer=AXIS)["sides"][AXIS]["optional"]
    listed = next(work for work in offered if work.get("table") == "3.6162")
    done = do(refit, at_14am, {"type": "roll", "table": "3.6162", "side": AXIS, "dice": [4]})
    # the dr credits CPP, whose amount is the side's secret: the guide says it is sealed
    rolled = next(e for e in done.events if e["type"] == "DiceRolled")
    assert listed["secret"] is True and rolled["sealed"] is not None
    advance(refit, at_14am)
    assert refit.store.campaign(at_14am).points.cpp == {AXIS: 29 + 4, BRITISH: 12}


def test_3_620_recon_costs_cpp_and_idle_dates_add_up(refit: Refit, at_14am: UUID) -> None:
    advance_to(refit, at_14am, "3.620")
    initial = refused(refit, at_14am, {"type": "roll", "table": "3.620", "side": AXIS,
                                       "dice": [3]})
    assert isinstance(initial, RuleViolation) and "Initial Scenario" in initial.message
    next_date(refit, at_14am, "3.620", ("idle", "attack"))  # 14PM (its CPP lost at 3.617)
    poor = refused(refit, at_14am, {"type": "roll", "table": "3.620", "side": BRITISH,
                                    "dice": [2]})
    assert isinstance(poor, RuleViolation) and "costs 1 CPP; the British side has 0" in poor.message
    cpp(refit, at_14am, AXIS, 2)
    do(refit, at_14am, {"type": "roll", "table": "3.620", "side": AXIS, "dice": [3],
                        "drm": [{"id": "3.620-beneficial"}]})  # 8
    assert refit.store.campaign(at_14am).points.cpp[AXIS] == 0
    next_date(refit, at_14am, "3.620", ("idle", "idle"))  # an Idle 14PM: 14N repeats
    do(refit, at_14am, {"type": "roll", "table": "3.620", "side": AXIS, "dice": [2]})
    assert refit.store.campaign(at_14am).points.cpp[AXIS] == 42 - 1  # 14N's Base # less 1 for Recon
    pm, night = refit.reads.roster(at_14am)[1:3]
    assert (pm.sides[AXIS].recon, night.sides[AXIS].recon) == (8, 10)  # Idle dates add up
    assert night.sides[BRITISH].recon is None


def at_14n(refit: Refit, campaign: UUID) -> None:
    """On to 3.617 of 14N, when every PBr RG may be bought."""
    next_date(refit, campaign, "3.617", ("idle", "attack"))
    next_date(refit, campaign, "3.617", ("idle", "attack"))


def test_note_a_an_fb42_for_2_cpp_arrives_with_a_minus_2_drm(refit: Refit,
                                                            at_14am: UUID) -> None:
    cpp(refit, at_14am, BRITISH, 5)
    bought = do(refit, at_14am, {"type": "purchase_rg", "side": BRITISH, "rg": "F1",
                                 "option": "arrival_drm"}).events[0]["data"]
    assert (bought["cost"], bought["option"]) == (2, "arrival_drm")
    wrong = refused(refit, at_14am, {"type": "purchase_rg", "side": BRITISH, "rg": "I2",
                                     "option": "arrival_drm"})
    assert wrong.field == "option"  # type: ignore[attr-defined]


def test_note_e_a_creeping_barrage_costs_half_as_much_again(refit: Refit,
                                                           at_14am: UUID) -> None:
    at_14n(refit, at_14am)
    cpp(refit, at_14am, BRITISH, 20)
    bought = do(refit, at_14am, {"type": "purchase_rg", "side": BRITISH, "rg": "O1",
                                 "option": "creeping_barrage"}).events[0]["data"]
    assert bought["cost"] == 11  # 7 x 1.5 = 10.5, FRU


def test_notes_e_and_j_one_observer_per_module_and_one_o4_at_a_time(refit: Refit,
                                                                   at_14am: UUID) -> None:
    at_14n(refit, at_14am)
    cpp(refit, at_14am, BRITISH, 30)
    no_module = refused_purchase(refit, at_14am, BRITISH, "O4")
    assert "(note j)" in no_module.message and "0 held" in no_module.message
    buy(refit, at_14am, BRITISH, "O1")
    buy(refit, at_14am, BRITISH, "O2")
    buy(refit, at_14am, BRITISH, "O4")
    second = refused_purchase(refit, at_14am, BRITISH, "O4")
    assert "(note e)" in second.message and "1 held" in second.message
    observer = refit.reads.purchase_record(at_14am)[-1].purchase
    do(refit, at_14am, {"type": "remove_rg", "side": BRITISH, "purchase": observer,
                        "reason": "its module was used (3.6046)", "rule": "3.6046"})
    next_date(refit, at_14am, "3.617", ("idle", "attack"))  # 15AM
    buy(refit, at_14am, BRITISH, "O4")  # the first left the OB
    removed = refit.reads.purchase_record(at_14am)[observer - 1].removed
    assert removed == "14N: its module was used (3.6046)"


def test_3_6182_an_mg_platoon_rolls_again_until_it_has_two_mg(refit: Refit,
                                                             at_14am: UUID) -> None:
    at_14n(refit, at_14am)
    cpp(refit, at_14am, AXIS, 10)
    buy(refit, at_14am, AXIS, "I2")  # Fallschirmjäger MG Pltn: 2 MMG, 2 HMG
    advance_to(refit, at_14am, "3.618")
    number = refit.reads.purchase_record(at_14am)[-1].purchase

    def mg(subject: str, die: int) -> None:
        do(refit, at_14am, {"type": "roll", "table": "3.6182", "side": AXIS, "dice": [die],
                            "subject": f"rg:{number}/{subject}"})

    do(refit, at_14am, {"type": "roll", "table": "3.6181", "side": AXIS, "dice": [6, 6],
                        "subject": f"rg:{number}"})  # Depleted
    # Its listed SW: sw:1 and sw:2 the MMG, sw:3 and sw:4 the HMG.
    for subject, die in (("sw:1", 1), ("sw:2", 5), ("sw:3", 6), ("sw:4", 4)):
        mg(subject, die)  # one MG received: fewer than two
    late = refused(refit, at_14am, {"type": "roll", "table": "3.6182", "side": AXIS,
                                    "dice": [1], "subject": f"rg:{number}/sw:5"})
    assert isinstance(late, RuleViolation) and "lists 4 SW" in late.message
    stale = refused(refit, at_14am, {"type": "roll", "table": "3.6182", "side": AXIS,
                                     "dice": [1], "subject": f"rg:{number}/sw:1"})
    assert isinstance(stale, RuleViolation) and "has been rolled for" in stale.message
    mg("sw:3/round:2", 2)  # the whole RG rolls again: this HMG is the new round's first
    mg("sw:1/round:2", 3)
    assert refit.reads.purchase_record(at_14am)[-1].sw == ["HMG", "MMG"]
    mg("sw:2/round:2", 6)
    mg("sw:4/round:2", 5)  # the round is over with two: no more
    done = refused(refit, at_14am, {"type": "roll", "table": "3.6182", "side": AXIS,
                                    "dice": [1], "subject": f"rg:{number}/sw:1/round:3"})
    assert isinstance(done, RuleViolation) and "has made its SW dr" in done.message
    assert not [w for w in refit.reads.guide(at_14am)["sides"][AXIS]["due"]
                if w["table"] == "3.6182"]


def test_loss_points_are_not_rolled_again_after_an_idle_date(refit: Refit,
                                                            at_14am: UUID) -> None:
    advance_to(refit, at_14am, None)
    do(refit, at_14am, {"type": "record_casualty", "side": AXIS, "unit": "4-6-8", "cvp": 20})
    do(refit, at_14am, {"type": "end_scenario"})
    advance_to(refit, at_14am, "3.616")
    do(refit, at_14am, {"type": "roll", "table": "3.6162", "side": AXIS, "dice": [4]})
    next_date(refit, at_14am, "3.616", ("idle", "idle"))  # 14N repeats 3.612-3.6212
    again = refused(refit, at_14am, {"type": "roll", "table": "3.6162", "side": AXIS,
                                     "dice": [4]})
    assert isinstance(again, RuleViolation) and "previous CG Date was Idle" in again.message


def test_recon_is_rolled_openly_within_the_m2_maximum_and_never_bought_as_an_rg(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "III", "Recon", "entered").id
    to_reph_step(refit, campaign, "3.617")  # 14PM of CG III: British M2 CG max 0
    bought = refused_purchase(refit, campaign, BRITISH, "M2")
    assert bought.rule == "3.620" and "bought by rolling table 3.620" in bought.message
    advance_to(refit, campaign, "3.620")
    cpp(refit, campaign, BRITISH, 2)
    over = refused(refit, campaign, {"type": "roll", "table": "3.620", "side": BRITISH,
                                     "dice": [3]})
    assert isinstance(over, RuleViolation) and "CG max 0 for CG III" in over.message
    cpp(refit, campaign, AXIS, 2)
    hidden = refused(refit, campaign, {"type": "roll", "table": "3.620", "side": AXIS,
                                       "dice": [3], "secret": True})
    assert hidden.field == "secret"  # type: ignore[attr-defined]


def test_3_6175_a_side_with_no_units_on_the_map_may_still_buy_for_on_map_setup(
        refit: Refit, at_14am: UUID) -> None:
    # 3.6175 asks for ">= one Set Up Area on the Map", not units: a Setup Area may contain
    # none (3.605), and one vacated stays the vacating side's (3.6131). A helper found the
    # British refused after 14N for having removed their units.
    cpp(refit, at_14am, BRITISH, 20)
    do(refit, at_14am, {"type": "record_on_map", "side": BRITISH, "on_map": False})
    buy(refit, at_14am, BRITISH, "I2", "on_map")


@pytest.mark.parametrize("side,rg,note", [
    (AXIS, "I6", "note o"),  # not until after July 16 N
    (AXIS, "I4", "note l"),  # only before July 14 N
    (BRITISH, "I2", "note k"),  # only on or before July 14 PM
    (BRITISH, "F1", "note k"),
])
def test_the_date_notes_refuse_on_14n(refit: Refit, at_14am: UUID, side: str, rg: str,
                                      note: str) -> None:
    at_14n(refit, at_14am)
    cpp(refit, at_14am, side, 30)
    error = refused_purchase(refit, at_14am, side, rg)
    assert error.rule == "3.6178" and f"{rg} ({note})" in error.message
    assert "not on 14N" in error.message
