"""The one projection runner of a PostgreSQL database, elected among the service's
processes (workers, or hosts) by a session advisory lock: the process holding it folds the
log into the views in batches, woken by the NOTIFY each append sends; the others stand by,
trying the lock every STANDBY_RETRY seconds, so when the holder dies (its connection ends,
and the lock with it) another takes over."""

from __future__ import annotations

import hashlib
import logging
import threading
from time import monotonic
from typing import TYPE_CHECKING, Any

from projections.held import Holding
from projections.runner import CampaignLog, CampaignProjection, catch_up

if TYPE_CHECKING:  # psycopg itself only where PostgreSQL is used (issue 17, item 6)
    from psycopg import Connection

log = logging.getLogger(__name__)
STANDBY_RETRY = 0.5  # seconds between a standby's tries of the lock: the failover delay
IDLE_CHECK = 0.25  # seconds without a NOTIFY before the log's head is looked at anyway
STOP_CHECK = 0.02  # seconds a leader waits for a NOTIFY before it looks whether to stop
# Seconds a leader waits after a NOTIFY before it folds, so that the appends of a burst
# are folded as one batch: a catch-up costs about 1 ms of CPU before its first event
# (its queries), and a runner that folded after every append spent 3.4 times the CPU
# (bench/load.py, the runner on a process of its own, issue 17). Reads never wait for it:
# a read folds its own campaign's missing events (infra/views.py).
GATHER = 0.01


def advisory_key(name: str, schema: str) -> int:
    """The advisory lock key of the one process doing `name`'s work for a schema (a signed
    64-bit integer)."""
    digest = hashlib.blake2b(f"{name}:{schema}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big", signed=True)


def lock_key(schema: str) -> int:
    """The advisory lock's key for a schema's views."""
    return advisory_key("refit-projection-runner", schema)


class ElectedRunner:
    """Folds the log into the views while it holds the database's runner lock.

    Its interface is the part of eventsourcing's ProjectionRunner that the supervisor
    uses (infra/supervisor.py): `run_forever`, `stop`, `is_interrupted`, `view`, `app`.
    """

    def __init__(self, app: CampaignLog, projection: CampaignProjection, key: int) -> None:
        self.app, self.projection, self.key = app, projection, key
        self.view = projection.view
        self.is_interrupted = threading.Event()
        self.leading = threading.Event()  # set while this runner holds the lock
        self.batches = 0  # catch-ups run while leading (tests see it wake)
        # The rows folded, held from one catch-up to the next: a batch of a few events
        # (one NOTIFY each) then reads none of them from the view again.
        self.holding = Holding(self.view, projection.reader)

    def __enter__(self) -> ElectedRunner:
        return self

    def __exit__(self, *args: object) -> None:
        self.stop()
        self.app.close()

    def stop(self) -> None:
        """End the loop (within IDLE_CHECK or STANDBY_RETRY seconds)."""
        self.is_interrupted.set()

    def run_forever(self) -> None:
        """Stand by, or lead, until stopped; a database error ends it (the supervisor
        starts another)."""
        datastore: Any = self.app.recorder.datastore  # type: ignore[attr-defined]
        try:
            while not self.is_interrupted.is_set():
                with datastore.get_connection() as conn:
                    led = self._led(conn)
                if not led:
                    self.is_interrupted.wait(STANDBY_RETRY)
        except BaseException:
            self.is_interrupted.set()
            raise

    def _led(self, conn: Connection[Any]) -> bool:
        """`_lead`; a failure closes the connection, so that its session's lock goes at
        once: returned to the pool mid-transaction, it would wait for a reset the pool's
        closing may never make, and a standby would wait for the lock as long."""
        try:
            return self._lead(conn)
        except BaseException:
            conn.close()
            raise

    def _lead(self, conn: Connection[Any]) -> bool:
        """Fold while holding the lock on this connection; False if another holds it."""
        from psycopg.sql import SQL, Identifier

        found = conn.execute("SELECT pg_try_advisory_lock(%s) AS won", (self.key,)).fetchone()
        if not found or not found["won"]:
            return False
        channel = Identifier(self.app.recorder.channel_name)  # type: ignore[attr-defined]
        conn.execute(SQL("LISTEN {0}").format(channel))
        self.leading.set()
        log.info("this process runs the projections (runner lock %s)", self.key)
        try:
            while not self.is_interrupted.is_set():
                catch_up(self.app, self.projection, holding=self.holding, follow=True)
                self.batches += 1
                self._notified_or_idle(conn)
        finally:
            self.leading.clear()
        conn.execute(SQL("UNLISTEN {0}").format(channel))
        conn.execute("SELECT pg_advisory_unlock(%s)", (self.key,))
        return True

    def _notified_or_idle(self, conn: Connection[Any]) -> None:
        """Wait for the first NOTIFY (an append's commit), or IDLE_CHECK seconds (an
        import's events come without one), or a stop: waited in short slices, so closing
        the service does not wait out the idle check."""
        deadline = monotonic() + IDLE_CHECK
        while not self.is_interrupted.is_set() and monotonic() < deadline:
            if next(conn.notifies(timeout=STOP_CHECK, stop_after=1), None) is not None:
                self.is_interrupted.wait(GATHER)
                for _ in conn.notifies(timeout=0):  # the burst's: all folded by this catch-up
                    pass
                return


def elected_runner(env: dict[str, str], view_class: type[Any], reader: Any) -> ElectedRunner:
    """A runner on connections of its own: the log, the view, and the lock's."""
    app = CampaignLog(env)
    view = app.factory.tracking_recorder(view_class)
    projection = CampaignProjection(view, reader=reader)
    return ElectedRunner(app, projection, lock_key(env.get("POSTGRES_SCHEMA") or "public"))


class LocalRunner(ElectedRunner):
    """The embedded database's runner: no election (SQLite has no advisory lock, and
    several processes folding at once refuse each other's stale batches, see catch_up)
    and no NOTIFY: it looks at the log's head every IDLE_CHECK seconds."""

    def run_forever(self) -> None:
        """Fold until stopped; an error ends it (the supervisor starts another)."""
        self.leading.set()
        try:
            while not self.is_interrupted.is_set():
                catch_up(self.app, self.projection, holding=self.holding, follow=True)
                self.batches += 1
                self.is_interrupted.wait(IDLE_CHECK)
        except BaseException:
            self.is_interrupted.set()
            raise
        finally:
            self.leading.clear()


def local_runner(env: dict[str, str], view_class: type[Any], reader: Any) -> LocalRunner:
    """A runner on SQLite, on connections of its own."""
    app = CampaignLog(env)
    view = app.factory.tracking_recorder(view_class)
    return LocalRunner(app, CampaignProjection(view, reader=reader), 0)
