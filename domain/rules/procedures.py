"""Procedures the ledger applies by itself from module data: tracked levels, the
Initiative Matrix, OB-given reinforcements, CG22 coordination, the CG19 Walking Wounded
box, a SAN floor, CPP forgone, Entry Areas, Reserve RG."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from domain.rules.base import Strict


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


class MatrixEntry(Strict):
    """A line of an Initiative Matrix (e.g. 9.62132): the chits and the CG Date they make."""

    chits: dict[str, Literal["attack", "idle"]]
    scenario_type: str
    night_type: str | None = None  # e.g. PBr's Night Dual Attack (3.6213b)
    # An Assault's set-up and move order, given without a dr (3.6213c/d, 9.62133b/c)
    order: dict[Literal["sets_up_first", "moves_first"], str] = {}
    order_rule: str | None = None


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


class SANAnnouncement(Strict):
    """Each side announces its SAN as the RePh enters `step` (PBr 3.623): a SAN a secret
    purchase changed (M1) is open from then on."""

    step: str
    rule: str
    doubt: str | None = None


class EntryArea(Strict):
    """A map Entry Area: Eligible to `side` from `from_date` on (KGP CG6c; printed on the
    map, so owner data)."""

    id: str
    side: str
    from_date: str
    map_group: str | None = None


class ReserveRule(Strict):
    """KGP CG7a: a side's RG of these letters bought on the scenario's CG Date set up in
    Reserve (unless bought for on-map setup)."""

    side: str
    prefixes: list[str]
    rule: str
