"""Live lag: how long after a command is answered 200 the opponent's live stream carries it
(issue 17 item 4: within 1 s), on the process that ran the command and on another service
process on the same database (PostgreSQL: LISTEN/NOTIFY; SQLite: its poll, REFIT_LIVE_POLL).

Starts `refit serve` twice on a fresh database of each kind, opens the British side's
stream on each, and sends director commands one at a time to the first; each lag is the
time from the command's 200 to the message (negative: the message came first). Prints one
JSON object; `live(...)` returns it as a dict (bench P7.live).

    python bench/live.py [--only sqlite|postgres] [--commands 100]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import httpx
import psycopg

PG = os.environ.get("REFIT_BENCH_POSTGRES_URL", "postgresql://root@127.0.0.1:5432/test")
ADMIN = "live-bench-admin"
WAIT = 30.0  # seconds: a message never seen by then is counted missing
PAUSE = 0.02  # seconds between commands, so each is a commit of its own to tell
# and up to so many more at random, so the commands do not fall into step with SQLite's
# poll (REFIT_LIVE_POLL, 0.25 s), which would make every lag the same
JITTER = 0.25


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def _database(kind: str, folder: str) -> Iterator[str]:
    """A fresh database URL of a kind (a PostgreSQL schema dropped afterwards)."""
    if kind == "sqlite":
        yield f"sqlite:///{folder}/refit.db"
        return
    schema = f"refit_live_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG, autocommit=True) as admin:  # held open to drop it at the end
        admin.execute(f'CREATE SCHEMA "{schema}"')
        try:
            yield f"{PG}?schema={schema}"
        finally:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@contextmanager
def _service(url: str, folder: str) -> Iterator[str]:
    """`refit serve` on a free port (the database shared with other processes)."""
    port = _port()
    env = os.environ | {"REFIT_DATABASE_URL": url, "REFIT_ADMIN_TOKEN": ADMIN,
                        "REFIT_SHARED_DATABASE": "true", "REFIT_MODULE_DIR": f"{folder}/mods",
                        "REFIT_SIGNING_KEY_FILE": f"{folder}/refit-signing-key"}
    process = subprocess.Popen([sys.executable, "-m", "api.cli", "serve", "--port", str(port)],
                               env=env, cwd=folder, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


class _Reader:
    """A live stream read on a thread: each `appended` version with when it came."""

    def __init__(self, url: str, token: str) -> None:
        self.seen: queue.Queue[tuple[int, float]] = queue.Queue()
        self.ready = threading.Event()
        threading.Thread(target=self._read, args=(url, token), daemon=True).start()

    def _read(self, url: str, token: str) -> None:
        with httpx.stream("GET", url, headers={"Authorization": f"Bearer {token}"},
                          timeout=httpx.Timeout(WAIT, read=None)) as answer:
            event = ""
            for line in answer.iter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                    self.ready.set() if event == "ready" else None
                elif line.startswith("data: ") and event == "appended":
                    self.seen.put((json.loads(line[6:])["version"], time.perf_counter()))

    def arrival(self, version: int) -> float | None:
        """When the message of `version` came (None: not within WAIT)."""
        deadline = time.perf_counter() + WAIT
        while (left := deadline - time.perf_counter()) > 0:
            try:
                found, at = self.seen.get(timeout=left)
            except queue.Empty:
                return None
            if found >= version:
                return at
        return None


def _figures(lags: list[float], missing: int) -> dict[str, Any]:
    ordered = sorted(lags) or [float("nan")]

    def at(share: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, int(share * len(ordered)))], 2)
    return {"messages": len(lags), "missing": missing, "p50_ms": at(0.5), "p99_ms": at(0.99),
            "max_ms": at(1.0), "mean_ms": round(1000 * statistics.fmean(ordered), 2)}


def _kind(kind: str, commands: int) -> dict[str, Any]:
    """The lags on one kind of database, on the commanding process and on another."""
    folder = tempfile.mkdtemp(prefix="refit-live-")
    try:
        with ExitStack() as stack:
            url = stack.enter_context(_database(kind, folder))
            one = stack.enter_context(_service(url, folder))
            other = stack.enter_context(_service(url, folder))
            made = httpx.post(f"{one}/campaigns", headers={"Authorization": f"Bearer {ADMIN}"},
                              json={"module": "pbr", "cg": "I", "name": "Live"}, timeout=WAIT)
            made.raise_for_status()
            game = made.json()
            british = game["tokens"]["sides"]["British"]
            readers = {name: _Reader(f"{base}/campaigns/{game['id']}/live", british)
                       for name, base in (("same_process", one), ("other_process", other))}
            for reader in readers.values():
                reader.ready.wait(WAIT)
            return _measure(one, game, readers, commands)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _measure(base: str, game: dict[str, Any], readers: dict[str, _Reader],
             commands: int) -> dict[str, Any]:
    lags: dict[str, list[float]] = {name: [] for name in readers}
    missing = dict.fromkeys(readers, 0)
    answer_ms: list[float] = []
    headers = {"Authorization": f"Bearer {game['tokens']['director']}"}
    with httpx.Client(base_url=base, headers=headers, timeout=WAIT) as client:
        for _ in range(commands):
            sent = time.perf_counter()
            done = client.post(f"/campaigns/{game['id']}/commands", json={
                "type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "bench"})
            answered = time.perf_counter()
            done.raise_for_status()
            answer_ms.append(answered - sent)
            for name, reader in readers.items():
                arrived = reader.arrival(done.json()["version"])
                if arrived is None:
                    missing[name] += 1
                else:
                    lags[name].append(arrived - answered)
            time.sleep(PAUSE + random.uniform(0, JITTER))
    return {name: _figures(lags[name], missing[name]) for name in readers} | {
        "command_p50_ms": round(1000 * statistics.median(answer_ms), 2)}


def live(only: str | None = None, commands: int = 100) -> dict[str, Any]:
    """The live lag on SQLite and PostgreSQL (or `only` one), with the target."""
    kinds = [only] if only else ["sqlite", "postgres"]
    return {kind: _kind(kind, commands) for kind in kinds} | {
        "commands": commands, "target": {"p99_ms": 1000},
        "note": "lag from the command's 200 to the opponent's message; negative: the "
                "message came first"}


def main() -> None:
    """Parse the sizes, run, print the JSON figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", choices=["sqlite", "postgres"], default=None)
    parser.add_argument("--commands", type=int, default=100)
    args = parser.parse_args()
    print(json.dumps(live(args.only, args.commands)))


if __name__ == "__main__":
    main()
