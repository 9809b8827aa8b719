"""ABtF 9.619 note 5: no more than 10% (FRU) of a side's Retained Infantry squads may set
up using HIP in a daytime scenario, counted separately for each Setup Area."""

from __future__ import annotations

from typing import Any

from domain.errors import RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import abtf_campaign, do, to_reph_step

GERMAN = "German"


def squads(count: int, area: str, hip: bool = False) -> dict[str, Any]:
    """Retained German squads in a Setup Area."""
    return {"unit": "4-6-7", "kind": "squad", "count": count, "area": area, "hip": hip}


def test_9_619_note_5_counts_hip_for_each_setup_area_apart(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Arnhem", "entered")
    to_reph_step(refit, campaign, "9.619")  # 18AM: a daytime CG Scenario
    # 20 squads in all would allow 2, but Area A's 10 allow 1 (10% of 10).
    error = refused(refit, campaign, {"type": "retain_units", "side": GERMAN, "units": [
        squads(8, "A"), squads(2, "A", hip=True), squads(10, "B")]})
    assert isinstance(error, RuleViolation) and error.rule == "9.619"
    assert "in Setup Area A" in error.message and "allow 1, not 2" in error.message
    do(refit, campaign, {"type": "retain_units", "side": GERMAN, "units": [
        squads(9, "A"), squads(1, "A", hip=True), squads(10, "B"),
        squads(1, "B", hip=True)]}, GERMAN)  # B: 11 squads, 1.1 FRU 2
