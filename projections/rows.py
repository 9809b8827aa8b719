"""The rows the projections' fold writes: their kinds, the campaign's meta row, and the
CG Roster row of the current CG Date with each side's cell (shared by the folds)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

META = "meta"
ROSTER = "roster"
PURCHASE = "purchase"
CVP = "cvp"
CASUALTY = "casualty"  # each casualty, by its version: a scenario's CVP row keeps the total
ELR = "elr"
SAN = "san"
ROLL = "roll"
CONTROL = "control"
LVP = "lvp"
OBJECTIVE = "objective"
HOLDING = "holding"
RETAINED = "retained"  # each side's Retained units per CG Date: its open and sealed parts
STEP = "step"  # each RePh step (and CG Scenario) done: the versions it began and ended at
REPORT = "report"  # each report between the sides, and how it was answered


class Rows(Protocol):
    """One campaign's rows, however they are stored."""

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        """The row's document, or None."""

    def put(self, kind: str, key: str, order: int, doc: dict[str, Any]) -> None:
        """Write the row's document."""


Record = dict[str, Any]
Fold = Callable[[Rows, Record], None]


def iso(timestamp: str | datetime) -> str:
    """A record's timestamp as ISO text (the views fold datetimes, histories carry text)."""
    return timestamp if isinstance(timestamp, str) else timestamp.isoformat()


def load_meta(rows: Rows) -> dict[str, Any]:
    """The campaign's meta row (its first record, Created, writes it)."""
    meta = rows.get(META, "")
    assert meta is not None, "a campaign's first record is Created"
    return meta


def put_meta(rows: Rows, meta: dict[str, Any], record: Record) -> None:
    """Write the meta row as of the record's version."""
    meta["version"] = record["version"]
    rows.put(META, "", 0, meta)


def roster_cell(rows: Rows, meta: dict[str, Any],
                side: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The roster row of the current CG Date and the side's cell in it."""
    row = rows.get(ROSTER, meta["cg_date"])
    assert row is not None
    return row, row["sides"][side]


def put_roster(rows: Rows, row: dict[str, Any]) -> None:
    """Write a CG Roster row."""
    rows.put(ROSTER, row["cg_date"], row["order"], row)


def new_roster_row(meta: dict[str, Any], order: int, cpp: dict[str, int]) -> dict[str, Any]:
    """The CG Roster row a new CG Date starts: each side's Start, ELR and SAN."""
    sides = {
        side: {
            "cpp_start": cpp.get(side, 0), "cpp_credited": 0, "cpp_spent": 0,
            "cpp_left": cpp.get(side, 0), "rg_purchased": [], "fpp": 0,
            "fortifications": [], "elr": meta["elr"][side], "san": meta["san"][side],
            "chit": None, "ww_received": None, "recon": None, "recon_cpp": 0,
            "cpp_forfeited": 0, "fpp_forfeited": 0, "cpp_forgone": 0,
            "shown": {kind: meta[f"shown_{kind}"][side] for kind in (ELR, SAN)
                      if side in meta.get(f"shown_{kind}", {})},
        }
        for side in meta["sides"]
    }
    return {"cg_date": meta["cg_date"], "order": order, "levels": dict(meta["levels"]),
            "sets_up_first": None, "moves_first": None,
            "scenario_type": None, "weather": None, "ec": None, "wind": None,
            "chits_revealed": False, "scenario_played": False, "sides": sides}


def set_left(meta: dict[str, Any], cell: dict[str, Any], side: str) -> None:
    """The Left and FPP columns: 3.620 Recon CPP come off Left into the next Start."""
    cell["cpp_left"] = meta["cpp"][side] + cell.get("recon_cpp", 0)
    cell["fpp"] = meta["fpp"][side]
