"""PostgreSQL connection pools that heal: while the database takes no new connection a
request is refused at once (503 `unavailable`) instead of hanging, and once it is back
the pool fills again within about a second.

psycopg_pool, left to itself, does neither. A request waits for a connection for the
pool's whole timeout, and eventsourcing tries each read and write ten times, so a request
hung for about 100 s (bench/chaos.py `db_away`). Its reconnection doubles its delay after
each failed try (1, 2, 4 ... s) and gives up after five minutes, so after a 20 s outage
the service took 10 s more to answer (after a longer one, the next try may be minutes
away).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Any

from eventsourcing.postgres import ConnectionPool
from psycopg_pool import PoolTimeout
from psycopg_pool.base import AttemptWithBackoff

from infra.drivers import DatabaseAway

log = logging.getLogger(__name__)
RETRY = 1.0  # seconds between tries to connect while the database is away (jittered)
AWAY_WAIT = 0.5  # seconds a request waits for a pooled connection meanwhile
CONNECT_TRY = 5  # seconds a try to connect waits for the server (psycopg's default is 130)


class SteadyAttempt(AttemptWithBackoff):
    """Another try every RETRY seconds, for as long as it takes."""

    INITIAL_DELAY = RETRY
    DELAY_BACKOFF = 1.0

    def __init__(self) -> None:
        super().__init__(timeout=math.inf)


class HealingPool(ConnectionPool):  # type: ignore[type-arg]
    """eventsourcing's pool (psycopg_pool's, with a password callback), healing: it knows
    whether its last try to connect failed, refuses connections while it did, and tries
    again steadily."""

    away_since: float | None = None  # monotonic time of the first failed try, if away
    lent = 0  # connections handed out and not back yet
    served_at = 0.0  # when the server last served: a try connected, a connection came
    # back whole (a try begun before that which fails says nothing: it may have met a
    # server at its max_connections, or one not back yet)

    def getconn(self, timeout: float | None = None) -> Any:
        """A connection. While the last try to connect failed: refused at once if the
        pool holds none (nothing will come back), else one that comes within
        AWAY_WAIT (a server that refuses new connections only, at its
        max_connections, still serves the pool's own)."""
        since = self.away_since
        if since is not None and not self._pool and not self.lent:
            raise _away(since)
        try:
            conn = super().getconn(timeout if since is None else AWAY_WAIT)
        except PoolTimeout:
            if since is None:
                raise
            raise _away(since) from None
        with self._lock:
            self.lent += 1
        return conn

    def putconn(self, conn: Any) -> None:
        """Take a connection back; one that comes back whole says the server serves."""
        self._check_pool_putconn(conn)  # another pool's, or given back twice: refused
        with self._lock:
            self.lent = max(self.lent - 1, 0)
        if not (conn.broken or conn.closed):
            self._back()
        super().putconn(conn)

    def _connect(self, timeout: float | None = None) -> Any:
        began = time.monotonic()
        try:  # a host that takes the connection and never answers: CONNECT_TRY at most
            conn = super()._connect(timeout or CONNECT_TRY)
        except Exception:
            if self.served_at < began:
                self._gone()
            raise
        if self.away_since is not None:
            self._check_idle()
        self._back()
        return conn

    def _check_idle(self) -> None:
        """Each idle connection tried (the dead replaced) on a thread of its own, not
        handed to a request to fail on: after a failed try to connect they are most
        likely dead, and so are those left idle through an outage. (Not on the pool's
        scheduler: a check may wait on a host gone silent.)"""
        if not self._closed:
            threading.Thread(target=self.check, name=f"{self.name}-check",
                             daemon=True).start()

    def _add_connection(self, attempt: AttemptWithBackoff | None,
                        growing: bool = False) -> None:
        if not isinstance(attempt, SteadyAttempt):
            attempt = SteadyAttempt()
        super()._add_connection(attempt, growing)

    def _gone(self) -> None:
        """A failed try: the pool is away from now. Those already waiting for a
        connection are refused too: at once if none is out (psycopg_pool lets them
        wait out their timeout, 10 to 30 s), else after AWAY_WAIT, as a request that
        comes now is."""
        with self._lock:
            if self.away_since is not None:
                return
            self.away_since = since = time.monotonic()
            waiting, lent = list(self._waiting), self.lent
            if not lent:
                self._waiting.clear()
        log.warning("PostgreSQL takes no connection: requests are refused until it does "
                    "(trying every %.0f s)", RETRY)
        self._check_idle()
        if lent:  # one that has a connection by then is not refused (fail() is False)
            self._sched.enter(AWAY_WAIT, lambda: _fail(waiting, since))
        else:
            _fail(waiting, since)

    def _back(self) -> None:
        """The server serves (again)."""
        self.served_at = time.monotonic()
        since, self.away_since = self.away_since, None
        if since is not None:
            log.warning("PostgreSQL is back after %.1f s", time.monotonic() - since)


def _fail(waiting: list[Any], since: float) -> None:
    """Refuse those waiting for a connection (one already given one is not refused)."""
    for client in waiting:
        client.fail(_away(since))


def _away(since: float) -> DatabaseAway:
    away = time.monotonic() - since
    return DatabaseAway("PostgreSQL takes no new connection" + (
        f" (for {away:.0f} s; trying again every {RETRY:.0f} s)" if away >= 1 else ""))


def heal(datastore: Any) -> None:
    """Make eventsourcing's pool of a PostgreSQL datastore heal. eventsourcing makes the
    pool inside its datastore and offers no way to name its class, so the pool becomes a
    HealingPool (a subclass that adds no fields): before its recorder opens it
    (infra/recorder_postgres.py), as its first try to connect may fail."""
    if type(datastore.pool) is ConnectionPool:
        datastore.pool.__class__ = HealingPool
