"""Rules modules as data: calendar, RePh steps, dice tables and RG charts (pydantic models)."""

from __future__ import annotations

import itertools
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from domain.errors import InvalidCommand, MissingTable

AutoDRM = Literal["side", "night", "exhaustion", "exhaustion_half", "san_over", "level",
                  "enemy_cvp",
                  "idle_dates_since_scenario", "scenarios_since_idle",
                  "attack_chits_since_idle", "attack_chits_in_cg_less_one",
                  "previous_scenario", "this_scenario"]
Condition = Literal["weather", "ec", "wind"]


class Strict(BaseModel):
    """Rule data refuses unknown keys so a typo in an owner's file is caught."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Effect(Strict):
    """What a result does to the ledger: ELR, SAN or a level (e.g. CG17) moves by `change`."""

    target: str = Field(pattern=r"^(elr|san|level:[A-Za-z0-9_]+)$")  # ELR, SAN or a level
    change: int
    minimum: int = 0
    maximum: int = 7


class Band(Strict):
    """One result band of a table: Final rolls from `min` to `max` (None = open end)."""

    min: int | None = None
    max: int | None = None
    result: str
    records: str | None = None  # what a roll for an RG writes on its record (e.g. "F")
    effects: list[Effect] = []

    def holds(self, final: int) -> bool:
        """True when the Final roll falls in this band."""
        return (self.min is None or final >= self.min) and (self.max is None or final <= self.max)


class DRMSpec(Strict):
    """A DRM a table lists: automatic ones say how the ledger derives them."""

    value: int = 0
    reason: str
    aliases: list[str] = []  # other names a player may give it (recorded as `reason`)
    rule: str | None = None
    auto: AutoDRM | None = None
    side: str | None = None
    over: int | None = None
    per: int | None = None
    level: str | None = None
    cpp_cost: int = Field(default=0, ge=0)  # CPP spent when a player takes it (3.620 +5)
    condition: Condition | None = None  # weather, EC or wind of the previous/this scenario
    values: list[str] = []  # ... when it is one of these (e.g. "Wet", "Moist")
    variable: bool = False
    doubt: str | None = None

    @model_validator(mode="after")
    def _auto_has_what_it_needs(self) -> DRMSpec:
        if self.auto == "side" and self.side is None:
            raise ValueError(f"DRM {self.reason!r}: auto 'side' needs `side`")
        if self.auto == "san_over" and self.over is None:
            raise ValueError(f"DRM {self.reason!r}: auto 'san_over' needs `over`")
        if self.auto == "level" and not self.level:
            raise ValueError(f"DRM {self.reason!r}: auto 'level' needs `level`")
        if self.auto == "enemy_cvp" and not self.per:
            raise ValueError(f"DRM {self.reason!r}: auto 'enemy_cvp' needs `per`")
        if self.auto in ("previous_scenario", "this_scenario") and \
                (self.condition is None or not self.values):
            raise ValueError(f"DRM {self.reason!r}: auto {self.auto!r} needs `condition` "
                             "and `values`")
        if self.auto is not None and self.variable:
            raise ValueError(f"DRM {self.reason!r}: a derived DRM is not player-supplied")
        return self


class FollowUp(Strict):
    """A roll a result of another calls for (PBr 3.613 †: the dr per unit after an 11)."""

    table: str  # the table whose roll, by the same side on the CG Date, calls for it
    results: list[str] = Field(min_length=1)  # the results of that table that call for it


class Target(Strict):
    """A roll against a number the player supplies (e.g. CG23's circled turn number)."""

    compare: Literal["lt", "le", "ge", "gt"]
    number: str
    hit: str
    miss: str

    def result(self, final: int, target: int) -> str:
        """`hit` when the Final roll compares true against the target number."""
        holds = {
            "lt": final < target,
            "le": final <= target,
            "ge": final >= target,
            "gt": final > target,
        }[self.compare]
        return self.hit if holds else self.miss


class LossPoints(Strict):
    """Who may roll for CG Scenario Loss Points (3.6162): a side that lost >= `ratio` times,
    and >= `margin` more, CVP than the other in the prior CG Scenario."""

    ratio: int
    margin: int


class Table(Strict):
    """A dice table of a rule, e.g. 9.6101 Wounded Leader Table."""

    id: str
    title: str
    rule: str
    roll: Literal["dr", "DR"]
    secret: bool = False
    from_date: str | None = None  # not rolled before this CG Date (e.g. 9.6201: 19AM)
    side_from: dict[str, str] = {}  # a side's own first CG Date (3.61424: British 15AM)
    not_after_idle: bool = False  # not rolled when the previous CG Date was Idle
    sides: list[str] | None = None  # only these sides roll it (e.g. 9.6201: British)
    once_per_date: bool = False  # one roll per side per CG Date (e.g. 9.6202)
    scenario_types: list[str] | None = None  # only for these scenarios (e.g. Dual Assault)
    in_scenario: bool = False  # rolled during a CG Scenario (e.g. CG4 Game End)
    min_san: dict[str, int] | None = None  # rolled only at this SAN or more (9.6122)
    credits_cpp: bool = False  # Final roll + the date's CPP Base # is credited (9.616)
    credits_roll: bool = False  # the Final roll alone is credited as CPP (3.6162)
    loss_points: LossPoints | None = None  # who may roll it (3.6162)
    cpp_cost: int = Field(default=0, ge=0)  # CPP spent to roll it (3.620 Recon)
    halved_by_balance: bool = False  # the Balance side's DR is halved, FRD (KGP 8.31)
    open_roll: bool = False  # never secret: the opponent learns it (3.620 Recon, 3.6223)
    counts_against: str | None = None  # an RG row whose maximums count these rolls (M2)
    not_initial: bool = False  # not rolled before an Initial Scenario (its SSR decides)
    after: list[str] = []  # tables rolled first on the CG Date (9.62164 after 9.62161)
    follows: FollowUp | None = None  # rolled only after these results of another table
    determines: Literal["strength", "leader", "composition", "sw", "sw_type", "weather", "ec",
                        "wind", "recon"] | None = None
    for_rgs: list[str] | None = None  # only for these RG ids (e.g. 9.6184-A3: A3)
    excluded_kgs: list[str] = []  # not for these KGs' RGs (e.g. 9.6184: KG Graebner)
    bands: list[Band] = []
    target: Target | None = None
    drm: list[DRMSpec] = []
    notes: list[str] = []
    doubts: list[str] = []

    @model_validator(mode="after")
    def _bands_cover_every_final_roll(self) -> Table:
        bands = self.bands
        if (self.target is None) == (not bands):
            raise ValueError(f"table {self.id}: give either result bands or a target, not both")
        if self.determines == "strength" and {b.records for b in bands} != {"F", "D"}:
            raise ValueError(f"table {self.id}: a strength table's bands record F or D")
        if not bands:
            return self
        if bands[0].min is not None or bands[-1].max is not None:
            raise ValueError(f"table {self.id}: first band needs no min and last no max")
        for band in bands:
            if band.min is not None and band.max is not None and band.min > band.max:
                raise ValueError(f"table {self.id}: a band's min is above its max")
        for low, high in itertools.pairwise(bands):
            if low.max is None or high.min != low.max + 1:
                raise ValueError(f"table {self.id}: bands must be ascending and contiguous")
        return self

    def band(self, final: int) -> Band | None:
        """The band a Final roll falls in (None for a target table)."""
        return next((band for band in self.bands if band.holds(final)), None)

    def result(self, final: int, target: int | None = None) -> str:
        """The result for a Final roll (and the target number, for a target table)."""
        if self.target is not None:
            if target is None:
                raise InvalidCommand(
                    f"table {self.id} rolls against a target: give `target` "
                    f"({self.target.number})",
                    rule=self.rule,
                    field="target",
                )
            return self.target.result(final, target)
        return next(band.result for band in self.bands if band.holds(final))


class CalendarDate(Strict):
    """One CG Date with what the module's charts say of it."""

    date: str
    night: bool = False
    exhaustion_drm: int | None = None
    cpp_base: dict[str, int] | None = None
    doubt: str | None = None


class Step(Strict):
    """One RePh step in the module's order."""

    rule: str
    title: str
    initial: bool = False
    scenario_end: bool = False
    new_cg_date: bool = False
    tables: list[str] = []
    requires: list[str] = []  # tables each side that may roll them rolls before leaving
    requires_strength: bool = False  # every RG of the CG Date that may deplete has its F/D
    credits_base: bool = False  # leaving it credits each side the date's CPP Base # (3.616)


class PointsEffect(Strict):
    """What happens to a side's unspent points when the RePh leaves a step (e.g. 9.617)."""

    pool: Literal["cpp", "fpp"]
    effect: Literal["halve_fru", "forfeit"]
    rule: str
    dates: list[str] | None = None  # only on these CG Dates; None: on every one

    def after(self, points: int) -> int:
        """The points left once the effect is applied."""
        return (points + 1) // 2 if self.effect == "halve_fru" else 0


class LevelPenalty(Strict):
    """What one level costs (e.g. a line of the CG17 Ammunition Shortage Chart)."""

    level: int
    elr_loss_dr: int  # Original DR at or above which ELR loss / Unit Substitution (A19.131)
    b_change: int | None  # change to SW/Vehicle/Gun B#; None: malfunction after first use
    elr_drm: int  # the 9.6202 DRM
    notes: list[str] = []


class LevelSpec(Strict):
    """A campaign level the ledger tracks (e.g. CG17 British Ammunition Shortage)."""

    title: str
    rule: str
    side: str | None = None
    minimum: int = 0
    maximum: int
    penalties: list[LevelPenalty] = []
    notes: list[str] = []

    def penalty(self, level: int) -> LevelPenalty | None:
        """The line of the chart for a level (None below the first)."""
        return next((line for line in self.penalties if line.level == level), None)

    def reduced_b(self, b_number: int, level: int) -> int | None:
        """A B# as the level lowers it (None: it malfunctions after its first use)."""
        line = self.penalty(level)
        if line is None:
            return b_number
        return None if line.b_change is None else b_number + line.b_change


class SWAllotment(Strict):
    """SW an Infantry-type RG receives (9.6182): all when Full; each on a dr <= `depleted`
    when Depleted. `choose` names a table that first decides which SW it is."""

    sw: str
    count: int = Field(ge=1)
    depleted: int = Field(ge=1, le=6)
    full: int | None = Field(default=None, ge=1, le=6)  # a Full RG too rolls, dr <= this
    choose: str | None = None


class SWChart(Strict):
    """A side's Infantry-Type SW Chart (e.g. 9.6182): RG id to its SW."""

    rule: str
    rows: dict[str, list[SWAllotment]]
    minimum: dict[str, int] = {}  # RG that roll all their SW again until this many (3.6182)
    doubts: list[str] = []


class MatrixEntry(Strict):
    """A line of an Initiative Matrix (e.g. 9.62132): the chits and the CG Date they make."""

    chits: dict[str, Literal["attack", "idle"]]
    scenario_type: str
    night_type: str | None = None  # e.g. PBr's Night Dual Attack (3.6213b)


class FortificationRow(Strict):
    """A line of a Fortification Purchase Table (e.g. 9.619): FPP per side, limits."""

    item: str
    cost: dict[str, int]  # FPP per side; a side not listed may not buy it
    per_cg_date: int | None = None
    per_cg: int | None = None
    per_cg_by_side: dict[str, int] = {}  # a limit for one side only (3.619 f: Axis 5)
    front_line: bool = False  # "F": may be set up in a Front Line Location
    notes: list[str] = []


class FortificationChart(Strict):
    """A module's Fortification Purchase Table."""

    rule: str
    rows: list[FortificationRow]

    def row(self, item: str) -> FortificationRow:
        """The line for an item, or an error naming what the table has."""
        wanted = item.strip().casefold()
        for row in self.rows:
            if row.item.casefold() == wanted:
                return row
        names = ", ".join(row.item for row in self.rows)
        raise InvalidCommand(f"{item!r} is not on the Fortification Purchase Table ({names})",
                             rule=self.rule, field="reason")


class CGParams(Strict):
    """A CG's parameters (e.g. 9.51-9.53): first and last CG Date, chit limits (9.62131),
    levels set by its SSR (e.g. the CG17 starting Ammunition Shortage Level)."""

    start: str
    end: str
    attack_chits: dict[str, int] = {}
    idle_chits: dict[str, int] = {}
    levels: dict[str, int] = {}
    elr: dict[str, int] = {}  # each side's ELR and SAN at CG start
    san: dict[str, int] = {}
    notes: list[str] = []


class ScheduledReinforcement(Strict):
    """A line of an OB-given reinforcement schedule (e.g. 9.6152): an RG, FPP or a SAN
    change a side receives on a CG Date, outside every RG maximum."""

    cg_date: str
    side: str
    rg: str | None = None
    group_type: str | None = None
    fpp: int | None = Field(default=None, ge=1)
    san: int | None = None
    san_minimum: int = 0
    san_maximum: int = 7
    notes: list[str] = []


class ReinforcementSchedule(Strict):
    """OB-given reinforcements, applied as the RePh leaves `step` on their CG Date."""

    rule: str
    step: str
    schedule: list[ScheduledReinforcement]
    doubts: list[str] = []


class Coordination(Strict):
    """A side buying RG per Kampfgruppe, with an attack-coordination rule (ABtF CG22)."""

    side: str
    rule: str
    groups: dict[str, str]  # KG letter -> its name, e.g. "H": "KG Harder"
    types: list[str] = ["I", "A"]
    min_groups: int = Field(default=3, ge=1)


class CPPForgo(Strict):
    """3.616 EXC: on `cg_date` of CG `cg`, `side` may forgo CPP; the other's Base # loses as
    many."""

    cg: str
    cg_date: str
    side: str
    rule: str


class AttackNeedsTarget(Strict):
    """3.6212 *: `side` may not choose Attack while `enemy` has no on-map Retained units."""

    side: str
    enemy: str
    rule: str


class ObjectiveRule(Strict):
    """KGP 8.6198: each "I"/"HW" RG lets its side secretly designate an Objective Hex,
    revealed once Infantry of that side Control it."""

    prefixes: list[str]
    rule: str


class PFRule(Strict):
    """KGP CG13: a side's PF, 1½ per non-Reserve squad set up on map, +1½ per squad released
    or entering (kept in halves)."""

    side: str
    halves_per_squad: int = 3
    rule: str


class FanaticismRule(Strict):
    """KGP CG14: a side may declare all its Personnel Fanatic for so many scenarios per CG."""

    side: str
    per_cg: dict[str, int]
    rule: str


class ReserveRule(Strict):
    """KGP CG7a: a side's RG of these letters bought on the scenario's CG Date set up in
    Reserve (unless bought for on-map setup)."""

    side: str
    prefixes: list[str]
    rule: str


class EntryArea(Strict):
    """A map Entry Area: Eligible to `side` from `from_date` on (KGP CG6c; printed on the
    map, so owner data)."""

    id: str
    side: str
    from_date: str
    map_group: str | None = None


class WalkingWounded(Strict):
    """A Walking Wounded box (ABtF CG19): one `unit` per squad-equivalent (FRD) in the box,
    received in `step`; the remainder is discarded."""

    side: str
    rule: str
    step: str
    unit: str


class SANFloor(Strict):
    """A SAN below `minimum` is raised to it as the RePh enters `step` (e.g. 9.6122)."""

    step: str
    minimum: int
    rule: str


class RGRow(Strict):
    """One line of an RG chart."""

    id: str
    group_type: str
    cost: int = Field(ge=0)
    units_full: str = ""
    units_depleted: str = ""
    cg_date_max: int | None = None
    cg_max: dict[str, int | None] = {}
    kgs: list[str] | None = None  # KGs that may buy it (ABtF German); None: any
    leader_rolls: int = Field(default=1, ge=1)  # Leader Table rolls it makes (PBr coy: 3)
    bought_by: str | None = None  # bought by rolling this table, not in 3.617 (PBr M2)
    notes: list[str] = []


class PurchaseLimit(Strict):
    """A chart note that limits purchases of some rows (e.g. PBr 3.6178 notes k, l, m, n)."""

    note: str
    rule: str
    kind: Literal["date_window", "per_cg_date", "per_calendar_day", "after_cg_max_reached",
                  "max_held", "per_held"]
    rows: list[str]
    per: list[str] = []  # per_held: one of `rows` held per RG of these rows (note j)
    limit: int | None = Field(default=None, ge=0)
    from_date: str | None = None  # date_window: first CG Date it may be bought
    until: str | None = None  # date_window: last CG Date it may be bought
    requires: list[str] = []  # after_cg_max_reached: rows whose CG max must be reached
    text: str = ""


def rg_letters(rg_id: str) -> str:
    """An RG id's type letters: "I1" -> "I", "HW2" -> "HW" (the charts' RG types)."""
    return rg_id.rstrip("0123456789")


def pf_text(halves: int) -> str:
    """PF kept in halves, as the PF Usage Track shows them: 15 -> "7½"."""
    return f"{halves // 2}{'½' if halves % 2 else ''}"


class PriceMode(Strict):
    """A way to buy an RG at another price (3.6175): percent of the printed cost, rounded."""

    percent: int = Field(gt=0)
    round: Literal["down", "up"]
    prefixes: list[str]  # RG ids it applies to, by letter (e.g. "I", "G")
    printed_price_rows: list[str] = []  # rows bought this way at the printed price (note g)
    needs_units_on_map: bool = False  # only while the side has a Setup Area on map (3.6175)

    def offers(self, row_id: str) -> bool:
        """True when an RG may be bought this way (by its letter, or by a chart note)."""
        return rg_letters(row_id) in self.prefixes or row_id in self.printed_price_rows

    def price(self, row_id: str, cost: int) -> int:
        """The price of a row bought this way."""
        if row_id in self.printed_price_rows:
            return cost
        scaled, rest = divmod(cost * self.percent, 100)
        return scaled + (1 if rest and self.round == "up" else 0)


class PriceOption(Strict):
    """A chart note's option bought with an RG (PBr a, e, r): its price and what it gives."""

    name: str
    note: str
    rows: list[str]
    price: int | None = Field(default=None, ge=0)  # the RG's price with it
    percent: int | None = Field(default=None, gt=0)  # or this percent of the cost, FRU
    effect: str

    def cost(self, printed: int) -> int:
        """The RG's price bought with this option."""
        if self.price is not None:
            return self.price
        scaled, rest = divmod(printed * (self.percent or 100), 100)
        return scaled + (1 if rest else 0)


class RGChart(Strict):
    """A side's Reinforcement Group chart."""

    rule: str
    rows: list[RGRow]
    max_per_kg: bool = False  # CG Date and CG maximums count per KG (ABtF German)
    limits: list[PurchaseLimit] = []
    modes: dict[str, PriceMode] = {}  # e.g. "reserve", "on_map"; "entry" is the printed cost
    options: list[PriceOption] = []
    pricing_rule: str = ""

    def row(self, rg: str) -> RGRow:
        """The chart line for an RG id, or a clear error."""
        for row in self.rows:
            if row.id == rg:
                return row
        raise InvalidCommand(f"RG {rg!r} is not on the RG chart", rule=self.rule, field="rg")


class Module(Strict):
    """A rules module: everything the ledger needs to know of ABtF, PBr, KGP, ..."""

    format: Literal["refit-module/1"] = "refit-module/1"
    id: str
    name: str
    chapter: str
    sides: list[str] = Field(min_length=2)
    cgs: dict[str, CGParams | None]
    calendar: list[CalendarDate] = Field(min_length=1)
    steps: list[Step]
    tables: list[Table] = []
    rg_charts: dict[str, RGChart] = {}
    rg_chart_rule: str = ""
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
    cpp_forgo: CPPForgo | None = None
    attack_needs_target: AttackNeedsTarget | None = None
    map_groups: dict[str, str] = {}  # KGP 8.2: id -> name
    lvp_rule: str = ""  # Current- and CG-LVP totals are kept (KGP 8.2, 8.6033)
    objectives: ObjectiveRule | None = None
    pf: PFRule | None = None
    fanaticism: FanaticismRule | None = None
    massacre_rule: str = ""  # KGP CG4: a Massacre's effects last the rest of the CG
    reserve: ReserveRule | None = None
    balance_rule: str = ""  # KGP 8.31: the Balance side's secret DR halved (FRD)
    entry_areas: list[EntryArea] = []
    notes: list[str] = []

    def eligible_entry_areas(self, side: str, cg_date: str) -> list[str]:
        """The Entry Areas Eligible to a side on a CG Date (KGP CG6c)."""
        today = self.date_index(cg_date)
        return [area.id for area in self.entry_areas
                if area.side == side and self.date_index(area.from_date) <= today]

    @model_validator(mode="after")
    def _names_are_consistent(self) -> Module:
        dates = [entry.date for entry in self.calendar]
        if len(set(dates)) != len(dates):
            raise ValueError(f"module {self.id}: a CG Date appears twice in the calendar")
        for side, chart in self.rg_charts.items():
            if side not in self.sides:
                raise ValueError(f"module {self.id}: RG chart for unknown side {side!r}")
            ids = [row.id for row in chart.rows]
            if len(set(ids)) != len(ids):
                raise ValueError(f"module {self.id}: an RG id appears twice on the {side} chart")
        for cg, params in self.cgs.items():
            if params is not None:
                self._check_params(cg, params, dates)
        self._check_extras(dates)
        tables = {table.id for table in self.tables}
        for side, sw_chart in self.sw_charts.items():
            if side not in self.sides:
                raise ValueError(f"module {self.id}: SW chart for unknown side {side!r}")
            for allotments in sw_chart.rows.values():
                for item in allotments:
                    if item.choose is not None and item.choose not in tables:
                        raise ValueError(f"SW chart: table {item.choose} is not supplied")
        rules = {step.rule for step in self.steps}
        if not set(self.on_leaving) <= rules:
            raise ValueError(f"module {self.id}: on_leaving names a step it does not have")
        for effects in self.on_leaving.values():
            for points in effects:
                if not set(points.dates or []) <= set(dates):
                    raise ValueError(f"module {self.id}: on_leaving names an unknown CG Date")
        for entry in self.initiative_matrix:
            if set(entry.chits) != set(self.sides):
                raise ValueError(f"module {self.id}: an Initiative Matrix line names "
                                 "other sides than the module's")
        for cg, chits in self.initial_chits.items():
            if cg not in self.cgs or set(chits) != set(self.sides):
                raise ValueError(f"module {self.id}: initial_chits for CG {cg} do not fit")
        if not set(self.sudden_death) <= set(self.sides):
            raise ValueError(f"module {self.id}: sudden_death names an unknown side")
        if self.idle_repeat is not None and self.idle_repeat not in rules:
            raise ValueError(f"module {self.id}: idle_repeat {self.idle_repeat} is not a step")
        for step in self.steps:
            if not set(step.requires) <= set(step.tables):
                raise ValueError(f"module {self.id}: step {step.rule} requires a table "
                                 "it does not name")
        for action, steps in self.command_steps.items():
            if not set(steps) <= rules:
                raise ValueError(f"module {self.id}: {action} names a step it does not have")
        for table in self.tables:
            self._check_table(table, dates)
            for drm in table.drm:
                if drm.side is not None and drm.side not in self.sides:
                    raise ValueError(f"table {table.id}: DRM side {drm.side!r} is not a side")
        return self

    def _check_params(self, cg: str, params: CGParams, dates: list[str]) -> None:
        for date in (params.start, params.end):
            if date not in dates:
                raise ValueError(f"module {self.id}: CG {cg} date {date!r} is not a CG Date")
        if dates.index(params.start) > dates.index(params.end):
            raise ValueError(f"module {self.id}: CG {cg} ends before it starts")
        named = [*params.attack_chits, *params.idle_chits, *params.elr, *params.san]
        if not set(named) <= set(self.sides):
            raise ValueError(f"module {self.id}: CG {cg} parameters name an unknown side")
        if not set(params.levels) <= set(self.levels):
            raise ValueError(f"module {self.id}: CG {cg} sets a level the module lacks")
        for name, value in params.levels.items():
            spec = self.levels[name]
            if not spec.minimum <= value <= spec.maximum:
                raise ValueError(f"module {self.id}: CG {cg} {name} {value} is out of range")

    def _check_extras(self, dates: list[str]) -> None:
        rules = {step.rule for step in self.steps}
        schedule = self.reinforcements
        if schedule is not None:
            if schedule.step not in rules:
                raise ValueError(f"module {self.id}: reinforcements step is not a step")
            for line in schedule.schedule:
                if line.cg_date not in dates or line.side not in self.sides:
                    raise ValueError(f"module {self.id}: a {schedule.rule} line names an "
                                     f"unknown CG Date or side ({line.cg_date}, {line.side})")
                if line.rg is not None and not line.group_type:
                    raise ValueError(f"module {self.id}: {schedule.rule} {line.rg} needs "
                                     "its group_type")
        for extra in (self.walking_wounded, self.san_floor):
            if extra is not None and extra.step not in rules:
                raise ValueError(f"module {self.id}: {extra.rule} names step {extra.step}, "
                                 "which the module does not have")
        for side, chart in self.rg_charts.items():
            ids = {row.id for row in chart.rows}
            for limit in chart.limits:
                named = {*limit.rows, *limit.requires, *limit.per}
                if not named <= ids or not {limit.from_date, limit.until} - {None} <= set(dates):
                    raise ValueError(f"module {self.id}: {side} note {limit.note} names an RG "
                                     "or CG Date the module does not have")
        groups = set(self.coordination.groups) if self.coordination else set()
        for chart in self.rg_charts.values():
            for row in chart.rows:
                if not set(row.kgs or []) <= groups:
                    raise ValueError(f"module {self.id}: RG {row.id} names a KG the module "
                                     f"does not have ({row.kgs})")
        forgo, needs = self.cpp_forgo, self.attack_needs_target
        if forgo is not None and (forgo.cg not in self.cgs or forgo.cg_date not in dates):
            raise ValueError(f"module {self.id}: {forgo.rule} names an unknown CG or date")
        sides = [x.side for x in (self.walking_wounded, self.coordination, forgo, needs)
                 if x is not None] + ([needs.enemy] if needs else [])
        if not set(sides) <= set(self.sides):
            raise ValueError(f"module {self.id}: CG19/CG22 data names an unknown side")

    def _check_table(self, table: Table, dates: list[str]) -> None:
        follows = table.follows
        if follows is not None:
            first = next((t for t in self.tables if t.id == follows.table), None)
            if first is None or not set(follows.results) <= {b.result for b in first.bands}:
                raise ValueError(f"table {table.id}: follows a table or result the module "
                                 f"does not have ({follows.table}: {follows.results})")
        if table.from_date is not None and table.from_date not in dates:
            raise ValueError(f"table {table.id}: from_date {table.from_date!r} is no CG Date")
        for side in [*(table.sides or []), *(table.min_san or {})]:
            if side not in self.sides:
                raise ValueError(f"table {table.id}: {side!r} is not a side")
        for band in table.bands:
            for effect in band.effects:
                level = effect.target.removeprefix("level:")
                if effect.target.startswith("level:") and level not in self.levels:
                    raise ValueError(f"table {table.id}: no level {level!r} to change")

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
        raise InvalidCommand(f"module {self.id} has no table {table_id!r}", field="table")

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


class ModulePatch(Strict):
    """An owner's file that adds or overrides tables, RG charts and CG parameters."""

    format: Literal["refit-module-patch/1"] = "refit-module-patch/1"
    module: str
    tables: list[Table] = []
    rg_charts: dict[str, RGChart] = {}
    cgs: dict[str, CGParams] = {}
    steps: list[Step] = []
    entry_areas: list[EntryArea] = []

    def apply_to(self, module: Module) -> Module:
        """The module with this patch's tables, charts and CGs added or replaced."""
        tables = {t.id: t for t in module.tables} | {t.id: t for t in self.tables}
        merged = module.model_copy(
            update={
                "tables": list(tables.values()),
                "rg_charts": module.rg_charts | self.rg_charts,
                "cgs": module.cgs | self.cgs,
                "steps": self.steps or module.steps,
                "entry_areas": self.entry_areas or module.entry_areas,
            }
        )
        return Module.model_validate(merged.model_dump())
