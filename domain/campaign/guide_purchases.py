"""The guide's purchases (e.g. PBr 3.617, ABtF 9.617): each RG the side may buy now, with
every way it may be bought (entry, reserve or on map at 3.6175's price; a chart note's
option) and its CG maximum; each RG it may not, with the refusal's words and rule; FPP left
for Fortifications. Each is checked as the purchase itself would be (purchases.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from domain import commands as cmd
from domain.campaign.limits import held_before
from domain.campaign.purchases import fortification_purchase, rg_purchase
from domain.errors import RefitError
from domain.rules import FortificationChart, FortificationRow, RGChart, RGRow

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign

Work = dict[str, Any]


def purchases_open(campaign: Campaign, side: str) -> list[Work]:
    """The RG the side may still buy in this step (listed at the printed price, with its
    other ways to buy it), and FPP left to spend on Fortifications."""
    module, step = campaign.rules, campaign.reph.step
    work: list[Work] = []
    for chart, row, kg in _offered(campaign, side):
        variants = list(_variants(campaign, side, chart, row, kg))
        if variants:
            first = variants[0]
            work.append({"purchase": "rg", "rg": row.id, "kg": kg, "cost": first["cost"],
                         "group_type": row.group_type, "rule": chart.rule,
                         "number": first["number"], "cg_max": first["cg_max"],
                         "variants": [_said(chart, v) for v in variants]})
    fpp = campaign.points.fpp.get(side) or 0
    if fpp and step in module.command_steps.get("purchase_fortification", []):
        forts = module.fortification_chart
        work.append({"purchase": "fortification", "fpp": fpp,
                     "rule": forts.rule if forts else None,
                     "items": [] if forts is None else _fortifications(campaign, side, forts)})
    return work


def _fortifications(campaign: Campaign, side: str, forts: FortificationChart) -> list[Work]:
    """The table's lines the side may buy now, each at its price to the side (3.619,
    9.619), checked as the purchase itself would be: a line that needs a unit Retained
    (3.619 d) only while one is, and one placed where an earlier Fortification was (3.619
    e: a Trench, where a Foxhole was on the previous CG Date) with the hexes it may go in."""
    items = []
    for line in forts.rows:
        if side not in line.cost:
            continue
        places = _earlier_places(campaign, side, line)
        tried: list[str | None] = [None] if places is None else list(places)
        fits = [place for place in tried if _may_buy(campaign, side, line.item, place)]
        if fits:
            items.append({"item": line.item, "cost": line.cost[side],
                          "hex": places is not None, "hexes": [h for h in fits if h]})
    return items


def _earlier_places(campaign: Campaign, side: str, line: FortificationRow) -> list[str] | None:
    """The hexes of the side's earlier Fortifications a line is placed in instead (3.619
    e); None for a line that asks no hex."""
    need = line.needs
    if need is None or not need.previous_in_hex:
        return None
    return held_before(campaign, side, need.previous_in_hex)


def _may_buy(campaign: Campaign, side: str, item: str, hex_: str | None) -> bool:
    """Whether one of the item (in the hex) would be bought now."""
    try:
        fortification_purchase(campaign, side, cmd.PurchaseFortification(
            side=side, reason=item, count=1, hex=hex_))
    except RefitError:
        return False
    return True


def purchases_refused(campaign: Campaign, side: str) -> list[Work]:
    """The RG of the side's chart it may not buy now, each with why (the rule's words:
    a maximum reached, a note's date window, the CPP it lacks)."""
    refused = []
    for chart, row, kg in _offered(campaign, side):
        if any(_variants(campaign, side, chart, row, kg)):
            continue  # some way to buy it holds: it is offered, not refused
        try:  # the printed-price purchase's refusal says why
            rg_purchase(campaign, side, cmd.PurchaseRG(side=side, rg=row.id, kg=kg))
        except RefitError as error:
            refused.append({"rg": row.id, "kg": kg, "group_type": row.group_type,
                            "why": error.message, "rule": error.rule or chart.rule})
    return refused


def _offered(campaign: Campaign, side: str) -> Iterator[tuple[RGChart, RGRow, str | None]]:
    """Each row of the side's chart (per KG where it buys per KG), in a purchase step."""
    module = campaign.rules
    if campaign.reph.step not in module.command_steps.get("purchase_rg", []) or \
            side not in module.rg_charts:
        return
    chart = module.rg_chart(side)
    for row in chart.rows:
        for kg in _kgs(campaign, side, row.kgs):
            yield chart, row, kg


def _variants(campaign: Campaign, side: str, chart: RGChart, row: RGRow,
              kg: str | None) -> Iterator[Work]:
    """Each way the row may be bought now: its mode (3.6175) and option (a chart note),
    with the purchase's fields as the ledger would record them."""
    modes = ["entry", *(name for name, how in chart.modes.items() if how.offers(row.id))]
    options = [None, *(o.name for o in chart.options if row.id in o.rows)]
    for mode in modes:
        for option in options:
            try:
                yield rg_purchase(campaign, side, cmd.PurchaseRG(
                    side=side, rg=row.id, kg=kg, mode=mode,  # type: ignore[arg-type]
                    option=option))
            except RefitError:
                continue


def _said(chart: RGChart, fields: Work) -> Work:
    """A way to buy an RG, as the guide lists it (an option with its chart note and what
    it gives)."""
    option = next((o for o in chart.options if o.name == fields["option"]), None)
    return {"mode": fields["mode"], "option": fields["option"], "cost": fields["cost"],
            "reserve": fields["reserve"],
            "note": option.note if option else None, "effect": option.effect if option else None}


def _kgs(campaign: Campaign, side: str, kgs: list[str] | None) -> list[str | None]:
    """The KGs an RG is bought for (ABtF German: each it may be), or none."""
    coordination = campaign.rules.coordination
    if coordination is None or coordination.side != side:
        return [None]
    return list(kgs) if kgs else list(coordination.groups)
