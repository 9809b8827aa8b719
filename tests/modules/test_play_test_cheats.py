"""The play test's cheats (issue 14, "Why") that no other test tries again: each is
refused with its rule and appends nothing. The rest are tried where their part is tested:
tests/modules/test_drm_cheats.py (the DRM ones), tests/service/test_subjects.py (dice
after an undo, 3.6181/3.6182/3.6213 required), tests/modules/test_pbr_results.py (M3, M1),
tests/modules/test_pbr_campaign.py (forfeited CPP, Recon), tests/modules/
test_pbr_cg_parameters.py (OB-given RGs public), tests/service/test_pinning.py (new module
data), tests/service/test_rulings.py (a CPP figure corrected)."""

from __future__ import annotations

from uuid import UUID

from domain.errors import RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import advance_to, do, due, to_reph_step

AXIS, BRITISH = "Axis", "British"


def test_3_618_is_not_left_while_a_3_6183_leader_dr_is_still_due(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Leaders", "server").id
    do(refit, campaign, {"type": "credit_cpp", "side": AXIS, "amount": 39, "reason": "CPP"})
    do(refit, campaign, {"type": "purchase_rg", "side": AXIS, "rg": "I5"})  # a coy: 3 rolls
    advance_to(refit, campaign, "3.618", rolls=False)
    for table, side, subject in due(refit, campaign):  # its strength, and any SW dr
        do(refit, campaign, {"type": "roll", "table": table, "side": side, "subject": subject})
    leaders = [subject for table, _, subject in due(refit, campaign)
               if table == "3.6183-personnel"]
    assert leaders == ["rg:1/leader:1", "rg:1/leader:2", "rg:1/leader:3"]
    for actor_body in ({"type": "advance"}, {"type": "advance", "side": AXIS}):
        error = refused(refit, campaign, actor_body)
        assert isinstance(error, RuleViolation) and error.rule == "3.618"
        assert "the Axis 3.6183-personnel (Leader Table (Personnel Leader column)) for " \
               "rg:1/leader:3" in error.message


def dual_attack_at_3_623(refit: Refit) -> UUID:
    """14PM: both sides chose Attack (a Dual Attack), the British rolled 3.6213."""
    campaign = refit.commands.create_campaign("pbr", "I", "Dual", "server").id
    to_reph_step(refit, campaign, "3.621")
    for side in (AXIS, BRITISH):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "attack"})
    advance_to(refit, campaign, "3.623")
    return campaign


def test_a_dual_attack_is_not_played_before_the_3_623_first_move_dr(refit: Refit) -> None:
    campaign = dual_attack_at_3_623(refit)
    for body in ({"type": "advance"}, {"type": "advance", "side": BRITISH}):
        error = refused(refit, campaign, body)
        assert isinstance(error, RuleViolation) and error.rule == "3.623"
        assert "the British 3.623 (Dual Attack: side moving first)" in error.message
    do(refit, campaign, {"type": "roll", "table": "3.623", "side": BRITISH, "subject": "step"})
    do(refit, campaign, {"type": "advance"})
    assert refit.store.campaign(campaign).reph.phase == "scenario"
