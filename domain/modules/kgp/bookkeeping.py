"""KGP campaign bookkeeping (8.2, 8.4 CG SSR): LVP totals per Map Group, Objective Hexes,
PF, Fanaticism, a Massacre and the Holding Boxes, kept in the campaign's `book`.

The book starts empty and each record is filled in as it is first written: a campaign of
another module never has one, and refuses these commands naming what its module lacks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from domain import commands as cmd
from domain.campaign import turns
from domain.campaign.events import CampaignEvent
from domain.campaign.handlers import handles
from domain.campaign.scenario import place_key
from domain.errors import InvalidCommand, RuleViolation
from domain.modules.kgp.rules import pf_text
from domain.rules import rg_letters

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


class Book(TypedDict):
    """The KGP records a careful opponent keeps beside the CG Roster."""

    cg_lvp: dict[str, int]  # each side's CG-LVP Total
    objectives: dict[str, dict[str, Any]]  # "side:hex" -> side, purchase, revealed
    pf_halves: dict[str, int]  # PF available, in halves
    pf_setup: dict[str, str]  # the CG Date of the scenario whose initial PF were counted
    pf_date: dict[str, str]  # the CG Date of the scenario the PF count is for (CG13)
    fanaticism: list[str]  # the CG Scenarios declared Fanatic (CG14)
    massacre: str | None  # the side that massacred (CG4)


def book(campaign: Any) -> Book:
    """The campaign's KGP records, each begun empty when first used."""
    kept = campaign.book
    sides = campaign.sides
    kept.setdefault("cg_lvp", dict.fromkeys(sides, 0))
    kept.setdefault("objectives", {})
    kept.setdefault("pf_halves", dict.fromkeys(sides, 0))
    kept.setdefault("pf_setup", {})
    kept.setdefault("pf_date", {})
    kept.setdefault("fanaticism", [])
    kept.setdefault("massacre", None)
    return kept  # type: ignore[no-any-return]


def rule_of(campaign: Campaign, name: str) -> Any:
    """A KGP rule of the campaign's module (None in another module's campaign)."""
    return getattr(campaign.rules, name, None)


# -- LVP and Objective Hexes (8.2, 8.6198) -----------------------------------------


def check_lvp(map_groups: dict[str, str], lvp_rule: str, command: cmd.ChangeControl) -> None:
    """An LVP Location names its Map Group, one of the module's (8.2)."""
    if map_groups and command.lvp and command.map_group not in map_groups:
        raise InvalidCommand(f"an LVP Location names its Map Group: one of "
                             f"{', '.join(map_groups)}", rule=lvp_rule, field="map_group")


def reveal_objective(campaign: Campaign, side: str, hex_id: str, actor: str) -> None:
    """Infantry of the designating side Control its Objective Hex: it is revealed."""
    # the hex as the side designated it, however the Location is spelled now (8.2)
    hexes = {_hex_key(where): where for where in _designated(campaign, side)}
    designated = hexes.get(_hex_key(hex_id))
    target = book(campaign)["objectives"].get(f"{side}:{designated}")
    if designated and target and not target["revealed"]:
        campaign._record(ObjectiveRevealed, actor, side=side, hex=designated,
                         rule=rule_of(campaign, "objectives").rule,
                         cg_date=campaign.reph.cg_date)


def _hex_key(name: str) -> str:
    """A hex as a reader reads it: "StQ10", "stq 10" and "StQ 10" are one hex."""
    return "".join(place_key(name).split())


def _designated(campaign: Campaign, side: str) -> list[str]:
    """The hexes of the side's Objective Hexes, as it designated them."""
    return [key.split(":", 1)[1] for key in book(campaign)["objectives"]
            if key.startswith(f"{side}:")]


class LVPTotalled(CampaignEvent):
    """KGP 8.2/8.6033: at CG-Scenario End, each side's Current-LVP Total (per Map Group
    too) and its CG-LVP Total."""

    current: dict[str, int]
    by_map_group: dict[str, dict[str, int]]
    cg_total: dict[str, int]
    rule: str
    cg_date: str

    def apply(self, campaign: Any) -> None:
        book(campaign)["cg_lvp"] = dict(self.cg_total)


def total_lvp(campaign: Campaign, lvp_rule: str, actor: str) -> None:
    """The Current- and CG-LVP Totals as a CG Scenario ends."""
    sides, scenario = campaign.sides, campaign.scenario
    current = dict.fromkeys(sides, 0)
    groups: dict[str, dict[str, int]] = {}
    for location, value in scenario.lvp.items():
        side = scenario.control.get(location)
        if side is None or not value:
            continue
        current[side] += value
        group = groups.setdefault(scenario.lvp_group.get(location) or "-",
                                  dict.fromkeys(sides, 0))
        group[side] += value
    cg_lvp = book(campaign)["cg_lvp"]
    campaign._record(LVPTotalled, actor, current=current, by_map_group=groups,
                     cg_total={s: cg_lvp[s] + current[s] for s in sides}, rule=lvp_rule,
                     cg_date=campaign.reph.cg_date)


class ObjectiveDesignated(CampaignEvent):
    """KGP 8.6198: a side's secret Objective Hex for one of its "I"/"HW" RG."""

    side: str
    purchase: int
    hex: str
    rule: str
    cg_date: str

    def apply(self, campaign: Any) -> None:
        book(campaign)["objectives"][f"{self.side}:{self.hex}"] = {
            "side": self.side, "purchase": self.purchase, "revealed": False}


class ObjectiveRevealed(CampaignEvent):
    """Infantry of the designating side Control the Objective Hex: it is revealed and
    is a Strategic Location from now on."""

    side: str
    hex: str
    rule: str
    cg_date: str

    def apply(self, campaign: Any) -> None:
        book(campaign)["objectives"][f"{self.side}:{self.hex}"]["revealed"] = True


@handles(cmd.DesignateObjective)
def designate_objective(campaign: Campaign, command: cmd.DesignateObjective,
                        actor: str) -> None:
    """Designate an Objective Hex for an "I"/"HW" RG (secret until revealed)."""
    campaign.reph.check_not_ended()
    side = campaign.check_side(command.side)
    rule = rule_of(campaign, "objectives")
    if rule is None:
        raise RuleViolation(f"{campaign.rules.short_name} has no Objective Hexes")
    line = campaign.purchases.line(command.purchase, side)
    if rg_letters(line["rg"]) not in rule.prefixes:
        raise RuleViolation(f"{line['rg']} is no {' or '.join(rule.prefixes)} RG: it "
                            "designates no Objective Hex", rule=rule.rule)
    objectives = book(campaign)["objectives"]
    if any(o["purchase"] == command.purchase for o in objectives.values()):
        raise RuleViolation(f"purchase #{command.purchase} has its Objective Hex",
                            rule=rule.rule)
    # Only what this side may know: its own Objectives and the public Strategic Locations.
    if any(_hex_key(where) == _hex_key(command.hex)
           for where in [*_designated(campaign, side), *campaign.scenario.control]):
        raise RuleViolation(f"{command.hex} is already a Strategic Location or one of "
                            f"the {side} Objective Hexes", rule=rule.rule)
    campaign._record(ObjectiveDesignated, actor, secret_for=side, side=side,
                     purchase=command.purchase, hex=command.hex, rule=rule.rule,
                     cg_date=campaign.reph.cg_date)


# -- PF, Fanaticism, Massacre (CG13, CG14, CG4) ------------------------------------


class PFChanged(CampaignEvent):
    """KGP CG13: PF available to a side, in halves (1½ per squad)."""

    side: str
    reason: str
    count: int
    halves: int  # after the change
    rule: str
    cg_date: str

    def apply(self, campaign: Any) -> None:
        kept = book(campaign)
        kept["pf_halves"][self.side] = self.halves
        kept["pf_date"][self.side] = self.cg_date
        if self.reason == "setup":
            kept["pf_setup"][self.side] = self.cg_date


@handles(cmd.ChangePF)
def change_pf(campaign: Campaign, command: cmd.ChangePF, actor: str) -> None:
    """PF from squads set up on map (sets the count), released or entering (adds), or
    PF used (takes whole PF off)."""
    campaign.reph.check_not_ended()
    side = campaign.check_side(command.side)
    rule = rule_of(campaign, "pf")
    if rule is None or rule.side != side:
        raise RuleViolation(f"{campaign.rules.short_name} gives the {side} no PF allotment",
                            rule=rule.rule if rule else None)
    if campaign.reph.phase != "scenario":
        raise RuleViolation("PF are counted during a CG Scenario", rule=rule.rule)
    kept = book(campaign)  # CG13: PF are "for each CG scenario", none carried over
    counted = kept["pf_date"].get(side, campaign.reph.cg_date)  # (a snapshot kept none)
    have = kept["pf_halves"][side] if counted == campaign.reph.cg_date else 0
    if command.reason == "setup":
        _check_setup_pf(campaign, side, rule.rule, have)
    halves = {"setup": command.count * rule.halves_per_squad,
              "released": have + command.count * rule.halves_per_squad,
              "entered": have + command.count * rule.halves_per_squad,
              "used": have - 2 * command.count}[command.reason]
    if halves < 0:
        raise RuleViolation(f"the {side} have {pf_text(have)} PF, not {command.count}",
                            rule=rule.rule)
    campaign._record(PFChanged, actor, side=side, reason=command.reason, count=command.count,
                     halves=halves, rule=rule.rule, cg_date=campaign.reph.cg_date)


def _check_setup_pf(campaign: Campaign, side: str, rule: str, have: int) -> None:
    """CG13: the PF "initially available" are counted once, as the CG Scenario's setup
    ends: not again (that would reset what was used), nor once play has begun."""
    cg_date = campaign.reph.cg_date
    if book(campaign)["pf_setup"].get(side) == cg_date:
        raise RuleViolation(f"the {side} PF initially available for the {cg_date} CG "
                            f"Scenario are counted already ({pf_text(have)} PF now): "
                            "squads released or entering add theirs", rule=rule,
                            field="reason")
    _check_before_play(campaign, "the PF initially available are counted", rule)


def _check_before_play(campaign: Campaign, what: str, rule: str) -> None:
    """Refuse what is done as the CG Scenario's on-map setup ends, once a turn has ended."""
    last = turns.last_ended(campaign)
    if last.turn:
        raise RuleViolation(f"{what} as the CG Scenario's on-map setup ends, before play: "
                            f"Game Turn {last.turn} has ended", rule=rule)


class FanaticismDeclared(CampaignEvent):
    """KGP CG14: all the side's Personnel are Fanatic for this CG Scenario."""

    side: str
    scenario: str
    rule: str

    def apply(self, campaign: Any) -> None:
        book(campaign)["fanaticism"].append(self.scenario)


@handles(cmd.DeclareFanaticism)
def declare_fanaticism(campaign: Campaign, command: cmd.DeclareFanaticism,
                       actor: str) -> None:
    """Declare Fanaticism, within the CG's number of declarations."""
    campaign.reph.check_not_ended()
    side = campaign.check_side(command.side)
    rule = rule_of(campaign, "fanaticism")
    if rule is None or rule.side != side:
        raise RuleViolation(f"{campaign.rules.short_name} lets the {side} declare no Fanaticism",
                            rule=rule.rule if rule else None)
    played = campaign.scenario.played
    if campaign.reph.phase != "scenario" or played is None:
        raise RuleViolation("Fanaticism is declared as a CG Scenario's setup ends",
                            rule=rule.rule)
    _check_before_play(campaign, "Fanaticism is declared", rule.rule)
    allowed = rule.per_cg.get(campaign.cg, 0)
    declared = book(campaign)["fanaticism"]
    if played in declared or len(declared) >= allowed:
        raise RuleViolation(f"the {side} may declare Fanaticism for {allowed} CG "
                            f"Scenario(s) of CG {campaign.cg}, once each", rule=rule.rule)
    campaign._record(FanaticismDeclared, actor, side=side, scenario=played, rule=rule.rule)


class MassacreRecorded(CampaignEvent):
    """A Massacre (A20.4): its effects last for the rest of the CG (KGP CG4)."""

    side: str
    rule: str
    cg_date: str

    def apply(self, campaign: Any) -> None:
        book(campaign)["massacre"] = self.side


@handles(cmd.RecordMassacre)
def record_massacre(campaign: Campaign, command: cmd.RecordMassacre, actor: str) -> None:
    """Record a Massacre by `side` (once: its effects are for the rest of the CG)."""
    campaign.reph.check_not_ended()
    side = campaign.check_side(command.side)
    rule = rule_of(campaign, "massacre_rule")
    if not rule:
        raise RuleViolation(f"{campaign.rules.short_name} keeps no Massacre record")
    massacre = book(campaign)["massacre"]
    if massacre is not None:
        raise RuleViolation(f"a Massacre by the {massacre} is already recorded", rule=rule)
    campaign._record(MassacreRecorded, actor, side=side, rule=rule,
                     cg_date=campaign.reph.cg_date)


# -- Holding Boxes (8.15) ----------------------------------------------------------


class HoldingBoxChanged(CampaignEvent):
    """Units Retained in, or leaving, an Entry Area's Holding Box (KGP 8.15)."""

    side: str
    entry_area: str
    units: str
    held: bool
    cg_date: str


@handles(cmd.HoldUnits)
def hold_units(campaign: Campaign, command: cmd.HoldUnits, actor: str) -> None:
    """Record a Holding Box entry; a side's off-map units are its own secret."""
    campaign.reph.check_not_ended()
    side = campaign.check_side(command.side)
    if rule_of(campaign, "holding_rule") is None:  # a KGP command in another module's CG
        raise RuleViolation(f"{campaign.rules.short_name} has no Holding Boxes (KGP 8.15): "
                            "nothing is recorded")
    areas = {a.id: a for a in campaign.rules.entry_areas if a.side == side}
    if areas and command.entry_area not in areas:
        raise InvalidCommand(f"the {side} Entry Areas are {', '.join(areas)}",
                             field="entry_area")
    cg_date = campaign.reph.cg_date
    if areas and command.entry_area not in campaign.rules.eligible_entry_areas(side, cg_date):
        # CG21, 8.15: a Holding Box holds what enters, or exited, via an Eligible Entry Area
        raise RuleViolation(f"{command.entry_area} is an Eligible Entry Area of the {side} "
                            f"from {areas[command.entry_area].from_date} on, not on {cg_date}",
                            rule="CG6", field="entry_area")
    campaign._record(HoldingBoxChanged, actor, secret_for=side, side=side,
                     entry_area=command.entry_area, units=command.units,
                     held=command.held, cg_date=campaign.reph.cg_date)
