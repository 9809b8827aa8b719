"""The RG Purchase Record (e.g. 9.6179, 3.6179) and Fortifications: what a side may buy
within the chart's maximums and notes, at what price, and the OB-given RG."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import commands as cmd
from domain.campaign import limits, results
from domain.campaign.events import CampaignEvent
from domain.campaign.part import Part
from domain.campaign.points import PointsEvent
from domain.digits import digits
from domain.errors import InvalidCommand, RuleViolation
from domain.rules import FortificationRow, Module, RGChart, RGRow, rg_letters

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


def line_of(side: str, rg: str, kg: str | None, cg_date: str | None,
            given: bool = False) -> dict[str, Any]:
    """A line of the RG Purchase Record as the campaign keeps it."""
    return {"side": side, "rg": rg, "kg": kg, "cg_date": cg_date, "given": given,
            "strength": None, "leader": None, "composition": None, "sw": [], "choices": {},
            "sw_rolls": {}, "removed": False}


def _day(cg_date: str | None) -> str:
    """The calendar day of a CG Date: "15PM" -> "15" (PBr coy limits per day)."""
    return "".join(char for char in cg_date or "" if digits(char))


class Purchases(Part):
    """Each side's RG lines (bought or OB-given), RG and Fortification tallies."""

    name = "purchases"

    def __init__(self, sides: list[str]) -> None:
        self.lines: list[dict[str, Any]] = []  # side, rg, kg, strength, sw, choices, ...
        self.rg_total: dict[str, dict[str, int]] = {side: {} for side in sides}
        self.rg_today: dict[str, dict[str, int]] = {side: {} for side in sides}
        self.forts_today: dict[str, dict[str, int]] = {}
        self.forts_total: dict[str, dict[str, int]] = {}
        # side -> item -> the hexes it was placed in on the CG Date (3.619 e: a Trench
        # in a hex that held a Foxhole, one per hex)
        self.hexes_today: dict[str, dict[str, list[str]]] = {}
        self.hexes_before: dict[str, dict[str, list[str]]] = {}  # ... on the previous one

    def line(self, number: int, side: str) -> dict[str, Any]:
        """Line `number` of the record, which must be the side's."""
        if not 1 <= number <= len(self.lines):
            raise InvalidCommand(f"no RG purchase #{number}", field="purchase")
        line = self.lines[number - 1]
        if line["side"] != side:
            raise InvalidCommand(f"purchase #{number} is not the {side}'s", field="purchase")
        return line

    def check_removal(self, number: int, side: str) -> None:
        """An RG leaves the OB once."""
        if self.line(number, side).get("removed"):
            raise InvalidCommand(f"purchase #{number} has already left the OB",
                                 field="purchase")

    @staticmethod
    def check_available(chart: RGChart, row: RGRow, cg: str) -> None:
        """An RG whose chart gives a maximum of 0 (printed NA) is never bought: said so,
        not as a maximum reached or a price too high."""
        if row.cg_max.get(cg) == 0:
            raise RuleViolation(f"{row.id} ({row.group_type}) is not available in CG {cg} "
                                "(the chart's CG max is 0)", rule=chart.rule)
        if row.cg_date_max == 0:
            raise RuleViolation(f"{row.id} ({row.group_type}) is not available: the "
                                "chart's CG Date max is 0", rule=chart.rule)

    def check_maximums(self, chart: RGChart, row: RGRow, side: str, kg: str | None,
                       cg: str, cg_date: str) -> tuple[int, int | None]:
        """The CG Date and CG maximums (per KG where the chart counts so): this purchase's
        number (#P) and the CG maximum."""
        key, whose = (f"{row.id}@{kg}", f" for {kg}") if chart.max_per_kg else (row.id, "")
        today = self.rg_today[side].get(key, 0)
        if row.cg_date_max is not None and today >= row.cg_date_max:
            raise RuleViolation(f"{row.id}{whose}: CG Date max {row.cg_date_max} already "
                                f"purchased on {cg_date}", rule=chart.rule)
        cg_max = row.cg_max.get(cg)
        number = self.rg_total[side].get(key, 0) + 1
        if cg_max is not None and number > cg_max:
            raise RuleViolation(f"{row.id}{whose}: CG max {cg_max} for CG {cg} reached",
                                rule=chart.rule)
        return number, cg_max

    def check_limits(self, module: Module, chart: RGChart, side: str, row: RGRow,
                     cg: str, cg_date: str) -> None:
        """The chart's notes that limit a purchase (e.g. PBr 3.6178 k, l, m, n)."""
        today = module.date_index(cg_date)
        day = _day(cg_date)
        bought = [line for line in self.lines if line["side"] == side and not line["given"]]
        for limit in chart.limits:
            if row.id not in limit.rows:
                continue
            why = f"{row.id} (note {limit.note}): {limit.text}".rstrip(": ")
            if limit.kind == "date_window":
                early = limit.from_date is not None and today < module.date_index(limit.from_date)
                late = limit.until is not None and today > module.date_index(limit.until)
                if early or late:
                    raise RuleViolation(f"{why}; not on {cg_date}", rule=limit.rule)
            elif limit.kind in ("max_held", "per_held"):
                held = self._held(side, limit.rows)
                cap = self._held(side, limit.per) if limit.kind == "per_held" else limit.limit
                if cap is not None and held >= cap:
                    raise RuleViolation(f"{why}; {held} held", rule=limit.rule)
            elif limit.kind in ("per_cg_date", "per_calendar_day"):
                same = [line for line in bought if line["rg"] in limit.rows and (
                    line["cg_date"] == cg_date if limit.kind == "per_cg_date"
                    else _day(line["cg_date"]) == day)]
                if limit.limit is not None and len(same) >= limit.limit:
                    raise RuleViolation(f"{why}; {len(same)} already bought", rule=limit.rule)
            else:
                short = [rg for rg in limit.requires
                         if (most := chart.row(rg).cg_max.get(cg)) is None
                         or self.rg_total[side].get(rg, 0) < most]
                if short:
                    raise RuleViolation(f"{why}; {', '.join(short)} not all purchased yet",
                                        rule=limit.rule)

    def _held(self, side: str, rows: list[str]) -> int:
        """RG of these rows in the side's OB now (bought or OB-given, not removed)."""
        return sum(1 for line in self.lines if line["side"] == side
                   and line["rg"] in rows and not line.get("removed"))

    def check_coordination(self, module: Module, chart: RGChart, side: str, row: RGRow,
                           kg: str, cg: str, cg_date: str) -> None:
        """CG22: a second I (or A) RG from one KG on a CG Date waits until >= 3 KGs have
        one I and one A RG each (a type a KG can no longer buy counts as bought)."""
        plan = module.coordination
        assert plan is not None
        if row.group_type not in plan.types:
            return  # Gun and General RG are never held back
        if not self._bought_today(chart, side, kg, row.group_type):
            return
        done = [letter for letter in plan.groups
                if all(self._bought_today(chart, side, letter, kind)
                       or self._used_up(chart, side, letter, kind, cg) for kind in plan.types)]
        if len(done) < plan.min_groups:
            have = ", ".join(plan.groups[g] for g in done) or "none"
            raise RuleViolation(
                f"a second {row.group_type} type RG from {plan.groups[kg]} on {cg_date} "
                f"needs one {' and one '.join(plan.types)} type RG bought from "
                f"{plan.min_groups} of the {len(plan.groups)} KGs first (done: {have})",
                rule=plan.rule)

    def _bought_today(self, chart: RGChart, side: str, kg: str, kind: str) -> bool:
        return any(self.rg_today[side].get(f"{row.id}@{kg}", 0)
                   for row in chart.rows if row.group_type == kind)

    def _used_up(self, chart: RGChart, side: str, kg: str, kind: str, cg: str) -> bool:
        """True when the KG has reached the CG Maximum of every RG of that type."""
        for row in chart.rows:
            if row.group_type != kind or (row.kgs is not None and kg not in row.kgs):
                continue
            cg_max = row.cg_max.get(cg)
            key = f"{row.id}@{kg}" if chart.max_per_kg else row.id
            if cg_max is None or self.rg_total[side].get(key, 0) < cg_max:
                return False
        return True

    def check_fortification(self, row: FortificationRow, side: str,
                            command: cmd.PurchaseFortification, rule: str) -> None:
        """The Fortification Purchase Table's price and limits (e.g. 9.619, 3.619)."""
        if side not in row.cost:
            raise RuleViolation(f"the {side} may not buy {row.item}: the table prices it for "
                                f"the {' and the '.join(row.cost)} only", rule=rule)
        if command.amount != row.cost[side] * command.count:
            raise InvalidCommand(f"{command.count} {row.item} cost {side} "
                                 f"{row.cost[side] * command.count} FPP, not {command.amount}",
                                 rule=rule, field="amount")
        for limit, tally, per in ((row.per_cg_date, self.forts_today, "per CG Date"),
                                  (row.per_cg, self.forts_total, "per CG"),
                                  (row.per_cg_by_side.get(side), self.forts_total, "per CG")):
            bought = tally.get(side, {}).get(row.item, 0)
            if limit is not None and bought + command.count > limit:
                raise RuleViolation(f"{side} may buy at most {limit} {row.item} {per} "
                                    f"({bought} bought)", rule=rule)


def rg_purchase(campaign: Campaign, side: str, command: cmd.PurchaseRG) -> dict[str, Any]:
    """The RGPurchased fields of a purchase the chart, its notes and maximums allow."""
    module, cg, cg_date = campaign.rules, campaign.cg, campaign.reph.cg_date
    chart = module.rg_chart(side)
    row = chart.row(command.rg)
    if campaign.reph.phase == "scenario":
        raise RuleViolation("RG are purchased in the RePh, not during a CG Scenario",
                            rule=chart.rule)
    kg = kg_of(module, side, row, command.kg)
    if row.bought_by is not None:
        raise RuleViolation(f"{row.id} ({row.group_type}) is bought by rolling table "
                            f"{row.bought_by}, in its step", rule=row.bought_by)
    purchases = campaign.purchases
    purchases.check_available(chart, row, cg)
    purchases.check_limits(module, chart, side, row, cg, cg_date)
    # (3.6175's "≥ one Set Up Area on the Map" for a British on-map purchase is judged on
    # the map: a side with no units left there may still Control a Setup Area, 3.6131)
    cost = price(chart, row, command.mode, command.option)
    have = campaign.points.cpp[side]
    if have < cost:
        raise RuleViolation(f"{row.id} costs {cost} CPP; the {side} side has {have}",
                            rule=chart.rule)
    number, cg_max = purchases.check_maximums(chart, row, side, kg, cg, cg_date)
    results.check_purchase(campaign, side, row)
    if kg is not None:
        purchases.check_coordination(module, chart, side, row, kg, cg, cg_date)
    return {"side": side, "purchase": len(purchases.lines) + 1, "rg": row.id, "kg": kg,
            "group_type": row.group_type, "cost": cost, "number": number, "cg_max": cg_max,
            "cg_date": cg_date, "mode": command.mode,
            "reserve": in_reserve(module, side, row, command.mode), "option": command.option}


def fortification_purchase(campaign: Campaign, side: str,
                           command: cmd.PurchaseFortification) -> dict[str, Any]:
    """The FortificationPurchased fields: the table's cost and limits, when the module has
    one (e.g. 9.619, 3.619), within the side's FPP."""
    item, rule = command.reason, command.rule
    chart = campaign.rules.fortification_chart
    if chart is not None:
        row = chart.row(command.reason)
        item, rule = row.item, rule or chart.rule
        if command.amount is None and side in row.cost:  # the table's price (e.g. 3.619)
            command = command.model_copy(update={"amount": row.cost[side] * command.count})
        campaign.purchases.check_fortification(row, side, command, chart.rule)
        limits.check_fortification_need(campaign, side, row, command, chart.rule)
    if command.amount is None:
        raise InvalidCommand("give the FPP the Fortification costs: this module has no "
                             "Fortification Purchase Table", field="amount")
    campaign.points.check_fpp(side, command.amount, rule)
    return {"side": side, "amount": command.amount, "reason": item, "rule": rule,
            "cg_date": campaign.reph.cg_date, "count": command.count, "hex": command.hex}


def kg_of(module: Module, side: str, row: RGRow, kg: str | None) -> str | None:
    """The KG an RG is bought for: required of a side that buys per KG (ABtF 9.14)."""
    plan = module.coordination
    if plan is None or plan.side != side:
        if kg is not None:
            raise InvalidCommand(f"the {side} buys RG without a KG: leave out `kg`",
                                 field="kg")
        return None
    named = ", ".join(f"{letter} ({name})" for letter, name in plan.groups.items())
    if kg not in plan.groups:
        raise InvalidCommand(f"give the KG the {row.id} is bought for: one of {named}",
                             rule=plan.rule, field="kg")
    if row.kgs is not None and kg not in row.kgs:
        raise RuleViolation(f"{plan.groups[kg]} has no {row.id} on the RG chart "
                            f"(it is {', '.join(row.kgs)}'s)", field="kg")
    return kg


def price(chart: RGChart, row: RGRow, mode: str, option: str | None) -> int:
    """What an RG costs bought this way (3.6175), with a chart note's option (PBr a)."""
    cost = row.cost if mode == "entry" else _mode_price(chart, row, mode)
    if option is None:
        return cost
    offered = [o for o in chart.options if row.id in o.rows]
    chosen = next((o for o in offered if o.name == option), None)
    if chosen is None:
        names = ", ".join(o.name for o in offered) or "none"
        raise InvalidCommand(f"{row.id} has no option {option!r} (it has {names})",
                             rule=chart.rule, field="option")
    return chosen.cost(row.cost)


def _mode_price(chart: RGChart, row: RGRow, mode: str) -> int:
    how = chart.modes.get(mode)
    if how is None or not how.offers(row.id):
        offered = ", ".join(["entry", *(m for m, h in chart.modes.items()
                                        if h.offers(row.id))])
        raise RuleViolation(f"{row.id} may be bought as {offered}, not {mode}",
                            rule=chart.pricing_rule or chart.rule)
    return how.price(row.id, row.cost)


def in_reserve(module: Module, side: str, row: RGRow, mode: str) -> bool:
    """Whether the RG sets up in Reserve: bought for it (PBr 3.6175, FRD), or, KGP CG7a,
    an I/V/HW RG bought on the scenario's CG Date."""
    rule = module.reserve
    return mode == "reserve" or bool(rule and rule.side == side and mode != "on_map"
                                     and rg_letters(row.id) in rule.prefixes)


class RGPurchased(CampaignEvent):
    """An RG bought with CPP; `number` counts this RG id's purchases in the CG (#P)."""

    side: str
    purchase: int
    rg: str
    kg: str | None
    group_type: str
    cost: int
    number: int
    cg_max: int | None
    cg_date: str
    mode: str | None = None  # entry, reserve or on_map (3.6175): what `cost` paid for
    reserve: bool = False  # sets up in Reserve (KGP CG7a)
    option: str | None = None  # a chart note's option it was bought with (PBr a, e, r)

    def apply(self, campaign: Any) -> None:
        purchases: Purchases = campaign.purchases
        campaign.points.cpp[self.side] -= self.cost
        keys = [self.rg] if self.kg is None else [self.rg, f"{self.rg}@{self.kg}"]
        for tally in (purchases.rg_total[self.side], purchases.rg_today[self.side]):
            for key in keys:
                tally[key] = tally.get(key, 0) + 1
        # Its cost, so a ruling can amend it with the CPP difference.
        purchases.lines.append(line_of(self.side, self.rg, self.kg, self.cg_date) |
                               {"cost": self.cost})


class RGReceived(CampaignEvent):
    """An RG given by the OB: a line of the RG Purchase Record, never counted in #P; public
    as the OB is (recorded so since the CG parameters; earlier ones were sealed)."""

    side: str
    purchase: int
    rg: str
    kg: str | None
    group_type: str
    reason: str
    rule: str | None
    cg_date: str
    setup_area: str | None = None  # as the OB prints it
    on_map: bool | None = None
    paradrop: bool = False  # no strength DR (PBr 3.6181 EXC)
    strength: str | None = None  # F/D when the OB fixes it
    units: str | None = None  # the units, where the strength is known (Para drop: Full)

    def apply(self, campaign: Any) -> None:
        line = line_of(self.side, self.rg, self.kg, self.cg_date, True)
        line["strength"] = self.strength
        if self.paradrop:
            line["paradrop"] = True
        campaign.purchases.lines.append(line)


class RGRemoved(CampaignEvent):
    """An RG left the side's OB: no longer held (PBr note e: one O4 at a time)."""

    side: str
    purchase: int
    reason: str
    rule: str | None
    cg_date: str

    def apply(self, campaign: Any) -> None:
        campaign.purchases.lines[self.purchase - 1]["removed"] = True


class FortificationPurchased(PointsEvent):
    """FPP spent on `count` of the Fortification named in `reason`."""

    count: int = 1
    hex: str | None = None  # where it is placed, when the table asks (3.619 e: Trench)

    def apply(self, campaign: Any) -> None:
        purchases: Purchases = campaign.purchases
        campaign.points.fpp[self.side] -= self.amount
        for tally in (purchases.forts_today, purchases.forts_total):
            bought = tally.setdefault(self.side, {})
            bought[self.reason] = bought.get(self.reason, 0) + self.count
        if self.hex is not None:
            placed = purchases.hexes_today.setdefault(self.side, {})
            placed.setdefault(self.reason, []).append(self.hex)
