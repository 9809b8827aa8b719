"""`refit serve` as an operator starts it: a real process on a free port, its children
found in /proc, each ended by its id afterwards."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

PROC = Path("/proc")
BOUND = 60.0  # seconds: a generous wait for a process to start or end, never an assertion


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def children_of(pid: int) -> set[int]:
    """The live processes whose parent is `pid` (Linux's /proc)."""
    found = set()
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            state, parent = stat
            if parent == pid and state != "Z":
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie, ended but not yet reaped, does not)."""
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def _stat(pid: int) -> tuple[str, int] | None:
    """A process's state letter and parent, or None if it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    state, parent = text[text.rindex(")") + 2:].split()[:2]
    return state, int(parent)


def until(check: Callable[[], bool], bound: float = BOUND) -> bool:
    """Whether `check` comes true within `bound` seconds (polled)."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


class Served:
    """A running `refit serve`: its process, its URL, and the lines it logged (uvicorn's
    access log, on its standard output, among them)."""

    def __init__(self, process: subprocess.Popen[str], url: str) -> None:
        self.process, self.url = process, url
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None  # its standard error, too
        for line in self.process.stdout:
            self.lines.append(line)

    def logged(self, text: str) -> bool:
        """Whether a line it logged holds `text`."""
        return any(text in line for line in list(self.lines))

    def answers(self) -> bool:
        """Whether `GET /healthz` answers 200."""
        try:
            return httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False


@contextmanager
def serving_process(database_url: str, tmp_path: Path, workers: int,
                    **env: str) -> Iterator[Served]:
    """`refit serve --workers N` on a free port, answering; every process it started is
    ended by its id afterwards, if still running."""
    if not sys.platform.startswith("linux"):
        pytest.skip("finds a service's worker processes in Linux's /proc")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "serve", "--port", str(port), "--workers",
         str(workers), "--db", database_url], cwd=tmp_path, text=True,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env=os.environ | {"REFIT_MODULE_DIR": str(tmp_path / "modules"),
                          "REFIT_ADMIN_TOKEN": "admin-token-for-tests"} | env)
    served = Served(process, f"http://127.0.0.1:{port}")
    started: set[int] = set()
    try:
        assert until(served.answers), "".join(served.lines)
        started = children_of(process.pid)
        yield served
    finally:
        for pid in [process.pid, *started]:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        process.wait(BOUND)
