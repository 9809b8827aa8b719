"""The PBr demo campaign as `refit demo` plays it, then an ELR loss and a control change:
what the paper forms and the history report are printed from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

from infra.application import Refit
from infra.demo import play_demo
from infra.settings import Settings
from tests.helpers.story import do

ELR_CAUSE = "Heavy losses <in> 15AM & more"


@dataclass(frozen=True)
class Played:
    """The demo campaign, played once on its own SQLite database."""

    refit: Refit
    campaign: UUID


def play_the_demo(folder: Path) -> Played:
    """PBr CG I as `refit demo` plays it, then an ELR loss and a control change."""
    refit = Refit(Settings(database_url=f"sqlite:///{folder / 'refit.db'}",
                           module_dir=folder / "modules"))
    campaign, _ = play_demo(refit)
    do(refit, campaign, {"type": "change_elr", "side": "Axis", "value": 3,
                         "cause": ELR_CAUSE, "rule": "3.613"})
    do(refit, campaign, {"type": "change_control", "location": "Bénouville Bridge",
                         "kind": "Location", "side": "British"})
    return Played(refit, campaign)
