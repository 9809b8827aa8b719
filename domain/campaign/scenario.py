"""The CG Scenarios: casualties and their CVP (A26.2), who controls each Location (with
its LVP where the module keeps them), the scenario's weather, EC and wind (9.6216), the
Walking Wounded box (CG19), Recon (3.620) and units withdrawn or off map."""

from __future__ import annotations

import unicodedata
from typing import Any

from domain.campaign.events import CampaignEvent
from domain.campaign.part import Part
from domain.errors import InvalidCommand, RuleViolation
from domain.rules import LossPoints

CONDITIONS = ("weather", "ec", "wind")


def spellings(module: Any, condition: str) -> list[str]:
    """The module's own words for a condition: its tables' results (9.62161 "Overcast")
    and the values its DRM read ("Wet", "Moist"), in the order the module gives them."""
    found = [band.result for table in module.tables if table.determines == condition
             for band in table.bands]
    found += [value for table in module.tables for spec in table.drm
              if spec.condition == condition for value in spec.values]
    return list(dict.fromkeys(found))


def as_the_module_spells(module: Any, condition: str, value: str | None) -> str | None:
    """A condition recorded by the director, in the module's spelling where it is one of
    its words typed in another case or spacing ("clear  & gusty"): the DRM that read it
    match its words exactly, and would miss it unsaid. Another word (an SSR's) stays."""
    if value is None:
        return None
    return next((word for word in spellings(module, condition)
                 if place_key(word) == place_key(value)), value)


def place_key(name: str) -> str:
    """A name (a Location's, a condition's) as a reader reads it: case, spacing and
    look-alike forms aside."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


class Scenario(Part):
    """The scenario in play or just played, its casualties, conditions and control."""

    name = "scenario"
    # The last Game Turn (and Player Turn) ended in the scenario of `turn_date` (CG4,
    # CG23): class defaults, so a snapshot stored before they were kept reads as none.
    turn_date: str | None = None
    turn = 0
    player_turn = 0
    # The number circled in Game Turn `circled_turn`'s box, as the director gave it where
    # the module data lacks it (CG4, CG23), in the scenario of `turn_date`.
    circled: int | None = None
    circled_turn = 0

    def __init__(self, sides: list[str], cg_date: str, phase: str) -> None:
        # With no steps before it, the Initial Scenario is in play from the start.
        self.played: str | None = cg_date if phase == "scenario" else None  # its CG Date
        self.last_scenario_cvp: dict[str, int] = dict.fromkeys(sides, 0)  # lost, per side
        self.ww_box = 0  # CG19: half-squad equivalents in the Walking Wounded box
        self.control: dict[str, str | None] = {}  # Location -> the side controlling it
        self.lvp: dict[str, int] = {}  # LVP Location -> its LVP (KGP 8.2)
        self.lvp_group: dict[str, str | None] = {}  # LVP Location -> its Map Group
        self.conditions: dict[str, str] = {}  # weather, EC, wind of this CG Date's scenario
        self.previous_conditions: dict[str, str] = {}  # ... and of the last one played
        self.previous_date: str | None = None  # the CG Date of the last one ended
        self.off_map: dict[str, bool] = dict.fromkeys(sides, False)  # no on-map units

    def inflicted(self, side: str) -> int:
        """CVP the side inflicted in the last CG Scenario (and its RePh)."""
        return sum(cvp for other, cvp in self.last_scenario_cvp.items() if other != side)

    def lost_heavily(self, side: str, rule: LossPoints) -> bool:
        """3.6162: the side lost >= ratio times, and >= margin more, CVP than the other."""
        lost = self.last_scenario_cvp[side]
        other = self.inflicted(side)
        return self.played is not None and lost >= rule.ratio * other and \
            lost >= other + rule.margin

    def check_previous(self) -> str:
        """The CG Date of the CG Scenario last played, once it has ended (its notes)."""
        if self.previous_date is None:
            raise RuleViolation("no CG Scenario has ended yet: record this CG Date's notes",
                                field="previous")
        return self.previous_date

    def check_casualty(self) -> str:
        """Casualties count per scenario: the one in play or just played (9.12)."""
        if self.played is None:
            raise RuleViolation("no CG Scenario has started yet: casualties count per scenario")
        return self.played

    def check_on_map(self, side: str, on_map: bool) -> None:
        """An on-map note changes what is recorded."""
        if self.off_map[side] == (not on_map):
            raise InvalidCommand(f"that is already recorded for the {side}", field="on_map")

    def control_change(self, where: str, side: str | None,
                       lvp: int | None, map_group: str | None) -> dict[str, Any]:
        """The ControlChanged fields: an LVP Location keeps its LVP and Map Group unless
        the command gives new ones."""
        value = lvp if lvp is not None else self.lvp.get(where, 0)
        group = map_group or self.lvp_group.get(where)
        previous = self.control.get(where)
        if where in self.control and previous == side and value == self.lvp.get(where, 0):
            raise InvalidCommand(f"{where} is already controlled by {side}", field="side")
        return {"location": where, "side": side, "previous": previous, "lvp": value,
                "map_group": group if value else None}


class CasualtyRecorded(CampaignEvent):
    """A unit lost by `side` in `scenario` (or its RePh): CVP to the other side."""

    side: str
    unit: str
    cvp: int
    scenario: str
    ww_half_squads: int = 0  # put in the CG19 Walking Wounded box

    def apply(self, campaign: Any) -> None:
        campaign.scenario.last_scenario_cvp[self.side] += self.cvp
        campaign.scenario.ww_box += self.ww_half_squads


class ControlChanged(CampaignEvent):
    """A Location (Block, Strategic Location, ...) changed hands."""

    location: str
    kind: str
    side: str | None
    previous: str | None
    rule: str | None
    cg_date: str
    lvp: int = 0  # the Location's LVP (KGP 8.2)
    map_group: str | None = None
    infantry: bool = False

    def apply(self, campaign: Any) -> None:
        scenario: Scenario = campaign.scenario
        scenario.control[self.location] = self.side
        if self.lvp or self.location in scenario.lvp:
            scenario.lvp[self.location] = self.lvp
            scenario.lvp_group[self.location] = self.map_group


class ScenarioRecorded(CampaignEvent):
    """The CG Date's scenario type and weather, for the roster."""

    cg_date: str
    scenario_type: str | None
    weather: str | None
    ec: str | None = None
    wind: str | None = None
    previous: bool = False  # notes of the CG Scenario last played, after it ended

    def apply(self, campaign: Any) -> None:
        scenario = campaign.scenario
        # Notes of the scenario that ended (recorded in its RePh, or after with `previous`)
        # are the "previous CG Scenario" 9.6216 reads; on its own CG Date they are also
        # still the date's.
        ended = self.previous or (self.cg_date == scenario.previous_date)
        for condition in CONDITIONS:
            value = getattr(self, condition)
            if value is None:
                continue
            if ended:
                scenario.previous_conditions[condition] = value
            if self.cg_date == campaign.reph.cg_date:
                scenario.conditions[condition] = value


class ScenarioEnded(CampaignEvent):
    """The CG Scenario of `cg_date` ended (CG Scenario End)."""

    cg_date: str

    def apply(self, campaign: Any) -> None:
        # 9.6216's "previous CG Scenario", including weather an SSR set during play
        campaign.scenario.previous_conditions = dict(campaign.scenario.conditions)
        campaign.scenario.previous_date = self.cg_date


class OnMapRecorded(CampaignEvent):
    """Whether a side has on-map Retained units (3.6212 *)."""

    side: str
    on_map: bool
    cg_date: str

    def apply(self, campaign: Any) -> None:
        campaign.scenario.off_map[self.side] = not self.on_map


class ReconRolled(CampaignEvent):
    """A Recon dr (3.620): Locations the opponent reveals; Idle dates' add up."""

    side: str
    locations: int
    rule: str
    cg_date: str


class WalkingWoundedRecovered(CampaignEvent):
    """CG19: the WW box gave `squads` WW MMC; the odd half-squad was discarded."""

    side: str
    half_squads: int
    squads: int
    unit: str
    rule: str
    cg_date: str

    def apply(self, campaign: Any) -> None:
        campaign.scenario.ww_box = 0
