"""PBr RG chart note i: a pre-game Bombardment is resolved after all on-map setup (3.623),
and is then Eliminated; per CG Scenario no more than one per new CG Date since the last
CG-Scenario End, and none on an Idle CG Date."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import commands as cmd
from domain.campaign.events import CampaignEvent
from domain.campaign.handlers import handles
from domain.errors import RuleViolation

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


@handles(cmd.ResolveBombardment)
def resolve_bombardment(campaign: Campaign, command: cmd.ResolveBombardment,
                        actor: str) -> None:
    """Resolve a Bombardment RG within note i's number; it leaves the OB (Eliminated)."""
    campaign.reph.check_not_ended()
    side = campaign.check_side(command.side)
    limit = campaign.rules.unit_limits.bombardment
    rule = limit.rule if limit else campaign.rules.rg_chart_rule or None
    line = campaign.purchases.line(command.purchase, side)
    if limit is None or line["rg"] not in limit.rows or side != limit.side:
        raise RuleViolation(f"purchase #{command.purchase} ({line['rg']}) is not a "
                            "pre-game Bombardment RG", rule=rule)
    campaign.purchases.check_removal(command.purchase, side)
    why = f"note {limit.note}"
    if campaign.initiative.all_idle():
        raise RuleViolation(f"{why}: no Bombardment is resolved on an Idle CG Date",
                            rule=rule)
    cg_date = campaign.reph.cg_date
    new_dates = campaign.initiative.idle_dates_since_scenario + 1
    most = limit.per_new_cg_date * new_dates
    done = sum(1 for other in campaign.purchases.lines
               if other["side"] == side and other.get("bombarded") == cg_date)
    if done >= most:
        raise RuleViolation(
            f"{why}: the Bombardments usable in the {cg_date} CG Scenario are as many as "
            f"the new CG Dates since the last CG-Scenario End ({new_dates}): {most}, "
            f"and {done} resolved", rule=rule)
    campaign._record(BombardmentResolved, actor, secret_for=side, side=side,
                     purchase=command.purchase, rule=rule, cg_date=cg_date)


class BombardmentResolved(CampaignEvent):
    """A pre-game Bombardment resolved for the CG Date's scenario; its RG is Eliminated
    (note i). Sealed like its RG line: the opponent sees that one was resolved."""

    side: str
    purchase: int
    rule: str | None
    cg_date: str

    def apply(self, campaign: Any) -> None:
        line = campaign.purchases.lines[self.purchase - 1]
        line["removed"] = True
        line["bombarded"] = self.cg_date
