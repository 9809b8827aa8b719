"""What the RePh rolls find an RG to be (9.6181-9.6184, 3.6181-3.6183): its strength
(Full or Depleted, and so its units), the SW it receives, its leaders and composition,
written on its line of the RG Purchase Record."""

from __future__ import annotations

from typing import Any, cast

from domain import commands as cmd
from domain.campaign.events import CampaignEvent
from domain.errors import RuleViolation
from domain.rules import Module, SWAllotment, Table


class RGDetermined(CampaignEvent):
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
        line = campaign.purchases.lines[self.purchase - 1]
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


def by_hand(module: Module, line: dict[str, Any], command: cmd.DetermineRG) -> dict[str, Any]:
    """The RGDetermined fields a director records: with a strength and no units given,
    the units are the chart's Full or Depleted ones."""
    fields = command.model_dump(exclude={"type"})
    if command.strength is not None and command.units is None:
        row = module.chart_row(line["side"], line["rg"])
        if row is not None:
            full = command.strength == "F"
            fields["units"] = (row.units_full if full else row.units_depleted) or None
    return fields


def check_line(module: Module, table: Table, line: dict[str, Any], number: int,
               cg_date: str) -> None:
    """A roll for line `number` of the RG Purchase Record: a line this table is for,
    bought or given on this CG Date, whose result the table has not found yet."""
    if table.for_rgs is not None and line["rg"] not in table.for_rgs:
        raise RuleViolation(f"table {table.id} is for {', '.join(table.for_rgs)} RG, "
                            f"not {line['rg']}", rule=table.rule)
    if table.for_marked_rgs:
        _check_marked(module, table, line)
    if line["kg"] in table.excluded_kgs:
        raise RuleViolation(f"table {table.id} is not used for KG {line['kg']}'s "
                            f"{line['rg']}", rule=table.rule)
    if line["cg_date"] != cg_date:
        raise RuleViolation(f"purchase #{number} came on {line['cg_date']}: its "
                            "rolls were made in that RePh", rule=table.rule)
    if line.get("removed"):
        raise RuleViolation(f"purchase #{number} has left the OB", rule=table.rule)
    _not_determined(module, table, line, number)
    row = module.chart_row(line["side"], line["rg"])
    if table.determines in ("leader", "sw") and row is not None and row.units_depleted \
            and strength_of(line) is None:  # its rolls depend on it (3.6182; 3.6183 +1)
        raise RuleViolation(f"purchase #{number} ({line['rg']}): roll its strength first",
                            rule=table.rule)


def _check_marked(module: Module, table: Table, line: dict[str, Any]) -> None:
    """A table rolled only for the RGs the RG chart marks for it (9.6183: 'for each
    indicated ... RG ... on the appropriate column')."""
    row = module.chart_row(line["side"], line["rg"])
    marked = row.leader_table if row is not None else None
    if marked != table.id:
        where = f"on table {marked}" if marked else "on no Leader Table"
        raise RuleViolation(f"table {table.id} is rolled for the RGs the {line['side']} RG "
                            f"chart indicates for it; {line['rg']} rolls {where}",
                            rule=table.rule)


def _not_determined(module: Module, table: Table, line: dict[str, Any], number: int) -> None:
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
    if kind == "strength" and line.get("paradrop"):
        refuse("enters by Para drop: no Depletion, no strength DR (3.6181 EXC)")
    if kind == "strength" and (row is None or not row.units_depleted):
        refuse("is not subject to Depletion on the RG chart")
    if kind == "sw_type":
        item = next((a for a in allotments(module, line["side"], line["rg"])
                     if a.choose == table.id), None)
        if item is None:
            refuse(f"has no SW chosen on table {table.id}")
        elif item.sw in line["choices"]:
            refuse(f"already has its {item.sw}: {line['choices'][item.sw]}")


def strength_of(line: dict[str, Any]) -> str | None:
    """An RG's strength: as found, or Full for one entering by Para drop, which is not
    subject to Depletion (3.6181 EXC, British chart note c)."""
    return line["strength"] or ("F" if line.get("paradrop") else None)


def listed_sw(module: Module, side: str, rg: str) -> list[SWAllotment]:
    """An RG's listed SW, one per counter: sw:K of a subject is the K-th (1-based)."""
    return [item for item in allotments(module, side, rg) for _ in range(item.count)]


def rolled_sw(module: Module, side: str, line: dict[str, Any]) -> list[int]:
    """The K of the listed SW a dr is made for: every one of a Depleted RG, and of a Full
    one those it receives only on a dr (PBr British I2/I4); none before its strength."""
    strength = strength_of(line)
    if strength is None:
        return []
    return [k for k, item in enumerate(listed_sw(module, side, line["rg"]), 1)
            if strength == "D" or item.full is not None]


def sw_slot(module: Module, side: str, line: dict[str, Any], k: int,
            rule: str) -> SWAllotment:
    """The SW a 9.6182-style dr for sw:K is made for, refused unless it is rolled for."""
    listed = listed_sw(module, side, line["rg"])
    if not 1 <= k <= len(listed):
        raise RuleViolation(f"{line['rg']} lists {len(listed)} SW on the SW chart: no "
                            f"sw:{k}", rule=rule)
    item = listed[k - 1]
    if k not in rolled_sw(module, side, line):
        raise RuleViolation(f"a Full {line['rg']} receives its {item.sw} without a dr",
                            rule=rule)
    if item.choose is not None and item.sw not in line["choices"]:
        raise RuleViolation(f"roll {item.choose} first: it decides which SW {item.sw} is",
                            rule=rule)
    return item


def by_roll(module: Module, table: Table, line: dict[str, Any], item: SWAllotment | None,
            value: str) -> dict[str, Any]:
    """The RGDetermined fields a roll's outcome writes on the RG's line (9.6181-9.6184)."""
    side = line["side"]
    fields: dict[str, Any] = dict.fromkeys(
        ("strength", "units", "sw", "leader", "composition", "choices", "sw_rolled"))
    fields["sw_again"] = False
    if table.determines == "strength":
        fields["strength"] = value
        row = module.chart_row(side, line["rg"])
        if row is not None:
            fields["units"] = (row.units_full if value == "F" else row.units_depleted) or None
        fields["sw"] = _sw_if(module, side, line, value)
    elif table.determines == "leader":  # a coy's rolls are listed together (3.6183)
        fields["leader"] = ", ".join(filter(None, (line["leader"], value)))
    elif table.determines == "composition":
        fields["composition"] = value
    elif table.determines == "sw_type":
        chosen = dict(line["choices"])
        item = next(a for a in allotments(module, side, line["rg"])
                    if a.choose == table.id)  # _not_determined made sure it exists
        chosen[item.sw] = value
        fields["sw"] = [chosen.get(name, name) for name in line["sw"]]
        fields["choices"] = chosen
    elif table.determines == "sw":  # a Depleted RG's dr for one SW, hit or miss
        item = cast(SWAllotment, item)
        again = sw_again(module, side, line)  # 3.6182: the whole RG rolls again
        fields |= {"sw_rolled": item.sw, "sw_again": again}
        received = [] if again else line["sw"]
        if table.target is not None and value == table.target.hit:
            fields["sw"] = [*received, line["choices"].get(item.sw, item.sw)]
        elif again:
            fields["sw"] = []
    return fields


def sw_again(module: Module, side: str, line: dict[str, Any]) -> bool:
    """Every SW rolled for, fewer received than the chart's minimum: roll them again."""
    chart = module.sw_charts.get(side)
    minimum = chart.minimum.get(line["rg"], 0) if chart else 0
    offered = allotments(module, side, line["rg"])
    done = all(line["sw_rolls"].get(a.sw, 0) >= a.count for a in offered)
    return bool(offered) and done and len(line["sw"]) < minimum


def allotments(module: Module, side: str, rg: str) -> list[SWAllotment]:
    """The SW the side's SW chart gives an RG."""
    chart = module.sw_charts.get(side)
    return chart.rows.get(rg, []) if chart else []


def _sw_if(module: Module, side: str, line: dict[str, Any],
           strength: str) -> list[str] | None:
    """A Full RG receives every SW its chart lists; a Depleted one rolls for each."""
    offered = allotments(module, side, line["rg"])
    if not offered:
        return None
    if strength != "F":
        return []
    return [line["choices"].get(a.sw, a.sw) for a in offered if a.full is None
            for _ in range(a.count)]
