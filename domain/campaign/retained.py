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
from domain.campaign import limits
from domain.campaign.events import CampaignEvent
from domain.campaign.handlers import handles
from domain.campaign.part import Part
from domain.campaign.scenario import CasualtyRecorded
from domain.errors import InvalidCommand, RuleViolation

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


class Retained(Part):
    """Each side's Retained units as last recorded (and as recorded on an earlier CG Date),
    and the units it Retains off map after a withdrawal, counted per rule (3.60742)."""

    name = "retained"

    def __init__(self, sides: list[str]) -> None:
        # side -> {"cg_date", "open": [...], "sealed": [...], "earlier": [...]}
        self.rosters: dict[str, dict[str, Any]] = {side: empty() for side in sides}
        self.off_map: dict[str, dict[str, dict[str, int]]] = {side: {} for side in sides}

    def units(self, side: str) -> list[dict[str, Any]]:
        """The side's Retained units as last recorded (both parts)."""
        roster = self.rosters.get(side) or empty()
        return [*roster["open"], *roster["sealed"]]

    def earlier(self, side: str, cg_date: str) -> list[dict[str, Any]]:
        """The side's Retained units as recorded on the last CG Date before `cg_date`."""
        roster = self.rosters.get(side) or empty()
        return roster["earlier"] if roster["cg_date"] == cg_date else self.units(side)

    def withdrawn(self, side: str, rule: str) -> dict[str, int]:
        """Leaders, half-squads and SW the side Retains off map by a withdrawal rule."""
        return self.off_map.get(side, {}).get(rule, {})


def empty() -> dict[str, Any]:
    """A side's roster before it records any Retained unit."""
    return {"cg_date": None, "open": [], "sealed": [], "earlier": []}


def secret(unit: cmd.RetainedUnit) -> bool:
    """Whether the rules keep this line from the opponent."""
    return unit.hip or unit.fortification or unit.off_map


@handles(cmd.RetainUnits)
def retain_units(campaign: Campaign, command: cmd.RetainUnits, actor: str) -> None:
    """Record a side's Retained units on the CG Date, replacing those recorded on it: the
    open part, and the sealed part (always both, so a sealed event tells the opponent
    nothing)."""
    campaign.reph.check_not_ended()
    side, units = campaign.check_side(command.side), command.units
    for unit in units:
        if unit.purchase is not None:
            campaign.purchases.line(unit.purchase, side)  # the side's own RG line
        if unit.item is not None and campaign.rules.fortification_chart is not None:
            campaign.rules.fortification_chart.row(unit.item)  # a line of the table
        if unit.hex is not None and not secret(unit):
            # An open line's hex would show the other side where it is (3.619: a
            # Fortification's or HIP unit's location is secret; an open unit is placed
            # in its Setup Area, as it sets up).
            raise InvalidCommand(f"{unit.unit}: a hex is recorded for a Fortification or "
                                 "a HIP unit only (sealed); an open line names its "
                                 "Setup/Entry Area", field="hex")
    limits.check_retained(campaign, side, units)
    shown = [u.model_dump() for u in units if not secret(u)]
    # The RG line each open unit came with is sealed, not shown: the RG Purchase Record
    # is secret (3.6172), and a line number beside a visible unit would name its RG.
    lines = [unit.pop("purchase") for unit in shown]
    campaign._record(UnitsRetained, actor, side=side, units=shown, sealed_part=False,
                     cg_date=campaign.reph.cg_date)
    campaign._record(UnitsRetained, actor, secret_for=side, side=side,
                     units=[u.model_dump() for u in units if secret(u)],
                     sealed_part=True, cg_date=campaign.reph.cg_date, lines=lines)


def recorded_now(campaign: Campaign, side: str) -> list[cmd.RetainedUnit]:
    """The side's Retained units recorded on the current CG Date, as `retain_units` takes
    them (the open part, then the sealed); none before it records any on it."""
    roster = campaign.retained.rosters.get(side) or empty()
    if roster["cg_date"] != campaign.reph.cg_date:
        return []
    return _as_taken([*roster["open"], *roster["sealed"]])


def recorded_before(campaign: Campaign, side: str) -> list[cmd.RetainedUnit]:
    """The side's Retained units as recorded on the last CG Date before the current one
    (what a new CG Date's list starts from, at the side's choice); a Fortification that
    one bought on the previous CG Date replaced in its hex is listed as what replaced it
    (PBr 3.619 e: "when the trench is placed the foxhole is removed")."""
    units, replaced = campaign.retained.earlier(side, campaign.reph.cg_date), \
        _replacements(campaign, side)
    return _as_taken([_as_now(unit, replaced) for unit in units])


def _replacements(campaign: Campaign, side: str) -> dict[tuple[str, str], str]:
    """(item, hex) -> the item bought on the previous CG Date that replaced it there."""
    chart = campaign.rules.fortification_chart
    bought = campaign.purchases.hexes_before.get(side, {})
    return {(old, place): row.item for row in (chart.rows if chart else [])
            if row.needs is not None for old in row.needs.previous_in_hex
            for place in bought.get(row.item, [])}


def _as_now(unit: dict[str, Any], replaced: dict[tuple[str, str], str]) -> dict[str, Any]:
    """A recorded line, as what replaced it if something did."""
    new = replaced.get((unit.get("item") or "", unit.get("hex") or ""))
    if not unit.get("fortification") or new is None:
        return unit
    return unit | {"unit": new, "item": new, "count": 1}


def _as_taken(units: list[dict[str, Any]]) -> list[cmd.RetainedUnit]:
    """Recorded lines as `retain_units` takes them."""
    fields = cmd.RetainedUnit.model_fields
    return [cmd.RetainedUnit.model_validate({k: v for k, v in unit.items() if k in fields})
            for unit in units]


def check_casualty(campaign: Campaign, side: str, ww_half_squads: int,
                   purchase: int | None) -> str:
    """The scenario a casualty counts for: the one in play or just played (9.12); a WW box
    the module keeps for that side (CG19); the side's own RG line."""
    scenario = campaign.scenario.check_casualty()
    box = campaign.rules.walking_wounded
    if ww_half_squads and (box is None or box.side != side):
        raise RuleViolation(f"{campaign.rules.short_name} keeps no Walking Wounded box for the "
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
    # Sealed whether or not it names a line: its being there tells the opponent nothing.
    campaign._record(RGCasualty, actor, secret_for=side, side=side,
                     purchase=fields["purchase"], unit=fields["unit"], cvp=fields["cvp"],
                     scenario=scenario)


class RGCasualty(CampaignEvent):
    """A casualty of an RG, on its line of the RG Purchase Record (sealed like the line);
    `purchase` None: of no RG line (the sealed record every casualty has)."""

    side: str
    purchase: int | None
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
    lines: list[int | None] | None = None  # sealed part: the open units' RG lines, in order

    def apply(self, campaign: Any) -> None:
        roster = campaign.retained.rosters.setdefault(self.side, empty())
        if roster["cg_date"] != self.cg_date:  # a new CG Date's roster; keep the last one
            earlier = [*roster["open"], *roster["sealed"]]
            roster.update(cg_date=self.cg_date, open=[], sealed=[],
                          earlier=earlier if roster["cg_date"] else roster["earlier"])
        roster["sealed" if self.sealed_part else "open"] = self.units
        if self.lines is not None:
            roster["open"] = with_lines(roster["open"], self.lines)


def with_lines(units: list[dict[str, Any]], lines: list[int | None]) -> list[dict[str, Any]]:
    """The open units with the RG lines their sealed part records (in the same order)."""
    return [unit | {"purchase": line} for unit, line in zip(units, lines, strict=False)]


@handles(cmd.WithdrawUnits)
def withdraw_units(campaign: Campaign, command: cmd.WithdrawUnits, actor: str) -> None:
    """Record a withdrawal the rules order (e.g. 3.60741 after the 14PM scenario), within
    what the side may Retain off map (3.60742)."""
    campaign.reph.check_not_ended()
    side = campaign.check_side(command.side)
    _check_order(campaign, side, command.rule)
    units = [u.model_dump() for u in command.units]
    if command.retained_off_map:
        limits.check_withdrawal(campaign, side, command.rule, units)
    campaign._record(UnitsWithdrawn, actor, side=side, units=units, rule=command.rule,
                     retained_off_map=command.retained_off_map, note=command.note,
                     cg_date=campaign.reph.cg_date)


def _check_order(campaign: Campaign, side: str, rule: str) -> None:
    """A withdrawal under a rule the module lists as ordering it for the side (PBr
    3.60741/3.60742), in the RePh after a CG Scenario it names: a free text is no rule."""
    listed = campaign.rules.unit_limits.withdrawal_orders
    if not listed:
        return  # a module that lists none (an owner's) keeps the rule as given
    orders = [o for o in listed if o.side == side]
    order = next((o for o in orders if o.rule == rule), None)
    if order is None:
        named = " or ".join(o.rule for o in orders) or "no rule of the module"
        raise InvalidCommand(f"the {side} withdraws under {named}, not {rule!r}", field="rule",
                             rule=orders[0].rule if orders else None)
    cg_date = campaign.reph.cg_date
    if campaign.reph.phase != "reph" or cg_date not in order.after:
        raise RuleViolation(f"{order.rule} orders the {side} withdrawal in the RePh after the "
                            f"{' or '.join(order.after)} CG Scenario, not now ({cg_date})",
                            rule=order.rule)


class UnitsWithdrawn(CampaignEvent):
    """Units a rule removes from play (PBr 3.6074), perhaps retained off map: each kind
    with its count (recorded before as one text, which still reads)."""

    side: str
    units: list[dict[str, Any]] | str
    rule: str
    retained_off_map: bool
    cg_date: str
    note: str | None = None

    def apply(self, campaign: Any) -> None:
        if not self.retained_off_map or isinstance(self.units, str):
            return  # a text names no count (recorded before the limits were)
        kept = campaign.retained.off_map.setdefault(self.side, {})
        before = kept.get(self.rule, {})
        kept[self.rule] = {key: before.get(key, 0) + value
                           for key, value in limits.tally(self.units).items()}
