"""An ABtF CG I told as a story: the Initial Scenario (17N, Night) and three RePhs, one
through an Idle CG Date (18PM) and one into a Night date (18N). The CG Roster and the RG
Purchase Record are then checked against forms kept by hand from the rules.

The owner data is the test fixture (CG I: ELR British 4 / German 3, SAN 3 / 4, Ammunition
Shortage Level One; RG costs from the CG22 EX, the rest fictitious).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from infra.application import Refit
from tests.helpers.story import advance_to, do, load_abtf_owner_data, rg_subject

BRITISH, GERMAN = "British", "German"


class Table:
    """The players at the table: every roll typed in, every step completed by hand."""

    def __init__(self, refit: Refit, campaign: UUID) -> None:
        self.refit, self.campaign = refit, campaign

    def __call__(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """Run a command; the records it appended."""
        return do(self.refit, self.campaign, body).events

    def roll(self, table: str, side: str, dice: list[int], purchase: int | None = None,
             subject: str | None = None, **extra: Any) -> dict[str, Any]:
        """A roll with physical dice, for the step or an RG line (`subject` names its SW);
        its DiceRolled data."""
        if purchase is not None:
            extra["subject"] = rg_subject(self.refit, self.campaign, table, purchase,
                                          sw=subject)
        return self({"type": "roll", "table": table, "side": side, "dice": dice} | extra)[0][
            "data"]

    def drm_total(self, table: str, side: str, dice: list[int]) -> int:
        """Roll and return the DRM the ledger derived."""
        return sum(item["value"] for item in self.roll(table, side, dice)["drm"])

    def to(self, step: str | None) -> None:
        """Complete steps until the RePh is at `step` (None: the scenario)."""
        advance_to(self.refit, self.campaign, step, rolls=False)

    def buy(self, side: str, rg: str, kg: str | None = None) -> None:
        """Purchase an RG (9.617)."""
        self({"type": "purchase_rg", "side": side, "rg": rg} | ({"kg": kg} if kg else {}))

    def chits(self, british: str, german: str) -> None:
        """Both Initiative chits (9.6213)."""
        for side, chit in ((BRITISH, british), (GERMAN, german)):
            self({"type": "select_initiative", "side": side, "chit": chit})

    def weather(self, weather: list[int], ec: int, wind: int) -> None:
        """The British weather, EC and wind rolls (9.6216)."""
        self.roll("9.62161", BRITISH, weather)
        self.roll("9.62163", BRITISH, [ec])
        self.roll("9.62164", BRITISH, [wind])

    def lose(self, side: str, unit: str, cvp: int, ww: int = 0) -> None:
        """A casualty: CVP to the other side; British WW half-squads to the CG19 box."""
        self({"type": "record_casualty", "side": side, "unit": unit, "cvp": cvp,
              "ww_half_squads": ww})

    def elr_rolls(self, british_drm: int, german_drm: int) -> None:
        """Both 9.6202 DR, dice 2+2, checking the DRM derived against the hand-kept sums."""
        assert self.drm_total("9.6202", BRITISH, [2, 2]) == british_drm
        assert self.drm_total("9.6202", GERMAN, [2, 2]) == german_drm


@pytest.fixture
def story(refit: Refit) -> Table:
    """The whole story, played; the table it was played at."""
    load_abtf_owner_data(refit)
    t = Table(refit, refit.commands.create_campaign("abtf", "I", "Oosterbeek", "entered").id)
    initial_scenario(t)
    first_reph(t)
    second_reph_with_an_idle_date(t)
    third_reph_into_the_night(t)
    return t


def initial_scenario(t: Table) -> None:
    """17N: the † steps 9.617-9.621 (9.5), then the scenario."""
    t({"type": "credit_cpp", "side": GERMAN, "amount": 12, "reason": "Initial Scenario CPP"})
    t.buy(GERMAN, "I1", "K")  # 12 - 5 = 7, halved FRU to 4 as 9.617 ends
    t.to("9.618")
    t.roll("9.6181", GERMAN, [4, 4], purchase=1)  # 8 + 0 (17N Exhaustion 0 / 2): Full
    t.roll("9.6182-psk", GERMAN, [1], purchase=1)  # 1-2: Lt. Mtr
    t.roll("9.6183-german", GERMAN, [3, 3], purchase=1)  # 6: 8-1
    t.to("9.620")  # 9.6202: British Attack chit assumed (9.5) +1, Ammunition Level One +1
    t.elr_rolls(british_drm=2, german_drm=0)
    t.to("9.621")  # the Initial Scenario's weather is its SSR's (CG3), not rolled
    t({"type": "record_scenario", "weather": "Clear", "ec": "Moderate", "wind": "No Wind"})
    t.to(None)
    t.lose(BRITISH, "6-4-8", 2, ww=2)
    t.lose(BRITISH, "6-4-8", 2, ww=2)
    t.lose(BRITISH, "3-4-8", 1, ww=1)  # WW box: 5 half-squads
    t.lose(GERMAN, "4-6-7", 2)
    t.lose(GERMAN, "PzKpfw IVH", 10)
    t({"type": "end_scenario"})


def first_reph(t: Table) -> None:
    """17N -> 18AM: the 9.6152 reinforcements, replenishment, purchases, fortifications."""
    t.to("9.616")  # 9.610: two WW 4-4-7; 9.615: British I1, I2, SAN +2; German 20 FPP, SAN -1
    t.roll("9.6162", BRITISH, [2, 3])  # 20 + 5 = 25 CPP
    t.roll("9.6162", GERMAN, [1, 2])  # 15 + 3 = 18: 4 + 18 = 22 CPP
    t.to("9.617")
    t.buy(BRITISH, "G9")  # 25 - 4 = 21 -> 11
    t.buy(GERMAN, "A3", "K")
    t.buy(GERMAN, "I2", "B")  # 22 - 14 = 8 -> 4
    t.to("9.618")
    t.roll("9.6181", BRITISH, [4, 5], purchase=2)  # 9 - 2 British: 7, Full
    t.roll("9.6181", BRITISH, [6, 6], purchase=3)  # 12 - 2: 10, Depleted
    t.roll("9.6182", BRITISH, [5], purchase=3, subject="LMG")  # <= 5: received
    t.roll("9.6182", BRITISH, [4], purchase=3, subject="Lt. Mtr")  # > 3: not received
    t.roll("9.6184-A3", GERMAN, [6], purchase=5)  # PzKpfw VIE x2
    t.roll("9.6183-british", BRITISH, [3, 4], purchase=2)  # the chart indicates I1: 7, 8-1
    t.roll("9.6183-armor", GERMAN, [2, 2], purchase=5)  # 4 - 2 Hvy Tank: 9-2 Armor Leader
    t.to("9.619")
    t({"type": "purchase_fortification", "side": GERMAN, "reason": "A-P minefield factor",
       "count": 4, "amount": 12})  # 20 - 12 = 8 FPP, forfeit as 9.619 ends
    t.to("9.620")  # 1 scenario since Idle, British chit (9.5), Level One: +3; German +1
    t.elr_rolls(british_drm=3, german_drm=1)
    t.to("9.621")
    t.chits("attack", "idle")  # British Assault
    t.weather([4, 4], ec=5, wind=3)  # no DRM after a Clear, Moderate scenario
    t.to(None)
    t.lose(GERMAN, "PzKpfw VIE", 20)
    t.lose(GERMAN, "6-5-8", 15)  # the British inflict 35 CVP
    t.lose(BRITISH, "6-4-8", 2)
    t({"type": "end_scenario"})


def second_reph_with_an_idle_date(t: Table) -> None:
    """18AM -> 18PM, which both sides leave Idle, so 9.612-9.620 repeat as 18EVE."""
    t.to("9.612")
    t.roll("9.6122", BRITISH, [1])  # SAN 5: 1 + 1 = 2, unchanged
    t.to("9.616")  # 9.615: British G1, A1, SAN -1 (4); German SAN +2 (5)
    t.roll("9.6162", BRITISH, [1, 1])  # 25 + 2 = 27: 11 + 27 = 38
    t.roll("9.6162", GERMAN, [6, 6])  # 15 + 12 = 27: 4 + 27 = 31
    t.to("9.617")
    t.buy(BRITISH, "I1")  # 38 - 6 = 32 -> 16 (the OB-given I1 is not counted: #P 1)
    t.buy(GERMAN, "I6", "H")
    t.buy(GERMAN, "A5", "H")  # 31 - 7 = 24 -> 12
    t.to("9.618")
    t.roll("9.6181", BRITISH, [1, 1], purchase=9)  # 0: Full
    t.roll("9.6183-british", BRITISH, [5, 5], purchase=9)  # 10: 7-0
    t.to("9.620")  # British -1 (35 CVP), +2 scenarios, +2 chits, +1 Level; German +2
    t.elr_rolls(british_drm=4, german_drm=2)
    t.to("9.621")
    t.chits("idle", "idle")  # an Idle CG Date: no scenario, no weather
    t.to("9.612")  # 18EVE
    t.roll("9.6122", BRITISH, [1])  # SAN 4: 1, unchanged
    t.roll("9.6122", GERMAN, [1])  # SAN 5: 1, unchanged
    t.to("9.616")
    t.roll("9.6162", BRITISH, [3, 3])  # 15 + 6 = 21: 16 + 21 = 37 -> 19
    t.roll("9.6162", GERMAN, [2, 2])  # 20 + 4 = 24: 12 + 24 = 36
    t.to("9.617")
    t.buy(GERMAN, "A4", "B")  # 36 - 5 = 31 -> 16
    t.to("9.618")
    t.roll("9.6184-A4", GERMAN, [2], purchase=12)  # due before 9.618 is left: StuG x2
    t.to("9.620")  # British: -1 (35 CVP), -3 (Idle 18PM), +1 Exhaustion, +1 Level: -2
    t.elr_rolls(british_drm=-2, german_drm=-3)  # Finals 2 and 1: ELR +1 each (5 and 4)
    t.to("9.621")
    t.chits("attack", "attack")  # Dual Assault
    t.weather([5, 5], ec=6, wind=5)  # after 18AM's Clear, Moderate: Clear, Dry, Mild Breeze
    t.roll("9.62133", GERMAN, [2])  # <= 3: the British set up first
    t.roll("9.6215", GERMAN, [5])  # >= 5: the British move first
    t.to(None)
    t.lose(BRITISH, "6-4-8", 2, ww=2)
    t.lose(GERMAN, "4-6-7", 2)
    t({"type": "end_scenario"})


def third_reph_into_the_night(t: Table) -> None:
    """18EVE -> 18N, a Night CG Date."""
    t.to("9.612")  # 9.610: one WW 4-4-7
    t.roll("9.6122", BRITISH, [2])
    t.roll("9.6122", GERMAN, [1])
    t.to("9.616")
    t.roll("9.6162", BRITISH, [1, 2])  # 5 + 3 = 8: 19 + 8 = 27 -> 14
    t.roll("9.6162", GERMAN, [1, 2])  # 20 + 3 = 23: 16 + 23 = 39 -> 20
    t.to("9.620")  # British +1 scenario, +1 chit, +1 Exhaustion, +1 Level; German +2
    t.elr_rolls(british_drm=4, german_drm=2)
    t.to("9.621")
    t.chits("idle", "attack")  # German Assault
    t.weather([3, 3], ec=3, wind=3)  # Night -1, after Dry (+1 EC) and with Overcast (+2 wind)
    t.to(None)


def cell(cpp: tuple[int, int, int, int], rg: list[dict[str, Any]], fpp: int, elr: int,
         san: int, chit: str | None, forts: list[dict[str, Any]] | None = None,
         ww: dict[str, Any] | None = None, fpp_lost: int = 0) -> dict[str, Any]:
    """One side's line of the hand-kept CG Roster: what 9.617's halving (FRU) took is
    what Start, +CPP and Spent leave beyond Left."""
    start, credited, spent, left = cpp
    return {"cpp_start": start, "cpp_credited": credited, "cpp_spent": spent,
            "cpp_left": left, "rg_purchased": rg, "fpp": fpp, "fortifications": forts or [],
            "elr": elr, "san": san, "chit": chit, "ww_received": ww, "recon": None, "withdrawn": [],
            "lvp_current": None, "lvp_cg": None, "recon_cpp": 0,
            "cpp_forfeited": start + credited - spent - left, "fpp_forfeited": fpp_lost,
            "cpp_forgone": 0, "hidden": False}


def rg(rg_id: str, cpp: int, kg: str | None = None) -> dict[str, Any]:
    """An RG as the roster lists it."""
    return {"rg": rg_id, "kg": kg, "cpp": cpp}


HAND_KEPT_ROSTER = [
    ("17N", None, ("Clear", "Moderate", "No Wind"), True, {
        BRITISH: cell((0, 0, 0, 0), [], 0, 4, 3, None,
                      ww={"unit": "4-4-7", "count": 2, "discarded_half_squads": 1}),
        GERMAN: cell((0, 12, 5, 4), [rg("I1", 5, "K")], 0, 3, 4, None)}),
    ("18AM", "British Assault", ("Clear", "Moderate", "No Wind"), True, {
        BRITISH: cell((0, 25, 4, 11), [rg("G9", 4)], 0, 4, 5, "attack"),
        GERMAN: cell((4, 18, 14, 4), [rg("A3", 7, "K"), rg("I2", 7, "B")], 0, 3, 3, "idle",
                     forts=[{"item": "A-P minefield factor", "count": 4, "fpp": 12}],
                     fpp_lost=20 - 12)}),  # 9.6152's 20 FPP, 12 spent: the rest forfeit (9.619)
    ("18PM", "Idle CG Date", (None, None, None), False, {
        BRITISH: cell((11, 27, 6, 16), [rg("I1", 6)], 0, 4, 4, "idle"),
        GERMAN: cell((4, 27, 7, 12), [rg("I6", 3, "H"), rg("A5", 4, "H")], 0, 3, 5, "idle")}),
    ("18EVE", "Dual Assault", ("Clear", "Dry", "Mild Breeze"), True, {
        BRITISH: cell((16, 21, 0, 19), [], 0, 5, 4, "attack",
                      ww={"unit": "4-4-7", "count": 1, "discarded_half_squads": 0}),
        GERMAN: cell((12, 24, 5, 16), [rg("A4", 5, "B")], 0, 4, 5, "attack")}),
    ("18N", "German Assault", ("Overcast", "Moderate", "Mild Breeze"), True, {
        BRITISH: cell((19, 8, 0, 14), [], 0, 5, 4, "idle"),
        GERMAN: cell((16, 23, 0, 20), [], 0, 4, 5, "attack")}),
]


def test_the_cg_roster_matches_the_forms_kept_by_hand(story: Table) -> None:
    roster = story.refit.reads.roster(story.campaign)
    assert [row.cg_date for row in roster] == [line[0] for line in HAND_KEPT_ROSTER]
    for row, (date, scenario, conditions, played, sides) in zip(roster, HAND_KEPT_ROSTER,
                                                                  strict=True):
        assert (row.scenario_type, (row.weather, row.ec, row.wind), row.scenario_played) == (
            scenario, conditions, played), date
        assert row.levels == {"ammo_shortage": 1}, date
        for side, expected in sides.items():
            assert row.sides[side].model_dump() == expected, (date, side)


HAND_KEPT_PURCHASES = [  # #, side, CG Date, RG, KG, CPP, #P, #R, F/D, units, SW, leader, ...
    (1, GERMAN, "17N", "I1", "K", 5, 1, 2, "F", "4x 6-5-8", ["LMG", "Lt. Mtr"], "8-1", None),
    (2, BRITISH, "18AM", "I1", None, None, None, None, "F", "4x 6-4-8", ["LMG", "PIAT"],
     "8-1", None),
    (3, BRITISH, "18AM", "I2", None, None, None, None, "D", "2x 6-4-8", ["LMG"], None, None),
    (4, BRITISH, "18AM", "G9", None, 4, 1, 1, None, None, [], None, None),
    (5, GERMAN, "18AM", "A3", "K", 7, 1, 1, None, None, [], "9-2 Armor Leader",
     "PzKpfw VIE x2"),
    (6, GERMAN, "18AM", "I2", "B", 7, 1, 2, None, None, [], None, None),
    (7, BRITISH, "18PM", "G1", None, None, None, None, None, None, [], None, None),
    (8, BRITISH, "18PM", "A1", None, None, None, None, None, None, [], None, None),
    (9, BRITISH, "18PM", "I1", None, 6, 1, 2, "F", "4x 6-4-8", ["LMG", "PIAT"], "7-0", None),
    (10, GERMAN, "18PM", "I6", "H", 3, 1, 0, None, None, [], None, None),
    (11, GERMAN, "18PM", "A5", "H", 4, 1, 1, None, None, [], None, None),
    (12, GERMAN, "18EVE", "A4", "B", 5, 1, 1, None, None, [], None, "StuG IIIG(L) x2"),
]


def test_the_rg_purchase_record_matches_the_forms_kept_by_hand(story: Table) -> None:
    record = story.refit.reads.purchase_record(story.campaign)
    got = [(r.purchase, r.side, r.cg_date, r.rg, r.kg, r.cpp, r.p, r.r, r.strength, r.units,
            r.sw, r.leader, r.composition) for r in record]
    assert got == HAND_KEPT_PURCHASES
    given = [r.purchase for r in record if r.given is not None]
    assert given == [2, 3, 7, 8]  # the 9.6152 reinforcements, outside every maximum


def test_cvp_elr_and_san_match_the_forms_kept_by_hand(story: Table) -> None:
    refit, campaign = story.refit, story.campaign
    cvp = refit.reads.cvp(campaign)
    assert [(row.scenario, row.side, row.cvp) for row in cvp.scenarios] == [
        ("17N", BRITISH, 5), ("17N", GERMAN, 12), ("18AM", GERMAN, 35), ("18AM", BRITISH, 2),
        ("18EVE", BRITISH, 2), ("18EVE", GERMAN, 2)]
    assert cvp.totals == {BRITISH: 9, GERMAN: 49}
    elr = refit.reads.elr(campaign)
    assert elr.current == {BRITISH: 5, GERMAN: 4}
    assert [(c.cg_date, c.side, c.before, c.after, c.cause) for c in elr.changes] == [
        ("18EVE", BRITISH, 4, 5, "9.6202 ELR Loss/Gain Chart: Final 2, ELR +1"),
        ("18EVE", GERMAN, 3, 4, "9.6202 ELR Loss/Gain Chart: Final 1, ELR +1")]
    assert [(c.cg_date, c.side, c.before, c.after, c.rule) for c in refit.reads.san(campaign)] == [
        ("18AM", BRITISH, 3, 5, "9.6152"), ("18AM", GERMAN, 4, 3, "9.6152"),
        ("18PM", BRITISH, 5, 4, "9.6152"), ("18PM", GERMAN, 3, 5, "9.6152")]


def test_the_germans_see_none_of_the_british_points_or_purchases(story: Table) -> None:
    roster = story.refit.reads.roster(story.campaign, viewer=GERMAN)
    for row in roster:
        british = row.sides[BRITISH]
        assert british.hidden and british.cpp_left is None and british.rg_purchased is None
        assert row.sides[GERMAN] == next(
            r for r in story.refit.reads.roster(story.campaign) if r.cg_date == row.cg_date
        ).sides[GERMAN]
    record = story.refit.reads.purchase_record(story.campaign, viewer=GERMAN)
    bought = [r for r in record if r.side == BRITISH and r.purchase not in (2, 3, 7, 8)]
    assert bought and all(r.hidden and r.rg is None for r in bought)
    # The 9.6152 reinforcements are printed in the rules: public, but not what the
    # British secret rolls found (9.6181-.6183).
    given = [r for r in record if r.side == BRITISH and r.purchase in (2, 3, 7, 8)]
    assert given and all(not r.hidden and r.rg and r.strength is None for r in given)


def test_the_story_verifies_and_replays_to_the_same_forms(story: Table) -> None:
    refit, campaign = story.refit, story.campaign
    assert refit.reads.verify(campaign).ok
    head = refit.store.campaign(campaign).version
    assert refit.reads.roster(campaign, as_of=head) == refit.reads.roster(campaign)
    assert refit.reads.purchase_record(campaign,
                                       as_of=head) == refit.reads.purchase_record(campaign)
