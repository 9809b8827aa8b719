"""The roster of Retained units: what each side keeps from one CG Scenario to the next
(3.6055 in a Setup Area, 3.6061 after Escape, 3.613 after a Shift; 9.6053-9.613 in ABtF),
each with the RG line it came with, and the Fortifications it set up (3.619, 3.6222); and
the casualties, each tied to its RG line where the record names one.

What the opponent may not see is sealed: HIP units and every Fortification's location
(3.619, 3.6073, 3.6223 reveal them only when found), and units Retained off map.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import commands as cmd
from domain.campaign.events import CampaignEvent
from domain.campaign.handlers import handles
from domain.campaign.scenario import CasualtyRecorded
from domain.errors import RuleViolation

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


def check_casualty(campaign: Campaign, side: str, ww_half_squads: int,
                   purchase: int | None) -> str:
    """The scenario a casualty counts for: the one in play or just played (9.12); a WW box
    the module keeps for that side (CG19); the side's own RG line."""
    scenario = campaign.scenario.check_casualty()
    box = campaign.rules.walking_wounded
    if ww_half_squads and (box is None or box.side != side):
        raise RuleViolation(f"{campaign.rules.id} keeps no Walking Wounded box for the "
                            f"{side}", rule=box.rule if box else None)
    if purchase is not None:
        campaign.purchases.line(purchase, side)  # the side's own RG line
    return scenario


def record_casualty(campaign: Campaign, side: str, fields: dict[str, Any], scenario: str,
                    actor: str) -> None:
    """A casualty counted, openly; one tied to its RG line says so on that line, which
    only its side reads (3.6172). Recorded by the director, or on a confirmed report."""
    campaign._record(CasualtyRecorded, actor, side=side, unit=fields["unit"],
                     cvp=fields["cvp"], scenario=scenario,
                     ww_half_squads=fields["ww_half_squads"])
    if fields["purchase"] is not None:
        campaign._record(RGCasualty, actor, secret_for=side, side=side,
                         purchase=fields["purchase"], unit=fields["unit"], cvp=fields["cvp"],
                         scenario=scenario)


class RGCasualty(CampaignEvent):
    """A casualty of an RG, on its line of the RG Purchase Record (sealed like the line)."""

    side: str
    purchase: int
    unit: str
    cvp: int
    scenario: str

    def apply(self, campaign: Any) -> None:
        """The RG Purchase Record is a form; no rule of the RePh reads it."""


class UnitsRetained(CampaignEvent):
    """A side's Retained units (the open or the sealed part) on a CG Date."""

    side: str
    units: list[dict[str, Any]]
    sealed_part: bool
    cg_date: str

    def apply(self, campaign: Any) -> None:
        """The roster is a form; no rule of the RePh reads it yet."""
