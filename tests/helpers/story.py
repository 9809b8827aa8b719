"""Helpers that tell a campaign as a story: the fixture RG chart and short commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

from domain import commands as cmd
from domain.campaign.determination import listed_sw
from domain.campaign.guide import guide
from domain.campaign.slots import sw_round
from domain.errors import RefitError
from domain.subjects import kind_of
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
    """Run a command given as its JSON body; a roll that names no subject is sent for the
    first one the guide lists for its table and side (a unit gets a label of its own)."""
    if body.get("type") == "roll" and "subject" not in body and "table" in body:
        body = body | {"subject": guided_subject(refit, campaign, body["table"], body["side"])}
    if body.get("type") == "end_scenario":
        record_notes(refit, campaign)
    return refit.commands.execute(campaign, cmd.parse_command(body), actor)


PLAIN = {"weather": "Clear", "ec": "Moderate", "wind": "No Wind"}  # no 9.6216 DRM follows


def record_notes(refit: Refit, campaign: UUID) -> None:
    """The director notes the scenario's weather, EC and wind (as its SSR or play set
    them) before it ends, where the module's next weather rolls read them (ABtF 9.6216)
    and the story has not noted them itself."""
    state = refit.store.campaign(campaign)
    if state.reph.phase != "scenario":
        return  # no scenario to end: the end_scenario is refused, and nothing recorded
    reads = {spec.condition for table in state.rules.tables for spec in table.drm
             if spec.derive == "previous_scenario"}
    missing = {name: PLAIN[name] for name in sorted(reads - set(state.scenario.conditions))
               if name is not None}
    if missing:
        refit.commands.execute(campaign, cmd.parse_command(
            {"type": "record_scenario", **missing}), "director")


def guided_subject(refit: Refit, campaign: UUID, table: str, side: str) -> str:
    """The subject the guide lists first for a roll of `table` by `side` (due, then
    optional); `step` when it lists none, so the ledger words the refusal."""
    state = refit.store.campaign(campaign)
    if _per_unit(state, table):  # a new unit each time: u1, u2, ... on this CG Date
        return f"unit:u{state.dice.rolled(table, side) + 1}"
    part = guide(state, None)["sides"].get(side, {"due": [], "optional": []})
    listed = [w["subject"] for w in part["due"] + part["optional"] if w.get("table") == table]
    return listed[0] if listed else "step"


def rg_subject(refit: Refit, campaign: UUID, table: str, number: int,
               sw: str | None = None, leader: int | None = None) -> str:
    """The subject of a roll for RG line `number`: `rg:N`; its next leader roll (or the
    `leader`-th); or, for a SW dr, the first listed SW named `sw` still to roll now."""
    state = refit.store.campaign(campaign)
    rules = state.rules.table(table)
    kind = kind_of(rules)
    line = state.purchases.lines[number - 1]
    if kind == "leader":
        return f"rg:{number}/leader:{leader or line.get('leader_rolls', 0) + 1}"
    if kind != "sw":
        return f"rg:{number}"
    round_, due = sw_round(state, rules, line["side"], number, line)
    listed = listed_sw(state.rules, line["side"], line["rg"])
    names = {k: {listed[k - 1].sw, line["choices"].get(listed[k - 1].sw, "")}
             | set(listed[k - 1].sw.split("/")) for k in range(1, len(listed) + 1)}
    k = next((k for k in due if sw in names[k]),
             next((k for k in names if sw in names[k]), 0))
    return f"rg:{number}/sw:{k}" + (f"/round:{round_}" if round_ > 1 else "")


def _per_unit(state: Any, table: str) -> bool:
    try:
        return kind_of(state.rules.table(table)) == "unit"
    except RefitError:
        return False


QUIET_DICE = {"dr": [1], "DR": [1, 2]}  # typed in where a story does not care what came up


def due(refit: Refit, campaign: UUID, side: str | None = None) -> list[tuple[str, str, str]]:
    """The rolls the guide lists as due now, as (table, side, subject), as the director
    (or one side) reads it (not the other side's reports it must answer)."""
    answer = refit.reads.guide(campaign, viewer=side)
    return [(work["table"], name, work["subject"])
            for name, part in answer["sides"].items() for work in part["due"]
            if "table" in work]


def roll_what_is_required(refit: Refit, campaign: UUID) -> None:
    """Make every roll the guide lists as due, until none is: a Depleted RG's SW dr follow
    its strength (server dice, or QUIET_DICE typed in)."""
    for _ in range(20):
        state = refit.store.campaign(campaign)
        rolls = due(refit, campaign)
        if not rolls:
            return
        for table, side, subject in rolls:
            body: dict[str, Any] = {"type": "roll", "table": table, "side": side,
                                    "subject": subject}
            if state.dice.mode == "entered":
                body["dice"] = QUIET_DICE[state.rules.table(table).roll]
            do(refit, campaign, body)
    raise AssertionError("rolls never stopped being due")


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
