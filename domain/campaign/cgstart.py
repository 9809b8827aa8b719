"""A CG's start (PBr 3.5-3.53, ABtF 9.5-9.53, KGP 8.5-8.53): the CG Date, ratings, levels
and points its parameters give, and the Initial Scenario OB's RGs on the RG Purchase Record.

A CG whose parameters nobody has supplied still starts (on the calendar's first CG Date, no
ELR, SAN, CPP or OB): a roll that then moves an ELR or SAN nobody gave is refused (points.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain.campaign.purchases import RGReceived
from domain.errors import InvalidCommand
from domain.rules import CGParams, Module, OBGroup, RGRow

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


def opening(module: Module, cg: str, start_date: str | None) -> dict[str, Any]:
    """The Created fields a CG's parameters set: where it starts, each side's ELR, SAN and
    levels, and (on the CG's own start date, the Initial Scenario) its CPP and FPP."""
    params = module.cgs[cg]
    if start_date is not None and all(entry.date != start_date for entry in module.calendar):
        raise InvalidCommand(f"{start_date!r} is not a CG Date of {module.id}", field="start")
    cg_date = start_date or (params.start if params else module.calendar[0].date)
    module.date(cg_date)
    initial = [s.rule for s in module.steps if s.initial]
    fields: dict[str, Any] = {
        "cg_date": cg_date, "phase": "setup" if initial else "scenario",
        "step": initial[0] if initial else None,
        "initial_chits": module.initial_chits.get(cg),
    }
    if params is None:
        return fields
    initial_scenario = cg_date == params.start
    return fields | {
        "levels": dict(params.levels) or None, "elr": dict(params.elr) or None,
        "san": dict(params.san) or None,
        "cpp": dict(params.cpp) or None if initial_scenario else None,
        "fpp": dict(params.fpp) or None if initial_scenario else None,
    }


def begin(campaign: Campaign, actor: str) -> None:
    """Fill in a line of the RG Purchase Record for each RG the Initial Scenario OB gives
    (PBr 3.6179): public, as the OB is, and never counted in #P (3.6176-.6177). Only a
    campaign started on its CG's first CG Date is preparing for the Initial Scenario."""
    params = campaign.rules.cgs[campaign.cg]
    if params is None or campaign.reph.cg_date != params.start:
        return
    for group in params.ob:
        for _ in range(group.count):
            campaign._record(RGReceived, actor, **_ob_line(campaign, params, group))


def _ob_line(campaign: Campaign, params: CGParams, group: OBGroup) -> dict[str, Any]:
    """The RGReceived fields of one OB-given RG."""
    module = campaign.rules
    row = module.chart_row(group.side, group.rg)
    rule = group.rule or params.rule or module.cg_rule or None
    return {"purchase": len(campaign.purchases.lines) + 1, "side": group.side,
            "rg": group.rg, "kg": group.kg,
            "group_type": row.group_type if row else group.group_type or group.rg,
            "reason": f"CG {campaign.cg} Initial Scenario OB", "rule": rule,
            "cg_date": campaign.reph.cg_date, "setup_area": group.setup,
            "on_map": group.on_map, "paradrop": group.paradrop, "strength": group.strength,
            "units": _units(row, "F" if group.paradrop else group.strength)}


def _units(row: RGRow | None, strength: str | None) -> str | None:
    """The units an OB-given RG brings when its strength is known without a DR: Full by
    Para drop (3.6181 EXC), or as the OB fixes it."""
    if row is None or strength is None:
        return None
    return (row.units_full if strength == "F" else row.units_depleted) or None
