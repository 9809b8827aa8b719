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
    RGEffect,
    RGRow,
    SWAllotment,
    SWChart,
    rg_letters,
)
from domain.rules.drm_specs import Condition, Count, DeriveDRM, DRMSpec, Qualifies
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
    SANAnnouncement,
    SANFloor,
    ScheduledReinforcement,
    WalkingWounded,
)
from domain.rules.tables import (
    Band,
    Effect,
    FollowUp,
    GameEnd,
    LossPoints,
    Table,
    Target,
)

__all__ = [
    "AttackNeedsTarget", "Band", "CGParams", "CPPForgo", "CalendarDate", "Condition",
    "Coordination", "Count", "DRMSpec", "DeriveDRM", "Effect", "EntryArea", "FollowUp",
    "FortificationChart", "FortificationRow", "GameEnd", "LevelPenalty", "LevelSpec", "LossPoints",
    "MatrixEntry", "Module", "ModulePatch", "OBGroup", "PointsEffect", "PriceMode",
    "PriceOption", "PurchaseLimit", "Qualifies", "RGChart", "RGEffect", "RGRow",
    "ReinforcementSchedule", "ReserveRule", "SANAnnouncement", "SANFloor", "SWAllotment",
    "SWChart", "ScheduledReinforcement", "Step", "Strict", "Table", "Target",
    "WalkingWounded", "rg_letters",
]
