"""P1-P3 of `python -m bench`, on each store, beside the bare library and the raw driver:
append rate, a big campaign's load, projection rebuild. The measuring is bench/run.py's."""

from __future__ import annotations

import hmac
import json
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql
from pydantic_core import from_json

from bench import run
from bench.figures import column, ratio, repeated, spread
from infra.settings import Settings


def appends(settings: Settings, bare: Settings, commands: int,
            repeats: int) -> dict[str, Any]:
    """P1: Refit commands/s beside bare eventsourcing appends/s, each repeat side by side
    (run.append_rates alternates them in rounds)."""
    runs = repeated(repeats, lambda: run.append_rates(settings, bare, commands, 2))
    refit, bare_rate = column(runs, "commands_per_s"), column(runs, "baseline_per_s")
    return {"commands": commands, "refit_commands_per_s": spread(refit, 1),
            "bare_appends_per_s": spread(bare_rate, 1), "ratio": ratio(refit, bare_rate),
            "rule_work_us_per_command": spread(column(runs, "rule_work_us_per_command"), 1),
            "ratio_ceiling": spread(column(runs, "ratio_ceiling"), 3),
            "command_events": runs[0]["command_events"]}


def raw_fetch(url: str, campaign: UUID, query: str, table: str,
              one: bool = False) -> tuple[list[Any], float]:
    """The campaign's rows of `query` ("... FROM {} WHERE originator_id = ? ..."), read by
    the raw driver from the store's `table` (SQLite's name, then PostgreSQL's after a
    colon), all or the first; and the seconds the read took, the connection not counted."""
    lite_table, pg_table = table.split(":")
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url[len("sqlite:///"):]) as lite:
            started = time.perf_counter()
            cursor = lite.execute(query.format(lite_table), (campaign.hex,))
            rows = cursor.fetchmany(1) if one else cursor.fetchall()
            seconds = time.perf_counter() - started
        lite.close()
        return rows, seconds
    schema = url.rsplit("schema=", 1)[1]
    with psycopg.connect(run.PG_URL) as conn:
        started = time.perf_counter()
        statement = sql.SQL(query.replace("?", "%s")).format(
            sql.Identifier(schema, pg_table))
        cursor = conn.execute(statement, (campaign,))
        rows = cursor.fetchmany(1) if one else cursor.fetchall()
        return rows, time.perf_counter() - started


def raw_rows_ms(url: str, campaign: UUID) -> float:
    """Milliseconds for the raw driver to fetch every stored event row of one campaign:
    what a load without snapshots must at least read."""
    rows, seconds = raw_fetch(url, campaign, "SELECT * FROM {} WHERE originator_id = ?",
                              "stored_events:refit_events")
    assert rows, "no rows: the table or the id is wrong"
    return seconds * 1000


def snapshot_floor(url: str, campaign: UUID) -> dict[str, float]:
    """The least a load from the campaign's last snapshot must do, without making one
    object of the campaign: the raw driver's fetch of the row, an HMAC-SHA256 over its
    state (the seal infra/seal.py checks) and the JSON parse infra/transcoder.py makes;
    in ms, with the row's size (P2's target beside it)."""
    rows, fetch = raw_fetch(url, campaign, "SELECT state FROM {} WHERE originator_id = ? "
                            "ORDER BY originator_version DESC LIMIT 1",
                            "stored_snapshots:refit_snapshots", one=True)
    assert rows, "no snapshot: the table or the id is wrong"
    state = bytes(rows[0][0])
    started = time.perf_counter()
    hmac.digest(os.urandom(32), state, "sha256")
    sealed = time.perf_counter()
    doc = from_json(state[state.index(b"{"):], cache_strings=False)
    parsed = time.perf_counter()
    return {"snapshot_bytes": len(state), "rolls_of_the_date_share": date_share(doc),
            "fetch_ms": fetch * 1000,
            "seal_ms": (sealed - started) * 1000, "parse_ms": (parsed - sealed) * 1000,
            "floor_ms": (fetch + parsed - started) * 1000}


def date_share(doc: Any) -> float:
    """How much of the snapshot's state is the dice bookkeeping of the CG Date in play:
    each roll's slot and result, which the rules read back (a slot rolled twice is
    refused; 9.60541 and CG4 read a result) and a new CG Date empties. The bench's big
    campaign rolls all its rolls on one CG Date, so its snapshot grows with them."""
    dice = doc.get("state", {}).get("dice", {}).get("_data_", {})
    date = len(json.dumps({key: dice.get(key) for key in ("slots", "results_today")}))
    return round(date / max(1, len(json.dumps(doc))), 3)


def floors(url: str, campaign: UUID, repeats: int) -> dict[str, Any]:
    """`snapshot_floor`'s figures, each spread over the repeats."""
    runs = repeated(repeats, lambda: snapshot_floor(url, campaign))
    return {"snapshot_bytes": int(runs[0]["snapshot_bytes"]),
            "rolls_of_the_date_share": runs[0]["rolls_of_the_date_share"]} | {
        key: spread(column(runs, key)) for key in ("fetch_ms", "seal_ms", "parse_ms",
                                                   "floor_ms")}


def loads(settings: Settings, events: int, repeats: int) -> dict[str, Any]:
    """P2: a campaign of `events` events built, then loaded cold (no aggregate cache) with
    and without snapshots, and just past a snapshot (the worst case); beside the raw
    driver's fetch of the campaign's rows."""
    started = time.perf_counter()
    campaign = run.build_campaign(settings, events)
    build_s = time.perf_counter() - started

    def loaded(expected: int, snapshots: bool) -> list[float]:
        return repeated(repeats, lambda: run.load_ms(settings, campaign, expected, snapshots, 1))

    snapshots, without = loaded(events, True), loaded(events, False)
    raw = repeated(repeats, lambda: raw_rows_ms(settings.database_url, campaign))
    floor = floors(settings.database_url, campaign, repeats)
    worst = run.grow_campaign(settings, campaign, settings.snapshot_interval - 1)
    return {"campaign_events": events, "build_s": round(build_s, 1),
            "load_ms_snapshots": spread(snapshots),
            "load_ms_snapshots_worst": spread(loaded(worst, True)),
            "load_ms_no_snapshots": spread(without),
            "raw_driver_campaign_rows_ms": spread(raw),
            # Reading, checking and parsing the snapshot, before any object is made: a
            # target below it cannot be met by any load of this snapshot on this machine.
            "snapshot_floor": floor}


def rebuilds(settings: Settings, repeats: int) -> dict[str, Any]:
    """P3: projection rebuilds from an empty view (the first also writes the as-of
    checkpoints later ones find kept), beside raw scans of the same rows."""
    url = settings.database_url
    reset, scan = resetter(url)
    rates, per_cpu, folded = [], [], 0
    for attempt in range(max(2, repeats)):
        if attempt:  # the first makes the view's tables
            reset()
        folded, seconds, cpu = run.rebuild_once(settings)
        rates.append(folded / seconds)
        per_cpu.append(folded / max(cpu, 1e-9))
    scans = repeated(repeats, scan)
    assert all(rows == folded for _, rows, _ in scans), (scans, folded)
    scanned = [rate for _, _, rate in scans]
    later = rates[1:]
    return {"events": folded, "first_rebuild_events_per_s_writing_checkpoints":
            round(rates[0], 1), "rebuild_events_per_s": spread(later, 1),
            "rebuild_events_per_cpu_s": spread(per_cpu[1:], 1),
            "raw_scan_table": scans[0][0], "raw_scan_rows_per_s": spread(scanned, 1),
            "rebuild_share_of_raw_scan": round(median(later) / median(scanned), 3)}


def resetter(url: str) -> tuple[Callable[[], None], Callable[[], tuple[str, int, float]]]:
    """How to empty the view, and how to scan the event rows raw, on this store."""
    if url.startswith("sqlite:///"):
        path = Path(url[len("sqlite:///"):])
        return lambda: run.sqlite_reset_view(path), lambda: run.sqlite_scan(path)
    schema = url.rsplit("schema=", 1)[1]
    return lambda: run.postgres_reset_view(schema), lambda: run.postgres_scan(schema)


def store_figures(url: str, bare_url: str, module_dir: Path, sizes: dict[str, int],
                  log: Callable[[str], None]) -> dict[str, dict[str, Any]]:
    """P1, P2 and P3 on one store."""
    key = module_dir.parent / "refit-signing-key"  # the bench's, not the working folder's
    settings = Settings(database_url=url, module_dir=module_dir, signing_key_file=key)
    bare = Settings(database_url=bare_url, module_dir=module_dir, signing_key_file=key)
    log(f"P1 appends ({sizes['commands']} commands x {sizes['repeats']})")
    p1 = appends(settings, bare, sizes["commands"], sizes["repeats"])
    log(f"P2 a {sizes['events']}-event campaign: build and loads")
    p2 = loads(settings, sizes["events"], sizes["repeats"])
    log("P3 rebuilds and raw scans")
    return {"P1": p1, "P2": p2, "P3": rebuilds(settings, sizes["rebuilds"])}
