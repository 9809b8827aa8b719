"""What a KGP campaign's page shows beside the guide (8.2, 8.15, CG4, CG13, CG14): each
side's own Objective Hexes and Holding Box entries with their forms, the PF on the PF Usage
Track, Fanaticism and a Massacre. It reads only what the role's JSON reads carry."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain.rules import Module, rg_letters
from infra.queries import Queries
from projections import read

PF_REASONS = [("setup", "squads set up on map (initial PF)"),
              ("released", "squads released from Reserve"),
              ("entered", "squads entering"), ("used", "PF used")]


def kgp_parts(reads: Queries, ident: UUID, status: read.CampaignStatus, rules: Module,
              mine: list[str], viewer: str | None,
              record: list[read.PurchaseRow]) -> dict[str, Any] | None:
    """The KGP parts of the page for the viewer's sides (None: the module is not KGP's)."""
    objectives = getattr(rules, "objectives", None)
    if objectives is None:
        return None
    pf, fanaticism = getattr(rules, "pf", None), getattr(rules, "fanaticism", None)
    seen = reads.objectives(ident, None, viewer)  # the viewer's own, and those revealed
    own = [row for row in seen if row.side in mine]
    held = reads.holding(ident, None, viewer)
    return {
        "objective_rule": objectives.rule,
        "objectives": {side: [row for row in own if row.side == side] for side in mine},
        # 8.2: a revealed Objective Hex "must immediately be revealed to the opponent"
        "revealed": {side: [row for row in seen if row.side == side and row.revealed]
                     for side in status.sides if side not in mine},
        "designable": {side: _designable(record, own, side, objectives.prefixes)
                       for side in mine},
        "holding": {side: [row for row in held if row.side == side] for side in mine},
        "entry_areas": status.entry_areas,
        "pf": None if pf is None else {"side": pf.side, "rule": pf.rule,
                                       "now": status.pf.get(pf.side, "0"),
                                       "reasons": PF_REASONS},
        "fanaticism": None if fanaticism is None else {
            "side": fanaticism.side, "rule": fanaticism.rule,
            "allowed": fanaticism.per_cg.get(status.cg, 0), "declared": status.fanaticism},
        "massacre": status.massacre, "massacre_rule": getattr(rules, "massacre_rule", ""),
        "in_play": status.phase == "scenario",
    }


def _designable(record: list[read.PurchaseRow], own: list[read.ObjectiveRow], side: str,
                prefixes: list[str]) -> list[read.PurchaseRow]:
    """The side's "I"/"HW" RG lines with no Objective Hex yet (8.6198), as it reads them."""
    taken = {row.purchase for row in own}
    return [row for row in record if row.side == side and not row.hidden and row.rg
            and rg_letters(row.rg) in prefixes and row.purchase not in taken
            and not row.removed]
