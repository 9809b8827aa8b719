"""`refit demo`: a scripted PBr CG I, played on the configured database as a director would.

14AM is the Initial Scenario; 14PM is an Idle CG Date, so the RePh repeats as 14N, a Night
Dual Attack; then 15AM (British Attack) and 15PM (Axis Attack). Dice are the server's.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain import commands as cmd
from domain.campaign.guide import guide
from domain.errors import RuleViolation
from infra.application import Refit
from infra.results import Tokens

AXIS, BRITISH = "Axis", "British"

class Director:
    """Runs one campaign's commands in the director's name."""

    def __init__(self, refit: Refit, campaign: UUID) -> None:
        self.refit, self.campaign = refit, campaign

    def do(self, **body: Any) -> None:
        """One command, given as its JSON fields."""
        self.refit.commands.execute(self.campaign, cmd.parse_command(body), "demo")

    def to(self, step: str | None) -> None:
        """Complete RePh steps, with the rolls each requires, until `step` (None: play)."""
        for _ in range(40):
            if self.refit.store.campaign(self.campaign).reph.step == step:
                return
            self.roll_due()
            self.do(type="advance")
        raise RuntimeError(f"the demo never reached step {step}")

    def settle(self) -> None:
        """3.618 for today's RG: strength, a Depleted RG's SW dr, each Leader Table roll."""
        self.to("3.618")
        self.roll_due()

    def roll_due(self) -> None:
        """Every roll the guide lists as due, for its subject, until none is (a Depleted
        RG's SW dr follow its strength; 3.6182 may call for the whole RG again)."""
        for _ in range(20):
            state = self.refit.store.campaign(self.campaign)
            due = [(side, work) for side, part in guide(state, None)["sides"].items()
                   for work in part["due"] if "table" in work]  # rolls, not reports
            if not due:
                return
            for side, work in due:
                self.do(type="roll", table=work["table"], side=side,
                        subject=work["subject"])
        raise RuntimeError("the demo's rolls never stopped being due")

    def chits(self, axis: str, british: str) -> None:
        """Both Initiative chits (3.6212)."""
        self.do(type="select_initiative", side=AXIS, chit=axis)
        self.do(type="select_initiative", side=BRITISH, chit=british)

    def loss_points(self) -> None:
        """3.6162: each side that lost heavily in the prior scenario rolls its dr."""
        for side in (AXIS, BRITISH):
            try:
                self.do(type="roll", table="3.6162", side=side)
            except RuleViolation:
                continue  # that side did not lose >= 2x and >= 8 more CVP

    def lose(self, side: str, *units: tuple[str, int]) -> None:
        """Casualties of the scenario in play: (unit, CVP) each."""
        for unit, cvp in units:
            self.do(type="record_casualty", side=side, unit=unit, cvp=cvp)


def play_demo(refit: Refit) -> tuple[UUID, Tokens]:
    """Play the scripted campaign; its id and role tokens (to look at it over HTTP)."""
    campaign, tokens = refit.commands.open_campaign("pbr", "I", "Demo: PBr CG I",
                                                    "server",
                                           "demo")
    d = Director(refit, campaign.id)
    initial_scenario(d)
    idle_14pm_then_night_14n(d)
    british_attack_15am(d)
    axis_attack_15pm(d)
    return campaign.id, tokens


def buy_and_settle(d: Director, *buys: tuple[str, str, str]) -> None:
    """3.617 purchases (side, RG, mode), then 3.618 for them."""
    d.to("3.617")
    for side, rg, mode in buys:
        d.do(type="purchase_rg", side=side, rg=rg, mode=mode)
    d.settle()


def replenish(d: Director) -> None:
    """3.616: each Base # is credited as the step ends; Loss Points to a heavy loser."""
    d.to("3.616")
    d.loss_points()


def initial_scenario(d: Director) -> None:
    """14AM: the ! steps 3.617-3.623, then the scenario."""
    d.do(type="credit_cpp", side=AXIS, amount=39, reason="Initial Scenario: 3.6161 Base #")
    d.do(type="credit_cpp", side=BRITISH, amount=17, reason="Initial Scenario: 3.6161 Base #")
    buy_and_settle(d, (AXIS, "I5", "entry"), (AXIS, "I7", "entry"),
                   (BRITISH, "I2", "entry"), (BRITISH, "I4", "entry"))
    d.to(None)
    d.lose(AXIS, ("4-4-7", 2), ("4-4-7", 2), ("3-4-6", 2), ("MMG", 4), ("2-4-8", 2),
           ("3-4-6", 2), ("Lt. 8-0", 6))
    d.lose(BRITISH, ("6-4-8", 4), ("6-4-8", 2))
    d.do(type="end_scenario")


def idle_14pm_then_night_14n(d: Director) -> None:
    """14PM: Loss Points, purchases, then both Idle; 14N repeats 3.612-3.6212 at Night."""
    replenish(d)
    buy_and_settle(d, (AXIS, "I4", "entry"), (BRITISH, "F1", "entry"))
    d.to("3.621")
    d.chits("idle", "idle")
    buy_and_settle(d, (AXIS, "I1", "entry"))  # 14N: the fourth coy of July 14 (note m)
    d.to("3.620")
    d.do(type="roll", table="3.620", side=BRITISH,
         drm=[{"id": "3.620-beneficial"}])
    d.to("3.621")
    d.chits("attack", "attack")  # a Night Dual Attack
    d.do(type="roll", table="3.6213", side=BRITISH)
    d.to("3.623")
    d.do(type="roll", table="3.623", side=BRITISH)
    d.to(None)
    d.lose(AXIS, ("4-6-8", 4), ("4-6-8", 4))
    d.lose(BRITISH, ("4-5-8", 3), ("6-4-8", 4), ("Lt. 9-1", 6))
    d.do(type="end_scenario")


def british_attack_15am(d: Director) -> None:
    """15AM: the British buy armour, guns set up on map and a coy; the Axis a Reserve MTR."""
    replenish(d)
    buy_and_settle(d, (BRITISH, "V1", "entry"), (BRITISH, "G1", "on_map"),
                   (BRITISH, "I1", "entry"), (AXIS, "G3", "reserve"))
    d.to("3.621")
    d.chits("idle", "attack")
    d.to(None)
    d.lose(AXIS, ("75* leIG 18", 4), ("4-6-8", 4), ("5-4-8", 4))
    d.lose(BRITISH, ("Sherman III(a)", 6))
    d.do(type="end_scenario")


def axis_attack_15pm(d: Director) -> None:
    """15PM: an Italian coy for the Axis; the CG Scenario is set up and left in play."""
    replenish(d)
    buy_and_settle(d, (AXIS, "I7", "entry"))
    d.to("3.621")
    d.chits("attack", "idle")
    d.to(None)
