"""The statistics read (projections/statistics.py): chi-square known answers, and the
charts' series from the PBr demo campaign as the director and as the opponent read them."""

from __future__ import annotations

import math
from uuid import UUID

import pytest

from infra.application import Refit
from infra.demo import AXIS, BRITISH, play_demo
from projections.statistics import Statistics, chi2_sf, distribution
from tests.helpers.story import do

# Critical values of the chi-square distribution, as printed in every table (p = 0.05,
# 0.01), and a figure whose tail is known in closed form: df 2 is e^(-x/2).
TABLE = [(3.841, 1, 0.05), (5.991, 2, 0.05), (11.070, 5, 0.05), (15.086, 5, 0.01),
         (18.307, 10, 0.05), (23.209, 10, 0.01), (4.0, 2, 0.1353353)]


@pytest.mark.parametrize(("x", "df", "p"), TABLE)
def test_the_chi_square_tail_matches_the_printed_tables(x: float, df: int, p: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(p, abs=2e-5)


def test_no_deviation_has_the_whole_tail_and_a_huge_one_none() -> None:
    assert chi2_sf(0.0, 5) == 1.0
    # far in the tail: e^-200 (1 + 200 + 200²/2 + 200³/6 + 200⁴/24), not rounded to 0
    assert chi2_sf(400.0, 10) == pytest.approx(math.exp(-200) * 68020201, rel=1e-9)
    with pytest.raises(ValueError, match="degree of freedom"):
        chi2_sf(1.0, 0)


def test_a_fair_uniform_dr_sample_has_chi_square_zero() -> None:
    fair = distribution("dr", [1, 2, 3, 4, 5, 6] * 10)
    assert fair.observed == [10] * 6 and fair.expected == [10.0] * 6
    assert (fair.chi2, fair.df, fair.p_value, fair.sparse) == (0.0, 5, 1.0, False)


def test_a_skewed_dr_sample_has_its_hand_computed_figure() -> None:
    # 60 dr: 6, 8, 10, 12, 14, 10 against 10 each: (16 + 4 + 0 + 4 + 16 + 0) / 10 = 4.0;
    # with 5 df, P(X >= 4) = 1 - P(2.5, 2) = 0.549416 (regularized incomplete gamma)
    skewed = distribution("dr", [1] * 6 + [2] * 8 + [3] * 10 + [4] * 12 + [5] * 14 + [6] * 10)
    assert skewed.chi2 == pytest.approx(4.0)
    assert skewed.p_value == pytest.approx(0.5494160, abs=1e-6)


def test_dr_sums_are_weighed_as_two_fair_dice_and_few_rolls_are_flagged() -> None:
    # 36 DR, one of each of the 36 ways two dice fall: exactly as expected
    every_way = distribution("DR", [a + b for a in range(1, 7) for b in range(1, 7)])
    assert every_way.faces == list(range(2, 13)) and every_way.df == 10
    assert every_way.expected == [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]
    assert every_way.observed == every_way.expected and every_way.chi2 == 0.0
    assert every_way.sparse  # a count of 1 expected: the approximation is rough
    # all sevens in 36 DR: 30²/6 + the other faces' expected counts, 30
    sevens = distribution("DR", [7] * 36)
    assert sevens.chi2 == pytest.approx(150.0 + 30.0)
    none = distribution("dr", [])
    assert (none.rolls, none.chi2, none.p_value, none.sparse) == (0, None, None, False)


@pytest.fixture
def demo(refit: Refit) -> UUID:
    """PBr CG I as `refit demo` plays it, then an Axis ELR loss on 15PM."""
    campaign, _ = play_demo(refit)
    do(refit, campaign, {"type": "change_elr", "side": AXIS, "value": 3,
                         "cause": "Heavy losses", "rule": "3.613"})
    return campaign


def test_the_series_follow_the_cg_roster_and_the_cvp_read(refit: Refit, demo: UUID) -> None:
    stats = refit.reads.statistics(demo)
    roster = refit.reads.roster(demo)
    assert stats.cg_dates == ["14AM", "14PM", "14N", "15AM", "15PM"]
    for side in (AXIS, BRITISH):
        assert [(p.start, p.spent, p.left) for p in stats.cpp[side]] == [
            (r.sides[side].cpp_start, r.sides[side].cpp_spent, r.sides[side].cpp_left)
            for r in roster]
    assert stats.cpp[AXIS][0].start is not None and not stats.cpp[AXIS][0].hidden
    # the demo's casualties, per CG Scenario (infra/demo.py)
    assert [(b.scenario, b.cvp) for b in stats.cvp.scenarios] == [
        ("14AM", {AXIS: 20, BRITISH: 6}), ("14N", {AXIS: 8, BRITISH: 13}),
        ("15AM", {AXIS: 12, BRITISH: 6})]
    assert stats.cvp.totals == {AXIS: 40, BRITISH: 25}
    assert stats.ratings[AXIS][-1].elr == 3  # the CG Roster line of 15PM records it
    assert "3.617" in stats.rules["cpp"]  # PBr's: CPP Spent and Left may be kept secret


def test_each_cg_dates_cpp_add_up_as_the_cg_roster_does(refit: Refit, demo: UUID) -> None:
    stats = refit.reads.statistics(demo)
    for side in (AXIS, BRITISH):
        for point in stats.cpp[side]:  # Start + received - Spent - Forfeited = Left
            assert point.start is not None and point.received is not None
            assert point.spent is not None and point.forfeited is not None
            assert point.start + point.received - point.spent - point.forfeited == \
                point.left, (side, point)
    # the demo's 14PM: each side forfeits the CPP it left unspent at 3.617 (infra/demo.py)
    for side in (AXIS, BRITISH):
        forfeits = [p.forfeited for p in stats.cpp[side]]
        assert forfeits[1] > 0 and forfeits[0] == 0, (side, forfeits)
        assert stats.cpp[side][0].received > 0  # 14AM's CPP, credited
    hidden = refit.reads.statistics(demo, viewer=BRITISH).cpp[AXIS]  # 3.617: its own
    assert all(p.forfeited is None and p.left is None for p in hidden if p.hidden)


def counted(stats: Statistics, side: str) -> int:
    return stats.dice[side].dr.rolls + stats.dice[side].DR.rolls


def test_dice_count_every_roll_the_reader_sees_and_no_hidden_one(refit: Refit,
                                                                 demo: UUID) -> None:
    everything, opponent = refit.reads.statistics(demo), refit.reads.statistics(demo, None,
                                                                                BRITISH)
    rolls = refit.reads.rolls(demo)
    for side in (AXIS, BRITISH):
        assert counted(everything, side) == sum(1 for r in rolls if r.side == side)
        mine = [r.dice for r in rolls if r.side == side and r.kind == "DR"]
        assert sum(everything.dice[side].DR.observed) == len(mine)
    seen = refit.reads.rolls(demo, None, BRITISH)
    public_axis = [r for r in seen if r.side == AXIS and not r.hidden]
    assert counted(opponent, AXIS) == len(public_axis)
    assert counted(opponent, AXIS) < counted(everything, AXIS)  # the Axis rolls in secret
    assert opponent.dice[BRITISH] == everything.dice[BRITISH]  # its own, all of them
    assert all(p.hidden and p.spent is None and p.left is None for p in opponent.cpp[AXIS])
