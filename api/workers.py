"""The worker processes of `refit serve --workers N`: each ends when its master does, so a
master killed outright (kill -9) leaves no orphan serving on the port."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

from fastapi import FastAPI

from api.app import create_app

MASTER_PID = "REFIT_SERVE_MASTER_PID"  # `refit serve --workers N` names itself to its workers
PR_SET_PDEATHSIG = 1  # linux/prctl.h
WATCH_EVERY = 1.0  # seconds between two looks at the parent, where the kernel cannot tell


def create_worker_app() -> FastAPI:
    """The app in a worker process, which ends with its master (uvicorn's factory)."""
    if MASTER_PID in os.environ:  # else uvicorn was started by hand, not by `refit serve`
        end_with_master(int(os.environ[MASTER_PID]))
    return create_app()


def end_with_master(master: int) -> None:
    """SIGTERM this process when `master` (its parent) ends: uvicorn then shuts down
    gracefully, finishing the commands in flight. Linux's kernel sends it
    (PR_SET_PDEATHSIG); elsewhere a thread watches the parent."""
    if not death_signal(signal.SIGTERM):
        threading.Thread(target=_watch, args=(master,), name="refit-master-watch",
                         daemon=True).start()
    if os.getppid() != master:  # it ended before the kernel was asked to tell
        os.kill(os.getpid(), signal.SIGTERM)


def death_signal(sig: signal.Signals) -> bool:
    """Ask Linux for `sig` when the parent ends; whether it agreed. (The parent's thread
    that started this process counts: uvicorn starts workers on its main thread.)"""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch(master: int) -> None:
    """Poll the parent; once it is no longer `master`, SIGTERM this process."""
    while os.getppid() == master:
        time.sleep(WATCH_EVERY)
    os.kill(os.getpid(), signal.SIGTERM)
