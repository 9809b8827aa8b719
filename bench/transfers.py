"""P5 of `python -m bench`: bench/transfer.py's export and import through `refit`, its
figures cut to what issue 17 asks (rates, peak RSS, every re-export identical), with one
process and with `--jobs` one per core."""

from __future__ import annotations

import argparse
import os
from typing import Any

from bench import transfer

KEPT = ("events", "seconds", "events_per_s", "events_per_s_without_process_start",
        "peak_rss_mb_max")


def transfer_figures(sizes: dict[str, Any]) -> dict[str, Any]:
    """The whole history imported by one process and exported by one, on each store; then
    (unless tiny) again with `--jobs` one process per core, as an operator moving a whole
    tournament runs it."""
    figures = transfer_run(sizes, 1)
    result = {"total_events": sizes["transfer_events"],
              "campaigns": figures["inputs"]["campaigns"], "repeats": 1,
              "note": "one run each way (a 1M-event round trip is not repeated)"} \
        | {store: cut(figures[store]) for store in ("sqlite", "postgres")}
    jobs = os.cpu_count() or 1
    if sizes.get("transfer_with_jobs") and jobs > 1:
        more = transfer_run(sizes, jobs)
        result["with_jobs"] = {"jobs": jobs} | {store: cut(more[store])
                                                for store in ("sqlite", "postgres")}
    return result


def transfer_run(sizes: dict[str, Any], jobs: int) -> dict[str, Any]:
    """bench/transfer.py's measurement with `jobs` processes moving the whole history."""
    args = argparse.Namespace(
        total_events=sizes["transfer_events"], campaign_events=sizes["transfer_campaign_events"],
        long_events=sizes["transfer_long_events"], per_process=0,
        repeats=0, jobs=jobs, only=None)  # no as-of reads
    transfer.log(f"P5 export and import of {args.total_events} events, --jobs {jobs}")
    key = os.environ.get("REFIT_SIGNING_KEY_FILE")
    try:
        return transfer.measure(args)
    finally:  # transfer.measure points it at its own (deleted) folder
        if key is None:
            os.environ.pop("REFIT_SIGNING_KEY_FILE", None)
        else:
            os.environ["REFIT_SIGNING_KEY_FILE"] = key


def cut(store: dict[str, Any]) -> dict[str, Any]:
    """One store's import and export figures, the long campaign's too if there was one."""
    result = {step: {k: store[step][k] for k in KEPT} for step in ("import", "export")}
    result["export_mismatches"] = store["export_mismatches"]
    result["process_start_s"] = store["process_start"]["seconds"]
    if "long" in store:
        result["long"] = {step: {k: store["long"][step][k] for k in KEPT}
                          for step in ("import", "export")}
    return result
