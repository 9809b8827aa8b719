"""The projection runner kept alive: after a database error (a PostgreSQL restart ends its
connections) a new runner starts, with backoff, from the view's tracking position."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from time import monotonic
from typing import Any

from eventsourcing.persistence import PersistenceError, WaitInterruptedError

log = logging.getLogger(__name__)
# eventsourcing's ProjectionRunner, or what has its `run_forever`, `stop`,
# `is_interrupted`, `view` and `app` (infra/election.py's ElectedRunner)
Runner = Any
FIRST_DELAY = 0.2  # seconds before the first restart; doubled after each failed one ...
MOST_DELAY = 2.0  # ... up to this: reads that wait for the runner are back within about 2 s
# of the database (a try is one connection attempt: every 2 s through a long outage is cheap)
HEALTHY_AFTER = 30.0  # a runner that lived this long was healthy: the next delay is FIRST


class SupervisedRunner:
    """A projection runner, started anew whenever it dies of an error.

    A new runner subscribes after the view's tracking position, and each folded event's
    rows are written with its tracking record in one transaction (eventsourcing's
    tracking), so a restart neither skips an event nor folds one twice.
    """

    def __init__(self, start: Callable[[], Runner], app_name: str) -> None:
        self._start, self.app_name = start, app_name
        self.runner: Runner = self._entered(start())  # a first failure is the caller's
        self.problem: str | None = None  # why the runner is not running, while it is not
        self.restarts = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._supervise, name="refit-runner",
                                        daemon=True)
        self._thread.start()

    @property
    def view(self) -> Any:
        """The running runner's materialized view."""
        return self.runner.view

    @property
    def app(self) -> Any:
        """The running runner's application (the log it follows)."""
        return self.runner.app

    def alive(self) -> bool:
        """Whether a runner is folding now (not stopped, not dead, not restarting)."""
        return not self._stopping.is_set() and not self.runner.is_interrupted.is_set()

    def position(self) -> int:
        """The last notification the view has folded (its tracking)."""
        return int(self.view.max_tracking_id(self.app_name) or 0)

    def wait(self, notification_id: int | None, timeout: float) -> bool:
        """Whether the view folds up to `notification_id` within `timeout` seconds, across
        a restart of the runner if one comes in time."""
        deadline = monotonic() + timeout
        while (left := deadline - monotonic()) > 0 and not self._stopping.is_set():
            runner = self.runner
            if runner.is_interrupted.is_set():  # dead: a new one may come in time
                self._stopping.wait(min(0.1, left))
                continue
            try:
                runner.view.wait(self.app_name, notification_id, timeout=left,
                                 interrupt=runner.is_interrupted)
                return True
            except TimeoutError:
                return False
            except (WaitInterruptedError, PersistenceError):
                continue  # it died, or its view's connections did: see what comes next
        return False

    def stop(self) -> None:
        """Stop for good: the runner, and no restart."""
        self._stopping.set()
        self.runner.stop()

    def close(self) -> None:
        """Stop, and close the runner's threads and connections."""
        self.stop()
        self._thread.join()
        self._retire(self.runner)

    def _supervise(self) -> None:
        """Wait for the runner to end; unless stopping, start another (with backoff)."""
        delay = FIRST_DELAY
        while not self._stopping.is_set():
            started = monotonic()
            self.problem = self._ended(self.runner)
            if self._stopping.is_set():
                return
            delay = FIRST_DELAY if monotonic() - started > HEALTHY_AFTER else delay
            self._retire(self.runner)
            delay = self._restart(delay)

    def _ended(self, runner: Runner) -> str:
        """Block until the runner ends; why it did."""
        try:
            runner.run_forever()
        except Exception as error:  # its thread's error, whatever it is: start another
            log.warning("the projection runner stopped: %s: %s", type(error).__name__, error)
            # The error's kind only (readiness says it to anyone): its text may name hosts.
            return f"the projection runner stopped ({type(error).__name__}); restarting"
        return "the projection runner stopped"

    def _restart(self, delay: float) -> float:
        """Start a new runner, retrying with doubling delays; the delay to use next."""
        while not self._stopping.wait(delay):
            try:
                runner = self._entered(self._start())
            except Exception as error:  # the database is still away: try again, later
                delay = min(delay * 2, MOST_DELAY)
                self.problem = f"restarting the projection runner: {type(error).__name__}"
                log.warning("the projection runner could not restart (%s: %s); next try in "
                            "%.1f s", type(error).__name__, error, delay)
                continue
            self.runner, self.problem, self.restarts = runner, None, self.restarts + 1
            log.warning("the projection runner restarted (restart %d) at notification %s",
                        self.restarts, self._position_or_none())
            if self._stopping.is_set():  # closed meanwhile: close() retires this one
                runner.stop()
            return min(delay * 2, MOST_DELAY)
        return delay

    def _position_or_none(self) -> int | None:
        with contextlib.suppress(PersistenceError):
            return self.position()
        return None

    @staticmethod
    def _entered(runner: Runner) -> Runner:
        return runner.__enter__()

    @staticmethod
    def _retire(runner: Runner) -> None:
        """Close a runner that has ended: its threads, its log's pool, its view's pool."""
        try:
            runner.__exit__(None, None, None)
        except Exception as error:  # its thread's error once more (already logged)
            log.debug("the projection runner closed with %s", error)
        finally:
            runner.view.datastore.close()
