"""Rules modules as data (pydantic models): tables, calendar and steps, charts, the
procedures applied from data, and the Module that holds them."""

from domain.rules.base import Strict
from domain.rules.calendar import CalendarDate, CGParams, OBGroup, PointsEffect, Step
from domain.rules.charts import (
    FortificationChart,
    FortificationRow,
    PriceMode,
    PriceOption,
    PurchaseLimit,
    RGChart,
    RGRow,
    SWAllotment,
    SWChart,
    rg_letters,
)
from domain.rules.module import Module, ModulePatch
from domain.rules.procedures import (
    AttackNeedsTarget,
    Coordination,
    CPPForgo,
    EntryArea,
    LevelPenalty,
    LevelSpec,
    MatrixEntry,
    ReinforcementSchedule,
    ReserveRule,
    SANFloor,
    ScheduledReinforcement,
    WalkingWounded,
)
from domain.rules.tables import (
    AutoDRM,
    Band,
    Condition,
    DRMSpec,
    Effect,
    FollowUp,
    LossPoints,
    Table,
    Target,
)

__all__ = [
    "AttackNeedsTarget", "AutoDRM", "Band", "CGParams", "CPPForgo", "CalendarDate",
    "Condition", "Coordination", "DRMSpec", "Effect", "EntryArea", "FollowUp",
    "FortificationChart", "FortificationRow", "LevelPenalty", "LevelSpec", "LossPoints",
    "MatrixEntry", "Module", "ModulePatch", "OBGroup", "PointsEffect", "PriceMode", "PriceOption",
    "PurchaseLimit", "RGChart", "RGRow", "ReinforcementSchedule", "ReserveRule", "SANFloor",
    "SWAllotment", "SWChart", "ScheduledReinforcement", "Step", "Strict", "Table", "Target",
    "WalkingWounded", "rg_letters",
]
