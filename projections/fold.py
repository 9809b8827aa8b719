"""The projections' one fold: each history record updates the rows it touches.

Rows are JSON documents keyed by (kind, key) within a campaign, with an order number.
The same fold drives the materialized views (rows in the database, with tracking) and
the "as of version N" reads (rows in memory, over a prefix of the history).
"""

from __future__ import annotations

from typing import Any

from projections.fold_audit import (
    fold_purchase_amended,
    fold_reroll,
    fold_roll_voided,
    fold_ruling,
    fold_ruling_sealed,
)
from projections.fold_kgp import KGP_FOLDS
from projections.fold_reports import (
    fold_casualty_reported,
    fold_control_reported,
    fold_report_answered,
)
from projections.rows import (
    CASUALTY,
    CONTROL,
    CVP,
    ELR,
    PURCHASE,
    RETAINED,
    ROLL,
    ROSTER,
    SAN,
    STEP,
    Fold,
    Record,
    Rows,
    iso,
    load_meta,
    new_roster_row,
    put_meta,
    put_roster,
    roster_cell,
    set_left,
)

# The fold's version: raised whenever the rows it makes of the same events change, so that
# a view folded before is dropped at start and folded again (projections/view_sql.py).
# 2: the others' SAN history gains the value a 3.623 announcement opened; 3: each report
# between the sides has a row, with how it was answered; 4: each casualty is a row of its
# own, beside its scenario's CVP total (the list grew in one row, written whole each batch),
# and a Fortification on the CG Roster keeps the hex it was placed in; 5: a campaign that
# opens in its Initial Scenario (KGP) has it played on the CG Roster, and a side's PF
# (KGP CG13) are those of the CG Date's scenario only.
FOLD_VERSION = 5


def fold(rows: Rows, record: Record) -> None:
    """Apply one history record to the rows."""
    handler = _HANDLERS.get(record["type"])
    if handler is not None:
        handler(rows, record)
    elif record["type"] not in NOT_FOLDED:  # a new event no one taught the fold
        raise LookupError(f"the fold has no handler for {record['type']}: fold it, or name "
                          "it in NOT_FOLDED with the reason")
    meta = load_meta(rows)
    if meta["version"] != record["version"]:
        put_meta(rows, meta, record)


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
        "created": iso(record["timestamp"]), "version": record["version"],
    }
    put_meta(rows, meta, record)
    row = new_roster_row(meta, record["version"], meta["cpp"])
    for side, cell in row["sides"].items():
        cell["fpp"] = meta["fpp"][side]
    # A campaign that opens in its Initial Scenario (no RePh steps before it: KGP) plays
    # it as it opens, with no step entering it.
    row["scenario_played"] = data["phase"] == "scenario"
    put_roster(rows, row)


def _dice_rolled(rows: Rows, record: Record) -> None:
    data = record["data"]
    row = {k: data[k] for k in (
        "side", "key", "table", "rule", "title", "kind", "subject", "dice", "original",
        "drm", "final", "target", "result", "cg_date", "step", "entered_by", "actor")}
    row |= {"version": record["version"], "timestamp": iso(record["timestamp"]),
            "secret": record.get("sealed") is not None, "secret_for": data["secret_for"]}
    slot, epoch = data["key"].rsplit("/", 1)
    if epoch != "0":  # a director's re-roll: say why beside the new dice
        row["reroll"] = load_meta(rows).get("rerolls", {}).get(f"{slot}/{epoch}")
    rows.put(ROLL, f"{record['version']:09d}", record["version"], row)


def _points_corrected(rows: Rows, record: Record) -> None:
    """A ruling's CPP/FPP correction moves the balance; an ELR/SAN one is a change with
    its cause, like any other."""
    pool = record["data"]["pool"]
    if pool in ("cpp", "fpp"):
        _points_adjusted(rows, record)
    else:
        _rating(pool)(rows, record)


def _points(pool: str, column: str | None, sign: int) -> Fold:
    def handle(rows: Rows, record: Record) -> None:
        data, meta = record["data"], load_meta(rows)
        side = data["side"]
        meta[pool][side] += sign * data["amount"]
        row, cell = roster_cell(rows, meta, side)
        if column == "fortifications":
            hexed = {"hex": data["hex"]} if data.get("hex") else {}  # where the table asks
            cell["fortifications"].append({"item": data["reason"], "count": data.get("count", 1),
                                           "fpp": data["amount"], **hexed})
        elif column == "cpp_spent" and data.get("column") == "recon":
            cell["recon_cpp"] = cell.get("recon_cpp", 0) + data["amount"]
        elif column is not None:
            cell[column] += data["amount"]
        set_left(meta, cell, side)
        put_roster(rows, row)
        put_meta(rows, meta, record)
    return handle


def _rg_purchased(rows: Rows, record: Record) -> None:
    data, meta = record["data"], load_meta(rows)
    side = data["side"]
    meta["cpp"][side] -= data["cost"]
    row, cell = roster_cell(rows, meta, side)
    cell["cpp_spent"] += data["cost"]
    set_left(meta, cell, side)
    cell["rg_purchased"].append({"rg": data["rg"], "kg": data["kg"], "cpp": data["cost"]})
    put_roster(rows, row)
    put_meta(rows, meta, record)
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
        # A Para drop RG is Full without a DR (3.6181 EXC), as strength_of reads it.
        "p": None, "r": None, "units": data.get("units"), "sw": [],
        "strength": data.get("strength") or ("F" if data.get("paradrop") else None),
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


def _set_on_line(rows: Rows, record: Record, **fields: Any) -> None:
    """Write fields on the RG Purchase Record line the record names."""
    number = record["data"]["purchase"]
    row = rows.get(PURCHASE, str(number))
    assert row is not None
    rows.put(PURCHASE, str(number), number, row | fields)


def _rg_removed(rows: Rows, record: Record) -> None:
    data = record["data"]
    _set_on_line(rows, record, removed=f"{data['cg_date']}: {data['reason']}")


def _bombarded(rows: Rows, record: Record) -> None:
    _set_on_line(rows, record, removed=f"{record['data']['cg_date']}: Bombardment "
                 "resolved, Eliminated (note i)")


def _rg_area(rows: Rows, record: Record) -> None:
    # the side's own area: never read as the OB's public one
    _set_on_line(rows, record, recorded_area=record["data"]["area"])


def _rg_casualty(rows: Rows, record: Record) -> None:
    """A casualty on its RG's (secret) line of the RG Purchase Record."""
    data = record["data"]
    if data["purchase"] is None:  # of no RG line: nothing to write on the form
        return
    row = rows.get(PURCHASE, str(data["purchase"]))
    assert row is not None
    row.setdefault("casualties", []).append(
        {"unit": data["unit"], "cvp": data["cvp"], "scenario": data["scenario"]})
    rows.put(PURCHASE, str(data["purchase"]), data["purchase"], row)


def _points_adjusted(rows: Rows, record: Record) -> None:
    """Points halved or forfeit as a step is left (3.617 on 14PM, 3.619): the loss is on
    the CG Date's line, beside Left."""
    data, meta = record["data"], load_meta(rows)
    side = data["side"]
    meta[data["pool"]][side] = data["after"]
    row, cell = roster_cell(rows, meta, side)
    lost = f"{data['pool']}_forfeited"
    cell[lost] = cell.get(lost, 0) + max(0, data["before"] - data["after"])
    set_left(meta, cell, side)
    put_roster(rows, row)
    put_meta(rows, meta, record)


def _forgone(rows: Rows, record: Record) -> None:
    """3.616 EXC: CPP a side forgoes, open (the other side's Base # loses them)."""
    data, meta = record["data"], load_meta(rows)
    row, cell = roster_cell(rows, meta, data["side"])
    cell["cpp_forgone"] = cell.get("cpp_forgone", 0) + data["amount"]
    put_roster(rows, row)


def _casualty(rows: Rows, record: Record) -> None:
    data = record["data"]
    key = f"{data['scenario']}|{data['side']}"
    row = rows.get(CVP, key) or {
        "scenario": data["scenario"], "side": data["side"], "cvp": 0,
        "first_version": record["version"]}
    row["cvp"] += data["cvp"]
    rows.put(CVP, key, row["first_version"], row)
    # A row of its own, not a list in the scenario's: that list grew with every casualty
    # and was written whole again by each batch that added one (bench P3, 200k events).
    rows.put(CASUALTY, str(record["version"]), record["version"], {
        "scenario": data["scenario"], "side": data["side"], "unit": data["unit"],
        "cvp": data["cvp"], "ww_half_squads": data.get("ww_half_squads", 0),
        "version": record["version"]})


def _rating(kind: str) -> Fold:
    def handle(rows: Rows, record: Record) -> None:
        data, meta = record["data"], load_meta(rows)
        side, sealed = data["side"], record.get("sealed") is not None
        meta[kind][side] = data["after"]
        # While a sealed change waits to be announced (3.623), others see the value before.
        shown = meta.setdefault(f"shown_{kind}", {})
        if sealed:
            shown.setdefault(side, data["before"])
        else:
            shown.pop(side, None)
        row, cell = roster_cell(rows, meta, side)
        cell[kind] = data["after"]
        _show(cell, kind, shown, side)
        put_roster(rows, row)
        put_meta(rows, meta, record)
        change = {k: data[k] for k in ("side", "before", "after", "cause", "rule", "cg_date")}
        change |= {"version": record["version"], "secret_for": side if sealed else None}
        rows.put(kind, f"{record['version']:09d}", record["version"], change)
    return handle


def _show(cell: dict[str, Any], kind: str, shown: dict[str, Any], side: str) -> None:
    """Note on the cell what others see of a rating while a sealed change waits."""
    cell.setdefault("shown", {}).pop(kind, None)
    if side in shown:
        cell["shown"][kind] = shown[side]


def _san_announced(rows: Rows, record: Record) -> None:
    """3.623: each side announces its SAN; what a secret purchase changed is open now."""
    meta = load_meta(rows)
    shown = meta.setdefault(f"shown_{SAN}", {})
    row = rows.get(ROSTER, meta["cg_date"])
    assert row is not None
    for side, after in record["data"]["san"].items():
        seen = shown.pop(side, after)
        _show(row["sides"][side], SAN, shown, side)
        if seen != after:  # the others' SAN history reaches the value announced
            rows.put(SAN, f"{record['version']:09d}:{side}", record["version"], {
                "side": side, "before": seen, "after": after, "rule": record["data"]["rule"],
                "cause": "announced (changed in secret since)", "version": record["version"],
                "cg_date": record["data"]["cg_date"], "secret_for": None, "others_of": side})
    put_roster(rows, row)
    put_meta(rows, meta, record)


def _level(rows: Rows, record: Record) -> None:
    data, meta = record["data"], load_meta(rows)
    meta["levels"][data["level"]] = data["after"]
    row = rows.get(ROSTER, meta["cg_date"])
    assert row is not None
    row["levels"] = dict(meta["levels"])
    put_roster(rows, row)
    put_meta(rows, meta, record)


def _order_decided(rows: Rows, record: Record) -> None:
    """Who sets up and who moves first in the CG Date's scenario (3.6213, 3.623)."""
    data = record["data"]
    row = rows.get(ROSTER, data["cg_date"])
    assert row is not None
    for field in ("sets_up_first", "moves_first"):
        if data[field] is not None:
            row[field] = data[field]
    put_roster(rows, row)


def _retained(rows: Rows, record: Record) -> None:
    """A side's Retained units on a CG Date: each part replaces the same part before."""
    data = record["data"]
    part = "sealed" if data["sealed_part"] else "open"
    key = f"{data['cg_date']}|{data['side']}|{part}"
    before = rows.get(RETAINED, key)
    order = before["order"] if before is not None else record["version"]
    rows.put(RETAINED, key, order, {
        "cg_date": data["cg_date"], "side": data["side"], "units": data["units"],
        "order": order, "version": record["version"],
        "secret_for": data["side"] if data["sealed_part"] else None})
    if data.get("lines") is not None:  # the open units' RG lines, sealed (3.6172)
        shown = rows.get(RETAINED, f"{data['cg_date']}|{data['side']}|open")
        if shown is not None:
            rows.put(RETAINED, f"{data['cg_date']}|{data['side']}|open", shown["order"],
                     shown | {"units": [unit | {"purchase": line} for unit, line
                                        in zip(shown["units"], data["lines"], strict=False)]})


def _walking_wounded(rows: Rows, record: Record) -> None:
    data, meta = record["data"], load_meta(rows)
    row, cell = roster_cell(rows, meta, data["side"])
    cell["ww_received"] = {"unit": data["unit"], "count": data["squads"],
                           "discarded_half_squads": data["half_squads"] % 2}
    put_roster(rows, row)


def _recon(rows: Rows, record: Record) -> None:
    data, meta = record["data"], load_meta(rows)
    pool = meta.setdefault("recon", {})
    pool[data["side"]] = pool.get(data["side"], 0) + data["locations"]  # Idle dates add up
    row, cell = roster_cell(rows, meta, data["side"])
    cell["recon"] = pool[data["side"]]
    put_roster(rows, row)
    put_meta(rows, meta, record)


def _withdrawn(rows: Rows, record: Record) -> None:
    data, meta = record["data"], load_meta(rows)
    row, cell = roster_cell(rows, meta, data["side"])
    cell.setdefault("withdrawn", []).append(
        {"units": data["units"], "rule": data["rule"],  # a list of kinds, or old text
         "retained_off_map": data["retained_off_map"]} |
        ({"note": data["note"]} if data.get("note") else {}))
    put_roster(rows, row)


def _control(rows: Rows, record: Record) -> None:
    data = record["data"]
    row = {k: data[k] for k in ("location", "kind", "side", "previous", "rule", "cg_date")}
    row |= {"lvp": data.get("lvp", 0), "map_group": data.get("map_group")}
    rows.put(CONTROL, data["location"], record["version"], row | {"version": record["version"]})


def _initiative(rows: Rows, record: Record) -> None:
    meta = load_meta(rows)
    row, cell = roster_cell(rows, meta, record["data"]["side"])
    cell["chit"] = record["data"]["chit"]
    put_roster(rows, row)


def _chits_revealed(rows: Rows, record: Record) -> None:
    row = rows.get(ROSTER, record["data"]["cg_date"])
    assert row is not None
    row["chits_revealed"] = True
    if all(chit == "idle" for chit in record["data"]["chits"].values()):
        row["scenario_type"] = row["scenario_type"] or "Idle CG Date"
    if record["data"].get("scenario_type"):
        row["scenario_type"] = record["data"]["scenario_type"]
    put_roster(rows, row)


def _scenario_recorded(rows: Rows, record: Record) -> None:
    data = record["data"]
    row = rows.get(ROSTER, data["cg_date"])
    assert row is not None
    for field in ("scenario_type", "weather", "ec", "wind"):
        if data.get(field) is not None:
            row[field] = data[field]
    put_roster(rows, row)


def _step(rows: Rows, record: Record) -> None:
    meta = load_meta(rows)
    _step_done(rows, meta, record)
    meta["phase"], meta["step"] = record["data"]["phase"], record["data"]["step"]
    if meta["phase"] == "scenario":
        meta["recon"] = {}  # 3.620: Recon counts "not beyond the next CG scenario"
        row = rows.get(ROSTER, meta["cg_date"])
        assert row is not None
        row["scenario_played"] = True
        put_roster(rows, row)
    put_meta(rows, meta, record)


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
    meta = load_meta(rows)
    meta["cg_date"] = record["data"]["cg_date"]
    put_meta(rows, meta, record)
    row = new_roster_row(meta, record["version"], meta["cpp"])
    for side, locations in meta.get("recon", {}).items():  # Idle dates' Recon carries on
        row["sides"][side]["recon"] = locations or None
    put_roster(rows, row)


def _cg_ended(rows: Rows, record: Record) -> None:
    meta = load_meta(rows)
    meta["phase"], meta["all_revealed"] = "ended", True
    put_meta(rows, meta, record)


def _seed_revealed(rows: Rows, record: Record) -> None:
    meta = load_meta(rows)
    meta["seed"] = record["data"]["seed"]
    meta["seed_commitment"] = record["data"]["next_commitment"] or meta["seed_commitment"]
    put_meta(rows, meta, record)


_HANDLERS: dict[str, Fold] = {
    # A report changes no form until it is confirmed (the CasualtyRecorded or ControlChanged
    # recorded then is folded): its own row says how it was answered.
    "CasualtyReported": fold_casualty_reported,
    "ControlReported": fold_control_reported,
    "ReportConfirmed": fold_report_answered("confirmed"),
    "ReportDisputed": fold_report_answered("disputed"),
    "ReportWithdrawn": fold_report_answered("withdrawn"),
    "Created": _created,
    "DiceRolled": _dice_rolled,
    "RGPurchased": _rg_purchased,
    "RGReceived": _rg_received,
    "RGDetermined": _rg_determined,
    "RGRemoved": _rg_removed,
    "BombardmentResolved": _bombarded,
    "CPPCredited": _points("cpp", "cpp_credited", +1),
    "CPPSpent": _points("cpp", "cpp_spent", -1),
    "FPPCredited": _points("fpp", None, +1),  # the roster's FPP column is the balance
    "FortificationPurchased": _points("fpp", "fortifications", -1),
    "PointsAdjusted": _points_adjusted,
    "CPPForgone": _forgone,
    "RGAreaRecorded": _rg_area,
    "RGCasualty": _rg_casualty,
    "OrderDecided": _order_decided,
    "SANAnnounced": _san_announced,
    "UnitsRetained": _retained,
    "CasualtyRecorded": _casualty,
    "ControlChanged": _control,
    "WalkingWoundedRecovered": _walking_wounded,
    "ReconRolled": _recon,
    "UnitsWithdrawn": _withdrawn,
    **KGP_FOLDS,
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
    "RerollAuthorized": fold_reroll,
    "RulingRecorded": fold_ruling,
    "RulingSealed": fold_ruling_sealed,
    "RollVoided": fold_roll_voided,
    "PointsCorrected": _points_corrected,
    "PurchaseAmended": fold_purchase_amended,
}

# Events that change no row of the forms, each with the reason (a test holds every event
# type to a handler above or a line here).
NOT_FOLDED: dict[str, str] = {
    "RollDisputed": "the open disputes are read from the campaign (status `disputes`), and "
                    "each roll's from the log by the roll audit; a ruling closes it",
    "SeedShareContributed": "a side's dice seed share is on no form; the event log shows "
                            "it, and verify and the roll audit mix it into the seed",
    "ModuleUpgraded": "the module data a campaign plays is read from the campaign (status "
                      "`module_data`); the event log shows what changed",
    "CGDecided": "the CGEnded recorded with it ends the CG on the forms; who conceded or "
                 "won is read from the log",
    "OnMapRecorded": "a note commands are checked against (3.6212 *), on no form",
    "TurnEnded": "a turn's end is what a Game End dr is due after (CG4, CG23): the guide "
                 "reads it from the campaign; no form has a Game Turn column",
    "ScenarioEnded": "the StepAdvanced recorded with it ends the scenario on the forms",
    "RollAuthorized": "a missed roll a ruling allows: the campaign (and its guide) keeps "
                      "it until the roll is made, which the forms show",
    "StepDoneBySide": "a side's part of a step is the guide's to show (read from the "
                      "campaign); the forms show the step when it is left",
    "TokenReplaced": "who may act is access, not a fact of the campaign's forms",
    "PurchasePadded": "nothing happened: it pads a secret purchase's sealed records to as "
                      "many as any RG of the chart appends",
    **dict.fromkeys(("SideKeyRegistered", "CheckpointCosigned"),
                    "a side's key and co-signatures are proofs of the log, on no form: "
                    "the event log shows them and verify checks them"),
    "CasualtyLineReported": "a reported casualty's RG line, sealed: no row reads it (the "
                            "CasualtyReported beside it is folded)",
    "Undone": "the views turn their rows back to its target (projections/runner.py), and "
              "a fold of the log skips what it undid",
}
