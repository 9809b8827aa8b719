"""Helpers that tell a campaign as a story: the fixture RG chart and short commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

from domain import commands as cmd
from infra.application import Refit
from infra.modules import install_file
from infra.results import CommandResult
from tests.helpers.paths import FIXTURE_ABTF, FIXTURE_CHART


def load_fixture_chart(refit: Refit, fixture: Path = FIXTURE_CHART) -> None:
    """Install a fixture owner file (RG charts, CG parameters), as an owner would. Only
    campaigns made after it play it: one made before keeps its pinned data until its
    director sends `upgrade_module`."""
    install_file(fixture, refit.settings.module_dir)
    refit.store.reload_modules()


def load_abtf_owner_data(refit: Refit) -> None:
    """The ABtF RG charts and CG I/II parameters the tests use (EX costs, else fictitious)."""
    load_fixture_chart(refit, FIXTURE_ABTF)


def abtf_campaign(refit: Refit, name: str, dice: str = "server") -> UUID:
    """An ABtF CG I with the fixture owner data, so its ELR and SAN are known."""
    load_abtf_owner_data(refit)
    return refit.commands.create_campaign("abtf", "I", name, dice).id


def do(refit: Refit, campaign: UUID, body: dict[str, Any],
       actor: str = "director") -> CommandResult:
    """Run a command given as its JSON body."""
    return refit.commands.execute(campaign, cmd.parse_command(body), actor)


QUIET_DICE = {"dr": [1], "DR": [1, 2]}  # typed in where a story does not care what came up


def roll_what_is_required(refit: Refit, campaign: UUID) -> None:
    """Make the rolls the current step still needs (server dice, or QUIET_DICE typed in)."""
    state = refit.store.campaign(campaign)
    module = state.rules
    for table, side, purchase in state.missing_rolls():
        body: dict[str, Any] = {"type": "roll", "table": table, "side": side}
        if purchase is not None:
            body["purchase"] = purchase
        if state.dice.mode == "entered":
            body["dice"] = QUIET_DICE[module.table(table).roll]
        do(refit, campaign, body)


def advance(refit: Refit, campaign: UUID, times: int = 1) -> None:
    """Complete `times` RePh steps, making whatever rolls each still needs."""
    for _ in range(times):
        roll_what_is_required(refit, campaign)
        do(refit, campaign, {"type": "advance"})


def advance_to(refit: Refit, campaign: UUID, step: str | None, rolls: bool = True) -> None:
    """Advance until the RePh reaches `step` (None: the scenario), making the rolls each step
    still needs (rolls=False: the players made every roll by hand, as at the table)."""
    for _ in range(40):
        if refit.store.campaign(campaign).reph.step == step:
            return
        if rolls:
            advance(refit, campaign)
        else:
            do(refit, campaign, {"type": "advance"})
    raise AssertionError(f"never reached step {step}")


def to_reph_step(refit: Refit, campaign: UUID, step: str) -> None:
    """Play through to a step of the RePh after the current (or Initial) scenario."""
    if refit.store.campaign(campaign).reph.phase == "setup":
        advance_to(refit, campaign, None)
    if refit.store.campaign(campaign).reph.phase == "scenario":
        do(refit, campaign, {"type": "end_scenario"})
    advance_to(refit, campaign, step)
