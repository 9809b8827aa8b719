"""Campaign state stored by an earlier class_version (a snapshot, or an Undone's state),
brought up to this one. Versions 1 to 5 kept every field on the campaign itself; 6 splits
them into the campaign's parts, each of which upcasts its own fields from then on."""

from __future__ import annotations

from typing import Any

from domain.campaign.access import Access
from domain.campaign.cosigning import Cosigning
from domain.campaign.dice import Dice
from domain.campaign.initiative import Initiative
from domain.campaign.part import Part
from domain.campaign.points import Points
from domain.campaign.purchases import Purchases, line_of
from domain.campaign.reph import RePh
from domain.campaign.reports import Reports
from domain.campaign.retained import Retained
from domain.campaign.scenario import Scenario


def v1_v2(state: dict[str, Any]) -> None:
    """Before v2: purchase lines as pairs; no chit, WW or weather tallies."""
    sides = state["sides"]
    state["purchases"] = [line_of(side, rg, None, None) for side, rg in state["purchases"]]
    # v1 counted an Initial Scenario's assumed Attack chit with the chosen ones.
    state["chits_chosen"] = {side: {"attack": state["attack_chits_in_cg"][side],
                                    "idle": 0} for side in sides}
    state.update(ww_box=0, conditions={}, previous_conditions={})


def v2_v3(state: dict[str, Any]) -> None:
    """Before v3: the PBr and KGP tallies start empty."""
    sides = state["sides"]
    for line in state["purchases"]:
        line.setdefault("given", False)
        line.setdefault("removed", False)
    for name, empty in (("forgone", 0), ("off_map", dict.fromkeys(sides, False)),
                        ("balance", None), ("lvp", {}), ("lvp_group", {}),
                        ("cg_lvp", dict.fromkeys(sides, 0)), ("objectives", {}),
                        ("pf_halves", dict.fromkeys(sides, 0)), ("fanaticism", []),
                        ("massacre", None), ("table_rolls_cg", {}),
                        ("token_hashes", {}), ("idempotency", {}),
                        ("sealed_rolls_on_seed", 0)):
        state.setdefault(name, empty)


def v3_v4(state: dict[str, Any]) -> None:
    """Before v4: no roll undone, none re-rolled yet."""
    state.setdefault("rolled_before", {})
    state.setdefault("epochs", {})


def v4_v5(state: dict[str, Any]) -> None:
    """Before v5: no result of this CG Date's rolls is known."""
    state.setdefault("results_today", {})


# Each part's fields as version 5 kept them on the campaign (stored name -> the part's).
V5_FIELDS: dict[type[Part], dict[str, str]] = {
    RePh: {"cg_date": "cg_date", "phase": "phase", "step": "step"},
    Dice: {"dice_mode": "mode", "seed": "seed", "seed_commitment": "seed_commitment",
           "sealed_rolls_on_seed": "sealed_rolls_on_seed", "ordinals": "ordinals",
           "rolled_before": "rolled_before", "epochs": "epochs",
           "rolls_today": "rolls_today", "results_today": "results_today",
           "table_rolls_cg": "table_rolls_cg"},
    Points: {"cpp": "cpp", "fpp": "fpp", "elr": "elr", "san": "san", "levels": "levels",
             "forgone": "forgone"},
    Purchases: {"purchases": "lines", "rg_total": "rg_total", "rg_today": "rg_today",
                "forts_today": "forts_today", "forts_total": "forts_total"},
    Initiative: {name: name for name in (
        "chits", "chits_chosen", "date_scenario", "previous_date_idle",
        "idle_dates_since_scenario", "scenarios_since_idle", "attack_chits_since_idle",
        "attack_chits_in_cg")},
    Scenario: {"scenario": "played", "last_scenario_cvp": "last_scenario_cvp",
               "ww_box": "ww_box", "control": "control", "lvp": "lvp",
               "lvp_group": "lvp_group", "conditions": "conditions",
               "previous_conditions": "previous_conditions", "off_map": "off_map"},
    Access: {"token_hashes": "token_hashes", "idempotency": "idempotency"},
}
KGP_BOOK = ("cg_lvp", "objectives", "pf_halves", "fanaticism", "massacre")  # KGP's own


def v5_v6(state: dict[str, Any]) -> None:
    """Before v6: every field on the campaign. An Undone's state lacks the fields an undo
    keeps (the seed, the tokens, ...): its parts lack them too, and the undo fills them."""
    for kind, fields in V5_FIELDS.items():
        state[kind.name] = kind.restore({mine: state.pop(stored)
                                         for stored, mine in fields.items() if stored in state})
    book = {name: state.pop(name) for name in KGP_BOOK if name in state}
    state["book"] = book if state.get("module_id") == "kgp" else {}


def v6_v7(state: dict[str, Any]) -> None:
    """Before v7: dice keyed by ordinal (their count per step dropped for the slots rolled
    on the CG Date, none known), and no side had marked its part of a step done."""
    dice, reph = state.get("dice"), state.get("reph")
    if isinstance(dice, Part):
        vars(dice).pop("ordinals", None)
        vars(dice).setdefault("slots", {})
    if isinstance(reph, Part):
        vars(reph).setdefault("done", [])


def v7_v8(state: dict[str, Any]) -> None:
    """Before v8: no side reported a casualty or control change (reports.py)."""
    state.setdefault("reports", Reports())


def v8_v9(state: dict[str, Any]) -> None:
    """Before v9: no roster of Retained units was kept (its events only filled a form), so
    the limits read none recorded before, and nothing Retained off map by count."""
    state.setdefault("retained", Retained(list(state.get("sides") or [])))


def v9_v10(state: dict[str, Any]) -> None:
    """Before v10: no side gave a seed share; the mix is closed once a server roll was made
    (the dice already shown were read from the seed alone)."""
    dice = state.get("dice")
    if isinstance(dice, Part):
        vars(dice).setdefault("shares", {})
        vars(dice).setdefault("shares_closed", bool(
            vars(dice).get("table_rolls_cg") or vars(dice).get("rolled_before")))


def v10_v11(state: dict[str, Any]) -> None:
    """Before v11: no side registered a key or co-signed a checkpoint."""
    state.setdefault("cosigning", Cosigning())


def v11_v12(state: dict[str, Any]) -> None:
    """Before v12: the CG Date's roll results were not also kept by subject (3.6061's
    follow-up), and cannot be told from the state: the store passes such a snapshot over
    and rebuilds the campaign from its events (infra/seal.py)."""


def v12_v13(state: dict[str, Any]) -> None:
    """Before v13: the hexes the CG Date's Fortifications were placed in were not kept. A
    snapshot is passed over (infra/seal.py) and the campaign rebuilt from its events; an
    Undone's state from then reads none placed on that CG Date."""
    purchases = state.get("purchases")
    if isinstance(purchases, Part):
        vars(purchases).setdefault("hexes_today", {})


def v13_v14(state: dict[str, Any]) -> None:
    """Before v14: the hexes of the previous CG Date's Fortifications were not kept. A
    snapshot is passed over (infra/seal.py) and the campaign rebuilt from its events; an
    Undone's state from then reads none placed on the previous CG Date."""
    purchases = state.get("purchases")
    if isinstance(purchases, Part):
        vars(purchases).setdefault("hexes_before", {})


def v14_v15(state: dict[str, Any]) -> None:
    """Before v15: the CG Date of the last CG Scenario ended was not kept. Out of a
    scenario it is the one just played; in one, the one before is not known (its notes
    are then recorded on the CG Date's own, as before)."""
    scenario, reph = state.get("scenario"), state.get("reph")
    if isinstance(scenario, Part) and isinstance(reph, Part):
        ended = vars(scenario).get("played") if vars(reph).get("phase") != "scenario" else None
        vars(scenario).setdefault("previous_date", ended)
