"""`python -m bench`: every figure of issue 17 (P1-P7) as one JSON object on stdout, each
beside the bare library or the raw driver measured in the same run, with its spread
over repeats. `--quick` takes a few minutes; `--tiny` only checks that every part runs.

    P1 command append rate, Refit / bare eventsourcing (SQLite, PostgreSQL)
    P2 a big campaign's cold load with snapshots, beside the raw rows' fetch and the
       snapshot's floor (its row read, its seal checked, its JSON parsed)
    P3 projection rebuild, beside a raw scan of the same rows
    P4 HTTP, 32 closed-loop clients, 1 and 2 (full: 4) service processes, beside the peer
    P5 export and import of 1M events (quick: 100k) through `refit`, peak RSS
    P6 reads of a 5,000-event campaign while 32 clients write to other campaigns
    P7 read-your-writes, and the opponent's live stream lag
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import run
from bench.figures import absent
from bench.http_figures import http_figures
from bench.stores import store_figures
from bench.transfers import transfer_figures
from infra.modules import install_file

SIZES: dict[str, dict[str, Any]] = {
    "full": {"commands": 2000, "repeats": 5, "events": 200_000, "rebuilds": 3,
             "workers": [1, 2, 4], "http_commands": 100, "http_repeats": 3,
             "read_events": 5000, "pairs": 200, "transfer_events": 1_000_000,
             "transfer_campaign_events": 20_000, "transfer_long_events": 200_000,
             "transfer_with_jobs": True},
    "quick": {"commands": 300, "repeats": 3, "events": 20_000, "rebuilds": 2,
              "workers": [1, 2], "http_commands": 25, "http_repeats": 2,
              "read_events": 5000, "pairs": 40, "transfer_events": 100_000,
              "transfer_campaign_events": 20_000, "transfer_long_events": 0,
              "transfer_with_jobs": True},
    "tiny": {"commands": 40, "repeats": 2, "events": 300, "rebuilds": 2,
             "workers": [1], "http_commands": 3, "http_repeats": 1,
             "read_events": 300, "pairs": 3, "transfer_events": 600,
             "transfer_campaign_events": 300, "transfer_long_events": 0},
}
# Issue 17's targets, for reading the figures beside them (never asserted).
TARGETS = {"P1_ratio": 0.9, "P2_load_ms_200k": 5, "P3_rebuild_events_per_s": 50_000,
           "P4_ratio_to_peer": 0.8, "P4_p99_ms": 50, "P5_export_events_per_s": 100_000,
           "P5_import_events_per_s": 20_000, "P5_peak_rss_mb": 200, "P6_read_p99_ms": 10,
           "P7_live_lag_ms": 1000}


def stores(sizes: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """P1-P3 on SQLite and PostgreSQL, keyed by part, then store."""
    parts: dict[str, dict[str, Any]] = {"P1": {}, "P2": {}, "P3": {}}
    with tempfile.TemporaryDirectory(prefix="refit-bench-") as tmp:
        module_dir = Path(tmp) / "modules"
        install_file(run.FIXTURE_CHART, module_dir)
        figures = {"sqlite": store_figures(
            f"sqlite:///{tmp}/refit.db", f"sqlite:///{tmp}/bare.db", module_dir, sizes,
            lambda m: run.log(f"sqlite: {m}"))}
        with run.postgres_schema() as schema:
            url = f"{run.PG_URL}?schema={schema}"
            figures["postgres"] = store_figures(url, url, module_dir, sizes,
                                                lambda m: run.log(f"postgres: {m}"))
    for store, by_part in figures.items():
        for part, values in by_part.items():
            parts[part][store] = values
    return parts


PARTS = [f"P{n}" for n in range(1, 8)]


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="a run of a few minutes")
    size.add_argument("--tiny", action="store_true", help="every part, tiny (a smoke run)")
    parser.add_argument("--workers", help="service processes for P4, e.g. 1,2,4")
    parser.add_argument("--only", help="some parts, e.g. P4 or P1,P5 (the rest: null)")
    args = parser.parse_args()
    args.parts = args.only.upper().split(",") if args.only else PARTS
    if not set(args.parts) <= set(PARTS):
        parser.error(f"--only takes parts among {','.join(PARTS)}")
    return args


def measured(parts: list[str], sizes: dict[str, Any]) -> dict[str, Any]:
    """The parts asked for, in the order that shares their work."""
    output: dict[str, Any] = {}
    groups = [({"P1", "P2", "P3"}, lambda: stores(sizes)),
              ({"P4", "P6", "P7"}, lambda: http_figures(sizes, run.log, parts)),
              ({"P5"}, lambda: {"P5": transfer_figures(sizes)})]
    for group, measure in groups:
        if group & set(parts):
            output |= failed_or(group, measure)
    return {part: output[part] if part in output else absent("not run (--only)")
            for part in PARTS}


def failed_or(group: set[str], measure: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A group of parts measured; if it fails (the shared database full, say), each of its
    parts says why, and the other groups still run."""
    try:
        return measure()
    except Exception as error:
        run.log(f"{sorted(group)} failed: {error!r}")
        return {part: absent(f"failed: {error!r}"[:300]) for part in group}


def main() -> None:
    """Measure every part and print the JSON."""
    args = parse_args()
    mode = "tiny" if args.tiny else "quick" if args.quick else "full"
    sizes = dict(SIZES[mode])
    if args.workers:
        sizes["workers"] = [int(n) for n in args.workers.split(",")]
    started = time.perf_counter()
    output: dict[str, Any] = {"mode": mode, "sizes": sizes, "machine": run.machine() | {
        "load_average_at_start": round(os.getloadavg()[0], 2)}}
    output |= measured(args.parts, sizes)
    output["machine"]["load_average_at_end"] = round(os.getloadavg()[0], 2)
    output["targets"] = TARGETS
    output["total_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(output))


if __name__ == "__main__":
    main()
