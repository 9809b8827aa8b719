"""What bench/chaos.py's scenarios share: a real `refit serve` process on a PostgreSQL schema
of its own (killed, restarted, measured), its database connections found by their
application_name, command load from client threads with Idempotency-Keys, and the log
read back with raw SQL to count what was lost or applied twice."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
from load import free_port, mix, peak_rss_kb
from psycopg import sql

PG = os.environ.get("REFIT_TEST_POSTGRES_URL", "postgresql://root@127.0.0.1:5432/test")
ADMIN = "chaos-bench-admin"
RETRY_PAUSE = 0.1  # seconds between a client's tries of one command


class Service:
    """One `refit serve` on the run's schema, in a process group of its own (so nothing
    it starts outlives the run); its database connections carry `app` as their
    application_name, so an outage can end exactly theirs."""

    def __init__(self, schema: str, keys: Path, workers: int = 1, database: str = PG) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.app = f"refit-chaos-{uuid.uuid4().hex[:10]}"
        self.workers = workers
        self.env = os.environ | {
            "REFIT_DATABASE_URL": f"{database}?schema={schema}", "REFIT_ADMIN_TOKEN": ADMIN,
            "REFIT_SIGNING_KEY_FILE": str(keys / "refit-signing-key"),
            "REFIT_PROJECTION_RUNNER": "true", "PGAPPNAME": self.app}
        self.process: subprocess.Popen[bytes] | None = None
        self.pids: set[int] = set()  # every process of the service seen, for the cleanup

    def start(self) -> None:
        """Start it and wait until it answers."""
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from api.cli import main; main()", "serve", "--port",
             str(self.port), "--workers", str(self.workers)],
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        self.pids.add(self.process.pid)
        wait_for(lambda: status(f"{self.base}/modules") == 200, 60, "the service to start")

    def processes(self) -> list[int]:
        """The master's pid and its workers'."""
        if self.process is None:
            return []
        pid = self.process.pid
        children = Path(f"/proc/{pid}/task/{pid}/children")
        found = [pid, *map(int, children.read_text().split())] if children.exists() else [pid]
        self.pids.update(found)
        return found

    def peak_rss_mb(self) -> float:
        """Peak RSS (VmHWM) of the master and its workers, added up, in MB."""
        return round(sum(peak_rss_kb(p) or 0 for p in self.processes()) / 1024, 1)

    def kill9(self) -> int:
        """SIGKILL the master alone, as a crash would; the workers that outlive it by a
        second (orphans: the workers and any helper process) are counted, then killed too."""
        assert self.process is not None
        workers = self.processes()[1:]
        self.process.kill()
        self.process.wait()
        time.sleep(1.0 if workers else 0)
        orphans = [pid for pid in workers if alive(pid)]
        self.stop()
        return len(orphans)

    def stop(self) -> None:
        """End every process the service started (its own group), and reap the master."""
        for pid in list(self.pids):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if self.process is not None:
            with _quiet():
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        wait_for(lambda: not any(alive(p) for p in self.pids), 10, "the service to end")
        self.pids.clear()

    def create(self, name: str = "Chaos") -> dict[str, Any]:
        """A KGP campaign (its id and tokens)."""
        answer = httpx.post(f"{self.base}/campaigns", json={"module": "kgp", "cg": "I",
                            "name": name}, headers={"Authorization": f"Bearer {ADMIN}"},
                            timeout=30)
        answer.raise_for_status()
        made: dict[str, Any] = answer.json()
        return made


@contextmanager
def service(schema: str, workers: int = 1, database: str = PG) -> Iterator[Service]:
    """A started service (on `database`: PostgreSQL itself, or a way to it), every process
    of it ended afterwards."""
    keys = Path(tempfile.mkdtemp(prefix="refit-chaos-"))
    running = Service(schema, keys, workers, database)
    try:
        running.start()
        yield running
    finally:
        running.stop()
        shutil.rmtree(keys, ignore_errors=True)


class _quiet:
    """Ignore a process that is already gone."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, *_: Any) -> bool:
        return kind is not None and issubclass(kind, ProcessLookupError | PermissionError)


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie does not)."""
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def status(url: str, token: str | None = None) -> int | None:
    """A GET's status, or None when nothing answers."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        return httpx.get(url, headers=headers, timeout=10).status_code
    except httpx.HTTPError:
        return None


def wait_for(ready: Any, seconds: float, what: str) -> float:
    """Poll `ready()` until true; the seconds it took (RuntimeError after `seconds`)."""
    started = time.perf_counter()
    while not ready():
        if time.perf_counter() - started > seconds:
            raise RuntimeError(f"gave up waiting {seconds}s for {what}")
        time.sleep(0.05)
    return time.perf_counter() - started


@dataclass
class Tally:
    """What the clients saw: keys acknowledged (200), every answer's status with when its
    command was sent and answered, and commands given up on."""

    acknowledged: dict[str, set[str]] = field(default_factory=dict)  # campaign -> keys
    answers: list[tuple[float, float, int]] = field(default_factory=list)  # sent, answered,
    # status
    refused: Counter[int] = field(default_factory=Counter)  # a 4xx ends a command
    given_up: int = 0
    guard: threading.Lock = field(default_factory=threading.Lock)

    def count(self) -> int:
        """Commands acknowledged so far."""
        with self.guard:
            return sum(len(keys) for keys in self.acknowledged.values())

    def statuses(self, outage: tuple[float, float] | None = None) -> dict[str, Any]:
        """5xx answers by status; a 503 to a command under way during `outage` (sent before
        it ended, answered after it began) is allowed."""
        fives = Counter(s for *_, s in self.answers if s >= 500)
        allowed = sum(1 for sent, answered, s in self.answers if s == 503 and outage
                      is not None and sent <= outage[1] and answered >= outage[0])
        return {"5xx": sum(fives.values()) - allowed, "503_during_outage": allowed,
                "5xx_by_status": {str(k): v for k, v in sorted(fives.items())},
                "connection_errors": sum(1 for *_, s in self.answers if s == 0)}


class Load:
    """Client threads, each sending commands to one campaign one after another (a short
    pause between them) until stopped, each with its own Idempotency-Key, retried with
    the same key on a connection error or any 5xx until answered (or the deadline), as a
    careful client does. A command begun is seen through after the stop."""

    def __init__(self, base: str, campaigns: list[dict[str, Any]], clients: int,
                 pause: float, deadline: float) -> None:
        self.tally = Tally(acknowledged={c["id"]: set() for c in campaigns})
        self.run = uuid.uuid4().hex[:8]
        self.stopped = threading.Event()
        self.threads = [threading.Thread(
            target=self._client, args=(base, campaigns[i % len(campaigns)], i, pause,
                                       deadline), daemon=True) for i in range(clients)]

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self.stopped.set()
        for thread in self.threads:
            thread.join()

    def _client(self, base: str, campaign: dict[str, Any], index: int, pause: float,
                deadline: float) -> None:
        url = f"{base}/campaigns/{campaign['id']}/commands"
        token = campaign["tokens"]["director"]
        with httpx.Client(timeout=30) as client:
            n = 0
            while not self.stopped.is_set():
                key = f"{self.run}-{index}-{n}"
                headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": key}
                self._send(client, url, headers, mix(index * 1_000_000 + n), campaign["id"],
                           deadline)
                n += 1
                self.stopped.wait(pause)

    def _send(self, client: httpx.Client, url: str, headers: dict[str, str],
              body: dict[str, Any], campaign: str, deadline: float) -> None:
        tally = self.tally
        while time.monotonic() < deadline:
            sent = time.monotonic()
            try:
                code = client.post(url, json=body, headers=headers).status_code
            except httpx.HTTPError:
                code = 0
            with tally.guard:
                tally.answers.append((sent, time.monotonic(), code))
                if code == 200:
                    tally.acknowledged[campaign].add(headers["Idempotency-Key"])
                elif 400 <= code < 500:
                    tally.refused[code] += 1
            if code and code < 500:
                return
            time.sleep(RETRY_PAUSE)
        with tally.guard:
            tally.given_up += 1


def stored_keys(schema: str, campaign_ids: list[str]) -> dict[str, Counter[str]]:
    """Per campaign, each Idempotency-Key in its log and how many commands applied it (its
    events share one timestamp per command), read with raw SQL."""
    query = sql.SQL(
        "SELECT originator_id::text, convert_from(state, 'UTF8')::jsonb->>'idempotency_key',"
        " count(DISTINCT convert_from(state, 'UTF8')::jsonb->'timestamp'->>'_data_')"
        " FROM {}.refit_events WHERE originator_id = ANY(%s::uuid[])"
        " AND convert_from(state, 'UTF8')::jsonb ? 'idempotency_key' GROUP BY 1, 2"
    ).format(sql.Identifier(schema))
    found: dict[str, Counter[str]] = {c: Counter() for c in campaign_ids}
    with psycopg.connect(PG) as conn:
        for campaign, key, applied in conn.execute(query, (campaign_ids,)):
            found[campaign][key.split("\x1f", 1)[1]] = applied
    return found


def reconcile(tally: Tally, schema: str) -> dict[str, int]:
    """Acknowledged, lost (acknowledged, not in the log) and duplicated (applied twice)."""
    stored = stored_keys(schema, list(tally.acknowledged))
    lost = sum(len(keys - set(stored[c])) for c, keys in tally.acknowledged.items())
    duplicated = sum(1 for keys in stored.values() for n in keys.values() if n > 1)
    unanswered = sum(len(set(stored[c]) - keys) for c, keys in tally.acknowledged.items())
    return {"acknowledged": tally.count(), "lost": lost, "duplicated": duplicated,
            "stored_never_acknowledged": unanswered, "given_up": tally.given_up,
            "refused_4xx": sum(tally.refused.values())}


def terminate_backends(app: str) -> int:
    """End every PostgreSQL backend of the service (its application_name), never this
    connection's: how many."""
    with psycopg.connect(PG, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE application_name = %s AND pid <> pg_backend_pid()", (app,)).fetchone()
    return int(row[0]) if row else 0
