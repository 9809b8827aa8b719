"""What one real campaign asks of the service: PBr CG I played to CG End by two sides on
the guide alone (tests/modules/test_pbr_guided.py's players, over the HTTP app in
process, SQLite), every request counted by kind and CG Date; the events it stored and
the bytes they take. The figures docs/scale.md builds on. Prints one JSON object.

    python -m bench.reph_mix [--runs 3]
"""

from __future__ import annotations

import argparse
import collections
import json
import sqlite3
import statistics
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from bench.run import PG_URL, postgres_schema
from infra.settings import Settings
from tests.helpers.http import serving
from tests.helpers.paths import FIXTURE_PBR_CGS
from tests.modules.test_pbr_guided import play_to_cg_end


class Counting:
    """The test client, each request counted by method and route (the campaign id cut)."""

    def __init__(self, client: Any) -> None:
        self.client, self.counts = client, collections.Counter[str]()

    def post(self, url: str, **kwargs: Any) -> Any:
        """A POST, counted."""
        self.counts["POST " + route(url)] += 1
        return self.client.post(url, **kwargs)

    def get(self, url: str, **kwargs: Any) -> Any:
        """A GET, counted."""
        self.counts["GET " + route(url)] += 1
        return self.client.get(url, **kwargs)


def route(url: str) -> str:
    """/campaigns/ID/guide -> /campaigns/{id}/guide."""
    parts = url.split("?")[0].split("/")
    return "/".join("{id}" if len(p) == 36 and p.count("-") == 4 else p for p in parts)


def one_cg(folder: Path, url: str | None) -> dict[str, Any]:
    """One CG I to its end: requests by route, events, dates, bytes stored per event."""
    database = url or f"sqlite:///{folder / 'refit.db'}"
    settings = Settings(database_url=database, module_dir=folder / "modules",
                        signing_key_file=folder / "key")
    with contextmanager(serving)(settings, FIXTURE_PBR_CGS) as client:
        counting = Counting(client)
        started = time.perf_counter()
        director, _ = play_to_cg_end(counting)  # type: ignore[arg-type]
        seconds = time.perf_counter() - started
        status, roster = director.read(), director.read("/roster")
    return {"events": status["version"], "cg_dates": len(roster), "seconds": seconds,
            "requests": dict(counting.counts)} | stored(database, status["version"])


def stored(url: str, events: int) -> dict[str, Any]:
    """Bytes on disk per event: each table with its indexes (PostgreSQL), or the event
    states alone (SQLite)."""
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url[len("sqlite:///"):]) as lite:
            size = lite.execute("SELECT sum(length(state)) FROM stored_events").fetchone()[0]
        lite.close()
        return {"state_bytes_per_event": size / events}
    schema = url.rsplit("schema=", 1)[1]
    with psycopg.connect(PG_URL) as conn:
        sizes: dict[str, int] = dict(conn.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace"
            " n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r'",
            (schema,)).fetchall())
        state = conn.execute(sql.SQL("SELECT sum(octet_length(state)) FROM {}.refit_events")
                             .format(sql.Identifier(schema))).fetchone()
    return {"state_bytes_per_event": (state[0] if state else 0) / events,
            "table_bytes_per_event": {name: round(size / events) for name, size in
                                      sizes.items()},
            "bytes_per_event": sum(sizes.values()) / events}


def summed(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The runs' medians: per CG, per CG Date, and the read/write mix."""
    def med(key: str) -> float:
        return statistics.median(r[key] for r in runs)
    routes = sorted({k for r in runs for k in r["requests"]})
    requests = {k: statistics.median(r["requests"].get(k, 0) for r in runs) for k in routes}
    writes = sum(v for k, v in requests.items() if k.startswith("POST /campaigns/{id}/"))
    reads = sum(v for k, v in requests.items() if k.startswith("GET"))
    dates = med("cg_dates")
    return {"runs": len(runs), "events_per_cg": med("events"), "cg_dates": dates,
            "commands_per_cg": writes, "reads_per_cg": reads,
            "commands_per_cg_date": round(writes / dates, 1),
            "events_per_cg_date": round(med("events") / dates, 1),
            "reads_per_command": round(reads / writes, 2),
            "in_process_seconds_per_cg": round(med("seconds"), 1),
            "requests_by_route": requests}


def main() -> None:
    """Play the CG `--runs` times (server dice: each plays differently)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--postgres", action="store_true",
                        help="on PostgreSQL (a fresh schema each), with the bytes per table")
    args = parser.parse_args()
    runs = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="refit-reph-") as folder:
            if args.postgres:
                with postgres_schema() as schema:
                    runs.append(one_cg(Path(folder), f"{PG_URL}?schema={schema}"))
            else:
                runs.append(one_cg(Path(folder), None))
    print(json.dumps(summed(runs) | {"database": "postgres" if args.postgres else "sqlite",
                                     "bytes": [stored_only(r) for r in runs]}))


def stored_only(run: dict[str, Any]) -> dict[str, Any]:
    """A run's bytes per event."""
    return {k: v for k, v in run.items() if "bytes" in k}


if __name__ == "__main__":
    main()
