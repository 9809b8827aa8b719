"""Readiness: whether the database answers and the projection runner (if on) is alive."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as NoAnswerYet
from dataclasses import dataclass

from infra.application import Refit

log = logging.getLogger(__name__)
PROBE_WAIT = 3.0  # seconds a readiness check waits for the database (its pool retries longer)


@dataclass(frozen=True)
class Readiness:
    """What `GET /readyz` answers: ready or not, and why not."""

    ok: bool
    runner_lag: int | None  # notifications the view has not folded yet
    database: str  # "answers", or the kind of error it answered with
    runner: str  # "alive", "off" (not configured), or why it is not running


class Health:
    """Readiness of one Refit. The database is asked on a thread of its own, one question
    at a time: a check answers within PROBE_WAIT even while the database is away (the
    pool's retries take far longer), and checks never pile threads up behind it."""

    def __init__(self, refit: Refit) -> None:
        self.refit = refit
        self._lock = threading.Lock()
        self._asking: Future[tuple[int, int]] | None = None

    def readiness(self) -> Readiness:
        """Ask the database for the log's head and the view's position; look at the
        runner."""
        try:
            head, folded = self._ask().result(timeout=PROBE_WAIT)
        except NoAnswerYet:
            return Readiness(False, None, "does not answer (no answer in time)", self.runner())
        except Exception as error:  # whatever the driver raised: not ready, and said so
            log.warning("readiness: the database did not answer: %s: %s",
                        type(error).__name__, error)
            # The error's kind only: its text may name the database's host and user.
            said = f"does not answer ({type(error).__name__})"
            return Readiness(False, None, said, self.runner())
        state = self.runner()
        return Readiness(state in ("alive", "off"), max(head - folded, 0), "answers", state)

    def runner(self) -> str:
        """The projection runner's state: alive, off, or why it is not running."""
        runner = self.refit.views.runner
        if runner is None:
            return "off"
        if runner.alive():
            return "alive"
        return runner.problem or "the projection runner is not running"

    def _ask(self) -> Future[tuple[int, int]]:
        """The question in flight, or a new one if none is."""
        with self._lock:
            if self._asking is None or self._asking.done():
                self._asking = Future()
                threading.Thread(target=self._positions, args=(self._asking,),
                                 name="refit-readiness", daemon=True).start()
            return self._asking

    def _positions(self, answer: Future[tuple[int, int]]) -> None:
        """The log's head and the view's position, into `answer`."""
        try:
            runner, views = self.refit.views.runner, self.refit.views
            head = self.refit.store.recorder.max_notification_id() or 0
            # A runner restarting still holds the one that ended, its pool closed: its
            # position is read through the service's own view (the same tracking table).
            folded = runner.position() if runner is not None and runner.alive() else \
                views.view.max_tracking_id(runner.app_name if runner else "refit") or 0
            answer.set_result((head, folded))
        except BaseException as error:  # handed to the check that waits for it
            answer.set_exception(error)
