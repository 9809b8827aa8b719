"""The projections' one fold: each history record updates the rows it touches.

Rows are JSON documents keyed by (kind, key) within a campaign, with an order number.
The same fold drives the materialized views (rows in the database, with tracking) and
the "as of version N" reads (rows in memory, over a prefix of the history).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

META = "meta"
ROSTER = "roster"
PURCHASE = "purchase"
CVP = "cvp"
ELR = "elr"
SAN = "san"
ROLL = "roll"
CONTROL = "control"
LVP = "lvp"
OBJECTIVE = "objective"
HOLDING = "holding"
STEP = "step"  # each RePh step (and CG Scenario) done: the versions it began and ended at


class Rows(Protocol):
    """One campaign's rows, however they are stored."""

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        """The row's document, or None."""

    def put(self, kind: str, key: str, order: int, doc: dict[str, Any]) -> None:
        """Write the row's document."""


Record = dict[str, Any]
Fold = Callable[[Rows, Record], None]


def fold(rows: Rows, record: Record) -> None:
    """Apply one history record to the rows."""
    handler = _HANDLERS.get(record["type"])
    if handler is not None:
        handler(rows, record)
    elif record["type"] not in NOT_FOLDED:  # a new event no one taught the fold
        raise LookupError(f"the fold has no handler for {record['type']}: fold it, or name "
                          "it in NOT_FOLDED with the reason")
    meta = _meta(rows)
    if meta["version"] != record["version"]:
        _put_meta(rows, meta, record)


def _iso(timestamp: str | datetime) -> str:
    """A record's timestamp as ISO text (the views fold datetimes, histories carry text)."""
    return timestamp if isinstance(timestamp, str) else timestamp.isoformat()


def _meta(rows: Rows) -> dict[str, Any]:
    meta = rows.get(META, "")
    assert meta is not None, "a campaign's first record is Created"
    return meta


def _put_meta(rows: Rows, meta: dict[str, Any], record: Record) -> None:
    meta["version"] = record["version"]
    rows.put(META, "", 0, meta)


def _cell(rows: Rows, meta: dict[str, Any], side: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The roster row of the current CG Date and the side's cell in it."""
    row = rows.get(ROSTER, meta["cg_date"])
    assert row is not None
    return row, row["sides"][side]


def _put_roster(rows: Rows, row: dict[str, Any]) -> None:
    rows.put(ROSTER, row["cg_date"], row["order"], row)


def _new_roster_row(meta: dict[str, Any], order: int, cpp: dict[str, int]) -> dict[str, Any]:
    sides = {
        side: {
            "cpp_start": cpp.get(side, 0), "cpp_credited": 0, "cpp_spent": 0,
            "cpp_left": cpp.get(side, 0), "rg_purchased": [], "fpp": 0,
            "fortifications": [], "elr": meta["elr"][side], "san": meta["san"][side],
            "chit": None, "ww_received": None, "recon": None,
        }
        for side in meta["sides"]
    }
    return {"cg_date": meta["cg_date"], "order": order, "levels": dict(meta["levels"]),
            "scenario_type": None, "weather": None, "ec": None, "wind": None,
            "chits_revealed": False, "scenario_played": False, "sides": sides}


def _created(rows: Rows, record: Record) -> None:
    data = record["data"]
    sides = data["sides"]
    meta = {
        "campaign": record["campaign"], "module": data["module"], "cg": data["cg"],
        "name": data["name"], "sides": sides, "dice": data["dice"],
        "seed_commitment": data["seed_commitment"], "seed": None,
        "cg_date": data["cg_date"], "phase": data["phase"], "step": data["step"],
        # The Initial Scenario's CPP and FPP, from the CG parameters
        "cpp": {side: (data.get("cpp") or {}).get(side, 0) for side in sides},
        "fpp": {side: (data.get("fpp") or {}).get(side, 0) for side in sides},
        "elr": {side: (data.get("elr") or {}).get(side) for side in sides},
        "san": {side: (data.get("san") or {}).get(side) for side in sides},
        "levels": dict(data.get("levels") or {}),
        "balance": data.get("balance"), "pf_halves": dict.fromkeys(sides, 0),
        "fanaticism": [], "massacre": None,
        "all_revealed": False,
        "created": _iso(record["timestamp"]), "version": record["version"],
    }
    _put_meta(rows, meta, record)
    row = _new_roster_row(meta, record["version"], meta["cpp"])
    for side, cell in row["sides"].items():
        cell["fpp"] = meta["fpp"][side]
    _put_roster(rows, row)


def _dice_rolled(rows: Rows, record: Record) -> None:
    data = record["data"]
    row = {k: data[k] for k in (
        "side", "key", "table", "rule", "title", "kind", "subject", "dice", "original",
        "drm", "final", "target", "result", "cg_date", "step", "entered_by", "actor")}
    row |= {"version": record["version"], "timestamp": _iso(record["timestamp"]),
            "secret": record.get("sealed") is not None, "secret_for": data["secret_for"]}
    slot, epoch = data["key"].rsplit("/", 1)
    if epoch != "0":  # a director's re-roll: say why beside the new dice
        row["reroll"] = _meta(rows).get("rerolls", {}).get(f"{slot}/{epoch}")
    rows.put(ROLL, f"{record['version']:09d}", record["version"], row)


def _reroll(rows: Rows, record: Record) -> None:
    data, meta = record["data"], _meta(rows)
    meta.setdefault("rerolls", {})[f"{data['slot']}/{data['epoch']}"] = {
        "key": data["key"], "reason": data["reason"], "version": record["version"]}
    _put_meta(rows, meta, record)


def _ruling(rows: Rows, record: Record) -> None:
    """A ruling stands beside its roll wherever the roll is read."""
    data = record["data"]
    row = rows.get(ROLL, f"{data['roll_version']:09d}")
    if row is None:  # its roll was undone since: the ruling stays in the log alone
        return
    row.setdefault("rulings", []).append({
        "version": record["version"], "timestamp": _iso(record["timestamp"]),
        "verdict": data["verdict"], "reason": data["reason"], "final": data["final"],
        "result": data["result"], "actor": data["actor"]})
    rows.put(ROLL, f"{data['roll_version']:09d}", data["roll_version"], row)


def _points(pool: str, column: str | None, sign: int) -> Fold:
    def handle(rows: Rows, record: Record) -> None:
        data, meta = record["data"], _meta(rows)
        side = data["side"]
        meta[pool][side] += sign * data["amount"]
        row, cell = _cell(rows, meta, side)
        if column == "fortifications":
            cell["fortifications"].append({"item": data["reason"], "count": data.get("count", 1),
                                           "fpp": data["amount"]})
        elif column is not None:
            cell[column] += data["amount"]
        cell["cpp_left"], cell["fpp"] = meta["cpp"][side], meta["fpp"][side]
        _put_roster(rows, row)
        _put_meta(rows, meta, record)
    return handle


def _rg_purchased(rows: Rows, record: Record) -> None:
    data, meta = record["data"], _meta(rows)
    side = data["side"]
    meta["cpp"][side] -= data["cost"]
    row, cell = _cell(rows, meta, side)
    cell["cpp_spent"] += data["cost"]
    cell["cpp_left"] = meta["cpp"][side]
    cell["rg_purchased"].append({"rg": data["rg"], "kg": data["kg"], "cpp": data["cost"]})
    _put_roster(rows, row)
    _put_meta(rows, meta, record)
    remaining = None if data["cg_max"] is None else data["cg_max"] - data["number"]
    rows.put(PURCHASE, str(data["purchase"]), data["purchase"], {
        "purchase": data["purchase"], "side": side, "cg_date": data["cg_date"],
        "rg": data["rg"], "kg": data["kg"], "group_type": data["group_type"],
        "cpp": data["cost"], "p": data["number"], "r": remaining, "strength": None,
        "units": None, "sw": [], "leader": None, "composition": None, "given": None,
        "mode": data.get("mode"), "reserve": data.get("reserve", False),
        "option": data.get("option"), "removed": None,
        "version": record["version"], "secret_for": side,
    })


def _rg_received(rows: Rows, record: Record) -> None:
    data = record["data"]
    on_map = data.get("on_map")
    mode = "paradrop" if data.get("paradrop") else \
        None if on_map is None else "on_map" if on_map else "entry"
    rows.put(PURCHASE, str(data["purchase"]), data["purchase"], {
        "purchase": data["purchase"], "side": data["side"], "cg_date": data["cg_date"],
        "rg": data["rg"], "kg": data["kg"], "group_type": data["group_type"], "cpp": None,
        "p": None, "r": None, "strength": data.get("strength"), "units": None, "sw": [],
        "leader": None, "composition": None, "given": data["reason"], "mode": mode,
        "setup_area": data.get("setup_area"), "version": record["version"],
        # Public as the OB is (3.6179); what the side's secret rolls find stays its own.
        # Lines recorded before OB-given RGs were public stay sealed (9.6172).
        "secret_for": data["side"] if record.get("sealed") else None,
    })


def _rg_determined(rows: Rows, record: Record) -> None:
    data = record["data"]
    row = rows.get(PURCHASE, str(data["purchase"]))
    assert row is not None
    for field in ("strength", "units", "leader", "composition"):
        if data[field] is not None:
            row[field] = data[field]
    if data["sw"] is not None:
        row["sw"] = data["sw"]
    rows.put(PURCHASE, str(data["purchase"]), data["purchase"], row)


def _rg_removed(rows: Rows, record: Record) -> None:
    data = record["data"]
    row = rows.get(PURCHASE, str(data["purchase"]))
    assert row is not None
    row["removed"] = f"{data['cg_date']}: {data['reason']}"
    rows.put(PURCHASE, str(data["purchase"]), data["purchase"], row)


def _points_adjusted(rows: Rows, record: Record) -> None:
    data, meta = record["data"], _meta(rows)
    side = data["side"]
    meta[data["pool"]][side] = data["after"]
    row, cell = _cell(rows, meta, side)
    cell["cpp_left"], cell["fpp"] = meta["cpp"][side], meta["fpp"][side]
    _put_roster(rows, row)
    _put_meta(rows, meta, record)


def _casualty(rows: Rows, record: Record) -> None:
    data = record["data"]
    key = f"{data['scenario']}|{data['side']}"
    row = rows.get(CVP, key) or {
        "scenario": data["scenario"], "side": data["side"], "cvp": 0, "casualties": [],
        "first_version": record["version"]}
    row["cvp"] += data["cvp"]
    row["casualties"].append({"unit": data["unit"], "cvp": data["cvp"],
                              "ww_half_squads": data.get("ww_half_squads", 0),
                              "version": record["version"]})
    rows.put(CVP, key, row["first_version"], row)


def _rating(kind: str) -> Fold:
    def handle(rows: Rows, record: Record) -> None:
        data, meta = record["data"], _meta(rows)
        meta[kind][data["side"]] = data["after"]
        row, cell = _cell(rows, meta, data["side"])
        cell[kind] = data["after"]
        _put_roster(rows, row)
        _put_meta(rows, meta, record)
        change = {k: data[k] for k in ("side", "before", "after", "cause", "rule", "cg_date")}
        change["version"] = record["version"]
        rows.put(kind, f"{record['version']:09d}", record["version"], change)
    return handle


def _level(rows: Rows, record: Record) -> None:
    data, meta = record["data"], _meta(rows)
    meta["levels"][data["level"]] = data["after"]
    row = rows.get(ROSTER, meta["cg_date"])
    assert row is not None
    row["levels"] = dict(meta["levels"])
    _put_roster(rows, row)
    _put_meta(rows, meta, record)


def _walking_wounded(rows: Rows, record: Record) -> None:
    data, meta = record["data"], _meta(rows)
    row, cell = _cell(rows, meta, data["side"])
    cell["ww_received"] = {"unit": data["unit"], "count": data["squads"],
                           "discarded_half_squads": data["half_squads"] % 2}
    _put_roster(rows, row)


def _recon(rows: Rows, record: Record) -> None:
    data, meta = record["data"], _meta(rows)
    pool = meta.setdefault("recon", {})
    pool[data["side"]] = pool.get(data["side"], 0) + data["locations"]  # Idle dates add up
    row, cell = _cell(rows, meta, data["side"])
    cell["recon"] = pool[data["side"]]
    _put_roster(rows, row)
    _put_meta(rows, meta, record)


def _withdrawn(rows: Rows, record: Record) -> None:
    data, meta = record["data"], _meta(rows)
    row, cell = _cell(rows, meta, data["side"])
    cell.setdefault("withdrawn", []).append(
        {"units": data["units"], "rule": data["rule"],
         "retained_off_map": data["retained_off_map"]})
    _put_roster(rows, row)


def _lvp_totalled(rows: Rows, record: Record) -> None:
    data, meta = record["data"], _meta(rows)
    rows.put(LVP, data["cg_date"], record["version"],
             {k: data[k] for k in ("cg_date", "current", "by_map_group", "cg_total", "rule")})
    row = rows.get(ROSTER, data["cg_date"])
    assert row is not None
    for side, cell in row["sides"].items():
        cell["lvp_current"], cell["lvp_cg"] = data["current"][side], data["cg_total"][side]
    _put_roster(rows, row)
    _put_meta(rows, meta, record)


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
    meta = _meta(rows)
    meta["pf_halves"][record["data"]["side"]] = record["data"]["halves"]
    _put_meta(rows, meta, record)


def _fanaticism(rows: Rows, record: Record) -> None:
    meta = _meta(rows)
    meta["fanaticism"].append(record["data"]["scenario"])
    _put_meta(rows, meta, record)


def _massacre(rows: Rows, record: Record) -> None:
    meta = _meta(rows)
    meta["massacre"] = record["data"]["side"]
    _put_meta(rows, meta, record)


def _holding(rows: Rows, record: Record) -> None:
    data = record["data"]
    rows.put(HOLDING, f"{record['version']:09d}", record["version"],
             {k: data[k] for k in ("side", "entry_area", "units", "held", "cg_date")}
             | {"version": record["version"], "secret_for": data["side"]})


def _control(rows: Rows, record: Record) -> None:
    data = record["data"]
    row = {k: data[k] for k in ("location", "kind", "side", "previous", "rule", "cg_date")}
    row |= {"lvp": data.get("lvp", 0), "map_group": data.get("map_group")}
    rows.put(CONTROL, data["location"], record["version"], row | {"version": record["version"]})


def _initiative(rows: Rows, record: Record) -> None:
    meta = _meta(rows)
    row, cell = _cell(rows, meta, record["data"]["side"])
    cell["chit"] = record["data"]["chit"]
    _put_roster(rows, row)


def _chits_revealed(rows: Rows, record: Record) -> None:
    row = rows.get(ROSTER, record["data"]["cg_date"])
    assert row is not None
    row["chits_revealed"] = True
    if all(chit == "idle" for chit in record["data"]["chits"].values()):
        row["scenario_type"] = row["scenario_type"] or "Idle CG Date"
    if record["data"].get("scenario_type"):
        row["scenario_type"] = record["data"]["scenario_type"]
    _put_roster(rows, row)


def _scenario_recorded(rows: Rows, record: Record) -> None:
    data = record["data"]
    row = rows.get(ROSTER, data["cg_date"])
    assert row is not None
    for field in ("scenario_type", "weather", "ec", "wind"):
        if data.get(field) is not None:
            row[field] = data[field]
    _put_roster(rows, row)


def _step(rows: Rows, record: Record) -> None:
    meta = _meta(rows)
    _step_done(rows, meta, record)
    meta["phase"], meta["step"] = record["data"]["phase"], record["data"]["step"]
    if meta["phase"] == "scenario":
        meta["recon"] = {}  # 3.620: Recon counts "not beyond the next CG scenario"
        row = rows.get(ROSTER, meta["cg_date"])
        assert row is not None
        row["scenario_played"] = True
        _put_roster(rows, row)
    _put_meta(rows, meta, record)


def _step_done(rows: Rows, meta: dict[str, Any], record: Record) -> None:
    """Note the step the RePh leaves, under its CG Date: `as of` and undo name steps."""
    left = record["data"]["previous"] or ("scenario" if meta["phase"] == "scenario" else None)
    if left is not None:
        entered = meta.get("step_entered", 1)
        rows.put(STEP, f"{meta['cg_date']}/{left}", entered,
                 {"cg_date": meta["cg_date"], "step": left, "entered": entered,
                  "left": record["version"]})
    meta["step_entered"] = record["version"]


def _date_started(rows: Rows, record: Record) -> None:
    meta = _meta(rows)
    meta["cg_date"] = record["data"]["cg_date"]
    _put_meta(rows, meta, record)
    row = _new_roster_row(meta, record["version"], meta["cpp"])
    for side, locations in meta.get("recon", {}).items():  # Idle dates' Recon carries on
        row["sides"][side]["recon"] = locations or None
    _put_roster(rows, row)


def _cg_ended(rows: Rows, record: Record) -> None:
    meta = _meta(rows)
    meta["phase"], meta["all_revealed"] = "ended", True
    _put_meta(rows, meta, record)


def _seed_revealed(rows: Rows, record: Record) -> None:
    meta = _meta(rows)
    meta["seed"] = record["data"]["seed"]
    meta["seed_commitment"] = record["data"]["next_commitment"] or meta["seed_commitment"]
    _put_meta(rows, meta, record)


_HANDLERS: dict[str, Fold] = {
    "Created": _created,
    "DiceRolled": _dice_rolled,
    "RGPurchased": _rg_purchased,
    "RGReceived": _rg_received,
    "RGDetermined": _rg_determined,
    "RGRemoved": _rg_removed,
    "CPPCredited": _points("cpp", "cpp_credited", +1),
    "CPPSpent": _points("cpp", "cpp_spent", -1),
    "FPPCredited": _points("fpp", None, +1),  # the roster's FPP column is the balance
    "FortificationPurchased": _points("fpp", "fortifications", -1),
    "PointsAdjusted": _points_adjusted,
    "CasualtyRecorded": _casualty,
    "ControlChanged": _control,
    "WalkingWoundedRecovered": _walking_wounded,
    "ReconRolled": _recon,
    "UnitsWithdrawn": _withdrawn,
    "LVPTotalled": _lvp_totalled,
    "ObjectiveDesignated": _objective,
    "ObjectiveRevealed": _objective,
    "PFChanged": _pf,
    "FanaticismDeclared": _fanaticism,
    "MassacreRecorded": _massacre,
    "HoldingBoxChanged": _holding,
    "ELRChanged": _rating(ELR),
    "SANChanged": _rating(SAN),
    "LevelChanged": _level,
    "InitiativeSelected": _initiative,
    "ChitsRevealed": _chits_revealed,
    "ScenarioRecorded": _scenario_recorded,
    "StepAdvanced": _step,
    "CGDateStarted": _date_started,
    "CGEnded": _cg_ended,
    "SeedRevealed": _seed_revealed,
    "RerollAuthorized": _reroll,
    "RulingRecorded": _ruling,
}

# Events that change no row of the forms, each with the reason (a test holds every event
# type to a handler above or a line here).
NOT_FOLDED: dict[str, str] = {
    "CGDecided": "the CGEnded recorded with it ends the CG on the forms; who conceded or "
                 "won is read from the log",
    "CPPForgone": "the CPP forgone show in the CPPCredited of the Base # it lowers (3.616)",
    "OnMapRecorded": "a note commands are checked against (3.6212 *), on no form",
    "ScenarioEnded": "the StepAdvanced recorded with it ends the scenario on the forms",
    "StepDoneBySide": "a side's part of a step is the guide's to show (read from the "
                      "campaign); the forms show the step when it is left",
    "TokenReplaced": "who may act is access, not a fact of the campaign's forms",
    "Undone": "the views turn their rows back to its target (projections/runner.py), and "
              "a fold of the log skips what it undid",
}
