"""KGP campaign bookkeeping (8.2, 8.4 CG SSR): LVP totals per Map Group, Objective Hexes,
PF, Fanaticism, a Massacre and the Holding Boxes, as a part of the Campaign aggregate."""

from __future__ import annotations

from typing import Any, cast

from domain import commands as cmd
from domain.errors import InvalidCommand, RuleViolation
from domain.ledger import Ledger, LedgerEvent
from domain.rules import Module, ObjectiveRule, pf_text, rg_letters


class KGPBookkeeping(Ledger):
    """The KGP records a careful opponent keeps beside the CG Roster."""

    lvp: dict[str, int]
    lvp_group: dict[str, str | None]
    cg_lvp: dict[str, int]
    objectives: dict[str, dict[str, Any]]
    pf_halves: dict[str, int]
    fanaticism: list[str]
    massacre: str | None

    def _check_lvp(self, module: Module, command: cmd.ChangeControl) -> None:
        """An LVP Location's LVP and Map Group, where the module keeps them (8.2)."""
        if (command.lvp or command.map_group) and not module.lvp_rule:
            raise InvalidCommand(f"{module.id} keeps no LVP or Map Groups", field="lvp")
        groups = module.map_groups
        if groups and command.lvp and command.map_group not in groups:
            raise InvalidCommand(f"an LVP Location names its Map Group: one of "
                                 f"{', '.join(groups)}", rule=module.lvp_rule,
                                 field="map_group")

    def _reveal_objective(self, module: Module, side: str, hex_id: str, actor: str) -> None:
        """Infantry of the designating side Control its Objective Hex: it is revealed."""
        target = self.objectives.get(f"{side}:{hex_id}")
        if target and not target["revealed"]:
            self._record(self.ObjectiveRevealed, actor, side=side, hex=hex_id,
                         rule=cast(ObjectiveRule, module.objectives).rule,
                         cg_date=self.cg_date)

    class LVPTotalled(LedgerEvent):
        """KGP 8.2/8.6033: at CG-Scenario End, each side's Current-LVP Total (per Map Group
        too) and its CG-LVP Total."""

        current: dict[str, int]
        by_map_group: dict[str, dict[str, int]]
        cg_total: dict[str, int]
        rule: str
        cg_date: str

        def apply(self, campaign: Any) -> None:
            campaign.cg_lvp = dict(self.cg_total)

    def _total_lvp(self, module: Module, actor: str) -> None:
        current = dict.fromkeys(self.sides, 0)
        groups: dict[str, dict[str, int]] = {}
        for location, value in self.lvp.items():
            side = self.control.get(location)
            if side is None or not value:
                continue
            current[side] += value
            group = groups.setdefault(self.lvp_group.get(location) or "-",
                                      dict.fromkeys(self.sides, 0))
            group[side] += value
        self._record(self.LVPTotalled, actor, current=current, by_map_group=groups,
                     cg_total={s: self.cg_lvp[s] + current[s] for s in self.sides},
                     rule=module.lvp_rule, cg_date=self.cg_date)

    class ObjectiveDesignated(LedgerEvent):
        """KGP 8.6198: a side's secret Objective Hex for one of its "I"/"HW" RG."""

        side: str
        purchase: int
        hex: str
        rule: str
        cg_date: str

        def apply(self, campaign: Any) -> None:
            campaign.objectives[f"{self.side}:{self.hex}"] = {
                "side": self.side, "purchase": self.purchase, "revealed": False}

    class ObjectiveRevealed(LedgerEvent):
        """Infantry of the designating side Control the Objective Hex: it is revealed and
        is a Strategic Location from now on."""

        side: str
        hex: str
        rule: str
        cg_date: str

        def apply(self, campaign: Any) -> None:
            campaign.objectives[f"{self.side}:{self.hex}"]["revealed"] = True

    def designate_objective(self, module: Module, command: cmd.DesignateObjective,
                            actor: str) -> None:
        """Designate an Objective Hex for an "I"/"HW" RG (secret until revealed)."""
        self._not_ended()
        side = self._side(command.side)
        rule = module.objectives
        if rule is None:
            raise RuleViolation(f"{module.id} has no Objective Hexes")
        line = self._purchase(command.purchase, side)
        if rg_letters(line["rg"]) not in rule.prefixes:
            raise RuleViolation(f"{line['rg']} is no {' or '.join(rule.prefixes)} RG: it "
                                "designates no Objective Hex", rule=rule.rule)
        if any(o["purchase"] == command.purchase for o in self.objectives.values()):
            raise RuleViolation(f"purchase #{command.purchase} has its Objective Hex",
                                rule=rule.rule)
        # Only what this side may know: its own Objectives and the public Strategic Locations.
        if f"{side}:{command.hex}" in self.objectives or command.hex in self.control:
            raise RuleViolation(f"{command.hex} is already a Strategic Location or one of "
                                f"the {side} Objective Hexes", rule=rule.rule)
        self._record(self.ObjectiveDesignated, actor, secret_for=side, side=side,
                     purchase=command.purchase, hex=command.hex, rule=rule.rule,
                     cg_date=self.cg_date)

    class PFChanged(LedgerEvent):
        """KGP CG13: PF available to a side, in halves (1½ per squad)."""

        side: str
        reason: str
        count: int
        halves: int  # after the change
        rule: str
        cg_date: str

        def apply(self, campaign: Any) -> None:
            campaign.pf_halves[self.side] = self.halves

    def change_pf(self, module: Module, command: cmd.ChangePF, actor: str) -> None:
        """PF from squads set up on map (sets the count), released or entering (adds), or
        PF used (takes whole PF off)."""
        self._not_ended()
        side = self._side(command.side)
        rule = module.pf
        if rule is None or rule.side != side:
            raise RuleViolation(f"{module.id} gives the {side} no PF allotment",
                                rule=rule.rule if rule else None)
        if self.phase != "scenario":
            raise RuleViolation("PF are counted during a CG Scenario", rule=rule.rule)
        have = self.pf_halves[side]
        halves = {"setup": command.count * rule.halves_per_squad,
                  "released": have + command.count * rule.halves_per_squad,
                  "entered": have + command.count * rule.halves_per_squad,
                  "used": have - 2 * command.count}[command.reason]
        if halves < 0:
            raise RuleViolation(f"the {side} have {pf_text(have)} PF, "
                                f"not {command.count}", rule=rule.rule)
        self._record(self.PFChanged, actor, side=side, reason=command.reason,
                     count=command.count, halves=halves, rule=rule.rule, cg_date=self.cg_date)

    class FanaticismDeclared(LedgerEvent):
        """KGP CG14: all the side's Personnel are Fanatic for this CG Scenario."""

        side: str
        scenario: str
        rule: str

        def apply(self, campaign: Any) -> None:
            campaign.fanaticism.append(self.scenario)

    def declare_fanaticism(self, module: Module, command: cmd.DeclareFanaticism,
                           actor: str) -> None:
        """Declare Fanaticism, within the CG's number of declarations."""
        self._not_ended()
        side = self._side(command.side)
        rule = module.fanaticism
        if rule is None or rule.side != side:
            raise RuleViolation(f"{module.id} lets the {side} declare no Fanaticism",
                                rule=rule.rule if rule else None)
        if self.phase != "scenario" or self.scenario is None:
            raise RuleViolation("Fanaticism is declared as a CG Scenario's setup ends",
                                rule=rule.rule)
        allowed = rule.per_cg.get(self.cg, 0)
        if self.scenario in self.fanaticism or len(self.fanaticism) >= allowed:
            raise RuleViolation(f"the {side} may declare Fanaticism for {allowed} CG "
                                f"Scenario(s) of CG {self.cg}, once each", rule=rule.rule)
        self._record(self.FanaticismDeclared, actor, side=side, scenario=self.scenario,
                     rule=rule.rule)

    class MassacreRecorded(LedgerEvent):
        """A Massacre (A20.4): its effects last for the rest of the CG (KGP CG4)."""

        side: str
        rule: str
        cg_date: str

        def apply(self, campaign: Any) -> None:
            campaign.massacre = self.side

    def record_massacre(self, module: Module, command: cmd.RecordMassacre,
                        actor: str) -> None:
        """Record a Massacre by `side` (once: its effects are for the rest of the CG)."""
        self._not_ended()
        side = self._side(command.side)
        if not module.massacre_rule:
            raise RuleViolation(f"{module.id} keeps no Massacre record")
        if self.massacre is not None:
            raise RuleViolation(f"a Massacre by the {self.massacre} is already recorded",
                                rule=module.massacre_rule)
        self._record(self.MassacreRecorded, actor, side=side, rule=module.massacre_rule,
                     cg_date=self.cg_date)

    class HoldingBoxChanged(LedgerEvent):
        """Units Retained in, or leaving, an Entry Area's Holding Box (KGP 8.15)."""

        side: str
        entry_area: str
        units: str
        held: bool
        cg_date: str

    def hold_units(self, module: Module, command: cmd.HoldUnits, actor: str) -> None:
        """Record a Holding Box entry; a side's off-map units are its own secret."""
        self._not_ended()
        side = self._side(command.side)
        known = [a.id for a in module.entry_areas if a.side == side]
        if known and command.entry_area not in known:
            raise InvalidCommand(f"the {side} Entry Areas are {', '.join(known)}",
                                 field="entry_area")
        self._record(self.HoldingBoxChanged, actor, secret_for=side, side=side,
                     entry_area=command.entry_area, units=command.units,
                     held=command.held, cg_date=self.cg_date)
