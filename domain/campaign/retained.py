"""The roster of Retained units: what each side keeps from one CG Scenario to the next
(3.6055 in a Setup Area, 3.6061 after Escape, 3.613 after a Shift; 9.6053-9.613 in ABtF),
each with the RG line it came with, and the Fortifications it set up (3.619, 3.6222).

What the opponent may not see is sealed: HIP units and every Fortification's location
(3.619, 3.6073, 3.6223 reveal them only when found), and units Retained off map.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import commands as cmd
from domain.campaign.events import CampaignEvent
from domain.campaign.handlers import handles

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


def secret(unit: cmd.RetainedUnit) -> bool:
    """Whether the rules keep this line from the opponent."""
    return unit.hip or unit.fortification or unit.off_map


@handles(cmd.RetainUnits)
def retain_units(campaign: Campaign, command: cmd.RetainUnits, actor: str) -> None:
    """Record a side's Retained units on the CG Date: the open part, and the sealed part
    (always both, so a sealed event tells the opponent nothing)."""
    campaign.reph.check_not_ended()
    side = campaign.check_side(command.side)
    for unit in command.units:
        if unit.purchase is not None:
            campaign.purchases.line(unit.purchase, side)  # the side's own RG line
    for sealed in (False, True):
        units = [u.model_dump() for u in command.units if secret(u) == sealed]
        campaign._record(UnitsRetained, actor, secret_for=side if sealed else None,
                         side=side, units=units, sealed_part=sealed,
                         cg_date=campaign.reph.cg_date)


class UnitsRetained(CampaignEvent):
    """A side's Retained units (the open or the sealed part) on a CG Date."""

    side: str
    units: list[dict[str, Any]]
    sealed_part: bool
    cg_date: str

    def apply(self, campaign: Any) -> None:
        """The roster is a form; no rule of the RePh reads it yet."""
