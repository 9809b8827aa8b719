"""What every part of `python -m bench` shares: spreads over repeats, absent figures."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def spread(samples: list[float], digits: int = 2) -> dict[str, Any]:
    """Median, min and max of repeated measurements, and how many there were."""
    if not samples:
        return {"median": None, "min": None, "max": None, "n": 0}
    return {"median": round(statistics.median(samples), digits),
            "min": round(min(samples), digits), "max": round(max(samples), digits),
            "n": len(samples)}


def ratio(ours: list[float], theirs: list[float]) -> dict[str, Any]:
    """The spread of ours / theirs, pair by pair (each pair taken side by side)."""
    return spread([a / b for a, b in zip(ours, theirs, strict=True) if b], 3)


def absent(reason: str) -> dict[str, Any]:
    """A figure that could not be taken, and why (never a number made up)."""
    return {"value": None, "reason": reason}


def repeated(times: int, measure: Callable[[], T]) -> list[T]:
    """`measure` taken `times` times."""
    return [measure() for _ in range(times)]


def column(runs: list[dict[str, Any]], key: str) -> list[float]:
    """One figure of each run."""
    return [float(run[key]) for run in runs]
