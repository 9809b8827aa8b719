"""PBr RG chart note i: a pre-game Bombardment is resolved after all on-map setup (3.623),
and is then Eliminated; per CG Scenario no more than one per new CG Date since the last
CG-Scenario End, and none on an Idle CG Date."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import commands as cmd
from domain.campaign.events import CampaignEvent
from domain.campaign.handlers import handles
from domain.errors import RefitError, RuleViolation

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


@handles(cmd.ResolveBombardment)
def resolve_bombardment(campaign: Campaign, command: cmd.ResolveBombardment,
                        actor: str) -> None:
    """Resolve a Bombardment RG within note i's number; it leaves the OB (Eliminated)."""
    campaign.reph.check_not_ended()
    side = campaign.check_side(command.side)
    rule = check(campaign, side, command.purchase)
    campaign._record(BombardmentResolved, actor, secret_for=side, side=side,
                     purchase=command.purchase, rule=rule, cg_date=campaign.reph.cg_date)


def check(campaign: Campaign, side: str, purchase: int) -> str | None:
    """Line `purchase` is the side's Bombardment RG, still held, and note i allows one
    more in this CG Date's scenario: the rule to cite."""
    limit = campaign.rules.unit_limits.bombardment
    rule = limit.rule if limit else campaign.rules.rg_chart_rule or None
    line = campaign.purchases.line(purchase, side)
    if limit is None or line["rg"] not in limit.rows or side != limit.side:
        raise RuleViolation(f"purchase #{purchase} ({line['rg']}) is not a pre-game "
                            "Bombardment RG", rule=rule)
    campaign.purchases.check_removal(purchase, side)
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
    return rule


def open_bombardments(campaign: Campaign, side: str) -> list[dict[str, Any]]:
    """The side's Bombardment RG it may resolve now (the guide's optional work)."""
    module = campaign.rules
    limit = module.unit_limits.bombardment
    if limit is None or campaign.reph.step not in module.command_steps.get(
            "resolve_bombardment", []):
        return []
    work = []
    for number, line in enumerate(campaign.purchases.lines, 1):
        if line["side"] == side and line["rg"] in limit.rows and not line.get("removed"):
            try:
                rule = check(campaign, side, number)
            except RefitError:
                continue
            work.append({"command": "resolve_bombardment", "purchase": number,
                         "rg": line["rg"], "rule": rule})
    return work


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
