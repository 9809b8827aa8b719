"""The CG Date calendar, the RePh steps in order and each CG's parameters."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from domain.rules.base import Strict


class CalendarDate(Strict):
    """One CG Date with what the module's charts say of it."""

    date: str
    night: bool = False
    exhaustion_drm: int | None = None
    cpp_base: dict[str, int] | None = None
    doubt: str | None = None


def step_named(step: str) -> str:
    """A point's step as ASL names it: a RePh step by its rule, or the CG Scenario (a
    point "14AM/scenario" is after the CG Scenario)."""
    return "the CG Scenario" if step == "scenario" else f"step {step}"


class StepTable(Strict):
    """Where a step offers a table more narrowly than the table's own conditions say: on a
    Night CG Date only, by some sides only (e.g. PBr 3.61426: Isolated British tanks
    attempt Escape in 3.614 on a Night CG Date)."""

    rule: str
    night: bool = False
    sides: list[str] | None = None


class Step(Strict):
    """One RePh step in the module's order."""

    rule: str
    title: str
    initial: bool = False
    scenario_end: bool = False
    new_cg_date: bool = False
    tables: list[str] = []
    only: dict[str, StepTable] = {}  # table id -> when this step offers it
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


class OBGroup(Strict):
    """An RG the Initial Scenario's OB gives a side (e.g. PBr 3.6179): a public line of the
    RG Purchase Record that counts toward no maximum (3.6176-.6177)."""

    side: str
    rg: str
    count: int = Field(default=1, ge=1, le=20)  # "I2 x2" is two lines
    kg: str | None = None
    group_type: str | None = None  # when the side's RG chart is not supplied
    setup: str | None = None  # the Setup Area or entry the OB prints for it
    on_map: bool | None = None  # sets up on the map (True) or enters (False)
    paradrop: bool = False  # enters by Paratroop Landing: no strength DR (PBr 3.6181 EXC)
    strength: Literal["F", "D"] | None = None  # when the OB fixes it
    rule: str | None = None  # where the OB is printed, if not the CG's own rule
    doubt: str | None = None


class CGParams(Strict):
    """A CG's parameters (e.g. PBr 3.51-3.53, ABtF 9.51-9.53): first and last CG Date, each
    side's ELR, SAN, CPP and FPP at CG start, the Initial Scenario OB's RGs, chit limits
    (3.6211, 9.62131), levels set by its SSR (e.g. the CG17 starting Ammunition Shortage)."""

    rule: str | None = None  # where the CG is printed, e.g. "3.52"
    start: str
    end: str
    attack_chits: dict[str, int] = {}
    idle_chits: dict[str, int] = {}
    levels: dict[str, int] = {}
    elr: dict[str, int] = {}  # each side's ELR and SAN at CG start
    san: dict[str, int] = {}
    cpp: dict[str, int] = {}  # each side's CPP and FPP to spend for the Initial Scenario
    fpp: dict[str, int] = {}
    ob: list[OBGroup] = []
    notes: list[str] = []
    doubts: dict[str, str] = {}  # parameter -> what the printed text leaves in doubt
