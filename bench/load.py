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
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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
from collections.abc import Awaitable, Callable, Iterator
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
    return {"type": "change_pf", "side": "German", "reason": "setup", "count": 1 + index % 4}


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
            if status == 200:
                sent[campaign["id"]] += 1
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


def percentile(values: list[float], share: float) -> float:
    """A latency percentile, in ms."""
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(share * len(ordered)))], 2)


def run(clients: int, campaigns: int, commands: int, runner: bool,
        workers: int, rate: float | None) -> dict[str, Any]:
    """Start the service, load it, check every campaign; the figures."""
    with fresh_schema() as url:
        keys = tempfile.mkdtemp(prefix="refit-load-")  # the service's key, not the cwd's
        env = os.environ | {"REFIT_DATABASE_URL": url,
                            "REFIT_SIGNING_KEY_FILE": os.path.join(keys, "refit-signing-key"),
                            "REFIT_ADMIN_TOKEN": ADMIN, "REFIT_POOL_SIZE": str(clients),
                            "REFIT_PROJECTION_RUNNER": "true" if runner else "false"}
        try:
            found = load(["-c", "from api.cli import main; main()", "serve", "--workers",
                          str(workers)], env, clients, campaigns, commands, rate)
        finally:
            shutil.rmtree(keys, ignore_errors=True)
    return found | {"projection_runner": runner, "workers": workers}


@contextlib.contextmanager
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


def load(argv: list[str], env: dict[str, str], clients: int, campaigns: int, commands: int,
         rate: float | None) -> dict[str, Any]:
    """Start a service (`python ARGV... --port P`: Refit's, or the bare peer's), load it
    with the clients, check every campaign; the figures."""
    port = free_port()
    service = subprocess.Popen([sys.executable, *argv, "--port", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base)
        made = [create(base) for _ in range(campaigns)]
        latencies: list[float] = []
        errors: list[str] = []
        sent = {c["id"]: 0 for c in made}
        cpu_before = cpu_seconds(service.pid)
        started = time.perf_counter() + 0.2  # every client is connected by then
        drive(base, made, clients, commands, latencies, errors, sent, started, rate)
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds(service.pid) - cpu_before
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
            "service_peak_rss_mb": service_rss_mb(service.pid),
            "service_cpu_ms_per_command": round(1000 * cpu / max(1, len(latencies)), 2),
            "targets": {"commands_per_s": 300, "p99_ms": 50, "errors": 0, "lost_events": 0},
        }
    finally:
        service.terminate()
        service.wait(timeout=30)


def drive(base: str, made: list[dict[str, Any]], clients: int, commands: int,
          latencies: list[float], errors: list[str], sent: dict[str, int], started: float,
          rate: float | None) -> None:
    """Run every client to its end on one event loop (uvloop's, as the service's)."""
    async def clients_all() -> None:
        await asyncio.gather(*(
            client(base, made[i % len(made)], commands, i * commands, latencies, errors,
                   sent, schedule(started, clients, rate)) for i in range(clients)))
    runner = asyncio.Runner(loop_factory=uvloop.new_event_loop) if uvloop else \
        asyncio.Runner()
    with runner:
        runner.run(clients_all())


def schedule(started: float, clients: int, rate: float | None) -> Schedule:
    """A client's schedule: closed loop, or its share of the offered rate."""
    if not rate:
        return closed_loop(started)
    interval = clients / rate
    return open_loop(interval, started + random.uniform(0, interval))


def wait_until_up(base: str) -> None:
    """Poll /modules until the service answers (or give up after 30 s)."""
    for _ in range(300):
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
        report = httpx.get(f"{base}/campaigns/{campaign['id']}/verify", headers=headers,
                           timeout=60).json()
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
    args = parser.parse_args()
    print(json.dumps(run(args.clients, args.campaigns, args.commands, args.runner,
                         args.workers, args.rate)))


if __name__ == "__main__":
    main()
