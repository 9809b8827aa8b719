"""`refit serve --workers N` as processes: its workers end with it, and a SIGTERM lets the
commands in flight finish."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import httpx
import psycopg
import pytest

from infra.application import Refit
from infra.settings import Settings
from tests.helpers.databases import PG_URL, fresh_database
from tests.helpers.http import ADMIN, auth
from tests.helpers.processes import BOUND, alive, children_of, serving_process, until


def test_workers_end_when_their_master_is_killed_outright(tmp_path: Path) -> None:
    with serving_process(f"sqlite:///{tmp_path / 'refit.db'}", tmp_path, workers=2) as served:
        workers = children_of(served.process.pid)
        assert len(workers) >= 2 and all(alive(pid) for pid in workers)
        os.kill(served.process.pid, signal.SIGKILL)
        until(lambda: not any(alive(pid) for pid in workers))
        assert [pid for pid in workers if alive(pid)] == []


def test_a_sigterm_lets_the_command_in_flight_finish_before_the_workers_end(
        tmp_path: Path, postgres_problem: str | None) -> None:
    name = f"refit-graceful-{uuid.uuid4().hex[:12]}"
    with fresh_database("postgres", tmp_path, postgres_problem) as url, \
            serving_process(url, tmp_path, workers=2, PGAPPNAME=name) as served:
        answers: list[httpx.Response] = []
        with psycopg.connect(PG_URL) as lock:  # the events table held: a command waits
            schema = url.rsplit("schema=", 1)[1]
            lock.execute(f'LOCK TABLE "{schema}".refit_events IN EXCLUSIVE MODE')
            sender = threading.Thread(target=lambda: answers.append(httpx.post(
                f"{served.url}/campaigns", headers=auth(ADMIN), timeout=BOUND,
                json={"module": "pbr", "cg": "I", "name": "In flight"})))
            sender.start()
            assert until(lambda: waiting_on_a_lock(name)), "the command never reached the lock"
            os.kill(served.process.pid, signal.SIGTERM)
            assert until(lambda: served.logged("Waiting for connections to close"))
            lock.rollback()
        sender.join(BOUND)
        assert served.process.wait(BOUND) == 0
        assert [answer.status_code for answer in answers] == [201]
        refit = Refit(Settings(database_url=url, module_dir=tmp_path / "modules",
                               signing_key_file=tmp_path / "refit-signing-key"))
        try:
            assert [line.name for line in refit.reads.campaigns()] == ["In flight"]
        finally:
            refit.close()


def waiting_on_a_lock(application: str) -> bool:
    """Whether a connection of the service (named `application`) waits for a lock."""
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        found = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s "
                             "AND wait_event_type = 'Lock'", (application,)).fetchone()
    return found is not None and found[0] > 0


WATCHED = """
import sys, time
import api.workers as workers
workers.death_signal = lambda sig: False  # as where the kernel cannot tell: a thread watches
workers.WATCH_EVERY = 0.1
workers.end_with_master(int(sys.argv[1]))
time.sleep(600)
"""
PARENT = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], str(os.getpid())])
print(child.pid, flush=True)
time.sleep(600)
"""


def test_where_the_kernel_cannot_tell_a_thread_ends_the_worker_with_its_master() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("finds processes in Linux's /proc")
    parent = subprocess.Popen([sys.executable, "-c", PARENT, WATCHED], text=True,
                              stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        assert alive(child)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(BOUND)
        assert until(lambda: not alive(child))
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)
