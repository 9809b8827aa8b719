"""The KGP bookkeeping's rows (8.2, 8.15, CG4, CG13, CG14): LVP totals, Objective Hexes,
PF, Fanaticism, a Massacre and the Holding Boxes. Part of the fold (projections/fold.py)."""

from __future__ import annotations

from projections.rows import (
    HOLDING,
    LVP,
    OBJECTIVE,
    ROSTER,
    Fold,
    Record,
    Rows,
    load_meta,
    put_meta,
    put_roster,
)


def _lvp_totalled(rows: Rows, record: Record) -> None:
    data, meta = record["data"], load_meta(rows)
    rows.put(LVP, data["cg_date"], record["version"],
             {k: data[k] for k in ("cg_date", "current", "by_map_group", "cg_total", "rule")})
    row = rows.get(ROSTER, data["cg_date"])
    assert row is not None
    for side, cell in row["sides"].items():
        cell["lvp_current"], cell["lvp_cg"] = data["current"][side], data["cg_total"][side]
    put_roster(rows, row)
    put_meta(rows, meta, record)


def _objective(rows: Rows, record: Record) -> None:
    data = record["data"]
    key = f"{data['side']}:{data['hex']}"
    found = rows.get(OBJECTIVE, key)
    if found is not None:  # revealed: Infantry of its side Control it
        found |= {"revealed": True, "revealed_on": data["cg_date"], "secret_for": None}
        rows.put(OBJECTIVE, key, found["order"], found)
        return
    rows.put(OBJECTIVE, key, record["version"], {
        "hex": data["hex"], "side": data["side"], "purchase": data["purchase"],
        "cg_date": data["cg_date"], "revealed": False, "revealed_on": None,
        "order": record["version"], "secret_for": data["side"]})


def _pf(rows: Rows, record: Record) -> None:
    meta, data = load_meta(rows), record["data"]
    meta["pf_halves"][data["side"]] = data["halves"]
    # CG13: PF are "for each CG scenario": those of an earlier CG Date's are gone
    meta.setdefault("pf_date", {})[data["side"]] = data["cg_date"]
    put_meta(rows, meta, record)


def _fanaticism(rows: Rows, record: Record) -> None:
    meta = load_meta(rows)
    meta["fanaticism"].append(record["data"]["scenario"])
    put_meta(rows, meta, record)


def _massacre(rows: Rows, record: Record) -> None:
    meta = load_meta(rows)
    meta["massacre"] = record["data"]["side"]
    put_meta(rows, meta, record)


def _holding(rows: Rows, record: Record) -> None:
    data = record["data"]
    rows.put(HOLDING, f"{record['version']:09d}", record["version"],
             {k: data[k] for k in ("side", "entry_area", "units", "held", "cg_date")}
             | {"version": record["version"], "secret_for": data["side"]})


KGP_FOLDS: dict[str, Fold] = {
    "LVPTotalled": _lvp_totalled,
    "ObjectiveDesignated": _objective,
    "ObjectiveRevealed": _objective,
    "PFChanged": _pf,
    "FanaticismDeclared": _fanaticism,
    "MassacreRecorded": _massacre,
    "HoldingBoxChanged": _holding,
}
