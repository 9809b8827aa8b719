"""The KGP module: the generic Module with KGP's own data and the hooks of its
bookkeeping (LVP totals at scenario end, an Objective Hex revealed by Infantry Control)."""

from __future__ import annotations

from typing import Any, ClassVar

from domain.modules.kgp import bookkeeping
from domain.modules.kgp.rules import FanaticismRule, ObjectiveRule, PFRule
from domain.rules import Module


class KGPModule(Module):
    """Kampfgruppe Peiper (Chapter P, 8.x)."""

    map_groups: dict[str, str] = {}  # KGP 8.2: id -> name
    lvp_rule: str = ""  # Current- and CG-LVP totals are kept (KGP 8.2, 8.6033)
    objectives: ObjectiveRule | None = None
    pf: PFRule | None = None
    fanaticism: FanaticismRule | None = None
    massacre_rule: str = ""  # KGP CG4: a Massacre's effects last the rest of the CG
    # Entry Areas' Holding Boxes (8.15): the rules' own, not data (no owner's file moves it)
    holding_rule: ClassVar[str] = "8.15"

    def check_control(self, command: Any) -> None:
        """An LVP Location's LVP and Map Group (8.2)."""
        if (command.lvp or command.map_group) and not self.lvp_rule:
            super().check_control(command)
        bookkeeping.check_lvp(self.map_groups, self.lvp_rule, command)

    def control_changed(self, campaign: Any, side: str | None, where: str, infantry: bool,
                        actor: str) -> None:
        """Infantry Control reveals the side's Objective Hex there (8.2)."""
        if infantry and side is not None:
            bookkeeping.reveal_objective(campaign, side, where, actor)

    def scenario_ended(self, campaign: Any, actor: str) -> None:
        """The Current- and CG-LVP Totals (8.2, 8.6033)."""
        if self.lvp_rule:
            bookkeeping.total_lvp(campaign, self.lvp_rule, actor)
