"""A rules module (ABtF, PBr, KGP, ...): everything the ledger knows of one, and an owner's
patch that supplies the tables the rulebook extracts lack. A module package
(domain/modules/<id>/) may subclass Module with its own data and procedure."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from domain.errors import InvalidCommand, MissingTable, RuleViolation
from domain.rules.base import Strict
from domain.rules.calendar import CalendarDate, CGParams, PointsEffect, Step
from domain.rules.charts import FortificationChart, RGChart, RGRow, SWChart
from domain.rules.checks import check_module
from domain.rules.limits import UnitLimits
from domain.rules.procedures import (
    AttackNeedsTarget,
    Coordination,
    CPPForgo,
    EntryArea,
    LevelSpec,
    MatrixEntry,
    ReinforcementSchedule,
    ReserveRule,
    SANAnnouncement,
    SANFloor,
    WalkingWounded,
)
from domain.rules.tables import Table


class Module(Strict):
    """A rules module: its calendar, RePh steps, tables and charts, and the procedures the
    ledger applies from its data. The hooks at the end are what a module package with a
    procedure of its own (KGP's bookkeeping) overrides; the Campaign knows only these."""

    format: Literal["refit-module/1"] = "refit-module/1"
    id: str
    name: str
    abbreviation: str = ""  # as players write it: "PBr", "ABtF", "KGP" (else the id, upper)
    chapter: str
    sides: list[str] = Field(min_length=2)
    cgs: dict[str, CGParams | None]
    calendar: list[CalendarDate] = Field(min_length=1)
    steps: list[Step]
    tables: list[Table] = []
    rg_charts: dict[str, RGChart] = {}
    rg_chart_rule: str = ""
    rg_record_rule: str = ""  # the RG Purchase Record (PBr 3.6179, ABtF 9.6178, KGP 8.6198)
    reph_rule: str = ""
    command_steps: dict[str, list[str]] = {}
    idle_repeat: str | None = None
    on_leaving: dict[str, list[PointsEffect]] = {}
    levels: dict[str, LevelSpec] = {}
    sw_charts: dict[str, SWChart] = {}
    initiative_matrix: list[MatrixEntry] = []
    fortification_chart: FortificationChart | None = None
    sudden_death: dict[str, str] = {}  # side that may win so -> its rule (e.g. 9.6212)
    initial_chits: dict[str, dict[str, Literal["attack", "idle"]]] = {}  # CG -> assumed chits
    initiative_rule: str = ""
    chit_limit_rule: str = ""  # e.g. 9.62131
    cg_rule: str = ""  # where the CG parameters are printed, e.g. "9.51-9.53"
    reinforcements: ReinforcementSchedule | None = None
    coordination: Coordination | None = None
    walking_wounded: WalkingWounded | None = None
    san_floor: SANFloor | None = None
    san_announced: SANAnnouncement | None = None
    cpp_forgo: CPPForgo | None = None
    attack_needs_target: AttackNeedsTarget | None = None
    reserve: ReserveRule | None = None
    balance_rule: str = ""  # KGP 8.31: the Balance side's secret DR halved (FRD)
    entry_areas: list[EntryArea] = []
    unit_limits: UnitLimits = UnitLimits()  # HIP, FT/DC, withdrawal, Bombardment limits
    notes: list[str] = []
    # What a Control change may name: a Strategic Location or another Location (A26.11;
    # PBr 3.605), and in ABtF a Block too (9.605). `control_rule` is where the module says so.
    control_kinds: list[str] = ["Strategic Location", "Location"]
    control_rule: str = ""
    # A kind whose Control a side reports only in that RePh step (ABtF: a Block's, 9.605);
    # the director records it at any time (a Block Control Forfeiture, 9.6051).
    control_step_kinds: dict[str, str] = {}

    @model_validator(mode="after")
    def _names_are_consistent(self) -> Module:
        check_module(self)
        return self

    def seals(self, table: Table) -> bool:
        """Whether every roll of the table is sealed to the opponent: a secret table, one
        that credits CPP (the amount is secret, 9.616, 3.6162), or one only a secret roll's
        result calls for (3.613 †). A roll for an RG line is sealed besides (9.617)."""
        follows = table.follows
        return table.secret or table.credits_cpp or table.credits_roll or \
            (follows is not None and any(self.table(first).secret
                                         for first in follows.callers()))

    def table(self, table_id: str) -> Table:
        """The table with this id, or an error naming what is missing."""
        for table in self.tables:
            if table.id == table_id:
                return table
        step = next((s for s in self.steps if table_id in s.tables), None)
        if step is not None:
            raise MissingTable(
                f"table {table_id} (needed by step {step.rule} {step.title}) is not supplied; "
                "an owner loads it with `refit module load FILE`",
                rule=table_id,
            )
        # a table split in columns is named by its rule and column (9.6054-personnel)
        near = [t.id for t in self.tables if t.id.startswith(f"{table_id}-")]
        raise InvalidCommand(f"{self.short_name} has no table {table_id!r}" +
                             (f": its tables are {', '.join(near)}" if near else ""),
                             field="table")

    def rg_chart(self, side: str) -> RGChart:
        """The side's RG chart, or an error naming it as missing."""
        if side in self.rg_charts:
            return self.rg_charts[side]
        rule = self.rg_chart_rule or None
        raise MissingTable(
            f"the {side} RG chart ({rule or 'RG chart'}) is not supplied; "
            "an owner loads it with `refit module load FILE`",
            rule=rule,
        )

    def date(self, date: str) -> CalendarDate:
        """The calendar entry of a CG Date."""
        for entry in self.calendar:
            if entry.date == date:
                return entry
        raise InvalidCommand(f"{date!r} is not a CG Date of {self.id}", field="cg_date")

    def date_index(self, date: str) -> int:
        """Position of a CG Date in the calendar."""
        return [entry.date for entry in self.calendar].index(self.date(date).date)

    def step(self, rule: str) -> Step:
        """The RePh step with this rule number."""
        return next(step for step in self.steps if step.rule == rule)

    def scenario_type(self, chits: dict[str, str], night: bool) -> str | None:
        """What the Initiative Matrix makes of the chits (None if the module has none)."""
        for entry in self.initiative_matrix:
            if entry.chits == chits:
                return entry.night_type if night and entry.night_type else entry.scenario_type
        return None

    def chart_row(self, side: str, rg: str) -> RGRow | None:
        """The side's chart line for an RG, if the chart and the line exist."""
        chart = self.rg_charts.get(side)
        return next((row for row in chart.rows if row.id == rg), None) if chart else None

    def missing_tables(self) -> list[str]:
        """Tables the steps name, and sides' RG charts, that nobody has supplied."""
        have = {table.id for table in self.tables}
        charts = [f"{self.rg_chart_rule} {side} RG chart" for side in self.sides
                  if self.rg_chart_rule and side not in self.rg_charts]
        return [t for step in self.steps for t in step.tables if t not in have] + charts

    def missing_cg_parameters(self) -> list[str]:
        """The CGs whose parameters (start, ELR, SAN, CPP, OB, chit limits) nobody supplied."""
        rule = f" ({self.cg_rule})" if self.cg_rule else ""
        return [f"CG {cg} parameters{rule}" for cg, params in self.cgs.items() if params is None]

    def eligible_entry_areas(self, side: str, cg_date: str) -> list[str]:
        """The Entry Areas Eligible to a side on a CG Date (KGP CG6c)."""
        today = self.date_index(cg_date)
        return [area.id for area in self.entry_areas
                if area.side == side and self.date_index(area.from_date) <= today]

    # -- the hooks of a module's own procedure (domain/modules/kgp overrides them) ----

    def control_kinds_at(self, step: str | None, by_side: bool) -> list[str]:
        """The kinds whose Control may change now (`step`: the RePh step, None outside the
        RePh): a side reports one bound to a step only in it (ABtF 9.605's Blocks), and
        in that step it comes first (what the step is about: the form's default)."""
        bound = self.control_step_kinds
        kinds = [kind for kind in self.control_kinds
                 if not by_side or bound.get(kind, step) == step]
        return sorted(kinds, key=lambda kind: step is None or bound.get(kind) != step)

    def date_begun(self, step: str | None) -> bool:
        """Whether a RePh at `step` has begun the next CG Date: from the step that begins
        it on (PBr 3.612), or at any step where the module names none."""
        rules = [s.rule for s in self.steps]
        new = next((i for i, s in enumerate(self.steps) if s.new_cg_date), None)
        return new is None or step not in rules or rules.index(step) >= new

    def before_setup(self, phase: str, step: str | None) -> bool:
        """Whether the CG Scenario of the campaign's CG Date is still to set up: not in play,
        and not played (the RePh after it, until it begins the next CG Date), nor the
        campaign ended."""
        return phase == "setup" or (phase == "reph" and self.date_begun(step))

    @property
    def short_name(self) -> str:
        """The module as players write it: "PBr", not "PBR"."""
        return self.abbreviation or self.id.upper()

    def check_control_kind(self, kind: str, step: str | None, by_side: bool) -> None:
        """A control change names a kind of Location the module records Control of, one
        that may change now."""
        if kind not in self.control_kinds:
            raise InvalidCommand(f"{kind!r} is not what {self.short_name} records Control of: "
                                 f"one of {', '.join(self.control_kinds)}",
                                 rule=self.control_rule or "A26.11", field="kind")
        if kind not in self.control_kinds_at(step, by_side):
            bound = self.control_step_kinds[kind]
            raise RuleViolation(f"{kind} Control is determined only in RePh step {bound}, "
                                "as its Setup Areas are: report it then (the director "
                                "records a forfeiture at any time)", rule=bound, field="kind")

    def check_control(self, command: Any) -> None:
        """Refuse what a control change gives that this module keeps no record of."""
        # An LVP of 0 is what every Location has here (the record keeps 0): not refused.
        given = next((name for name in ("lvp", "map_group", "infantry")
                      if getattr(command, name)), None)
        if given is not None:
            raise InvalidCommand(f"{self.short_name} keeps no LVP, Map Groups or Objective "
                                 "Hexes (KGP 8.2): a Control change here names none",
                                 field=given)

    def control_changed(self, campaign: Any, side: str | None, where: str, infantry: bool,
                        actor: str) -> None:
        """What a control change sets off in the module's own records."""

    def scenario_ended(self, campaign: Any, actor: str) -> None:
        """What a CG Scenario's end sets off in the module's own records."""


class ModulePatch(Strict):
    """An owner's file that adds or overrides tables, RG charts, CG parameters and (whole)
    the calendar, the steps or the Entry Areas."""

    format: Literal["refit-module-patch/1"] = "refit-module-patch/1"
    module: str
    tables: list[Table] = []
    rg_charts: dict[str, RGChart] = {}
    cgs: dict[str, CGParams] = {}
    calendar: list[CalendarDate] = []  # the whole calendar, e.g. a CG starting before it
    steps: list[Step] = []
    entry_areas: list[EntryArea] = []
    unit_limits: UnitLimits = UnitLimits()  # HIP, FT/DC, withdrawal, Bombardment limits

    def apply_to(self, module: Module) -> Module:
        """The module with this patch's tables, charts and CGs added or replaced."""
        tables = {t.id: t for t in module.tables} | {t.id: t for t in self.tables}
        merged = module.model_copy(
            update={
                "tables": list(tables.values()),
                "rg_charts": module.rg_charts | self.rg_charts,
                "cgs": module.cgs | self.cgs,
                "calendar": self.calendar or module.calendar,
                "steps": self.steps or module.steps,
                "entry_areas": self.entry_areas or module.entry_areas,
            }
        )
        return type(module).model_validate(merged.model_dump())
