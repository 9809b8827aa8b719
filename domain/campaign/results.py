"""Results applied: what an RG bought (PBr M1, M3) or a roll's result (3.6213, 3.623)
does to the record, each through an event that cites its rule; the SAN a secret purchase
changed, announced at Scenario Commencement (3.623); each RG's Setup/Entry Area (3.6179).

Procedure here, tables as data: an RG chart row's `effects`, a band's `order`, an
Initiative Matrix line's `order`, the module's `san_announced`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from domain import commands as cmd
from domain.campaign.events import CampaignEvent
from domain.campaign.handlers import handles
from domain.campaign.points import CPPCredited, ELRChanged, FPPCredited, SANChanged
from domain.errors import RuleViolation
from domain.rules import RGEffect, RGRow, Table

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign

Applied = tuple[type[CampaignEvent], dict[str, Any]]


def check_purchase(campaign: Campaign, side: str, row: RGRow) -> None:
    """Refuse a purchase whose effect cannot be applied (a SAN not yet recorded)."""
    for effect in row.effects:
        _applied(campaign, side, row, effect)


def purchased(campaign: Campaign, side: str, rg: str, actor: str) -> None:
    """Apply what the RG just bought does at once, sealed like the purchase (3.617): its
    FPP and CPP are the side's own, and its SAN is announced only at 3.623."""
    chart = campaign.rules.rg_chart(side)
    row = chart.row(rg)
    for effect in row.effects:
        event_class, fields = _applied(campaign, side, row, effect)
        campaign._record(event_class, actor, secret_for=side, rule=effect.rule,
                         cg_date=campaign.reph.cg_date, **fields)
    # As many sealed records for every RG of the chart: their number would name it.
    most = max(len(other.effects) for other in chart.rows)
    for _ in range(most - len(row.effects)):
        campaign._record(PurchasePadded, actor, secret_for=side, side=side)


def _applied(campaign: Campaign, side: str, row: RGRow, effect: RGEffect) -> Applied:
    """The event (and its fields) by which one effect of an RG is applied."""
    what = f"{row.id} {row.group_type}"
    if effect.target in ("fpp", "cpp"):
        pool = FPPCredited if effect.target == "fpp" else CPPCredited
        return pool, {"side": side, "amount": effect.change,
                      "reason": f"{what}: {effect.change} {effect.target.upper()}"}
    ratings = campaign.points.san if effect.target == "san" else campaign.points.elr
    before = ratings[side]
    if before is None:
        # a side reads this on its purchase form: the recording is the director's
        raise RuleViolation(f"{row.id} changes the {side} {effect.target.upper()}, which is "
                            f"not on the record yet: the director records it first "
                            f"(change_{effect.target})", rule=effect.rule)
    after = before + effect.change
    if effect.maximum is not None:
        after = min(after, max(effect.maximum, before))
    return (SANChanged if effect.target == "san" else ELRChanged,
            {"side": side, "before": before, "after": after,
             "cause": f"{what}: {effect.target.upper()} {effect.change:+d}"})


def rolled(campaign: Campaign, table: Table, final: int, actor: str) -> None:
    """What a roll's result decides for the CG Scenario: who sets up or moves first
    (3.6213a, 3.623; 9.62133a, 9.6215), public as the roll is."""
    band = table.band(final)
    if band is not None and band.order:
        campaign._record(OrderDecided, actor, cg_date=campaign.reph.cg_date,
                         rule=table.rule, **_order(band.order))


def chits_revealed(campaign: Campaign, actor: str) -> None:
    """An Assault's order, which the scenario type gives without a dr (3.6213c/d)."""
    module = campaign.rules
    chits = campaign.initiative.chits
    entry = next((e for e in module.initiative_matrix if e.chits == chits), None)
    if entry is not None and entry.order:
        campaign._record(OrderDecided, actor, cg_date=campaign.reph.cg_date,
                         rule=entry.order_rule or module.initiative_rule, **_order(entry.order))


def _order(order: Mapping[Any, str]) -> dict[str, str | None]:
    return {"sets_up_first": order.get("sets_up_first"),
            "moves_first": order.get("moves_first")}


def entering(campaign: Campaign, actor: str) -> None:
    """As the RePh enters the step where each side announces its SAN (3.623), open every
    SAN a secret purchase changed."""
    announced = campaign.rules.san_announced
    waiting = campaign.points.unannounced
    if announced is None or announced.step != campaign.reph.step or not waiting:
        return
    campaign._record(SANAnnounced, actor, san={side: campaign.points.san[side]
                                               for side in waiting},
                     rule=announced.rule, cg_date=campaign.reph.cg_date)


@handles(cmd.RecordRGArea)
def record_area(campaign: Campaign, command: cmd.RecordRGArea, actor: str) -> None:
    """3.6179: each RG has a friendly Setup Area or Eligible Entry Area recorded for it on
    its CG Date of purchase, on its (secret) line of the RG Purchase Record."""
    reph = campaign.reph
    reph.check_not_ended()
    side = campaign.check_side(command.side)
    line = campaign.purchases.line(command.purchase, side)
    rules = campaign.rules
    rule = rules.rg_record_rule or rules.rg_chart_rule or None
    row = rules.chart_row(side, line["rg"])
    if row is not None and not row.placed:
        raise RuleViolation(f"purchase #{command.purchase} ({row.id}, {row.group_type}) "
                            "brings no units to set up or enter: no Setup/Entry Area is "
                            "recorded for it", rule=rule)
    if not rules.before_setup(reph.phase, reph.step):  # its units set up (or entered)
        raise RuleViolation(f"purchase #{command.purchase}'s Setup/Entry Area is recorded in "
                            "the RePh of its CG Date of purchase, before the CG Scenario "
                            "sets up", rule=rule)
    if line["cg_date"] != reph.cg_date:
        raise RuleViolation(f"purchase #{command.purchase} came on {line['cg_date']}: its "
                            "Setup/Entry Area is recorded on its CG Date of purchase",
                            rule=rule)
    campaign._record(RGAreaRecorded, actor, secret_for=side, side=side,
                     purchase=command.purchase, area=command.area, cg_date=reph.cg_date)


class PurchasePadded(CampaignEvent):
    """Nothing: a sealed record a secret RG purchase appends in place of an effect its RG
    has not, so that every purchase of the chart appends as many (README, 'Secrecy')."""

    side: str


class OrderDecided(CampaignEvent):
    """Who sets up first, or moves first, in the CG Date's scenario (3.6213, 3.623)."""

    cg_date: str
    rule: str
    sets_up_first: str | None
    moves_first: str | None

    def apply(self, campaign: Any) -> None:
        """The order is on the CG Roster; no rule of the RePh reads it."""


class SANAnnounced(CampaignEvent):
    """3.623: each side announces its current SAN; those a secret purchase changed are
    open from now on."""

    san: dict[str, int | None]
    rule: str
    cg_date: str

    def apply(self, campaign: Any) -> None:
        campaign.points.unannounced = []


class RGAreaRecorded(CampaignEvent):
    """An RG's Setup/Entry Area ID (3.6179), on its line of the RG Purchase Record."""

    side: str
    purchase: int
    area: str
    cg_date: str

    def apply(self, campaign: Any) -> None:
        campaign.purchases.lines[self.purchase - 1]["setup_area"] = self.area
