"""Readiness: whether the database answers and the projection runner (if on) is alive."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from infra.application import Refit

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Readiness:
    """What `GET /readyz` answers: ready or not, and why not."""

    ok: bool
    runner_lag: int | None  # notifications the view has not folded yet
    database: str  # "answers", or the kind of error it answered with
    runner: str  # "alive", "off" (not configured), or why it is not running


def readiness(refit: Refit) -> Readiness:
    """Ask the database for the log's head and the view's position; look at the runner."""
    runner = refit.views.runner
    try:
        head = refit.store.recorder.max_notification_id() or 0
        folded = runner.position() if runner is not None else \
            refit.views.view.max_tracking_id("refit") or 0
    except Exception as error:  # whatever the driver raised: not ready, and said so
        log.warning("readiness: the database did not answer: %s: %s",
                    type(error).__name__, error)
        # The error's kind only: its text may name the database's host and user.
        said = f"does not answer ({type(error).__name__})"
        return Readiness(False, None, said, _runner_state(refit))
    state = _runner_state(refit)
    return Readiness(state in ("alive", "off"), max(head - folded, 0), "answers", state)


def _runner_state(refit: Refit) -> str:
    runner = refit.views.runner
    if runner is None:
        return "off"
    if runner.alive():
        return "alive"
    return runner.problem or "the projection runner is not running"
