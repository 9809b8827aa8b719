"""Benchmark export and import (issue 6) on SQLite and PostgreSQL; prints one JSON object.

One real campaign is built (bench/run.py's `build_campaign`) and exported with its seed; the
other campaigns are clones of that export: a new campaign id, every record's "campaign"
rewritten and the hash chain recomputed (a seal does not cover the campaign id). The whole
history (all the files, 1,000,000 events by default) is imported by one `refit import
FILE...` process into an empty database, then exported again by one `refit export ID...
--with-seed --to DIR` process, each file checked byte for byte against the one it came
from: what moving a whole tournament costs. A few of the files are also imported and
exported one process each (into another empty database), as moving one campaign costs,
where starting `refit` weighs more. Wall time and each process's peak RSS (os.wait4) are
measured, with rates over whole processes and without each process's start (the median
`refit --help`). A long campaign (one process each way) shows whether peak RSS grows with
a campaign's length, and it is then loaded (a fresh app, no cache) from the snapshot its
import took. Rates are given per wall second and per CPU second of the process (the
database server's is not counted): on a loaded machine the second says more. Last, in
process (unless --repeats 0): the view folds everything imported (as the first
read after an import would, keeping its as-of checkpoints), then "as of" reads are timed
at points spread over 500 versions from the middle of a campaign, and again with the
checkpoints deleted (a fold from the start).

    python bench/transfer.py [--only sqlite|postgres] [--total-events 1000000]
        [--campaign-events 20000] [--long-events 200000] [--per-process 5] [--repeats 5]
        [--jobs 1]
"""
from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager as ContextManager
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # `bench.run` however this script is started

from bench.run import (  # noqa: E402
    FIXTURE_CHART,
    PG_URL,
    build_campaign,
    load_ms,
    log,
    machine,
    per_s,
    postgres_schema,
)
from domain import merkle  # noqa: E402
from domain.hashing import GENESIS_HASH  # noqa: E402
from domain.history import record_hash  # noqa: E402
from domain.merkle_log import MerkleLog  # noqa: E402
from infra.application import Refit  # noqa: E402
from infra.keys import ServiceKey, load_key  # noqa: E402
from infra.modules import install_file  # noqa: E402
from infra.settings import Settings  # noqa: E402
from infra.transfer import dump_line  # noqa: E402
from projections.runner import CHECKPOINT_EVERY  # noqa: E402
from projections.view import CHECKPOINTS  # noqa: E402

TARGETS = {"export_events_per_s": 100000, "import_events_per_s": 20000, "peak_rss_mb": 200,
           "as_of_ms": 100, "load_ms": 5}
LOADS = 5  # loads of the long campaign, on fresh apps, whose median is reported
STARTS = 3  # `refit --help` runs whose median is the cost of starting a `refit` process


def refit_exe() -> str:
    """The `refit` command beside this Python (the venv's), else the one on the PATH."""
    beside = Path(sys.executable).parent / "refit"
    found = str(beside) if beside.exists() else shutil.which("refit")
    if found is None:
        raise SystemExit("no `refit` command: pip install -e . first")
    return found


# -- the export files -----------------------------------------------------------


def export_file(settings: Settings, campaign: uuid.UUID, path: Path) -> None:
    """The operator's export (with the seed) written to a file."""
    refit = Refit(settings)
    try:
        with path.open("w", encoding="utf-8") as out:
            for line in refit.transfer.export(campaign, private=True):
                out.write(dump_line(line))
    finally:
        refit.close()


def read_lines(path: Path) -> list[dict[str, Any]]:
    """An export's lines, parsed."""
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def cloned(lines: list[dict[str, Any]], campaign: str,
           key: ServiceKey) -> Iterator[dict[str, Any]]:
    """The export as another campaign's: the id rewritten, the chain, tail and signed
    checkpoint recomputed (with the run's one service key, so a re-export is the same)."""
    prev, tree = GENESIS_HASH, MerkleLog()
    for line in lines:
        if "format" in line:
            yield line | {"campaign": campaign}
        elif "version" in line:
            record = line | {"campaign": campaign, "prev_hash": prev}
            prev = record_hash(record)
            tree.append(merkle.leaf_hash(merkle.event_leaf(record)))
            yield record
        else:  # the tail: the module data the history pins travels on unchanged
            origin = f"{key.name}/campaigns/{campaign}"
            yield {k: v for k, v in line.items() if k == "module_data"} | {
                "events": tree.size, "head_hash": prev,
                "checkpoint": key.checkpoint(origin, tree.size, tree.root(tree.size))}


def write_clone(lines: list[dict[str, Any]], path: Path, key: ServiceKey) -> str:
    """A clone under a new campaign id, written as an export file; returns the id."""
    campaign = str(uuid.uuid4())
    with path.open("w", encoding="utf-8") as out:
        for line in cloned(lines, campaign, key):
            out.write(dump_line(line))
    return campaign


def campaign_files(settings: Settings, work: Path, count: int,
                   events: int) -> tuple[list[tuple[str, Path]], float]:
    """`count` export files of `events` events each (one built, the rest cloned); and the
    seconds the build took."""
    started = time.perf_counter()
    original = build_campaign(settings, events)
    build_s = time.perf_counter() - started
    log(f"built a {events}-event campaign in {build_s:.1f}s; cloning it {count - 1} times")
    first = work / "campaign-000.jsonl"
    export_file(settings, original, first)
    lines = read_lines(first)
    files = [(str(original), first)]
    key = load_key(settings)[0]
    for index in range(1, count):
        path = work / f"campaign-{index:03d}.jsonl"
        files.append((write_clone(lines, path, key), path))
    return files, build_s


# -- processes, measured ----------------------------------------------------------


# A process forked by this one would count this one's peak RSS as its own (Linux records
# the old address space's high-water mark at exec), so each measured process is started
# by a small launcher of its own, which times it and reaps it with os.wait4.
LAUNCHER = """
import json, os, subprocess, sys, time
with open(sys.argv[1], "wb") as out, open(sys.argv[2], "wb") as err:
    started = time.perf_counter()
    child = subprocess.Popen(sys.argv[3:], stdout=out, stderr=err)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "code": os.waitstatus_to_exitcode(status),
                  "cpu_s": usage.ru_utime + usage.ru_stime, "maxrss_kb": usage.ru_maxrss}))
"""


@dataclass
class Runs:
    """Wall seconds, CPU seconds and peak RSS (KB) of processes run one after another."""

    seconds: list[float] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)
    peaks_kb: list[int] = field(default_factory=list)

    def run(self, args: list[str], out: Path, env: dict[str, str]) -> None:
        """Run one process to its end, stdout to `out`; a failure stops the benchmark."""
        error = out.with_suffix(".err")
        launched = subprocess.run([sys.executable, "-I", "-S", "-c", LAUNCHER, str(out),
                                   str(error), *args], env=env, capture_output=True,
                                  text=True, check=True)
        done = json.loads(launched.stdout)
        if done["code"] != 0:
            raise SystemExit(f"{' '.join(args)} exited {done['code']}: "
                             f"{error.read_text(errors='replace')[-2000:]}")
        self.seconds.append(done["seconds"])
        self.cpu_s.append(done["cpu_s"])  # the process's own: the database server's is not
        self.peaks_kb.append(done["maxrss_kb"])  # KB on Linux

    def figures(self, events: int, start_s: float) -> dict[str, Any]:
        """Events/s over every run (and without each process's start), the peak RSS."""
        total = sum(self.seconds)
        working = total - start_s * len(self.seconds)
        return {"processes": len(self.seconds), "events": events, "seconds": round(total, 2),
                "cpu_s": round(sum(self.cpu_s), 2), "events_per_s": per_s(events, total),
                "events_per_cpu_s": per_s(events, sum(self.cpu_s)),
                "events_per_s_without_process_start":
                    per_s(events, working) if working > 0 else None,
                "peak_rss_mb_max": mb(max(self.peaks_kb)),
                "peak_rss_mb_median": mb(int(statistics.median(self.peaks_kb)))}


def mb(kb: int) -> float:
    """KB as MB, rounded."""
    return round(kb / 1024, 1)


def process_start(exe: str, work: Path, env: dict[str, str]) -> dict[str, Any]:
    """What starting `refit` costs before any work: the median of a few `refit --help`."""
    runs = Runs()
    for _ in range(STARTS):
        runs.run([exe, "--help"], work / "help.out", env)
    return {"seconds": round(statistics.median(runs.seconds), 3),
            "peak_rss_mb": mb(max(runs.peaks_kb))}


def import_all(exe: str, url: str, files: list[tuple[str, Path]], events: int,
               work: Path, env: dict[str, str], together: bool) -> Runs:
    """`refit import FILE... --jobs JOBS` of every file in one command (`together`), else
    `refit import FILE` one process each, into the database."""
    runs = Runs()
    for group in [files] if together else [[item] for item in files]:
        out = work / "import.out"
        runs.run([exe, "import", *(str(path) for _, path in group), "--db", url, "--json",
                  *jobs_option(together)], out, env)
        done = json.loads(out.read_text())
        done = done if isinstance(done, list) else [done]
        assert [(d["id"], d["events"]) for d in done] == [(c, events) for c, _ in group], done
    return runs


JOBS = 1  # processes a `together` import or export runs (`--jobs`)


def jobs_option(together: bool) -> list[str]:
    """`--jobs JOBS` for a command that moves every campaign, if more than one."""
    return ["--jobs", str(JOBS)] if together and JOBS > 1 else []


def export_all(exe: str, url: str, files: list[tuple[str, Path]], work: Path,
               env: dict[str, str], together: bool) -> tuple[Runs, int]:
    """`refit export ID... --with-seed --to DIR` of every campaign in one process
    (`together`), else `refit export ID --with-seed` one process each; and how many
    re-exports differ from the file imported."""
    runs, mismatches = Runs(), 0
    if together:
        folder = work / "exported"
        folder.mkdir()
        runs.run([exe, "export", *(c for c, _ in files), "--with-seed", "--to", str(folder),
                  "--db", url, *jobs_option(together)], work / "export.out", env)
        for campaign, path in files:
            mismatches += not filecmp.cmp(folder / f"{campaign}.jsonl", path, shallow=False)
        shutil.rmtree(folder)
        return runs, mismatches
    for campaign, path in files:
        out = work / "export.jsonl"
        runs.run([exe, "export", campaign, "--with-seed", "--db", url], out, env)
        mismatches += not filecmp.cmp(out, path, shallow=False)
        out.unlink()
    return runs, mismatches


# -- as-of reads ------------------------------------------------------------------


def delete_checkpoints(url: str) -> None:
    """Forget every as-of checkpoint, so the next as-of read folds from the start."""
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url[len("sqlite:///"):]) as lite:
            lite.execute(f"DELETE FROM {CHECKPOINTS}")
        lite.close()
        return
    schema = url.rsplit("schema=", 1)[1]
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(sql.SQL("DELETE FROM {}.{}").format(
            sql.Identifier(schema), sql.Identifier(CHECKPOINTS)))


def timed_ms(refit: Refit, campaign: uuid.UUID, version: int) -> float:
    """Milliseconds of one roster read as of a version."""
    started = time.perf_counter()
    refit.reads.roster(campaign, version)
    return (time.perf_counter() - started) * 1000


def as_of_reads(settings: Settings, campaign: str, repeats: int) -> dict[str, Any]:
    """The roster as of points in the middle of a campaign. First the view folds what was
    imported (as the first read after an import does), keeping its as-of checkpoints;
    then reads at points spread over the CHECKPOINT_EVERY versions from the middle (the
    most a read folds); then the same reads with the checkpoints deleted (a fold from
    the start, for comparison)."""
    refit = Refit(settings)
    try:
        ident = uuid.UUID(campaign)
        head = refit.store.campaign(ident).version
        started = time.perf_counter()
        folded = refit.views.catch_up()
        fold_s = time.perf_counter() - started
        points = [head // 2 + n * (CHECKPOINT_EVERY - 1) // max(1, repeats - 1)
                  for n in range(repeats)]
        reads = [timed_ms(refit, ident, point) for point in points]
        cold = []
        for point in points:
            delete_checkpoints(settings.database_url)
            cold.append(timed_ms(refit, ident, point))
    finally:
        refit.close()
    return {"campaign_events": head, "as_of": points,
            "view_fold": {"events": folded, "seconds": round(fold_s, 2),
                          "events_per_s": per_s(folded, fold_s)},
            "ms_median": round(statistics.median(reads), 1),
            "ms_worst": round(max(reads), 1),
            "without_checkpoints_ms_median": round(statistics.median(cold), 1),
            "without_checkpoints_ms_worst": round(max(cold), 1)}


# -- one backend --------------------------------------------------------------------


@dataclass(frozen=True)
class Inputs:
    """What every backend imports: the campaign files and the long campaign's file."""

    files: list[tuple[str, Path]]
    campaign_events: int
    long: tuple[str, Path] | None
    long_events: int
    per_process: int  # how many of the files are also moved one process each


def round_trip(exe: str, url: str, files: list[tuple[str, Path]], events: int,
               work: Path, env: dict[str, str], together: bool) -> tuple[Runs, Runs, int]:
    """Import every file, then export every campaign again (checked byte for byte)."""
    imports = import_all(exe, url, files, events, work, env, together)
    exports, mismatches = export_all(exe, url, files, work, env, together)
    return imports, exports, mismatches


def transfer_figures(exe: str, url: str, files: list[tuple[str, Path]], events: int,
                     start_s: float, work: Path, env: dict[str, str],
                     together: bool) -> dict[str, Any]:
    """A round trip of these files, in one process each way or one per file."""
    imports, exports, mismatches = round_trip(exe, url, files, events, work, env, together)
    total = events * len(files)
    return {"campaigns": len(files), "import": imports.figures(total, start_s),
            "export": exports.figures(total, start_s), "export_mismatches": mismatches}


def long_campaign(exe: str, url: str, inputs: Inputs, start_s: float, work: Path,
                  env: dict[str, str]) -> dict[str, Any]:
    """Import and export of the long campaign, one process each."""
    assert inputs.long is not None
    figures = transfer_figures(exe, url, [inputs.long], inputs.long_events, start_s, work,
                               env, together=True)
    return {"events": inputs.long_events} | {k: figures[k] for k in
                                             ("import", "export", "export_mismatches")}


def bench_backend(kind: str, url: str, fresh: Callable[[], ContextManager[str]],
                  inputs: Inputs, module_dir: Path, work: Path,
                  repeats: int) -> dict[str, Any]:
    """Every measurement on one (empty) database; `fresh` gives another, for the files
    moved one process each."""
    exe, env = refit_exe(), os.environ | {"REFIT_MODULE_DIR": str(module_dir)}
    start = process_start(exe, work, env)
    total = inputs.campaign_events * len(inputs.files)
    log(f"{kind}: importing {len(inputs.files)} files ({total} events) in one process, "
        "then exporting them in one")
    result: dict[str, Any] = {"process_start": start} | transfer_figures(
        exe, url, inputs.files, inputs.campaign_events, start["seconds"], work, env,
        together=True)
    if inputs.per_process:
        log(f"{kind}: {inputs.per_process} files, one process each")
        with fresh() as other:
            result["one_process_per_file"] = transfer_figures(
                exe, other, inputs.files[:inputs.per_process], inputs.campaign_events,
                start["seconds"], work, env, together=False)
    if inputs.long is not None:
        log(f"{kind}: the {inputs.long_events}-event campaign")
        result["long"] = long_campaign(exe, url, inputs, start["seconds"], work, env)
    settings = Settings(database_url=url, module_dir=module_dir)
    if inputs.long is not None:  # loaded from the snapshot its import took
        result["long"]["load_ms_snapshots"] = load_ms(
            settings, uuid.UUID(inputs.long[0]), inputs.long_events, True, LOADS)
    if repeats:
        log(f"{kind}: as-of reads")
        result["as_of"] = as_of_reads(settings, inputs.files[0][0], repeats)
    result["peak_rss_mb_by_campaign_events"] = rss_by_length(result, inputs)
    return result


def rss_by_length(result: dict[str, Any], inputs: Inputs) -> dict[str, Any]:
    """Import and export peak RSS of a campaign of each length, side by side."""
    lengths = {str(inputs.campaign_events): result}
    if "long" in result:
        lengths[str(inputs.long_events)] = result["long"]
    return {events: {"import": part["import"]["peak_rss_mb_max"],
                     "export": part["export"]["peak_rss_mb_max"]}
            for events, part in lengths.items()}


def met(result: dict[str, Any]) -> dict[str, bool | None]:
    """Which targets one backend meets: rates over the whole history moved in one process
    each way, its start included."""
    parts = [result] + [result[k] for k in ("one_process_per_file", "long") if k in result]
    peak = max(part[step]["peak_rss_mb_max"] for part in parts for step in ("import", "export"))
    return {
        "export_events_per_s": result["export"]["events_per_s"]
        >= TARGETS["export_events_per_s"],
        "import_events_per_s": result["import"]["events_per_s"]
        >= TARGETS["import_events_per_s"],
        "peak_rss_mb": peak <= TARGETS["peak_rss_mb"],
        "as_of_ms_worst": result["as_of"]["ms_worst"] <= TARGETS["as_of_ms"]
        if "as_of" in result else None,
        "long_load_ms": result["long"]["load_ms_snapshots"] <= TARGETS["load_ms"]
        if "long" in result else None,
        "round_trip_identical": not any(part["export_mismatches"] for part in parts),
    }


# -- the run -------------------------------------------------------------------------


def prepare(args: argparse.Namespace, tmp: Path,
            module_dir: Path) -> tuple[Inputs, dict[str, Any]]:
    """Build the campaigns (in a scratch SQLite database) and write every export file."""
    work = tmp / "files"
    work.mkdir()
    scratch = Settings(database_url=f"sqlite:///{tmp}/source.db", module_dir=module_dir)
    count = args.total_events // args.campaign_events
    started = time.perf_counter()
    files, build_s = campaign_files(scratch, work, count, args.campaign_events)
    timings = {"campaign_build_s": round(build_s, 1),
               "files_s": round(time.perf_counter() - started, 1)}
    long = None
    if args.long_events:
        log(f"building the {args.long_events}-event campaign")
        started = time.perf_counter()
        campaign = build_campaign(scratch, args.long_events)
        timings["long_build_s"] = round(time.perf_counter() - started, 1)
        long = (str(campaign), work / "long.jsonl")
        export_file(scratch, campaign, long[1])
    return Inputs(files, args.campaign_events, long, args.long_events,
                  min(args.per_process, len(files))), timings


@contextmanager
def sqlite_file(tmp: Path, name: str) -> Iterator[str]:
    """A new SQLite database in the scratch folder."""
    yield f"sqlite:///{tmp}/{name}.db"


@contextmanager
def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL schema's URL, the schema dropped afterwards."""
    with postgres_schema() as schema:
        yield f"{PG_URL}?schema={schema}"


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--total-events", type=int, default=1_000_000,
                        help="events of all the campaigns imported together")
    parser.add_argument("--campaign-events", type=int, default=20_000,
                        help="events of each of those campaigns")
    parser.add_argument("--long-events", type=int, default=200_000,
                        help="events of the one long campaign (0: skip it)")
    parser.add_argument("--per-process", type=int, default=5,
                        help="files also moved one process each (0: none)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="as-of reads of each kind (0: skip them and the view's fold)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes the whole history's import and export each run "
                             "(refit ... --jobs)")
    parser.add_argument("--only", choices=["sqlite", "postgres"], help="one backend only")
    args = parser.parse_args()
    if args.campaign_events < 100:
        parser.error("--campaign-events must be 100 or more")
    if args.total_events < args.campaign_events:
        parser.error("--total-events must be at least --campaign-events")
    if args.per_process < 0:
        parser.error("--per-process must be 0 or more")
    if args.long_events and args.long_events < 100:
        parser.error("--long-events must be 0 (skip) or 100 or more")
    return args


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Build the inputs once, run every measurement on each database: the figures."""
    global JOBS
    JOBS = args.jobs
    started = time.perf_counter()
    output: dict[str, Any] = {"machine": machine() | {"load_average_at_start":
                                                       os.getloadavg()[0]},
                              "jobs": JOBS}
    with tempfile.TemporaryDirectory(prefix="refit-bench-transfer-") as name:
        tmp = Path(name)
        # One service key for the run, every process's: a re-export signs the same
        # checkpoint as the file imported, so the two compare byte for byte.
        os.environ["REFIT_SIGNING_KEY_FILE"] = str(tmp / "refit-signing-key")
        module_dir = tmp / "modules"
        install_file(FIXTURE_CHART, module_dir)
        inputs, output["inputs"] = prepare(args, tmp, module_dir)
        output["inputs"] |= {"campaigns": len(inputs.files),
                             "campaign_events": inputs.campaign_events,
                             "long_events": inputs.long_events}
        if args.only in (None, "sqlite"):
            with sqlite_file(tmp, "sqlite") as url:
                output["sqlite"] = bench_backend(
                    "sqlite", url, lambda: sqlite_file(tmp, "sqlite-per-process"), inputs,
                    module_dir, tmp / "files", args.repeats)
        if args.only in (None, "postgres"):
            with postgres_url() as url:
                output["postgres"] = bench_backend("postgres", url, postgres_url, inputs,
                                                   module_dir, tmp / "files", args.repeats)
    output["targets"] = TARGETS
    output["met"] = {k: met(output[k]) for k in ("sqlite", "postgres") if k in output}
    output["machine"]["load_average_at_end"] = os.getloadavg()[0]
    output["total_s"] = round(time.perf_counter() - started, 1)
    return output


def main() -> None:
    """Measure and print the JSON."""
    print(json.dumps(measure(parse_args())))


if __name__ == "__main__":
    main()
