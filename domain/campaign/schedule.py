"""An OB-given reinforcement schedule's lines due on leaving a step (ABtF 9.6152): what
leaving it gives each side (steps.py), and says beforehand (guide.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain.rules import ScheduledReinforcement

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


def scheduled(campaign: Campaign) -> list[ScheduledReinforcement]:
    """The OB-given reinforcements due as the RePh leaves this step on this CG Date."""
    plan, reph = campaign.rules.reinforcements, campaign.reph
    if plan is None or plan.step != reph.step or reph.phase != "reph":
        return []
    return [line for line in plan.schedule if line.cg_date == reph.cg_date]


def said(line: ScheduledReinforcement, amounts: bool) -> str:
    """What a line gives, in a player's words (FPP and SAN only where `amounts`: they are
    the side's own until announced; the RG is public, as the OB is)."""
    parts = [f"{line.rg} ({line.group_type})"] if line.rg else []
    if amounts and line.fpp:
        parts.append(f"{line.fpp} FPP")
    if amounts and line.san:
        parts.append(f"SAN {line.san:+d}")
    return ", ".join(parts)
