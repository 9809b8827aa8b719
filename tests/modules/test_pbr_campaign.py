"""A PBr CG I told as a story, with the charts as printed: the 14AM Initial Scenario, an Idle
14PM whose RePh repeats as 14N (a Night Dual Attack), 15AM and 15PM. Every purchase limit
met on the way is tried and refused with its rule; the CG Roster and the RG Purchase Record
are then checked against forms kept by hand.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.errors import RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import advance_to, do, rg_subject

AXIS, BRITISH = "Axis", "British"


class Table:
    """The players: dice typed in, steps completed by hand, refusals noted with their rule."""

    def __init__(self, refit: Refit, campaign: UUID) -> None:
        self.refit, self.campaign = refit, campaign
        self.refusals: list[tuple[str, str | None]] = []

    def __call__(self, **body: Any) -> None:
        do(self.refit, self.campaign, body)

    def no(self, **body: Any) -> None:
        """A command the rules refuse: nothing is appended, the rule is named."""
        error = refused(self.refit, self.campaign, body)
        assert isinstance(error, RuleViolation), error
        self.refusals.append((body.get("rg", body["type"]), error.rule))

    def to(self, step: str | None) -> None:
        """Complete steps until `step` (None: the scenario)."""
        advance_to(self.refit, self.campaign, step, rolls=False)

    def buy(self, side: str, rg: str, mode: str = "entry") -> None:
        """A purchase (3.617)."""
        self(type="purchase_rg", side=side, rg=rg, mode=mode)

    def roll(self, table: str, side: str, dice: list[int], purchase: int | None = None,
             *drm: dict[str, Any], subject: str | None = None) -> None:
        """A roll with physical dice, for the step or an RG line (`subject` names its SW)."""
        what = "step" if purchase is None else \
            rg_subject(self.refit, self.campaign, table, purchase, sw=subject)
        self(type="roll", table=table, side=side, dice=dice, subject=what, drm=list(drm))

    def sw(self, side: str, purchase: int, **dice: int) -> None:
        """One 3.6182 dr per SW, e.g. LMG=3."""
        for name, die in dice.items():
            self.roll("3.6182", side, [die], purchase, subject=name.replace("_", " "))

    def chits(self, axis: str, british: str) -> None:
        """Both Initiative chits (3.6212)."""
        self(type="select_initiative", side=AXIS, chit=axis)
        self(type="select_initiative", side=BRITISH, chit=british)

    def lose(self, side: str, unit: str, cvp: int, times: int = 1) -> None:
        """Casualties of the scenario just played."""
        for _ in range(times):
            self(type="record_casualty", side=side, unit=unit, cvp=cvp)


@pytest.fixture
def story(refit: Refit) -> Table:
    """The whole story, played."""
    t = Table(refit, refit.commands.create_campaign("pbr", "I", "Ranville", "entered").id)
    initial_14am(t)
    idle_14pm_and_night_14n(t)
    british_attack_15am(t)
    axis_attack_15pm(t)
    return t


def initial_14am(t: Table) -> None:
    """The ! steps of 3.6 before the Initial Scenario, which is then played."""
    for side, elr in ((AXIS, 3), (BRITISH, 5)):  # the Initial Scenario's OB (3.51, owner data)
        t(type="change_elr", side=side, value=elr, cause="Initial Scenario OB")
        t(type="change_san", side=side, value=2, cause="Initial Scenario OB")  # M1 needs it
    t(type="credit_cpp", side=AXIS, amount=39, reason="Initial Scenario: 3.6161 Base #")
    t(type="credit_cpp", side=BRITISH, amount=17, reason="Initial Scenario: 3.6161 Base #")
    t.buy(AXIS, "I5")
    t.buy(AXIS, "I7")  # 39 - 26 = 13
    t.no(type="purchase_rg", side=AXIS, rg="I10")  # note m: two coys per CG Date
    t.buy(BRITISH, "I2")
    t.buy(BRITISH, "I4")  # 17 - 11 = 6
    t.no(type="purchase_rg", side=BRITISH, rg="I1")  # note p: not before 14N
    t.to("3.618")
    t.roll("3.6181", AXIS, [3, 3], 1)  # 6: Full
    t.roll("3.6181", AXIS, [5, 6], 2)  # 11: Depleted
    t.roll("3.6181", BRITISH, [4, 4], 3)  # 9 with the Airborne +1 the ledger derives: Full
    t.roll("3.6181", BRITISH, [5, 5], 4)  # 11: Depleted
    t.sw(AXIS, 2, LMG=3)  # <= 3: received
    t.sw(BRITISH, 3, LMG=1, **{"51mm_MTR": 2}, PIAT=5)  # a Full I2 rolls too: <= 3
    t.sw(BRITISH, 4, LMG=2)  # a Depleted I4: <= 2
    for dice in ([2, 2], [3, 3], [6, 6]):  # a coy rolls three times, Alert +1: 5, 7, 13
        t.roll("3.6183-personnel", AXIS, dice, 1)
    t.roll("3.6183-personnel", BRITISH, [3, 4], 3)  # Airborne -1: 6, 8-1
    for dice in ([3, 4], [2, 2], [5, 6]):  # a Depleted Italian coy, +2 +1: 10, 7, 14
        t.roll("3.6183-personnel", AXIS, dice, 2)
    t.roll("3.6183-personnel", BRITISH, [4, 4], 4)  # Airborne -1, Coy Cmd -1, Depleted +1: 7
    t.to(None)
    t.lose(AXIS, "4-4-7", 2, times=5)
    t.lose(AXIS, "3-4-6", 2, times=5)  # the Axis lose 20 CVP
    t.lose(BRITISH, "6-4-8", 3, times=2)  # the British 6
    t(type="end_scenario")


def idle_14pm_and_night_14n(t: Table) -> None:
    """14PM: Loss Points, purchases, both Idle; 14N repeats 3.612-3.6212 at Night."""
    t.to("3.616")
    t.no(type="roll", table="3.6162", side=BRITISH, dice=[6])  # 6 lost: no Loss Points
    t.roll("3.6162", AXIS, [5])  # 20 >= 2 x 6 and >= 6 + 8: +5
    t.to("3.617")  # Base #: Axis 13 + 5 + 29 = 47, British 6 + 12 = 18
    t.buy(AXIS, "I4")
    t.no(type="purchase_rg", side=AXIS, rg="G3")  # note k: not before 14N
    t.buy(AXIS, "M1")  # 47 - 17 = 30, lost as 3.617 ends on 14PM
    t.buy(BRITISH, "F1")
    t.buy(BRITISH, "I2")  # 18 - 8 = 10, lost too
    t.to("3.618")
    t.roll("3.6181", AXIS, [2, 3], 5)  # Full
    t.roll("3.6181", BRITISH, [6, 6], 8)  # 13: Depleted
    t.sw(BRITISH, 8, LMG=3, **{"51mm_MTR": 1}, PIAT=2)  # <= 2: MTR and PIAT
    # Fallschirmjäger -1 on each roll, Signal Coy -4 on the first only (both derived)
    t.roll("3.6183-personnel", AXIS, [3, 3], 5)  # 1: 10-2
    t.roll("3.6183-personnel", AXIS, [4, 4], 5)  # 7: 8-1
    t.roll("3.6183-personnel", AXIS, [5, 5], 5)  # 9: 8-0
    t.roll("3.6183-personnel", BRITISH, [3, 3], 8)  # Airborne -1, Depleted +1: 6, 8-1
    t.to("3.621")
    t.chits("idle", "idle")
    t.to("3.617")  # 14N: Base # Axis 42, British 4
    t.buy(AXIS, "I1")  # the fourth coy of July 14: 42 - 21 = 21
    t.no(type="purchase_rg", side=AXIS, rg="I3")  # note n: not before every I1
    t.no(type="purchase_rg", side=AXIS, rg="I10")  # note m: four coys per calendar day
    t.buy(BRITISH, "M1")  # 4 - 3 = 1
    t.to("3.618")
    t.roll("3.6181", AXIS, [1, 2], 9)  # Full
    for dice in ([1, 1], [2, 3], [4, 5]):  # a Fallschirmjäger coy: 1, 4, 8
        t.roll("3.6183-personnel", AXIS, dice, 9)  # -1 derived
    t.to("3.620")
    t.roll("3.620", BRITISH, [4])  # 1 CPP: 4 Locations
    t.to("3.621")
    t.chits("attack", "attack")  # Night Dual Attack
    t.roll("3.6213", BRITISH, [2])  # the British set up first
    t.to("3.623")
    t.roll("3.623", BRITISH, [5])  # the Axis move first
    t.to(None)
    t.lose(AXIS, "4-6-8", 4, times=2)
    t.lose(BRITISH, "6-4-8", 4, times=3)
    t(type="end_scenario")


def british_attack_15am(t: Table) -> None:
    """15AM: the British buy two coys and guns on map; the Axis a Reserve MTR Section."""
    t.to("3.616")
    t.no(type="roll", table="3.6162", side=BRITISH, dice=[6])  # 12 < 2 x 8: none
    t.to("3.617")  # Axis 21 + 30 = 51, British 0 + 80 = 80
    t.buy(BRITISH, "I1")
    t.buy(BRITISH, "I1")
    t.no(type="purchase_rg", side=BRITISH, rg="I1")  # note l: two coys per CG Date
    t.buy(BRITISH, "G1", "on_map")  # note f: on map at the printed 8
    t.no(type="purchase_rg", side=BRITISH, rg="G3", mode="reserve")  # 3.6175: Axis only
    t.buy(AXIS, "G3", "reserve")  # 7 x 0.8 = 5.6, FRD 5
    t.to("3.618")
    t.roll("3.6181", BRITISH, [2, 2], 11)  # non-Airborne British -1: 3, Full
    t.roll("3.6181", BRITISH, [6, 5], 12)  # 10: Depleted
    t.roll("3.6181", BRITISH, [3, 3], 13)  # and "G" -1: 4, Full
    t.roll("3.6181", AXIS, [6, 6], 14)  # "G" -1: 11, Depleted
    t.sw(BRITISH, 12, LMG=1)  # a Depleted I1's first LMG: received
    for die in (4, 2):
        t.roll("3.6182", BRITISH, [die], 12, subject="LMG")  # 4: lost, 2: received
    t.sw(BRITISH, 12, **{"51mm_MTR": 5})
    t.sw(BRITISH, 12, **{"51mm_MTR": 3}, PIAT=6)
    for dice in ([3, 4], [2, 2], [5, 5]):  # a Full rifle coy: 7, 4, 10
        t.roll("3.6183-personnel", BRITISH, dice, 11)
    for dice in ([1, 1], [4, 3], [6, 6]):  # a Depleted one: 3, 8, 13
        t.roll("3.6183-personnel", BRITISH, dice, 12)  # +1 derived
    t.to("3.621")
    t.chits("idle", "attack")
    t.to(None)
    t.lose(AXIS, "5-4-8", 5, times=2)
    t.lose(BRITISH, "Sherman III(a)", 4)
    t(type="end_scenario")


def axis_attack_15pm(t: Table) -> None:
    """15PM: an Italian coy for the Axis; the scenario is left in play."""
    t.to("3.617")  # Axis 46 + 30 = 76, British 36 + 65 = 101
    t.buy(AXIS, "I7")
    t.to("3.618")
    t.roll("3.6181", AXIS, [1, 1], 15)
    for dice in ([1, 1], [2, 1], [3, 3]):  # an Italian coy: 4, 5, 8
        t.roll("3.6183-personnel", AXIS, dice, 15)  # +2 derived
    t.to("3.621")
    t.chits("attack", "idle")
    t.to(None)


def rgs(*bought: tuple[str, int]) -> list[dict[str, Any]]:
    """RG as the roster lists them."""
    return [{"rg": rg, "kg": None, "cpp": cpp} for rg, cpp in bought]


HAND_KEPT_ROSTER = [  # CG Date, scenario, played, {side: (start, +CPP, spent, left, RG)}
    ("14AM", None, True, {AXIS: (0, 39, 26, 13, rgs(("I5", 14), ("I7", 12))),
                          BRITISH: (0, 17, 11, 6, rgs(("I2", 7), ("I4", 4)))}),
    ("14PM", "Idle CG Date", False, {AXIS: (13, 34, 17, 0, rgs(("I4", 15), ("M1", 2))),
                                     BRITISH: (6, 12, 8, 0, rgs(("F1", 1), ("I2", 7)))}),
    ("14N", "Night Dual Attack", True, {AXIS: (0, 42, 21, 21, rgs(("I1", 21))),
                                        BRITISH: (0, 4, 3, 1, rgs(("M1", 3)))}),
    ("15AM", "British Attack", True, {
        AXIS: (21, 30, 5, 46, rgs(("G3", 5))),
        BRITISH: (0, 80, 44, 36, rgs(("I1", 18), ("I1", 18), ("G1", 8)))}),
    ("15PM", "Axis Attack", True, {AXIS: (46, 30, 12, 64, rgs(("I7", 12))),
                                   BRITISH: (36, 65, 0, 101, [])}),
]


def test_the_cg_roster_matches_the_forms_kept_by_hand(story: Table) -> None:
    roster = story.refit.reads.roster(story.campaign)
    assert [row.cg_date for row in roster] == [line[0] for line in HAND_KEPT_ROSTER]
    for row, (date, scenario, played, sides) in zip(roster, HAND_KEPT_ROSTER, strict=True):
        assert (row.scenario_type, row.scenario_played) == (scenario, played), date
        for side, (start, credited, spent, left, bought) in sides.items():
            cell = row.sides[side]
            assert (cell.cpp_start, cell.cpp_credited, cell.cpp_spent, cell.cpp_left,
                    cell.rg_purchased) == (start, credited, spent, left, bought), (date, side)
    assert roster[2].sides[BRITISH].recon == 4 and roster[2].sides[AXIS].recon is None


def test_recon_comes_off_left_into_the_next_start_and_14pm_shows_what_it_lost(
        story: Table) -> None:
    roster = story.refit.reads.roster(story.campaign)
    pm, night, morning = (row.sides for row in roster[1:4])
    # 3.617 EXC: what was left after 3.617 on 14PM is lost, on that CG Date's line.
    assert (pm[AXIS].cpp_forfeited, pm[BRITISH].cpp_forfeited) == (30, 10)
    # 3.620: the British 1 CPP of Recon is not Spent; Left 1 less it starts 15AM at 0.
    assert (night[BRITISH].cpp_spent, night[BRITISH].cpp_left) == (3, 1)
    assert night[BRITISH].recon_cpp == 1 and morning[BRITISH].cpp_start == 0
    assert story.refit.reads.roster(story.campaign, viewer=AXIS)[2].sides[
        BRITISH].recon_cpp is None  # what a side spends is its own (3.617)


def test_the_dual_attack_drs_decide_who_sets_up_and_who_moves_first(story: Table) -> None:
    roster = story.refit.reads.roster(story.campaign, viewer=AXIS)
    night, morning, afternoon = roster[2:5]
    assert (night.sets_up_first, night.moves_first) == (BRITISH, AXIS)  # 3.6213 dr 2, 3.623 5
    assert (morning.sets_up_first, morning.moves_first) == (AXIS, BRITISH)  # 3.6213d
    assert (afternoon.sets_up_first, afternoon.moves_first) == (BRITISH, AXIS)  # 3.6213c


def test_each_m1_raised_its_sides_san_as_it_was_bought(story: Table) -> None:
    changes = story.refit.reads.san(story.campaign)
    bought = [(c.cg_date, c.side, c.before, c.after, c.rule) for c in changes
              if c.cause == "M1 Sniper: SAN +1"]
    assert bought == [("14PM", AXIS, 2, 3, "3.617"), ("14N", BRITISH, 2, 3, "3.617")]


I1_FULL = "4x 4-5-8 + 4x 4-5-7 + 4x 4-4-7"
HAND_KEPT_PURCHASES = [  # #, side, CG Date, RG, CPP, #P, #R, F/D, units, SW, leader(s)
    (1, AXIS, "14AM", "I5", 14, 1, 1, "F", "12x 4-4-7", ["LMG"], "9-1, 8-1, 6+1"),
    (2, AXIS, "14AM", "I7", 12, 1, 2, "D", "9x 3-4-6", ["LMG"], "7-0, 8-1, 6+1"),
    (3, BRITISH, "14AM", "I2", 7, 1, 1, "F", "4x 6-4-8", ["LMG", "51mm MTR"], "8-1"),
    (4, BRITISH, "14AM", "I4", 4, 1, 0, "D", "1x 6-4-8", ["LMG"], "8-1"),
    (5, AXIS, "14PM", "I4", 15, 1, 0, "F", "12x 4-6-7", ["LMG"], "10-2, 8-1, 8-0"),
    (6, AXIS, "14PM", "M1", 2, 1, 7, None, None, [], None),
    (7, BRITISH, "14PM", "F1", 1, 1, 0, None, None, [], None),
    (8, BRITISH, "14PM", "I2", 7, 2, 0, "D", "3x 6-4-8", ["51mm MTR", "PIAT"], "8-1"),
    (9, AXIS, "14N", "I1", 21, 1, 2, "F", "12x 4-6-8",
     ["LMG"] * 3 + ["DC"] * 6 + ["FT"] * 3, "10-2, 9-1, 8-0"),
    (10, BRITISH, "14N", "M1", 3, 1, 3, None, None, [], None),
    (11, BRITISH, "15AM", "I1", 18, 1, 11, "F", I1_FULL,
     ["LMG"] * 3 + ["51mm MTR"] * 2 + ["PIAT"], "8-1, 9-1, 7-0"),
    (12, BRITISH, "15AM", "I1", 18, 2, 10, "D", "3x 4-5-8 + 3x 4-5-7 + 3x 4-4-7",
     ["LMG", "LMG", "51mm MTR"], "9-2, 8-0, 6+1"),
    (13, BRITISH, "15AM", "G1", 8, 1, 5, "F",
     "3x 57L OQF 6-Pounder AT (each with a 2-2-8 crew and a Lloyd Carrier)", [], None),
    (14, AXIS, "15AM", "G3", 5, 1, 3, "D", "1x 81* GrW 34 MTR (with a 2-2-8 crew)", [], None),
    (15, AXIS, "15PM", "I7", 12, 2, 1, "F", "12x 3-4-6", ["LMG"], "9-1, 9-1, 8-0"),
]


def test_the_rg_purchase_record_matches_the_forms_kept_by_hand(story: Table) -> None:
    record = story.refit.reads.purchase_record(story.campaign)
    assert [(r.purchase, r.side, r.cg_date, r.rg, r.cpp, r.p, r.r, r.strength, r.units, r.sw,
             r.leader) for r in record] == HAND_KEPT_PURCHASES


def test_every_refusal_on_the_way_named_its_rule(story: Table) -> None:
    assert story.refusals == [
        ("I10", "3.6178"), ("I1", "3.6178"),  # 14AM: note m per CG Date, note p
        ("roll", "3.6162"), ("G3", "3.6178"),  # 14PM: no Loss Points, note k
        ("I3", "3.6178"), ("I10", "3.6178"),  # 14N: note n, note m per calendar day
        ("roll", "3.6162"), ("I1", "3.6178"), ("G3", "3.6175"),  # 15AM: note l, Reserve
    ]


def test_elr_stays_as_the_initial_ob_set_it_no_pbr_reph_step_moves_it(story: Table) -> None:
    elr = story.refit.reads.elr(story.campaign)
    assert elr.current == {AXIS: 3, BRITISH: 5}
    assert [(c.cg_date, c.after) for c in elr.changes] == [("14AM", 3), ("14AM", 5)]
    assert [row.sides[AXIS].elr for row in story.refit.reads.roster(story.campaign)] == [3] * 5


def test_cvp_match_the_forms_kept_by_hand(story: Table) -> None:
    cvp = story.refit.reads.cvp(story.campaign)
    assert [(row.scenario, row.side, row.cvp) for row in cvp.scenarios] == [
        ("14AM", AXIS, 20), ("14AM", BRITISH, 6), ("14N", AXIS, 8), ("14N", BRITISH, 12),
        ("15AM", AXIS, 10), ("15AM", BRITISH, 4)]
    assert cvp.totals == {AXIS: 38, BRITISH: 22}


def test_the_british_see_none_of_the_axis_purchases_and_the_story_verifies(
        story: Table) -> None:
    british = story.refit.reads.purchase_record(story.campaign, viewer=BRITISH)
    assert all(line.hidden and line.rg is None for line in british if line.side == AXIS)
    assert all(row.sides[AXIS].cpp_left is None
               for row in story.refit.reads.roster(story.campaign, viewer=BRITISH))
    assert story.refit.reads.verify(story.campaign).ok


def test_leaving_3_616_warns_the_axis_it_gives_up_its_loss_points_dr(refit: Refit) -> None:
    t = Table(refit, refit.commands.create_campaign("pbr", "I", "Warned", "entered").id)
    initial_14am(t)  # the Axis lose 20 CVP, the British 6
    t.to("3.616")

    def leaving(side: str) -> list[str]:
        return list(refit.reads.guide(t.campaign, viewer=side)["sides"][side]["on_leaving"])
    warning = "3.6162: leaving 3.616 gives up the Axis side's"
    assert any(note.startswith(warning) for note in leaving(AXIS)), leaving(AXIS)
    assert not any("3.6162" in note for note in leaving(BRITISH))  # 6 lost: none to roll
    observer = refit.reads.guide(t.campaign, viewer="observer")["sides"][AXIS]["on_leaving"]
    assert not any("3.6162" in note for note in observer)
    t.roll("3.6162", AXIS, [5])
    assert not any(note.startswith(warning) for note in leaving(AXIS))
