"""PostgreSQL connection pools that heal: while the database is away a request is refused
at once (503 `unavailable`) instead of hanging, and once it is back the pool fills again
within about a second.

psycopg_pool, left to itself, does neither. A request waits for a connection for the
pool's whole timeout, and eventsourcing tries each read and write ten times, so a request
hung for about 100 s (bench/chaos.py `db_away`). Its reconnection doubles its delay after
each failed try without bound and gives up after five minutes, so after a 20 s outage the
service took 10 s more to answer, and after a longer one a pool could stay empty for good.
"""

from __future__ import annotations

import logging
import math
import sys
import time
from typing import Any

from psycopg_pool import ConnectionPool
from psycopg_pool.base import AttemptWithBackoff

from infra.drivers import DatabaseAway

log = logging.getLogger(__name__)
RETRY = 1.0  # seconds between tries to connect while the database is away (jittered)


class SteadyAttempt(AttemptWithBackoff):
    """Another try every RETRY seconds, for as long as it takes."""

    INITIAL_DELAY = RETRY
    DELAY_BACKOFF = 1.0

    def __init__(self) -> None:
        super().__init__(timeout=math.inf)


def healing(kind: Any) -> Any:
    """The healing subclass of a pool class: it knows whether its last try to connect
    failed, refuses connections at once while it did, and tries again steadily. (A class
    made here, not a mixin: a pool's class can only become a subclass of its own.)"""
    if kind in _classes:
        return _classes[kind]

    class Healing(kind):  # type: ignore[misc, valid-type]
        away_since: float | None = None  # monotonic time of the first failed try, if away

        def getconn(self, timeout: float | None = None) -> Any:
            """A connection, or DatabaseAway at once while the last try to connect
            failed."""
            if self.away_since is not None:
                raise DatabaseAway(f"no connection to PostgreSQL for "
                                   f"{time.monotonic() - self.away_since:.0f} s")
            return super().getconn(timeout)

        def _connect(self, timeout: float | None = None) -> Any:
            try:
                conn = super()._connect(timeout)
            except Exception:
                if self.away_since is None:
                    self.away_since = time.monotonic()
                    log.warning("PostgreSQL takes no connection: requests are refused "
                                "until it does (trying every %.0f s)", RETRY)
                raise
            if self.away_since is not None:  # each failed try is followed by one of its own
                log.warning("PostgreSQL is back after %.1f s",
                            time.monotonic() - self.away_since)
                self.away_since = None
            return conn

        def _add_connection(self, attempt: AttemptWithBackoff | None,
                            growing: bool = False) -> None:
            super()._add_connection(attempt or SteadyAttempt(), growing)

    Healing.__name__ = Healing.__qualname__ = f"Healing{kind.__name__}"
    _classes[kind] = Healing
    return Healing


_classes: dict[Any, Any] = {}
HealingPool = healing(ConnectionPool)  # psycopg_pool's (the advisory locks', store_lock.py)


def heal(datastore: Any) -> None:
    """Make eventsourcing's pool of a PostgreSQL datastore heal. eventsourcing makes the
    pool inside its datastore and offers no way to name its class, so the pool, not yet
    opened, becomes an instance of a subclass that adds the healing (and no fields)."""
    postgres = sys.modules.get("eventsourcing.postgres")
    pool = getattr(datastore, "pool", None)
    if postgres is None or not isinstance(pool, postgres.ConnectionPool):
        return
    if type(pool) not in _classes.values():
        pool.__class__ = healing(type(pool))
