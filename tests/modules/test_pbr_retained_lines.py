"""A side keeps its Retained units (PBr 3.6055, 3.613) a line at a time, as its page does:
`retain_unit` adds a line to those recorded on the CG Date, `remove_retained` takes one off
by its number in the guide's list. Each records the whole list again, open and sealed parts
alike, under the same limits as `retain_units` (3.619 b HIP), and the opponent reads only
the open part."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain.errors import InvalidCommand, RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import advance, advance_to, do
from tests.modules.test_pbr_limits import AXIS, BRITISH, at, mmc, retain


def add(refit: Refit, campaign: UUID, side: str, unit: dict[str, Any]) -> None:
    """The side adds one line to its Retained units."""
    do(refit, campaign, {"type": "retain_unit", "side": side, "unit": unit}, side)


def lines(refit: Refit, campaign: UUID, side: str, viewer: str | None = None) -> list[str]:
    """The side's Retained units for the CG Date as `viewer`'s guide lists them."""
    guide = refit.reads.guide(campaign, None, viewer or side)
    return [f"{u['count']} {u['unit']} {u['area']}" + (" HIP" if u["hip"] else "")
            for u in guide["sides"].get(side, {}).get("retained", [])]


def test_a_side_adds_its_retained_units_a_line_at_a_time_and_takes_one_off(
        refit: Refit) -> None:
    campaign = at(refit, "3.612")
    add(refit, campaign, BRITISH, mmc(10))
    add(refit, campaign, BRITISH, mmc(2, hip=True))  # 3.619 b: 2 of 12 may use HIP
    add(refit, campaign, BRITISH, mmc(1, kind="HS", area="A2"))
    assert lines(refit, campaign, BRITISH) == ["10 6-5-8 A1", "1 3-4-8 A2", "2 6-5-8 A1 HIP"]

    do(refit, campaign, {"type": "remove_retained", "side": BRITISH, "line": 2}, BRITISH)

    assert lines(refit, campaign, BRITISH) == ["10 6-5-8 A1", "2 6-5-8 A1 HIP"]
    retained = refit.reads.retained(campaign, None, AXIS)  # the opponent: the open part
    assert [(r.unit, r.count, r.purchase) for r in retained] == [("6-5-8", 10, None)]
    assert lines(refit, campaign, BRITISH, AXIS) == []  # and nothing in its own guide


def test_a_line_more_is_held_to_the_limits_and_a_line_past_the_list_is_refused(
        refit: Refit) -> None:
    campaign = at(refit, "3.612")
    add(refit, campaign, BRITISH, mmc(9))
    add(refit, campaign, BRITISH, mmc(3))
    version = refit.store.campaign(campaign).version

    too_many = refused(refit, campaign, {"type": "retain_unit", "side": BRITISH,
                                         "unit": mmc(3, hip=True)})
    past = refused(refit, campaign, {"type": "remove_retained", "side": BRITISH, "line": 3})

    assert isinstance(too_many, RuleViolation) and too_many.rule == "3.619"
    assert "15 squad-equivalents allow 2, not 3" in too_many.message
    assert isinstance(past, InvalidCommand) and past.field == "line"
    assert "the British has 2 line(s) of Retained units on 14PM" in past.message
    assert refit.store.campaign(campaign).version == version  # nothing appended


def test_a_new_cg_date_starts_the_list_afresh_and_an_rg_line_must_be_the_sides_own(
        refit: Refit) -> None:
    campaign = at(refit, "3.612")
    retain(refit, campaign, BRITISH, mmc(4))  # the whole list, as before
    add(refit, campaign, BRITISH, mmc(1, kind="HS"))
    assert lines(refit, campaign, BRITISH) == ["4 6-5-8 A1", "1 3-4-8 A1"]

    theirs = refused(refit, campaign, {"type": "retain_unit", "side": BRITISH,
                                       "unit": mmc(1) | {"purchase": 999}})

    assert isinstance(theirs, InvalidCommand | RuleViolation)
    assert lines(refit, campaign, BRITISH) == ["4 6-5-8 A1", "1 3-4-8 A1"]
    advance_to(refit, campaign, "3.621")
    for side in (AXIS, BRITISH):  # both Idle: no scenario, the RePh again for 14N
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "idle"})
    advance(refit, campaign)
    assert refit.store.campaign(campaign).reph.cg_date == "14N"
    assert lines(refit, campaign, BRITISH) == []
    add(refit, campaign, BRITISH, mmc(3))
    assert lines(refit, campaign, BRITISH) == ["3 6-5-8 A1"]
    kept = {(r.cg_date, r.count) for r in refit.reads.retained(campaign, None, BRITISH)}
    assert kept == {("14PM", 4), ("14PM", 1), ("14N", 3)}  # the form keeps each date's
