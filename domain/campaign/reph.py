"""Where the campaign stands in the RePh: its CG Date, phase (setup, reph, scenario,
ended) and step, and the events that move them on."""

from __future__ import annotations

from typing import Any

from domain.campaign.events import CampaignEvent
from domain.campaign.part import Part
from domain.errors import RuleViolation
from domain.rules import Module, Step


class RePh(Part):
    """The CG Date, the phase and the RePh step."""

    name = "reph"

    def __init__(self, cg_date: str, phase: str, step: str | None) -> None:
        self.cg_date = cg_date
        self.phase = phase
        self.step = step
        self.done: list[str] = []  # sides that have done their part of the step (3.6)

    def check_not_ended(self) -> None:
        """After CG End the ledger takes no more commands."""
        if self.phase == "ended":
            raise RuleViolation("the CG has ended (CG End): the ledger takes no more commands")

    def check_in_step(self, steps: list[Step], what: str) -> None:
        """`what` belongs to one of `steps` (none: to any)."""
        if not steps or self.step in {s.rule for s in steps}:
            return
        where = f"step {self.step}" if self.step else f"the {self.phase}"
        names = " or ".join(f"{s.rule} {s.title}" for s in steps)
        raise RuleViolation(f"{what} belongs to step {names}; the RePh is at {where}",
                            rule=steps[0].rule)

    def check_command_step(self, module: Module, action: str) -> None:
        """An action the module's RePh sequence puts in a step is made in it."""
        rules = module.command_steps.get(action, [])
        self.check_in_step([s for s in module.steps if s.rule in rules], action)

    def current_step(self, module: Module) -> Step | None:
        """The module's step the RePh is at (None in a scenario, or a step replaced)."""
        return next((s for s in module.steps if s.rule == self.step), None)


class StepAdvanced(CampaignEvent):
    """The RePh moved on: to `step` in `phase` (setup, reph, scenario)."""

    phase: str
    step: str | None
    previous: str | None
    skipped: list[str] | None = None  # required rolls that did not apply, and why

    def apply(self, campaign: Any) -> None:
        campaign.reph.phase = self.phase
        campaign.reph.step = self.step
        campaign.reph.done = []
        if self.phase == "scenario":
            campaign.scenario.played = campaign.reph.cg_date
            campaign.scenario.last_scenario_cvp = dict.fromkeys(campaign.sides, 0)
            campaign.initiative.idle_dates_since_scenario = 0
            campaign.initiative.scenarios_since_idle += 1


class StepDoneBySide(CampaignEvent):
    """A side did its part of the RePh step (public: the RePh's pace is open)."""

    side: str
    step: str | None
    cg_date: str

    def apply(self, campaign: Any) -> None:
        campaign.reph.done = [*campaign.reph.done, self.side]


class CGDateStarted(CampaignEvent):
    """A new CG Date begins (public: each side's CPP stays its own secret)."""

    cg_date: str
    previous: str

    def apply(self, campaign: Any) -> None:
        campaign.reph.cg_date = self.cg_date
        campaign.initiative.chits = dict.fromkeys(campaign.sides)
        campaign.initiative.date_scenario = None
        campaign.purchases.rg_today = {side: {} for side in campaign.sides}
        campaign.purchases.forts_today = {}
        campaign.purchases.hexes_before = campaign.purchases.hexes_today
        campaign.purchases.hexes_today = {}
        campaign.dice.rolls_today = {}
        campaign.dice.slots = {}
        campaign.dice.results_today = {}
        campaign.scenario.conditions = {}
        campaign.points.forgone = 0


class CGDecided(CampaignEvent):
    """The CG is decided before its last CG Date: `side` conceded or won outright."""

    side: str
    reason: str
    winner: str
    rule: str | None
    cg_date: str


class CGEnded(CampaignEvent):
    """CG End: the last CG Date's scenario is over; every secret may be revealed."""

    cg_date: str

    def apply(self, campaign: Any) -> None:
        campaign.reph.phase = "ended"
