"""The director's PBr 3.607 forms on the guide page: a withdrawal the rules order (3.6074:
`withdraw_units`, in the step the module puts it in) and whether a side has on-map
Retained units (3.6212 *: `record_on_map`), from the role's own reads."""

from __future__ import annotations

from typing import Any, get_args

from api.web.actions import WITHDRAWAL_ROWS
from domain import commands as cmd
from domain.rules import Module
from projections import read


def withdrawal_parts(rules: Module, status: read.CampaignStatus,
                     director: bool) -> dict[str, Any] | None:
    """What the director's 3.607 forms offer now (None: nothing, or not the director)."""
    steps = rules.command_steps.get("withdraw_units", [])
    needs = rules.attack_needs_target
    if not director or (not steps and needs is None) or status.phase == "ended":
        return None
    limited, orders = rules.unit_limits.withdrawal, rules.unit_limits.withdrawal_orders
    return {
        # the card, in the step, where a rule orders the side's withdrawal on the CG Date
        "open": {side: status.phase == "reph" and status.step in steps and any(
            status.cg_date in o.after for o in orders if o.side == side)
            for side in status.sides}, "step": status.step,
        # the rules that order a side's withdrawal (3.60741, 3.60742), and those that let
        # it keep units off map (3.60742's limits)
        "rules": {side: [o.rule for o in orders if o.side == side] for side in status.sides},
        "kept": {side: [w.rule for w in limited if w.side == side] for side in status.sides},
        "kinds": list(get_args(cmd.UnitKind)), "rows": range(WITHDRAWAL_ROWS),
        "on_map_rule": needs.rule if needs else None, "off_map": status.off_map,
    }
