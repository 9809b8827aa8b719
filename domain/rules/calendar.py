"""The CG Date calendar, the RePh steps in order and each CG's parameters."""

from __future__ import annotations

from typing import Literal

from domain.rules.base import Strict


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
