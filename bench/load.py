"""Load benchmark: drive a running `refit serve` from this process with many clients.

Starts the service on PostgreSQL (a fresh schema, dropped afterwards) in a subprocess,
creates campaigns, runs clients (several per campaign, on one event loop) sending a realistic KGP
command mix, then checks every campaign's chain and event count. Prints one JSON line:
commands/s, p50/p95/p99 latency, errors, lost events, the service's peak RSS and CPU.

Closed loop (the default) measures capacity: each client sends its next command as soon
as the last is answered. Open loop (`--rate R`) measures latency at an offered rate:
commands are due at R per second in all, evenly spaced on each client (a random phase
per client), and each latency counts from when its command was due, so a service that
falls behind shows it rather than slowing the clients down (no coordinated omission).

    python bench/load.py [--clients 32] [--campaigns 16] [--commands 100] [--rate 300]

Reads under load (`--reads 5000`): first a campaign of that many events is written, then
while the clients write to the OTHER campaigns, a few readers ask for its status, roster,
purchase record and guide one after another; the JSON adds their p50/p99 (target p99
<= 10 ms: a read never pays for another campaign's events, issue 17).

    python bench/load.py --reads 5000 [--runner] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import psycopg

try:
    import uvloop
except ImportError:  # uvicorn runs without it too (Windows)
    uvloop = None  # type: ignore[assignment]

PG = os.environ.get("REFIT_TEST_POSTGRES_URL", "postgresql://root@127.0.0.1:5432/test")
ADMIN = "load-bench-admin"
READS_POOL = 4  # store connections of a reads process beside the commands' (`apart`)


def free_port() -> int:
    """A TCP port nobody listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def mix(index: int) -> dict[str, Any]:
    """The command mix: casualties of both sides, control with LVP, CPP, PF (KGP, in play).
    No roll: KGP's one table in play, the CG23 Game End dr, is due once per Player Turn
    from Turn 6 (after the director's end_turn), so it cannot be repeated at will."""
    kind = index % 5
    if kind == 0:
        return {"type": "record_casualty", "side": "German", "unit": "4-6-7", "cvp": 2}
    if kind == 1:
        return {"type": "record_casualty", "side": "US", "unit": "7-4-7", "cvp": 2}
    if kind == 2:
        return {"type": "change_control", "location": f"StH{index}", "side": "German",
                "lvp": 1 + index % 3, "map_group": "St"}
    if kind == 3:
        return {"type": "credit_cpp", "side": "German", "amount": 1, "reason": "load"}
    # squads released from Reserve: any number of times (the initial PF are counted once)
    return {"type": "change_pf", "side": "German", "reason": "released", "count": 1 + index % 4}


Schedule = Callable[[int], Awaitable[float]]  # command index -> when it is due (perf_counter)


def closed_loop(started: float) -> Schedule:
    """Due now: the client sends as soon as its last command is answered (its first at
    `started`, when every client starts)."""
    async def due(index: int) -> float:
        if index == 0 and (wait := started - time.perf_counter()) > 0:
            await asyncio.sleep(wait)
        return time.perf_counter()
    return due


def open_loop(interval: float, phase: float) -> Schedule:
    """Due every `interval` seconds from `phase`: wait until then (never catch up by
    sending early), and count the latency from then even if sent late."""
    async def due(index: int) -> float:
        at = phase + index * interval
        wait = at - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        return at
    return due


async def client(base: str, campaign: dict[str, Any], commands: int, offset: int,
                 latencies: list[float], errors: list[str], sent: dict[str, int],
                 due: Schedule) -> None:
    """One client: send `commands` commands to its campaign, one after another, on one
    kept-alive connection; each when `due` says, its latency counted from then. All
    clients share one event loop in this process: no client waits for another's thread
    to let go of the GIL before it reads its clock, and the driver takes little of the
    CPU the service needs."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    head = (f"POST /campaigns/{campaign['id']}/commands HTTP/1.1\r\nHost: {host}\r\n"
            f"Authorization: Bearer {campaign['tokens']['director']}\r\n"
            "Content-Type: application/json\r\n").encode()
    try:
        for index in range(commands):
            body = json.dumps(mix(offset + index)).encode()
            start = await due(index)
            writer.write(head + b"Content-Length: %d\r\n\r\n" % len(body) + body)
            status, text = await answer(reader)
            latencies.append(time.perf_counter() - start)
            if status == 200:  # the events it appended (a casualty appends two; the peer one)
                sent[campaign["id"]] += len(json.loads(text).get("events") or [None])
            else:
                errors.append(f"{status} {text[:120]!r}")
    finally:
        writer.close()


async def answer(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One HTTP/1.1 answer with a Content-Length (as the command route sends): status,
    body."""
    status = int((await reader.readline()).split()[1])
    length = 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return status, await reader.readexactly(length)


def peak_rss_kb(pid: int) -> int | None:
    """The service process's peak resident set (VmHWM), in kB."""
    status = Path(f"/proc/{pid}/status")
    for line in status.read_text().splitlines() if status.exists() else []:
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


def service_rss_mb(pid: int) -> float:
    """Peak RSS of the service: its process and, with workers, their children."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    pids = [pid, *map(int, children.read_text().split())] if children.exists() else [pid]
    return round(sum(peak_rss_kb(p) or 0 for p in pids) / 1024, 1)


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of the service: its process and, with workers, theirs."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    pids = [pid, *map(int, children.read_text().split())] if children.exists() else [pid]
    ticks = 0
    for each in pids:
        stat = Path(f"/proc/{each}/stat")
        if stat.exists():
            fields = stat.read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


READ_PATHS = ("", "/roster", "/purchase-record", "/guide")  # status, roster, record, guide
READERS = 4  # clients reading the long campaign while the others write


def fill(base: str, campaign: dict[str, Any], events: int) -> int:
    """Write commands to one campaign until it holds `events` events; its version."""
    headers = {"Authorization": f"Bearer {campaign['tokens']['director']}"}
    url = f"{base}/campaigns/{campaign['id']}"
    version, index = 1, 0
    with httpx.Client(headers=headers, timeout=60) as http:
        while version < events:
            for _ in range(min(200, events - version)):
                http.post(f"{url}/commands", json=mix(index)).raise_for_status()
                index += 1
            version = status_version(http, url)
    return int(version)


def status_version(http: httpx.Client, url: str) -> int:
    """The campaign's version as its status says (retried while it answers 503: a runner
    that lags behind the writes made reads wait, then refuse, before issue 17)."""
    return int(answered(http, url)["version"])


def answered(http: httpx.Client, url: str) -> Any:
    """A GET's JSON, asked again each second while it answers 503 (for two minutes)."""
    for _ in range(120):
        answer = http.get(url)
        if answer.status_code != 503:
            answer.raise_for_status()
            return answer.json()
        time.sleep(1)
    raise RuntimeError(f"{url} answered 503 for two minutes")


async def reader(base: str, campaign: dict[str, Any], done: asyncio.Event,
                 latencies: dict[str, list[float]], errors: list[str]) -> None:
    """One reader: the long campaign's reads in turn, on one kept-alive connection, until
    the writers are done."""
    host, port = base.removeprefix("http://").split(":")
    reader_, writer = await asyncio.open_connection(host, int(port))
    auth = f"Authorization: Bearer {campaign['tokens']['director']}\r\n"
    try:
        while not done.is_set():
            for path in READ_PATHS:
                start = time.perf_counter()
                writer.write(f"GET /campaigns/{campaign['id']}{path} HTTP/1.1\r\nHost: {host}"
                             f"\r\n{auth}\r\n".encode())
                status, text = await answer(reader_)
                latencies[path or "/status"].append(time.perf_counter() - start)
                if status != 200:
                    errors.append(f"{status} {text[:120]!r}")
    finally:
        writer.close()


def read_figures(latencies: dict[str, list[float]], errors: list[str],
                 events: int) -> dict[str, Any]:
    """The readers' figures: every read's p50/p99, and each kind's p99."""
    every = [x for found in latencies.values() for x in found]
    return {"campaign_events": events, "reads": len(every),
            "p50_ms": percentile(every, 0.50) if every else None,
            "p99_ms": percentile(every, 0.99) if every else None,
            "p99_ms_by_read": {path: percentile(found, 0.99)
                               for path, found in latencies.items() if found},
            "errors": len(errors), "error_samples": errors[:3], "target_p99_ms": 10}


def percentile(values: list[float], share: float) -> float:
    """A latency percentile, in ms."""
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(share * len(ordered)))], 2)


@contextmanager
def fresh_schema() -> Iterator[str]:
    """A database URL on a PostgreSQL schema of its own, dropped afterwards."""
    schema = f"refit_load_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG}?schema={schema}"
    finally:
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@contextmanager
def started(argv: list[str], env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """A service (`python ARGV... --port P`: Refit's, or the bare peer's), up: its base
    URL and pid; stopped afterwards."""
    port = free_port()
    service = subprocess.Popen([sys.executable, *argv, "--port", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(base)
        yield base, service.pid
    finally:
        service.terminate()
        service.wait(timeout=30)


@contextmanager
def serving(pool: int, runner: bool, workers: int,
            prepare: Callable[[str], dict[str, str]] | None = None,
            apart: bool = False) -> Iterator[tuple[str, int, str]]:
    """`refit serve` on a fresh PostgreSQL schema (dropped afterwards), up: its base URL,
    pid, and the base URL reads go to; `pool` connections per process. `prepare` gets the
    schema's URL before the service starts (to fill it) and answers more of the service's
    environment. `apart`: reads go to a second `refit serve` of its own on the same
    database, as a proxy routing GETs to a reads host would send them (docs/scale.md)."""
    keys = tempfile.mkdtemp(prefix="refit-load-")  # the service's signing key, not the cwd's
    try:
        with fresh_schema() as url:
            env = os.environ | {"REFIT_DATABASE_URL": url,
                                "REFIT_SIGNING_KEY_FILE": os.path.join(keys, "refit-signing-key"),
                                "REFIT_ADMIN_TOKEN": ADMIN, "REFIT_POOL_SIZE": str(pool),
                                "REFIT_MAX_OVERFLOW": "0"}  # `pool` connections, no more
            if runner:  # else the service's default (on since issue 17; off before)
                env["REFIT_PROJECTION_RUNNER"] = "true"
            env |= prepare(url) if prepare else {}
            serve = ["-c", "from api.cli import main; main()", "serve", "--workers",
                     str(workers)]
            with started(serve, env) as (base, pid):
                if not apart:
                    yield base, pid, base
                    return
                with started(serve, env | {"REFIT_POOL_SIZE": str(READS_POOL)}) as (reads, _):
                    yield base, pid, reads
    finally:
        shutil.rmtree(keys, ignore_errors=True)


def run(clients: int, campaigns: int, commands: int, runner: bool,
        workers: int, rate: float | None, pool: int | None = None,
        reads: int = 0) -> dict[str, Any]:
    """Start the service (`pool` connections per process, else one per client), load it,
    check every campaign; the figures."""
    with serving(pool or clients, runner, workers) as (base, pid, _reads):
        return measure(base, pid, clients, campaigns, commands, rate, reads) | {
            "projection_runner": runner or "default", "workers": workers,
            "pool": pool or clients}


def load(argv: list[str], env: dict[str, str], clients: int, campaigns: int, commands: int,
         rate: float | None) -> dict[str, Any]:
    """Start a service (`python ARGV... --port P`: Refit's, or the bare peer's), load it
    with the clients, check every campaign; the figures."""
    with started(argv, env) as (base, pid):
        return measure(base, pid, clients, campaigns, commands, rate)


def measure(base: str, pid: int, clients: int, campaigns: int, commands: int,
            rate: float | None, reads: int = 0) -> dict[str, Any]:
    """Load a running service with the clients (and readers of a campaign of `reads`
    events), check every campaign; the figures."""
    made = [create(base) for _ in range(campaigns)]
    long = create(base) if reads else None
    events = fill(base, long, reads) if long else 0
    read_times: dict[str, list[float]] = {p or "/status": [] for p in READ_PATHS}
    read_errors: list[str] = []
    latencies: list[float] = []
    errors: list[str] = []
    sent = {c["id"]: 0 for c in made}
    cpu_before = cpu_seconds(pid)
    begun = time.perf_counter() + 0.2  # every client is connected by then
    drive(base, made, clients, commands, latencies, errors, sent, begun, rate,
          (long, read_times, read_errors))
    elapsed = time.perf_counter() - begun
    cpu = cpu_seconds(pid) - cpu_before
    lost, broken = check(base, made, sent)
    return {
        "mode": "open" if rate else "closed", "offered_per_s": rate,
        "clients": clients, "campaigns": campaigns, "commands": len(latencies),
        "commands_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": percentile(latencies, 0.50), "p95_ms": percentile(latencies, 0.95),
        "p99_ms": percentile(latencies, 0.99),
        "mean_ms": round(1000 * statistics.fmean(latencies), 2),
        "errors": len(errors), "error_samples": errors[:3],
        "lost_events": lost, "chains_broken": broken,
        "service_peak_rss_mb": service_rss_mb(pid),
        "service_cpu_ms_per_command": round(1000 * cpu / max(1, len(latencies)), 2),
        "targets": {"commands_per_s": 300, "p99_ms": 50, "errors": 0, "lost_events": 0},
    } | ({"reads_under_load": read_figures(read_times, read_errors, events)} if long else {})


def drive(base: str, made: list[dict[str, Any]], clients: int, commands: int,
          latencies: list[float], errors: list[str], sent: dict[str, int], started: float,
          rate: float | None, reading: tuple[Any, dict[str, list[float]], list[str]]) -> None:
    """Run every client to its end on one event loop (uvloop's, as the service's); with a
    long campaign to read, its readers too, until the writers are done."""
    long, read_times, read_errors = reading

    async def clients_all() -> None:
        done = asyncio.Event()
        readers = [asyncio.create_task(reader(base, long, done, read_times, read_errors))
                   for _ in range(READERS if long else 0)]
        await asyncio.gather(*(
            client(base, made[i % len(made)], commands, i * commands, latencies, errors,
                   sent, schedule(started, clients, rate)) for i in range(clients)))
        done.set()
        await asyncio.gather(*readers)
    on_one_loop(clients_all())


def on_one_loop(work: Coroutine[Any, Any, None]) -> None:
    """Run the clients' coroutine to its end on one event loop (uvloop's, as the
    service's)."""
    runner = asyncio.Runner(loop_factory=uvloop.new_event_loop) if uvloop else \
        asyncio.Runner()
    with runner:
        runner.run(work)


def schedule(started: float, clients: int, rate: float | None) -> Schedule:
    """A client's schedule: closed loop, or its share of the offered rate."""
    if not rate:
        return closed_loop(started)
    interval = clients / rate
    return open_loop(interval, started + random.uniform(0, interval))


def wait_until_up(base: str) -> None:
    """Poll /modules until the service answers (or give up after 120 s: a loaded machine)."""
    for _ in range(1200):
        try:
            if httpx.get(f"{base}/modules", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError("the service did not start")


def create(base: str) -> dict[str, Any]:
    """A KGP campaign (its scenario in play from the start)."""
    answer = httpx.post(f"{base}/campaigns", headers={"Authorization": f"Bearer {ADMIN}"},
                        json={"module": "kgp", "cg": "I", "name": "Load"}, timeout=30)
    answer.raise_for_status()
    created: dict[str, Any] = answer.json()
    return created


def check(base: str, made: list[dict[str, Any]], sent: dict[str, int]) -> tuple[int, int]:
    """Events lost (answered but not stored) and chains that do not verify."""
    lost = broken = 0
    for campaign in made:
        headers = {"Authorization": f"Bearer {campaign['tokens']['director']}"}
        with httpx.Client(headers=headers, timeout=60) as http:
            report = answered(http, f"{base}/campaigns/{campaign['id']}/verify")
        broken += 0 if report["ok"] else 1
        lost += abs(report["events"] - (1 + sent[campaign["id"]]))
    return lost, broken


def main() -> None:
    """Parse the sizes, run, print the JSON figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--campaigns", type=int, default=16)
    parser.add_argument("--commands", type=int, default=100, help="commands per client")
    parser.add_argument("--runner", action="store_true", help="REFIT_PROJECTION_RUNNER")
    parser.add_argument("--workers", type=int, default=1, help="service processes")
    parser.add_argument("--rate", type=float, default=None,
                        help="open loop: commands due per second, in all (default: closed)")
    parser.add_argument("--reads", type=int, default=0,
                        help="events of a campaign read while the clients write to others")
    args = parser.parse_args()
    print(json.dumps(run(args.clients, args.campaigns, args.commands, args.runner,
                         args.workers, args.rate, reads=args.reads)))


if __name__ == "__main__":
    main()
