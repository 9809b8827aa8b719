"""Initiative (e.g. 9.6213, 3.6213): each side's secret chit, the Initiative Matrix's
word for the CG Date, the CG's chit limits, and the history 9.6202's DRM counts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from domain.campaign.events import CampaignEvent
from domain.campaign.part import Part
from domain.errors import RuleViolation
from domain.rules import Module

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


class Initiative(Part):
    """The chits of this CG Date, the chits chosen in the CG, and the Idle history."""

    name = "initiative"

    def __init__(self, sides: list[str], initial_chits: dict[str, str] | None) -> None:
        self.chits: dict[str, str | None] = dict.fromkeys(sides)
        self.chits_chosen = {side: {"attack": 0, "idle": 0} for side in sides}
        self.date_scenario: str | None = None  # the Initiative Matrix's word for the date
        self.previous_date_idle = False
        self.idle_dates_since_scenario = 0
        self.scenarios_since_idle = 0
        # An Initial Scenario's assumed chits count for 9.620 (e.g. ABtF 9.5).
        assumed = {side: int((initial_chits or {}).get(side) == "attack") for side in sides}
        self.attack_chits_since_idle: dict[str, int] = dict(assumed)
        self.attack_chits_in_cg: dict[str, int] = dict(assumed)

    def waiting(self) -> list[str]:
        """The sides that have not chosen their chit for this CG Date."""
        return [side for side, chit in self.chits.items() if chit is None]

    def all_idle(self) -> bool:
        """Both sides chose Idle."""
        return all(chit == "idle" for chit in self.chits.values())

    def check_choice(self, module: Module, cg: str, cg_date: str, side: str,
                     chit: str) -> None:
        """One chit per side per CG Date, within the CG's limits (e.g. 9.62131)."""
        if self.chits[side] is not None:
            raise RuleViolation(f"{side} has already chosen its chit for {cg_date}")
        params = module.cgs.get(cg)
        if params is None:
            return
        limit = (params.attack_chits if chit == "attack" else params.idle_chits).get(side)
        used = self.chits_chosen[side][chit]
        if limit is not None and used >= limit:
            raise RuleViolation(f"the {side} player has chosen {used} {chit.title()} chits: CG "
                                f"{cg} allows {limit}", rule=module.chit_limit_rule or None)


def check_selection(campaign: Campaign, side: str, chit: str) -> None:
    """A chit is chosen for a CG Date after an Initial Scenario, once, within the CG's
    limits, and Attack only against an enemy on the map (3.6212 *)."""
    module = campaign.rules
    if campaign.reph.phase == "setup":
        raise RuleViolation("no Initiative chits before an Initial Scenario: its OB sets "
                            "the initiative", rule=module.initiative_rule or None)
    campaign.initiative.check_choice(module, campaign.cg, campaign.reph.cg_date, side, chit)
    needs = module.attack_needs_target
    if needs is not None and chit == "attack" and side == needs.side and \
            campaign.scenario.off_map.get(needs.enemy):
        raise RuleViolation(f"the {side} may not choose Attack: the {needs.enemy} have no "
                            "on-map Retained units", rule=needs.rule)


def revealed_chits(campaign: Campaign) -> dict[str, Any]:
    """The ChitsRevealed fields: every chit, and what the Initiative Matrix makes of them."""
    chits = {side: cast(str, chit) for side, chit in campaign.initiative.chits.items()}
    cg_date = campaign.reph.cg_date
    night = campaign.rules.date(cg_date).night
    return {"chits": chits, "cg_date": cg_date,
            "scenario_type": campaign.rules.scenario_type(chits, night)}


class InitiativeSelected(CampaignEvent):
    """A side chose its Initiative chit (secret until both have chosen)."""

    side: str
    chit: str
    cg_date: str

    def apply(self, campaign: Any) -> None:
        initiative: Initiative = campaign.initiative
        initiative.chits[self.side] = self.chit
        initiative.chits_chosen[self.side][self.chit] += 1
        if self.chit == "attack":
            initiative.attack_chits_since_idle[self.side] += 1
            initiative.attack_chits_in_cg[self.side] += 1


class ChitsRevealed(CampaignEvent):
    """Both chits are chosen: they are shown together."""

    chits: dict[str, str]
    cg_date: str
    scenario_type: str | None

    def apply(self, campaign: Any) -> None:
        initiative: Initiative = campaign.initiative
        initiative.date_scenario = self.scenario_type
        initiative.previous_date_idle = all(chit == "idle" for chit in self.chits.values())
        if initiative.previous_date_idle:  # an Idle CG Date
            initiative.idle_dates_since_scenario += 1
            initiative.scenarios_since_idle = 0
            initiative.attack_chits_since_idle = dict.fromkeys(campaign.sides, 0)
