"""Benchmark Refit on SQLite and PostgreSQL; prints one JSON object on stdout."""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event
from psycopg import sql

from domain import commands as cmd
from domain.campaign import Campaign
from domain.rules import Module
from infra.application import Refit
from infra.modules import install_file
from infra.results import Tokens
from infra.settings import Settings
from projections.view import TABLE as VIEW_TABLE

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_CHART = ROOT / "tests" / "data" / "fixture_chart.json"
PG_URL = os.environ.get("REFIT_BENCH_POSTGRES_URL", "postgresql://root@127.0.0.1:5432/test")
TARGETS = {"ratio": 0.5, "load_ms": 50, "rebuild_events_per_s": 50000}
ACTOR = "director"
MODULE, CG, PURCHASE_STEP, RG = "pbr", "I", "3.617", "X2"
INITIATIVE_STEP = "3.621"  # both chits are chosen here before a RePh moves on
# The libraries whose versions the figures depend on, printed with them.
LIBRARIES = ("eventsourcing", "pydantic", "pydantic-core", "fastapi", "starlette", "uvicorn",
             "psycopg", "orjson", "cryptography", "typer")
MAX_DATES = 4  # CG Dates the command mix runs through (pbr has 11)
BUILD_BATCH = 500  # events per save while building the big campaign

HEROIC = cmd.DRMClaim(id="T1-heroic")
ISOLATED = cmd.DRMClaim(id="T1-isolated")
MIX: list[cmd.Command] = [  # the bulk of the timed mix: 5 rolls, 3 credits, 2 casualties
    cmd.Roll(table="T1", side="British", drm=[HEROIC], subject="unit:Lt.Smith"),
    cmd.CreditCPP(side="Axis", amount=3, reason="loss points", rule="3.616"),
    cmd.Roll(table="T1", side="Axis", drm=[ISOLATED], subject="unit:Lt.Braun"),
    cmd.RecordCasualty(side="Axis", unit="4-6-8", cvp=2),
    cmd.Roll(table="T1", side="British", subject="unit:Sgt.Jones"),
    cmd.CreditCPP(side="British", amount=2, reason="loss points", rule="3.616"),
    cmd.Roll(table="T1", side="Axis", drm=[ISOLATED, HEROIC], subject="unit:Sgt.Vogel"),
    cmd.RecordCasualty(side="British", unit="4-5-7", cvp=1),
    cmd.Roll(table="T1", side="British", drm=[HEROIC], subject="unit:Capt.Frost"),
    cmd.CreditCPP(side="Axis", amount=1, reason="base", rule="3.616"),
]
ONE_EVENT = cmd.CreditCPP(side="Axis", amount=1, reason="base", rule="3.616")


def mixed(index: int) -> cmd.Command:
    """The mix's command at `index`: a roll is for a unit of its own (one key per unit)."""
    command = MIX[index % len(MIX)]
    if isinstance(command, cmd.Roll):
        return command.model_copy(update={"subject": f"{command.subject}-{index}"})
    return command


def log(message: str) -> None:
    """Progress on stderr."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def per_s(count: int, seconds: float) -> float:
    """A rate, rounded."""
    return round(count / seconds, 1) if seconds > 0 else 0.0


# -- the bare baseline --------------------------------------------------------


class Tally(Aggregate):
    """A bare aggregate with one trivial event."""

    def __init__(self) -> None:
        self.count = 0

    @event("Ticked")
    def tick(self) -> None:
        """The trivial event."""
        self.count += 1


class BareApp(Application[UUID]):
    """A bare eventsourcing application, no snapshots, nothing else."""

    name = "bare"


def time_bare(app: BareApp, tally_id: UUID, count: int) -> float:
    """Seconds for `count` bare appends: get (cached), one trivial event, save."""
    started = time.perf_counter()
    for _ in range(count):
        aggregate: Tally = app.repository.get(tally_id)
        aggregate.tick()
        app.save(aggregate)
    return time.perf_counter() - started


# -- the command mix ----------------------------------------------------------


def date_prelude(module: Module, first: bool) -> list[cmd.Command]:
    """One CG Date's turn of the RePh: to the purchase step, buy, advance to the scenario."""
    rules = [step.rule for step in module.steps]
    initial = [step.rule for step in module.steps if step.initial]
    prelude: list[cmd.Command] = []
    if not first:
        prelude += [cmd.EndScenario()] + [cmd.Advance()] * rules.index(PURCHASE_STEP)
    prelude += [cmd.CreditCPP(side="Axis", amount=10, reason="replenishment", rule="3.616")]
    prelude += [cmd.PurchaseRG(side="Axis", rg=RG)] * 2
    if first:
        return prelude + [cmd.Advance()] * len(initial)
    to_initiative = rules.index(INITIATIVE_STEP) - rules.index(PURCHASE_STEP)
    chits: list[cmd.Command] = [cmd.SelectInitiative(side=side, chit="attack")
                                for side in ("Axis", "British")]
    # Two Attack chits make a Dual Attack: the British dr for who sets up first is due
    # (3.6213), and at 3.623 the one for who moves first.
    chits.append(cmd.Roll(table="3.6213", side="British"))
    after: list[cmd.Command] = [cmd.Advance()] * (len(rules) - rules.index(INITIATIVE_STEP))
    moving = rules.index("3.623") - rules.index(INITIATIVE_STEP)
    after.insert(moving, cmd.Roll(table="3.623", side="British"))
    return prelude + [cmd.Advance()] * to_initiative + chits + after


def command_mix(module: Module, count: int) -> list[cmd.Command]:
    """Exactly `count` commands over a few CG Dates: RePh steps, purchases, then the mix."""
    dates = max(1, min(MAX_DATES, count // 200))
    preludes = [date_prelude(module, first=d == 0) for d in range(dates)]
    bulk = count - sum(len(p) for p in preludes)
    if bulk < 0:
        raise SystemExit(f"--commands {count} is too few for the RePh steps; try 200+")
    commands: list[cmd.Command] = []
    for d, prelude in enumerate(preludes):
        share = bulk // dates + (1 if d < bulk % dates else 0)
        commands += prelude + [mixed(len(commands) + i) for i in range(share)]
    return commands


def time_commands(refit: Refit, campaign_id: UUID, commands: list[cmd.Command]) -> float:
    """Seconds to run the commands through Refit.execute, one save each."""
    started = time.perf_counter()
    for command in commands:
        refit.commands.execute(campaign_id, command, ACTOR)
    return time.perf_counter() - started


def rule_work_s(campaign: Campaign, commands: list[cmd.Command]) -> float:
    """Seconds for the campaign alone to run the commands in memory: the rules, the dice,
    each event recorded and folded (its hash chain), nothing stored, copied or signed.
    What a command costs beyond a bare append, at least."""
    started = time.perf_counter()
    for command in commands:
        campaign.execute(command, ACTOR)
        campaign.collect_events()  # what a save takes: pending events never pile up
    return time.perf_counter() - started


def append_rates(settings: Settings, bare: Settings, count: int,
                 rounds: int) -> dict[str, Any]:
    """Refit commands/s and bare appends/s, timed in alternating rounds to share any drift."""
    refit, app = Refit(settings), BareApp(bare.eventsourcing_env())
    try:
        commands = command_mix(refit.store.module(MODULE), count)
        campaign = refit.commands.create_campaign(MODULE, CG, "Bench commands", "server")
        tally = Tally()
        app.save(tally)
        fresh = refit.store.campaign(campaign.id)  # version 1, for the rule work alone
        refit_s = bare_s = rules_s = 0.0
        size = -(-count // rounds)
        for start in range(0, count, size):  # the rule work alone in the same rounds
            chunk = commands[start:start + size]
            refit_s += time_commands(refit, campaign.id, chunk)
            bare_s += time_bare(app, tally.id, len(chunk))
            rules_s += rule_work_s(fresh, chunk)
        final = refit.store.campaign(campaign.id)
        assert fresh.version == final.version, (fresh.version, final.version)
        assert final.reph.phase == "scenario", final.reph.phase
        assert app.repository.get(tally.id).version == count + 1
    finally:
        refit.close()
        app.close()
    commands_rate, baseline_rate = per_s(count, refit_s), per_s(count, bare_s)
    return {
        "commands": count,
        "commands_per_s": commands_rate,
        "baseline_per_s": baseline_rate,
        "ratio": round(commands_rate / baseline_rate, 3),
        # The ratio if a command cost only its rule work beyond a bare append (timed in
        # memory, where it runs faster than between a command's reads and writes): no
        # design of the store or of the copy gets above it.
        "rule_work_us_per_command": round(rules_s / count * 1e6, 1),
        "ratio_ceiling": round(bare_s / (bare_s + rules_s), 3),
        "command_mix": dict(collections.Counter(command.type for command in commands)),
        "command_events": final.version - 1,
    }


# -- the big campaign: build, load --------------------------------------------


def extend(refit: Refit, campaign: Campaign, until: int) -> None:
    """Append cheap events (rolls, CPP credits, casualties) until the version is `until`
    exactly: the last one a CPP credit where a casualty's two events would pass it."""
    while campaign.version < until:
        for _ in range(min(BUILD_BATCH, until - campaign.version)):
            if campaign.version >= until:
                break
            command = mixed(campaign.version)
            if until - campaign.version == 1 and command.type == "record_casualty":
                command = ONE_EVENT
            campaign.execute(command, ACTOR)
        refit.store.save(campaign)


def build_campaign(settings: Settings, events: int) -> UUID:
    """A campaign of exactly `events` events, in its scenario, saved in batches."""
    return build_with_tokens(settings, events)[0]


def build_with_tokens(settings: Settings, events: int) -> tuple[UUID, Tokens]:
    """`build_campaign`, and the campaign's role tokens (for a service to be read)."""
    refit = Refit(settings)
    try:
        campaign, tokens = refit.commands.open_campaign(MODULE, CG, "Bench load", "server")
        for _ in range(len([s for s in refit.store.module(MODULE).steps if s.initial])):
            refit.commands.execute(campaign.id, cmd.Advance(), ACTOR)
        campaign = refit.store.campaign(campaign.id)
        assert campaign.reph.phase == "scenario"
        extend(refit, campaign, events)
        assert refit.store.campaign(campaign.id).version == events
    finally:
        refit.close()
    return campaign.id, tokens


def grow_campaign(settings: Settings, campaign_id: UUID, by: int) -> int:
    """Append `by` more events to the campaign; returns its new version."""
    refit = Refit(settings)
    try:
        campaign = refit.store.campaign(campaign_id)
        extend(refit, campaign, campaign.version + by)
        return campaign.version
    finally:
        refit.close()


def load_ms(settings: Settings, campaign_id: UUID, expected: int, snapshots: bool,
            repeats: int) -> float:
    """Median ms of `repository.get` on fresh apps with no aggregate cache."""
    cold = settings.model_copy(update={"aggregate_cache": 0})
    times = []
    for _ in range(repeats):
        refit = Refit(cold)
        try:
            assert refit.store.repository.cache is None
            if not snapshots:
                refit.store.repository.snapshot_store = None
            refit.store.recorder.max_notification_id()  # a ready connection, not a warm aggregate
            started = time.perf_counter()
            campaign: Campaign = refit.store.repository.get(campaign_id)
            times.append((time.perf_counter() - started) * 1000)
            assert campaign.version == expected
        finally:
            refit.close()
    return round(statistics.median(times), 2)


# -- projection rebuild and raw scan ------------------------------------------


def rebuild_once(settings: Settings) -> tuple[int, float, float]:
    """Events folded, and seconds (wall clock, and this process's CPU), catching a new
    app's empty view up from zero."""
    refit = Refit(settings)
    try:
        view = refit.views.view  # creates the view's tables: not timed
        assert view.max_tracking_id(refit.store.name) is None, "the view is not empty"
        started, cpu = time.perf_counter(), time.process_time()
        folded = refit.views.catch_up()
        return folded, time.perf_counter() - started, time.process_time() - cpu
    finally:
        refit.close()


def rebuild_per_s(settings: Settings, reset: Callable[[], None],
                  repeats: int) -> dict[str, Any]:
    """Events folded, the median events per second of full rebuilds (emptying the view
    between them), and the first rebuild's: only it writes the as-of checkpoints, which
    later rebuilds find kept (history, not view). The CPU rate counts this process's
    CPU only (not the database server's): on a loaded machine it says what the code
    costs when the wall clock says how long it waited for a core."""
    rates, cpu_rates, folded = [], [], 0
    for attempt in range(repeats):
        if attempt:
            reset()
        folded, seconds, cpu = rebuild_once(settings)
        rates.append(per_s(folded, seconds))
        cpu_rates.append(per_s(folded, cpu))
    return {"rebuild_events": folded,
            "rebuild_events_per_s": round(statistics.median(rates), 1),
            "rebuild_events_per_s_spread": [min(rates), max(rates)],
            "rebuild_events_per_cpu_s": round(statistics.median(cpu_rates), 1),
            "first_rebuild_events_per_s_writing_checkpoints": rates[0]}


def timed_scan(fetch: Callable[[], int], repeats: int = 3) -> tuple[int, float]:
    """Rows and median rows per second of a raw `SELECT` of every stored event."""
    rates, rows = [], 0
    for _ in range(repeats):
        started = time.perf_counter()
        rows = fetch()
        rates.append(per_s(rows, time.perf_counter() - started))
    return rows, round(statistics.median(rates), 1)


def sqlite_scan(path: Path) -> tuple[str, int, float]:
    """The SQLite events table, checked by name, scanned with sqlite3."""
    with sqlite3.connect(path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert "stored_events" in tables, tables

        def fetch() -> int:
            return len(conn.execute("SELECT * FROM stored_events").fetchall())

        rows, rate = timed_scan(fetch)
    conn.close()
    return "stored_events", rows, rate


def sqlite_reset_view(path: Path) -> None:
    """Empty the view's rows and forget its tracking."""
    with sqlite3.connect(path) as conn:
        conn.execute(f"DELETE FROM {VIEW_TABLE}")
        conn.execute("DELETE FROM tracking WHERE application_name = 'refit'")
    conn.close()


def postgres_reset_view(schema: str) -> None:
    """Empty the view's rows and forget its tracking."""
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(sql.SQL("TRUNCATE {}.{}").format(
            sql.Identifier(schema), sql.Identifier(VIEW_TABLE)))
        conn.execute(sql.SQL("DELETE FROM {}.refit_tracking WHERE application_name = 'refit'")
                     .format(sql.Identifier(schema)))


def postgres_scan(schema: str) -> tuple[str, int, float]:
    """The PostgreSQL events table, checked by name, scanned with psycopg."""
    with psycopg.connect(PG_URL) as conn:
        tables = {r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            (schema,))}
        assert "refit_events" in tables, tables
        query = sql.SQL("SELECT * FROM {}.refit_events").format(sql.Identifier(schema))

        def fetch() -> int:
            with conn.cursor() as cursor:
                cursor.execute(query)
                return len(cursor.fetchall())

        rows, rate = timed_scan(fetch)
    return f"{schema}.refit_events", rows, rate


# -- one backend ----------------------------------------------------------------


def load_results(kind: str, settings: Settings, events: int, repeats: int) -> dict[str, Any]:
    """Build the big campaign, then time loads with and without snapshots."""
    started = time.perf_counter()
    campaign_id = build_campaign(settings, events)
    build_s = time.perf_counter() - started
    log(f"{kind}: built in {build_s:.1f}s; loading")
    with_snapshots = load_ms(settings, campaign_id, events, True, repeats)
    without = load_ms(settings, campaign_id, events, False, repeats)
    interval = settings.snapshot_interval
    worst_version = grow_campaign(settings, campaign_id, interval - 1)
    return {
        "campaign_events": events,
        "build_s": round(build_s, 2),
        "snapshot_interval": interval,
        "load_ms_snapshots": with_snapshots,
        "load_ms_snapshots_worst": load_ms(settings, campaign_id, worst_version, True, repeats),
        "load_worst_events_after_snapshot": worst_version % interval,
        "load_ms_no_snapshots": without,
    }


def rebuild_results(kind: str, url: str, settings: Settings, repeats: int) -> dict[str, Any]:
    """Projection rebuilds from zero, beside raw scans of the same event rows."""
    if kind == "sqlite":
        path = Path(url[len("sqlite:///"):])
        result = rebuild_per_s(settings, lambda: sqlite_reset_view(path), repeats)
        log(f"{kind}: raw scans")
        table, rows, scan_rate = sqlite_scan(path)
    else:
        schema = url.rsplit("schema=", 1)[1]
        result = rebuild_per_s(settings, lambda: postgres_reset_view(schema), repeats)
        log(f"{kind}: raw scans")
        table, rows, scan_rate = postgres_scan(schema)
    assert rows == result["rebuild_events"], (rows, result)
    return result | {
        "raw_scan_table": table,
        "raw_scan_rows": rows,
        "raw_scan_rows_per_s": scan_rate,
        "rebuild_to_raw_scan": round(result["rebuild_events_per_s"] / scan_rate, 3),
    }


def bench_backend(kind: str, url: str, bare_url: str, module_dir: Path,
                  args: argparse.Namespace) -> dict[str, Any]:
    """Every measurement on one database."""
    settings = Settings(database_url=url, module_dir=module_dir)
    bare = Settings(database_url=bare_url, module_dir=module_dir)
    if args.rebuild_only:
        log(f"{kind}: building a {args.events}-event campaign")
        build_campaign(settings, args.events)
        log(f"{kind}: projection rebuilds from zero")
        return rebuild_results(kind, url, settings, args.rebuilds)
    log(f"{kind}: {args.commands} commands through Refit.execute, and as many bare appends")
    result = append_rates(settings, bare, args.commands, args.rounds)
    log(f"{kind}: building a {args.events}-event campaign")
    result |= load_results(kind, settings, args.events, args.repeats)
    log(f"{kind}: projection rebuilds from zero")
    return result | rebuild_results(kind, url, settings, args.rebuilds)


@contextmanager
def postgres_schema() -> Iterator[str]:
    """A fresh schema, dropped afterwards."""
    schema = f"refit_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    try:
        yield schema
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


def met(result: dict[str, Any]) -> dict[str, bool]:
    """Which targets one backend meets."""
    return {
        "ratio": result["ratio"] >= TARGETS["ratio"],
        "load_ms": result["load_ms_snapshots"] <= TARGETS["load_ms"],
        "load_ms_worst": result["load_ms_snapshots_worst"] <= TARGETS["load_ms"],
        "rebuild_events_per_s": result["rebuild_events_per_s"] >= TARGETS["rebuild_events_per_s"],
    }


def machine() -> dict[str, Any]:
    """Where the numbers were taken."""
    with psycopg.connect(PG_URL) as conn:
        server = conn.execute("SHOW server_version").fetchone()
    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "python_loop_ms": python_loop_ms(),
        **{name: package_version(name) for name in LIBRARIES},
        "sqlite": sqlite3.sqlite_version,
        "postgres": server[0] if server else None,
    }


def python_loop_ms(rounds: int = 7) -> float:
    """One core's speed at plain Python: the best of a few `sum(range(10**6))`, in ms. Runs
    of the bench on different machines compare by it (most figures here are CPU-bound)."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        sum(range(10**6))
        best = min(best, time.perf_counter() - started)
    return round(best * 1000, 2)


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commands", type=int, default=2000, help="commands to time")
    parser.add_argument("--events", type=int, default=20000, help="events of the big campaign")
    parser.add_argument("--rounds", type=int, default=4,
                        help="alternating rounds of commands and bare appends")
    parser.add_argument("--repeats", type=int, default=5, help="loads per median")
    parser.add_argument("--rebuilds", type=int, default=3, help="rebuilds per median")
    parser.add_argument("--only", choices=["sqlite", "postgres"], help="one backend only")
    parser.add_argument("--rebuild-only", action="store_true",
                        help="build the big campaign and time rebuilds only (no appends, loads)")
    args = parser.parse_args()
    if args.events < 100:
        parser.error("--events must be 100 or more")
    return args


def main() -> None:
    """Run every benchmark on both databases and print the JSON."""
    args = parse_args()
    started = time.perf_counter()
    output: dict[str, Any] = {"machine": machine()}
    with tempfile.TemporaryDirectory(prefix="refit-bench-") as tmp:
        module_dir = Path(tmp) / "modules"
        install_file(FIXTURE_CHART, module_dir)
        if args.only in (None, "sqlite"):
            output["sqlite"] = bench_backend(
                "sqlite", f"sqlite:///{tmp}/refit.db", f"sqlite:///{tmp}/bare.db",
                module_dir, args)
        if args.only in (None, "postgres"):
            with postgres_schema() as schema:
                url = f"{PG_URL}?schema={schema}"
                output["postgres"] = bench_backend("postgres", url, url, module_dir, args)
    output["targets"] = TARGETS
    if not args.rebuild_only:
        output["targets_met"] = {k: met(output[k]) for k in ("sqlite", "postgres")
                                 if k in output}
    output["total_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(output))


if __name__ == "__main__":
    main()
