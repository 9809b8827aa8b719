"""A module's data checked as a whole: every name it uses (side, CG Date, step, table,
level, RG, KG) is one it has. Each check raises ValueError, which pydantic reports."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from domain.rules.calendar import CGParams
    from domain.rules.module import Module
    from domain.rules.tables import Table


def check_module(module: Module) -> None:
    """Every cross-reference of the module resolves (raised in this order)."""
    dates = [entry.date for entry in module.calendar]
    if len(set(dates)) != len(dates):
        raise ValueError(f"module {module.id}: a CG Date appears twice in the calendar")
    _check_rg_charts(module)
    for cg, params in module.cgs.items():
        if params is not None:
            _check_params(module, cg, params, dates)
    _check_schedules(module, dates)
    _check_chart_names(module, dates)
    _check_sw_charts(module)
    _check_steps(module, dates)
    _check_initiative(module)
    for table in module.tables:
        _check_table(module, table, dates)
    _check_drm_ids(module)
    _check_leader_marks(module)
    for order in module.unit_limits.withdrawal_orders:
        if order.side not in module.sides or not set(order.after) <= set(dates):
            raise ValueError(f"module {module.id}: withdrawal order {order.rule} names a side "
                             "or a CG Date the module does not have")


def _check_rg_charts(module: Module) -> None:
    for side, chart in module.rg_charts.items():
        if side not in module.sides:
            raise ValueError(f"module {module.id}: RG chart for unknown side {side!r}")
        ids = [row.id for row in chart.rows]
        if len(set(ids)) != len(ids):
            raise ValueError(f"module {module.id}: an RG id appears twice on the {side} chart")


def _check_params(module: Module, cg: str, params: CGParams, dates: list[str]) -> None:
    for date in (params.start, params.end):
        if date not in dates:
            raise ValueError(f"module {module.id}: CG {cg} date {date!r} is not a CG Date")
    if dates.index(params.start) > dates.index(params.end):
        raise ValueError(f"module {module.id}: CG {cg} ends before it starts")
    named = [*params.attack_chits, *params.idle_chits, *params.elr, *params.san,
             *params.cpp, *params.fpp, *(group.side for group in params.ob)]
    if not set(named) <= set(module.sides):
        raise ValueError(f"module {module.id}: CG {cg} parameters name an unknown side")
    for group in params.ob:
        chart = module.rg_charts.get(group.side)
        if chart is not None and group.rg not in {row.id for row in chart.rows}:
            raise ValueError(f"module {module.id}: CG {cg} OB gives {group.rg}, not on the "
                             f"{group.side} RG chart")
        if chart is None and group.group_type is None:
            raise ValueError(f"module {module.id}: CG {cg} OB gives {group.rg} without a "
                             f"{group.side} RG chart: give its group_type")
    if not set(params.levels) <= set(module.levels):
        raise ValueError(f"module {module.id}: CG {cg} sets a level the module lacks")
    for name, value in params.levels.items():
        spec = module.levels[name]
        if not spec.minimum <= value <= spec.maximum:
            raise ValueError(f"module {module.id}: CG {cg} {name} {value} is out of range")


def _check_schedules(module: Module, dates: list[str]) -> None:
    """The procedures applied from data (9.6152, CG19, 9.6122) name steps, dates, sides."""
    rules = {step.rule for step in module.steps}
    schedule = module.reinforcements
    if schedule is not None:
        if schedule.step not in rules:
            raise ValueError(f"module {module.id}: reinforcements step is not a step")
        for line in schedule.schedule:
            if line.cg_date not in dates or line.side not in module.sides:
                raise ValueError(f"module {module.id}: a {schedule.rule} line names an "
                                 f"unknown CG Date or side ({line.cg_date}, {line.side})")
            if line.rg is not None and not line.group_type:
                raise ValueError(f"module {module.id}: {schedule.rule} {line.rg} needs "
                                 "its group_type")
    for extra in (module.walking_wounded, module.san_floor, module.san_announced):
        if extra is not None and extra.step not in rules:
            raise ValueError(f"module {module.id}: {extra.rule} names step {extra.step}, "
                             "which the module does not have")


def _check_chart_names(module: Module, dates: list[str]) -> None:
    """Chart notes, KGs and the CG19/CG22/3.616 data name what the module has."""
    for side, chart in module.rg_charts.items():
        ids = {row.id for row in chart.rows}
        for limit in chart.limits:
            named = {*limit.rows, *limit.requires, *limit.per}
            if not named <= ids or not {limit.from_date, limit.until} - {None} <= set(dates):
                raise ValueError(f"module {module.id}: {side} note {limit.note} names an RG "
                                 "or CG Date the module does not have")
    groups = set(module.coordination.groups) if module.coordination else set()
    for chart in module.rg_charts.values():
        for row in chart.rows:
            if not set(row.kgs or []) <= groups:
                raise ValueError(f"module {module.id}: RG {row.id} names a KG the module "
                                 f"does not have ({row.kgs})")
    forgo, needs = module.cpp_forgo, module.attack_needs_target
    if forgo is not None and (forgo.cg not in module.cgs or forgo.cg_date not in dates):
        raise ValueError(f"module {module.id}: {forgo.rule} names an unknown CG or date")
    sides = [x.side for x in (module.walking_wounded, module.coordination, forgo, needs)
             if x is not None] + ([needs.enemy] if needs else [])
    if not set(sides) <= set(module.sides):
        raise ValueError(f"module {module.id}: CG19/CG22 data names an unknown side")


def _check_sw_charts(module: Module) -> None:
    tables = {table.id for table in module.tables}
    for side, sw_chart in module.sw_charts.items():
        if side not in module.sides:
            raise ValueError(f"module {module.id}: SW chart for unknown side {side!r}")
        for allotments in sw_chart.rows.values():
            for item in allotments:
                if item.choose is not None and item.choose not in tables:
                    raise ValueError(f"SW chart: table {item.choose} is not supplied")


def _check_steps(module: Module, dates: list[str]) -> None:
    """What the RePh steps carry: points effects, the Idle repeat, required tables."""
    rules = {step.rule for step in module.steps}
    if not set(module.on_leaving) <= rules:
        raise ValueError(f"module {module.id}: on_leaving names a step it does not have")
    for effects in module.on_leaving.values():
        for points in effects:
            if not set(points.dates or []) <= set(dates):
                raise ValueError(f"module {module.id}: on_leaving names an unknown CG Date")
    if module.idle_repeat is not None and module.idle_repeat not in rules:
        raise ValueError(f"module {module.id}: idle_repeat {module.idle_repeat} is not a step")
    for step in module.steps:
        if not set(step.requires) <= set(step.tables):
            raise ValueError(f"module {module.id}: step {step.rule} requires a table "
                             "it does not name")
        if not set(step.only) <= set(step.tables) or any(
                not set(only.sides or []) <= set(module.sides) for only in step.only.values()):
            raise ValueError(f"module {module.id}: step {step.rule}'s `only` names a table "
                             "it does not offer, or a side the module has not")
    for action, steps in module.command_steps.items():
        if not set(steps) <= rules:
            raise ValueError(f"module {module.id}: {action} names a step it does not have")


def _check_initiative(module: Module) -> None:
    for entry in module.initiative_matrix:
        if set(entry.chits) != set(module.sides) or \
                not set(entry.order.values()) <= set(module.sides):
            raise ValueError(f"module {module.id}: an Initiative Matrix line names "
                             "other sides than the module's")
    for cg, chits in module.initial_chits.items():
        if cg not in module.cgs or set(chits) != set(module.sides):
            raise ValueError(f"module {module.id}: initial_chits for CG {cg} do not fit")
    if not set(module.sudden_death) <= set(module.sides):
        raise ValueError(f"module {module.id}: sudden_death names an unknown side")


def _check_table(module: Module, table: Table, dates: list[str]) -> None:
    follows = table.follows
    for caller, results in (follows.callers() if follows is not None else {}).items():
        first = next((t for t in module.tables if t.id == caller), None)
        if first is None or not set(results) <= {b.result for b in first.bands}:
            raise ValueError(f"table {table.id}: follows a table or result the module "
                             f"does not have ({caller}: {results})")
    if not set(table.one_of) <= {t.id for t in module.tables} - {table.id}:
        raise ValueError(f"table {table.id}: one_of names a table the module does not have")
    if table.from_date is not None and table.from_date not in dates:
        raise ValueError(f"table {table.id}: from_date {table.from_date!r} is no CG Date")
    if table.game_end is not None and table.game_end.by not in [*module.sides, "ATTACKER"]:
        raise ValueError(f"table {table.id}: Game End dr by {table.game_end.by!r}, neither "
                         "a side nor the ATTACKER")
    ordered = [side for band in table.bands for side in band.order.values()]
    for side in [*(table.sides or []), *(table.min_san or {}), *ordered]:
        if side not in module.sides:
            raise ValueError(f"table {table.id}: {side!r} is not a side")
    for band in table.bands:
        for effect in band.effects:
            level = effect.target.removeprefix("level:")
            if effect.target.startswith("level:") and level not in module.levels:
                raise ValueError(f"table {table.id}: no level {level!r} to change")
    for drm in table.drm:
        if not set(drm.qualifies.sides or []) <= set(module.sides):
            raise ValueError(f"table {table.id}: DRM {drm.id} names a side the module "
                             f"does not have ({drm.qualifies.sides})")
        if drm.level is not None and drm.level not in module.levels:
            raise ValueError(f"table {table.id}: DRM {drm.id} counts a level the module "
                             f"does not have ({drm.level})")


def _check_drm_ids(module: Module) -> None:
    """A DRM id names one DRM of the module: a claim by id cannot mean two things."""
    seen: dict[str, str] = {}
    for table in module.tables:
        for drm in table.drm:
            if drm.id in seen:
                raise ValueError(f"module {module.id}: DRM id {drm.id!r} is listed by "
                                 f"table {seen[drm.id]} and table {table.id}")
            seen[drm.id] = table.id


def _check_leader_marks(module: Module) -> None:
    """An RG chart row marked for a Leader Table names one the module has, that its side
    rolls and that is rolled for marked RGs (9.6183)."""
    tables = {table.id: table for table in module.tables}
    for side, chart in module.rg_charts.items():
        for row in chart.rows:
            table = tables.get(row.leader_table or "")
            if row.leader_table is None:
                continue
            if table is None or not table.for_marked_rgs or \
                    (table.sides is not None and side not in table.sides):
                raise ValueError(f"module {module.id}: {side} RG {row.id} names Leader "
                                 f"Table {row.leader_table}, not one the {side} rolls for "
                                 "an indicated RG")
