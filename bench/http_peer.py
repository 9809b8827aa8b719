"""Refit's HTTP command rate beside a bare peer's (issue 17, item 2): the peer is a minimal
FastAPI service whose command route appends one event to a trivial eventsourcing
aggregate. Both are served the same way (uvicorn, one process, the same thread count), on
the same PostgreSQL store (eventsourcing's environment as Refit's settings make it, a
fresh schema each), loaded by the same clients (bench/load.py, closed loop by default),
one after the other in the same run, in alternating rounds so any drift of a loaded
machine falls on both.

`peer_comparison()` returns the figures as a dict (for `python -m bench`); run as a
script it prints them as JSON. `python bench/http_peer.py --serve --port P` is the peer.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations, and
# Request is imported in peer_app, where the route functions are made.
import argparse
import collections
import contextlib
import json
import os
import statistics
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from uuid import UUID

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # `python bench/...`

from bench import load  # after the path it is found on

TARGET_RATIO, TARGET_P99_MS = 0.8, 50
PEER = [str(Path(__file__).resolve()), "--serve"]


def peer_app() -> Any:
    """The peer: POST /campaigns makes a tally, POST /campaigns/ID/commands appends one
    event to it, GET .../verify counts its events, GET /modules answers that it is up,
    GET /floor makes one round trip to the store (P6's floor)."""
    from anyio import to_thread
    from fastapi import FastAPI, Request
    from starlette.concurrency import run_in_threadpool

    from bench.run import BareApp, Tally  # bench/run.py's bare baseline, served
    from infra.settings import Settings

    # Refit's settings from the same environment (REFIT_DATABASE_URL, REFIT_POOL_SIZE,
    # REFIT_THREADS): the same database, pool, aggregate cache and recorder (its one-
    # statement insert, infra/recorder_postgres.py), as bench/run.py's bare baseline has them, and
    # as many threads as Refit's routes. PEER_RECORDER=eventsourcing: eventsourcing's own.
    conf = Settings()
    env = conf.eventsourcing_env()
    if os.environ.get("PEER_RECORDER") == "eventsourcing":
        for refits in ("APPLICATION_RECORDER_TOPIC", "POSTGRES_ENABLE_DB_FUNCTIONS"):
            env.pop(refits, None)
    store = BareApp(env)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        to_thread.current_default_thread_limiter().total_tokens = conf.threads
        yield
        store.close()

    app = FastAPI(lifespan=lifespan)
    locks: dict[UUID, threading.Lock] = collections.defaultdict(threading.Lock)
    guard = threading.Lock()

    def turn(ident: UUID) -> threading.Lock:
        """The tally's lock: one append at a time on it, as Refit has one command at a
        time on a campaign (else the second save of a version conflicts)."""
        with guard:
            return locks[ident]

    @app.get("/modules")
    def modules() -> list[str]:
        return []

    @app.get("/floor")
    def floor() -> dict[str, Any]:
        """One query on the store (its log's head) and nothing else: the least a read of
        a database over HTTP can cost on this machine (bench/http_figures.py's floor)."""
        return {"head": store.recorder.max_notification_id()}

    @app.post("/campaigns")
    def create() -> dict[str, Any]:
        tally = Tally()
        store.save(tally)
        return {"id": str(tally.id), "tokens": {"director": "peer"}}

    @app.post("/campaigns/{ident}/commands")
    async def command(ident: UUID, request: Request) -> dict[str, Any]:
        await request.body()  # read, as Refit reads its command

        def append() -> int:
            with turn(ident):  # two clients share a tally, as they share a campaign
                tally: Tally = store.repository.get(ident)
                tally.tick()
                store.save(tally)
                return tally.version
        return {"version": await run_in_threadpool(append)}

    @app.get("/campaigns/{ident}/verify")
    def verify(ident: UUID) -> dict[str, Any]:
        return {"ok": True, "events": store.repository.get(ident).version}

    return app


def serve(port: int) -> None:
    """Serve the peer as `refit serve` serves Refit (uvicorn, one process, no access log)."""
    import uvicorn

    uvicorn.run(peer_app(), host="127.0.0.1", port=port, access_log=False)


def run_peer(clients: int, campaigns: int, commands: int,
             rate: float | None = None) -> dict[str, Any]:
    """The peer loaded as bench/load.py loads Refit, on a fresh schema."""
    with load.fresh_schema() as url:
        env = os.environ | {"REFIT_DATABASE_URL": url, "REFIT_POOL_SIZE": str(clients)}
        return load.load(PEER, env, clients, campaigns, commands, rate)


def peer_comparison(clients: int = 32, campaigns: int = 16, commands: int = 100,
                    rounds: int = 2) -> dict[str, Any]:
    """Refit's and the peer's closed-loop figures, alternating for `rounds` rounds; the
    ratio of the medians of their command rates, and Refit's p99 and CPU per command."""
    refit_runs: list[dict[str, Any]] = []
    peer_runs: list[dict[str, Any]] = []
    for _ in range(rounds):
        refit_runs.append(load.run(clients, campaigns, commands, False, 1, None))
        peer_runs.append(run_peer(clients, campaigns, commands))
    refit_rate = statistics.median(r["commands_per_s"] for r in refit_runs)
    peer_rate = statistics.median(r["commands_per_s"] for r in peer_runs)
    p99 = statistics.median(r["p99_ms"] for r in refit_runs)
    ratio = round(refit_rate / peer_rate, 3)
    return {
        "clients": clients, "campaigns": campaigns, "commands_per_client": commands,
        "rounds": rounds,
        "refit_commands_per_s": refit_rate, "peer_commands_per_s": peer_rate,
        "ratio": ratio, "refit_p99_ms": p99,
        "refit_cpu_ms_per_command": statistics.median(
            r["service_cpu_ms_per_command"] for r in refit_runs),
        "peer_cpu_ms_per_command": statistics.median(
            r["service_cpu_ms_per_command"] for r in peer_runs),
        "errors": sum(r["errors"] for r in refit_runs + peer_runs),
        "lost_events": sum(r["lost_events"] for r in refit_runs + peer_runs),
        "targets": {"ratio": TARGET_RATIO, "p99_ms": TARGET_P99_MS},
        "met": {"ratio": ratio >= TARGET_RATIO, "p99_ms": p99 <= TARGET_P99_MS},
        "refit_runs": refit_runs, "peer_runs": peer_runs,
    }


def main() -> None:
    """Serve the peer (--serve), or compare Refit with it and print the JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--serve", action="store_true", help="serve the peer")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--campaigns", type=int, default=16)
    parser.add_argument("--commands", type=int, default=100, help="commands per client")
    parser.add_argument("--rounds", type=int, default=2, help="alternating runs of each")
    args = parser.parse_args()
    if args.serve:
        serve(args.port)
        return
    print(json.dumps(peer_comparison(args.clients, args.campaigns, args.commands,
                                     args.rounds)))


if __name__ == "__main__":
    main()
