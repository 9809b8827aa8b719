"""The folds of a director's remedies: an authorized re-roll, a ruling beside its roll
(and its sealed figures), a voided roll and an amended purchase line."""

from __future__ import annotations

from projections.rows import (
    PURCHASE,
    ROLL,
    Record,
    Rows,
    iso,
    load_meta,
    put_meta,
    put_roster,
    roster_cell,
    set_left,
)


def fold_reroll(rows: Rows, record: Record) -> None:
    data, meta = record["data"], load_meta(rows)
    meta.setdefault("rerolls", {})[f"{data['slot']}/{data['epoch']}"] = {
        "key": data["key"], "reason": data["reason"], "version": record["version"]}
    put_meta(rows, meta, record)


def fold_ruling(rows: Rows, record: Record) -> None:
    """A ruling stands beside its roll wherever the roll is read (one on the record alone
    shows in the log and in what its corrections changed)."""
    data = record["data"]
    row = None if data["roll_version"] is None else \
        rows.get(ROLL, f"{data['roll_version']:09d}")
    if row is None:  # its roll was undone since: the ruling stays in the log alone
        return
    row.setdefault("rulings", []).append({
        "version": record["version"], "timestamp": iso(record["timestamp"]),
        "verdict": data["verdict"], "reason": data["reason"], "final": data["final"],
        "result": data["result"], "actor": data["actor"], "drm": data.get("drm"),
        "corrections": data.get("corrections") or [],
        "disputed_by": data.get("disputed_by")})
    rows.put(ROLL, f"{data['roll_version']:09d}", data["roll_version"], row)


def fold_ruling_sealed(rows: Rows, record: Record) -> None:
    """A ruling on a secret roll: its corrected figures, beside it for those who see it."""
    data = record["data"]
    row = rows.get(ROLL, f"{data['roll_version']:09d}")
    if row is None:
        return
    for ruling in row.get("rulings", []):
        if ruling["version"] == data["ruling"]:
            ruling |= {name: data[name] for name in ("final", "result", "drm")}
    rows.put(ROLL, f"{data['roll_version']:09d}", data["roll_version"], row)


def fold_roll_voided(rows: Rows, record: Record) -> None:
    """A voided roll stays on the record, marked with the ruling that voided it."""
    data, meta = record["data"], load_meta(rows)
    row = rows.get(ROLL, f"{data['roll_version']:09d}")
    if row is not None:
        row["voided"] = {"ruling": data["ruling"], "reason": data["reason"],
                         "version": record["version"]}
        rows.put(ROLL, f"{data['roll_version']:09d}", data["roll_version"], row)
    side, cpp, fpp = data["side"], data.get("cpp_back", 0), data.get("fpp_back", 0)
    if cpp or fpp:  # what it credited, taken back from the CG Date's roster
        meta["cpp"][side] -= cpp
        meta["fpp"][side] -= fpp
        roster, cell = roster_cell(rows, meta, side)
        cell["cpp_credited" if cpp > 0 else "cpp_spent"] -= abs(cpp)
        set_left(meta, cell, side)
        put_roster(rows, roster)
        put_meta(rows, meta, record)
    line = data.get("line") or {}
    purchase = rows.get(PURCHASE, str(data.get("purchase")))
    if purchase is not None and line:
        purchase |= {k: None for k in ("strength", "units", "leader", "composition")
                     if k in line and line[k] is None}
        rows.put(PURCHASE, str(data["purchase"]), data["purchase"], purchase)


def fold_purchase_amended(rows: Rows, record: Record) -> None:
    """The RG Purchase Record line as the ruling amended it, and the CPP difference."""
    data, meta = record["data"], load_meta(rows)
    row = rows.get(PURCHASE, str(data["purchase"]))
    assert row is not None
    for field, (_, after) in data["changes"].items():
        row["cpp" if field == "cost" else field] = after
    row.setdefault("amended", []).append({"ruling": data["ruling"], "reason": data["reason"],
                                          "changes": data["changes"]})
    rows.put(PURCHASE, str(data["purchase"]), data["purchase"], row)
    if data["cpp_difference"]:
        side = data["side"]
        meta["cpp"][side] -= data["cpp_difference"]
        roster, cell = roster_cell(rows, meta, side)
        cell["cpp_spent"] += data["cpp_difference"]
        set_left(meta, cell, side)
        put_roster(rows, roster)
        put_meta(rows, meta, record)
