"""A campaign's command lock across service processes: PostgreSQL's advisory lock.

Within one process a campaign's commands already take turns (Refit._campaign_lock).
When several processes share the database, they would otherwise race and retry on
conflicts; holding the campaign's advisory lock while a command runs lets them take
turns instead. The locks are held on connections of their own, so a command waiting for
one holds none of the connections the event store needs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from uuid import UUID

from psycopg import Connection
from psycopg.conninfo import make_conninfo
from psycopg_pool import ConnectionPool

LOCK_CLASS = 0x52454649  # "REFI": the first key of the two-key advisory lock, so campaign
# locks never share keys with other advisory locks (the view's single-key lock)


def lock_key(campaign_id: UUID) -> int:
    """The campaign's advisory lock key: a signed 32-bit number from its id."""
    return int.from_bytes(campaign_id.bytes[:4], "big", signed=True)


class StoreLock:
    """Per-campaign advisory locks on a small pool of their own."""

    def __init__(self, env: dict[str, str], size: int) -> None:
        conninfo = make_conninfo(
            dbname=env["POSTGRES_DBNAME"], host=env["POSTGRES_HOST"],
            port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
            password=env["POSTGRES_PASSWORD"] or None,
            connect_timeout=env.get("POSTGRES_CONNECT_TIMEOUT", "10"))
        self.pool: ConnectionPool[Connection[tuple[object, ...]]] = ConnectionPool(
            conninfo, min_size=1, max_size=size, kwargs={"autocommit": True}, open=True)

    @contextmanager
    def hold(self, campaign_id: UUID) -> Iterator[None]:
        """Hold the campaign's lock (waiting for another process's command to finish)."""
        key = lock_key(campaign_id)
        with self.pool.connection() as conn:
            conn.execute("SELECT pg_advisory_lock(%s, %s)", (LOCK_CLASS, key))
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_CLASS, key))

    def close(self) -> None:
        """Close the lock connections."""
        self.pool.close()
