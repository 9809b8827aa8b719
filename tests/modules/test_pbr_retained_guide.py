"""The guide carries each side's own Retained units for the CG Date (PBr 3.6055, 3.613), as
`retain_units` takes them, the sealed lines and RG lines included: what the side's page
shows and sends back whole. An observer's guide carries none, and a new CG Date's list
starts empty."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from infra.application import Refit
from tests.helpers.story import advance, advance_to, do
from tests.modules.test_pbr_limits import AXIS, BRITISH, at, mmc, retain


def lines(refit: Refit, campaign: UUID, side: str, viewer: str | None
          ) -> list[dict[str, Any]]:
    """The side's Retained units for the CG Date as `viewer`'s guide lists them."""
    return refit.reads.guide(campaign, None, viewer)["sides"].get(side, {}).get("retained", [])


def test_the_guide_lists_a_sides_own_retained_units_and_an_observer_none(
        refit: Refit) -> None:
    campaign = at(refit, "3.612")
    retain(refit, campaign, BRITISH, mmc(10), mmc(2, hip=True), mmc(1, kind="HS", area="A2"))

    own = lines(refit, campaign, BRITISH, BRITISH)

    assert [(u["unit"], u["count"], u["area"], u["hip"]) for u in own] == [
        ("6-5-8", 10, "A1", False), ("3-4-8", 1, "A2", False), ("6-5-8", 2, "A1", True)]
    assert own[0] == {**mmc(10), "purchase": None, "hex": None, "fortification": False,
                      "hip": False, "off_map": False, "isolated": False, "shifted_from": None,
                      "elite": False, "airborne": False, "weapon": None, "usage_dr": None,
                      "item": None}  # each line whole, as retain_units takes it back
    assert lines(refit, campaign, BRITISH, "observer") == []
    assert lines(refit, campaign, BRITISH, AXIS) == []  # the Axis guide has its own only
    assert lines(refit, campaign, BRITISH, None) == own  # the director reads every side


def test_a_new_cg_date_starts_its_list_empty_beside_the_last_one(refit: Refit) -> None:
    campaign = at(refit, "3.612")
    retain(refit, campaign, BRITISH, mmc(4))
    advance_to(refit, campaign, "3.621")
    for side in (AXIS, BRITISH):  # both Idle: no scenario, the RePh again for 14N
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "idle"})
    advance(refit, campaign)

    assert refit.store.campaign(campaign).reph.cg_date == "14N"
    assert lines(refit, campaign, BRITISH, BRITISH) == []
    part = refit.reads.guide(campaign, None, BRITISH)["sides"][BRITISH]
    assert [(u["unit"], u["count"]) for u in part["retained_before"]] == [("6-5-8", 4)]
    observer = refit.reads.guide(campaign, None, "observer")["sides"][BRITISH]
    assert observer["retained_before"] == []
