"""The RG Purchase Record (e.g. 9.6179, 3.6179): purchases within the chart's maximums and
notes, OB-given RG, and what the RePh rolls for an RG find (strength, SW, leader,
composition), as a part of the Campaign aggregate."""

from __future__ import annotations

from typing import Any, cast

from domain import commands as cmd
from domain.errors import InvalidCommand, RuleViolation
from domain.ledger import Ledger, LedgerEvent
from domain.rules import Module, RGChart, RGRow, SWAllotment, Table, rg_letters


class RGRecord(Ledger):
    """A side's RG purchases and what each RG turned out to be."""

    cpp: dict[str, int]
    rg_total: dict[str, dict[str, int]]
    rg_today: dict[str, dict[str, int]]

    class RGPurchased(LedgerEvent):
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
            campaign.cpp[self.side] -= self.cost
            keys = [self.rg] if self.kg is None else [self.rg, f"{self.rg}@{self.kg}"]
            for tally in (campaign.rg_total[self.side], campaign.rg_today[self.side]):
                for key in keys:
                    tally[key] = tally.get(key, 0) + 1
            campaign.purchases.append(line_of(self.side, self.rg, self.kg, self.cg_date))

    def purchase_rg(self, module: Module, command: cmd.PurchaseRG, actor: str) -> None:
        """Buy an RG: within CPP, the CG Date maximum and the CG maximum of the chart."""
        self._not_ended()
        side = self._side(command.side)
        chart = module.rg_chart(side)
        row = chart.row(command.rg)
        if self.phase == "scenario":
            raise RuleViolation("RG are purchased in the RePh, not during a CG Scenario",
                                rule=chart.rule)
        kg = self._kg(module, side, row, command.kg)
        if row.bought_by is not None:
            raise RuleViolation(f"{row.id} ({row.group_type}) is bought by rolling table "
                                f"{row.bought_by}, in its step", rule=row.bought_by)
        self._check_limits(module, chart, side, row)  # what may be bought, before its price
        if (how := chart.modes.get(command.mode)) and how.needs_units_on_map and \
                self.off_map.get(side):
            raise RuleViolation(f"the {side} have no Setup Area on the map: no {command.mode} "
                                "purchase", rule=chart.pricing_rule or chart.rule)
        cost = self._option_price(chart, row, command.option,
                                  self._price(chart, row, command.mode))
        if self.cpp[side] < cost:
            raise RuleViolation(f"{row.id} costs {cost} CPP; {side} has {self.cpp[side]}",
                                rule=chart.rule)
        key, whose = (f"{row.id}@{kg}", f" for {kg}") if chart.max_per_kg else (row.id, "")
        today = self.rg_today[side].get(key, 0)
        if row.cg_date_max is not None and today >= row.cg_date_max:
            raise RuleViolation(f"{row.id}{whose}: CG Date max {row.cg_date_max} already "
                                f"purchased on {self.cg_date}", rule=chart.rule)
        cg_max = row.cg_max.get(self.cg)
        number = self.rg_total[side].get(key, 0) + 1
        if cg_max is not None and number > cg_max:
            raise RuleViolation(f"{row.id}{whose}: CG max {cg_max} for CG {self.cg} reached",
                                rule=chart.rule)
        if kg is not None:
            self._check_coordination(module, chart, side, row, kg)
        self._record(
            self.RGPurchased, actor, secret_for=side, side=side,
            purchase=len(self.purchases) + 1, rg=row.id, kg=kg,
            group_type=row.group_type, cost=cost, number=number, cg_max=cg_max,
            cg_date=self.cg_date, mode=command.mode,
            reserve=self._in_reserve(module, side, row, command.mode), option=command.option,
        )

    @staticmethod
    def _option_price(chart: RGChart, row: RGRow, option: str | None, price: int) -> int:
        """The price with a chart note's option (PBr a: F1 for 2 CPP, -2 arrival drm)."""
        if option is None:
            return price
        offered = [o for o in chart.options if row.id in o.rows]
        chosen = next((o for o in offered if o.name == option), None)
        if chosen is None:
            names = ", ".join(o.name for o in offered) or "none"
            raise InvalidCommand(f"{row.id} has no option {option!r} (it has {names})",
                                 rule=chart.rule, field="option")
        return chosen.cost(row.cost)

    class RGRemoved(LedgerEvent):
        """An RG left the side's OB: no longer held (PBr note e: one O4 at a time)."""

        side: str
        purchase: int
        reason: str
        rule: str | None
        cg_date: str

        def apply(self, campaign: Any) -> None:
            campaign.purchases[self.purchase - 1]["removed"] = True

    def remove_rg(self, command: cmd.RemoveRG, actor: str) -> None:
        """Record that an RG is Eliminated, Recalled or used up (it leaves the OB)."""
        self._not_ended()
        side = self._side(command.side)
        line = self._purchase(command.purchase, side)
        if line.get("removed"):
            raise InvalidCommand(f"purchase #{command.purchase} has already left the OB",
                                 field="purchase")
        self._record(self.RGRemoved, actor, secret_for=side, side=side,
                     purchase=command.purchase, reason=command.reason, rule=command.rule,
                     cg_date=self.cg_date)

    @staticmethod
    def _in_reserve(module: Module, side: str, row: RGRow, mode: str) -> bool:
        """KGP CG7a: bought on the scenario's CG Date, an I/V/HW RG sets up in Reserve."""
        rule = module.reserve
        return bool(rule and rule.side == side and mode != "on_map"
                    and rg_letters(row.id) in rule.prefixes)

    @staticmethod
    def _price(chart: RGChart, row: RGRow, mode: str) -> int:
        """What an RG costs bought this way (3.6175); the printed cost enters as reinforcement."""
        if mode == "entry":
            return row.cost
        how = chart.modes.get(mode)
        if how is None or not how.offers(row.id):
            offered = ", ".join(["entry", *(m for m, h in chart.modes.items()
                                            if h.offers(row.id))])
            raise RuleViolation(f"{row.id} may be bought as {offered}, not {mode}",
                                rule=chart.pricing_rule or chart.rule)
        return how.price(row.id, row.cost)

    def _check_limits(self, module: Module, chart: RGChart, side: str, row: RGRow) -> None:
        """The chart's notes that limit a purchase (e.g. PBr 3.6178 k, l, m, n)."""
        today = module.date_index(self.cg_date)
        day = _day(self.cg_date)
        bought = [line for line in self.purchases if line["side"] == side and not line["given"]]
        for limit in chart.limits:
            if row.id not in limit.rows:
                continue
            why = f"{row.id} (note {limit.note}): {limit.text}".rstrip(": ")
            if limit.kind == "date_window":
                early = limit.from_date is not None and today < module.date_index(limit.from_date)
                late = limit.until is not None and today > module.date_index(limit.until)
                if early or late:
                    raise RuleViolation(f"{why}; not on {self.cg_date}", rule=limit.rule)
            elif limit.kind in ("max_held", "per_held"):
                held = self._held(side, limit.rows)
                cap = self._held(side, limit.per) if limit.kind == "per_held" else limit.limit
                if cap is not None and held >= cap:
                    raise RuleViolation(f"{why}; {held} held", rule=limit.rule)
            elif limit.kind in ("per_cg_date", "per_calendar_day"):
                same = [line for line in bought if line["rg"] in limit.rows and (
                    line["cg_date"] == self.cg_date if limit.kind == "per_cg_date"
                    else _day(line["cg_date"]) == day)]
                if limit.limit is not None and len(same) >= limit.limit:
                    raise RuleViolation(f"{why}; {len(same)} already bought", rule=limit.rule)
            else:
                short = [rg for rg in limit.requires
                         if (most := chart.row(rg).cg_max.get(self.cg)) is None
                         or self.rg_total[side].get(rg, 0) < most]
                if short:
                    raise RuleViolation(f"{why}; {', '.join(short)} not all purchased yet",
                                        rule=limit.rule)

    def _held(self, side: str, rows: list[str]) -> int:
        """RG of these rows in the side's OB now (bought or OB-given, not removed)."""
        return sum(1 for line in self.purchases if line["side"] == side
                   and line["rg"] in rows and not line.get("removed"))

    def _kg(self, module: Module, side: str, row: RGRow, kg: str | None) -> str | None:
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

    def _check_coordination(self, module: Module, chart: RGChart, side: str, row: RGRow,
                            kg: str) -> None:
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
                       or self._used_up(chart, side, letter, kind) for kind in plan.types)]
        if len(done) < plan.min_groups:
            have = ", ".join(plan.groups[g] for g in done) or "none"
            raise RuleViolation(
                f"a second {row.group_type} type RG from {plan.groups[kg]} on {self.cg_date} "
                f"needs one {' and one '.join(plan.types)} type RG bought from "
                f"{plan.min_groups} of the {len(plan.groups)} KGs first (done: {have})",
                rule=plan.rule)

    def _bought_today(self, chart: RGChart, side: str, kg: str, kind: str) -> bool:
        return any(self.rg_today[side].get(f"{row.id}@{kg}", 0)
                   for row in chart.rows if row.group_type == kind)

    def _used_up(self, chart: RGChart, side: str, kg: str, kind: str) -> bool:
        """True when the KG has reached the CG Maximum of every RG of that type."""
        for row in chart.rows:
            if row.group_type != kind or (row.kgs is not None and kg not in row.kgs):
                continue
            cg_max = row.cg_max.get(self.cg)
            key = f"{row.id}@{kg}" if chart.max_per_kg else row.id
            if cg_max is None or self.rg_total[side].get(key, 0) < cg_max:
                return False
        return True

    class RGReceived(LedgerEvent):
        """An RG given by the OB: a line of the RG Purchase Record, never counted in #P."""

        side: str
        purchase: int
        rg: str
        kg: str | None
        group_type: str
        reason: str
        rule: str | None
        cg_date: str

        def apply(self, campaign: Any) -> None:
            campaign.purchases.append(line_of(self.side, self.rg, self.kg, self.cg_date, True))

    def receive_rg(self, module: Module, command: cmd.ReceiveRG, actor: str) -> None:
        """Record an OB-given RG; its group type comes from the chart when not given."""
        self._not_ended()
        side = self._side(command.side)
        group_type = command.group_type or module.rg_chart(side).row(command.rg).group_type
        self._record(self.RGReceived, actor, secret_for=side,
                     purchase=len(self.purchases) + 1, side=side,
                     rg=command.rg, kg=command.kg, group_type=group_type,
                     reason=command.reason, rule=command.rule, cg_date=self.cg_date)

    class RGDetermined(LedgerEvent):
        """What a purchased RG turned out to be (strength, units, SW, leader, composition)."""

        side: str
        purchase: int
        strength: str | None
        units: str | None
        sw: list[str] | None
        leader: str | None
        composition: str | None
        choices: dict[str, str] | None = None  # e.g. "PSK/Lt. Mtr": "PSK" (9.6182 note *)
        sw_rolled: str | None = None  # the SW a Depleted RG's dr was made for
        sw_again: bool = False  # the dr starts the RG's SW rolls over (3.6182 minimum two)

        def apply(self, campaign: Any) -> None:
            line = campaign.purchases[self.purchase - 1]
            for field in ("strength", "leader", "composition"):
                if getattr(self, field) is not None:
                    line[field] = getattr(self, field)
            if self.leader is not None:
                line["leader_rolls"] = line.get("leader_rolls", 0) + 1
            if self.sw is not None:
                line["sw"] = list(self.sw)
            if self.choices is not None:
                line["choices"] = dict(self.choices)
            if self.sw_again:
                line["sw_rolls"] = {}
            if self.sw_rolled is not None:
                line["sw_rolls"][self.sw_rolled] = line["sw_rolls"].get(self.sw_rolled, 0) + 1

    def determine_rg(self, module: Module, command: cmd.DetermineRG, actor: str) -> None:
        """Record an RG's strength, SW, leader or composition, found by the RePh rolls.

        With a strength and no units given, the units are the chart's Full or Depleted ones.
        """
        self._not_ended()
        side = self._side(command.side)
        rg = self._purchase(command.purchase, side)["rg"]
        fields = command.model_dump(exclude={"type"})
        if command.strength is not None and command.units is None:
            row = module.chart_row(side, rg)
            if row is not None:
                full = command.strength == "F"
                fields["units"] = (row.units_full if full else row.units_depleted) or None
        self._record(self.RGDetermined, actor, secret_for=side, **fields)

    def _link(self, module: Module, table: Table, side: str, command: cmd.Roll) -> int | None:
        """Check a roll made for an RG of the purchase record; the target it rolls against."""
        if command.purchase is None:
            return command.target
        if table.determines is None:
            raise InvalidCommand(f"table {table.id} writes nothing on an RG's record: "
                                 "leave out `purchase`", field="purchase")
        line = self._purchase(command.purchase, side)
        if table.for_rgs is not None and line["rg"] not in table.for_rgs:
            raise RuleViolation(f"table {table.id} is for {', '.join(table.for_rgs)} RG, "
                                f"not {line['rg']}", rule=table.rule)
        if line["kg"] in table.excluded_kgs:
            raise RuleViolation(f"table {table.id} is not used for KG {line['kg']}'s "
                                f"{line['rg']}", rule=table.rule)
        if line["cg_date"] != self.cg_date:
            raise RuleViolation(f"purchase #{command.purchase} came on {line['cg_date']}: its "
                                "rolls were made in that RePh", rule=table.rule)
        self._not_determined(module, table, line, command.purchase)
        if table.determines != "sw":
            return command.target
        allotment = self._allotment(module, side, line, command.subject, table.rule)
        rolled = line["sw_rolls"].get(allotment.sw, 0)
        if rolled >= allotment.count and not self._sw_again(module, side, line):
            raise RuleViolation(f"{line['rg']} has made its {allotment.count} dr for "
                                f"{allotment.sw}", rule=table.rule)
        number = allotment.depleted if line["strength"] == "D" else cast(int, allotment.full)
        if command.target is not None and command.target != number:
            raise InvalidCommand(f"{allotment.sw} of {line['rg']} is received on a dr <= "
                                 f"{number}, not {command.target}",
                                 rule=table.rule, field="target")
        return number

    def _not_determined(self, module: Module, table: Table, line: dict[str, Any],
                        number: int) -> None:
        """Each of an RG's results is found once: a second roll would fish for another."""
        def refuse(why: str) -> None:
            raise RuleViolation(f"purchase #{number} ({line['rg']}) {why}", rule=table.rule)

        kind = table.determines
        row = module.chart_row(line["side"], line["rg"])
        if kind in ("strength", "composition") and line.get(kind) is not None:
            refuse(f"already has its {kind}: {line[kind]}")
        allowed = row.leader_rolls if row is not None else 1
        if kind == "leader" and line.get("leader_rolls", 0) >= allowed:
            refuse(f"has made its {allowed} Leader Table roll(s): {line['leader']}")
        if kind == "strength" and row is not None and not row.units_depleted:
            refuse("is not subject to Depletion on the RG chart")
        if kind == "sw_type":
            item = next((a for a in self._allotments(module, line["side"], line["rg"])
                         if a.choose == table.id), None)
            if item is None:
                refuse(f"has no SW chosen on table {table.id}")
            elif item.sw in line["choices"]:
                refuse(f"already has its {item.sw}: {line['choices'][item.sw]}")

    def _allotment(self, module: Module, side: str, line: dict[str, Any], subject: str,
                   rule: str) -> SWAllotment:
        """The SW a 9.6182-style dr is made for, named by `subject`: any SW of a Depleted RG,
        and of a Full one those it receives only on a dr (PBr British I2/I4)."""
        if line["strength"] is None:
            raise RuleViolation(f"{line['rg']}'s strength is not known yet: roll it first",
                                rule=rule)
        chart = module.sw_charts.get(side)
        allotments = chart.rows.get(line["rg"], []) if chart else []
        wanted = subject.strip().casefold()
        if not wanted:
            raise InvalidCommand(f"name the SW rolled for in `subject` (one of "
                                 f"{', '.join(item.sw for item in allotments) or 'none'})",
                                 rule=rule, field="subject")
        for item in allotments:
            names = {item.sw.casefold(), line["choices"].get(item.sw, item.sw).casefold()}
            if item.choose is not None:  # "PSK/Lt. Mtr" may be asked for as either
                names |= {part.strip().casefold() for part in item.sw.split("/")}
            if wanted in names:
                if line["strength"] == "F" and item.full is None:
                    raise RuleViolation(f"a Full {line['rg']} receives its {item.sw} without "
                                        "a dr", rule=rule)
                if item.choose is not None and item.sw not in line["choices"]:
                    raise RuleViolation(f"roll {item.choose} first: it decides which SW "
                                        f"{item.sw} is", rule=rule)
                return item
        offered = ", ".join(item.sw for item in allotments) or "none"
        raise InvalidCommand(f"{line['rg']} has no SW {subject!r} on the SW chart "
                             f"(it has {offered})", rule=rule, field="subject")

    def _determine_by_roll(self, module: Module, table: Table, command: cmd.Roll, value: str,
                           actor: str) -> None:
        """Write a roll's outcome on the RG's record line (9.6181-9.6184)."""
        number = cast(int, command.purchase)
        line = self.purchases[number - 1]
        side = line["side"]
        fields: dict[str, Any] = dict.fromkeys(
            ("strength", "units", "sw", "leader", "composition", "choices", "sw_rolled"))
        fields["sw_again"] = False
        if table.determines == "strength":
            fields["strength"] = value
            row = module.chart_row(side, line["rg"])
            if row is not None:
                fields["units"] = (row.units_full if value == "F" else row.units_depleted) or None
            fields["sw"] = self._sw_if(module, side, line, value)
        elif table.determines == "leader":  # a coy's rolls are listed together (3.6183)
            fields["leader"] = ", ".join(filter(None, (line["leader"], value)))
        elif table.determines == "composition":
            fields["composition"] = value
        elif table.determines == "sw_type":
            chosen = dict(line["choices"])
            item = next(a for a in self._allotments(module, side, line["rg"])
                        if a.choose == table.id)  # _not_determined made sure it exists
            chosen[item.sw] = value
            fields["sw"] = [chosen.get(name, name) for name in line["sw"]]
            fields["choices"] = chosen
        elif table.determines == "sw":  # a Depleted RG's dr for one SW, hit or miss
            item = self._allotment(module, side, line, command.subject, table.rule)
            again = self._sw_again(module, side, line)  # 3.6182: the whole RG rolls again
            fields |= {"sw_rolled": item.sw, "sw_again": again}
            received = [] if again else line["sw"]
            if table.target is not None and value == table.target.hit:
                fields["sw"] = [*received, line["choices"].get(item.sw, item.sw)]
            elif again:
                fields["sw"] = []
        # Recorded after every linked roll, so a sealed record never tells hit from miss.
        self._record(self.RGDetermined, actor, secret_for=side, side=side,
                     purchase=number, **fields)

    def _sw_again(self, module: Module, side: str, line: dict[str, Any]) -> bool:
        """Every SW rolled for, fewer received than the chart's minimum: roll them again."""
        chart = module.sw_charts.get(side)
        minimum = chart.minimum.get(line["rg"], 0) if chart else 0
        allotments = self._allotments(module, side, line["rg"])
        done = all(line["sw_rolls"].get(a.sw, 0) >= a.count for a in allotments)
        return bool(allotments) and done and len(line["sw"]) < minimum

    def _allotments(self, module: Module, side: str, rg: str) -> list[SWAllotment]:
        chart = module.sw_charts.get(side)
        return chart.rows.get(rg, []) if chart else []

    def _sw_if(self, module: Module, side: str, line: dict[str, Any],
               strength: str) -> list[str] | None:
        """A Full RG receives every SW its chart lists; a Depleted one rolls for each."""
        allotments = self._allotments(module, side, line["rg"])
        if not allotments:
            return None
        if strength != "F":
            return []
        return [line["choices"].get(a.sw, a.sw) for a in allotments if a.full is None
                for _ in range(a.count)]


def line_of(side: str, rg: str, kg: str | None, cg_date: str | None,
          given: bool = False) -> dict[str, Any]:
    """A line of the RG Purchase Record as the aggregate keeps it."""
    return {"side": side, "rg": rg, "kg": kg, "cg_date": cg_date, "given": given,
            "strength": None, "leader": None, "composition": None, "sw": [], "choices": {},
            "sw_rolls": {}, "removed": False}


def _day(cg_date: str | None) -> str:
    """The calendar day of a CG Date: "15PM" -> "15" (PBr coy limits per day)."""
    return "".join(char for char in cg_date or "" if char.isdigit())
