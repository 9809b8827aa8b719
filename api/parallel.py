"""Several campaigns moved at once: a share of them in each of a few processes, so that
moving a tournament's campaigns uses every core (each process has its own connections)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def shares(items: Sequence[T], jobs: int) -> list[list[T]]:
    """The items dealt in turn into at most `jobs` shares, none empty."""
    return [list(items[first::jobs]) for first in range(min(max(jobs, 1), len(items)))]


def in_processes(work: Callable[[list[T]], list[R]], items: Sequence[T],
                 jobs: int) -> list[R]:
    """`work` on each share of the items, a process each when there are several; the
    results in the items' order (a share may stop short: its last result says why)."""
    parts = shares(items, jobs)
    if len(parts) <= 1:
        return work(list(items))
    # Processes started afresh, not forked: a fork of a process with threads (a projection
    # runner's, a pool's) inherits their locks held, and hung; a fork server would keep
    # the environment of its own start (the settings read from it).
    with ProcessPoolExecutor(len(parts),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        done = list(pool.map(work, parts))
    placed: dict[int, R] = {}
    for first, results in enumerate(done):
        for turn, result in enumerate(results):
            placed[first + turn * len(parts)] = result
    return [placed[index] for index in sorted(placed)]
