"""A campaign's command lock across service processes: PostgreSQL's advisory lock.

Within one process a campaign's commands already take turns (Refit._campaign_lock).
When several processes share the database, they would otherwise race and retry on
conflicts; holding the campaign's advisory lock while a command runs lets them take
turns instead. The locks are held on connections of their own, so a command waiting for
one holds none of the connections the event store needs.
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from uuid import UUID

from psycopg import Connection, errors
from psycopg.conninfo import make_conninfo
from psycopg_pool import ConnectionPool

from domain.errors import CampaignBusy
from infra.healing_pool import HealingPool

log = logging.getLogger(__name__)

LOCK_CLASS = 0x52454649  # "REFI": with the schema, the first key of the two-key advisory
# lock, so campaign locks never share keys with other advisory locks (the view's single-key
# lock) nor with a copy of the campaign in another schema of the database


def lock_class(schema: str) -> int:
    """The first key of this schema's campaign locks: a signed 32-bit number."""
    mixed = (LOCK_CLASS ^ zlib.crc32(schema.encode())) & 0xFFFFFFFF
    return mixed - (1 << 32) if mixed >= 1 << 31 else mixed


def lock_key(campaign_id: UUID) -> int:
    """The campaign's advisory lock key: a signed 32-bit number from its id."""
    return int.from_bytes(campaign_id.bytes[:4], "big", signed=True)



def unlock(conn: Connection[tuple[object, ...]], keys: tuple[int, int]) -> None:
    """Free the campaign's lock. On a connection the database has dropped (a restart, a
    terminated backend) the lock died with its session: nothing is left to free, and the
    command it guarded is saved or refused already, so this must not turn its answer into
    a failure (the pool discards the broken connection)."""
    try:
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", keys)
    except (errors.OperationalError, errors.InterfaceError):
        log.warning("campaign lock %s freed with its dropped connection", keys, exc_info=True)
        conn.close()  # were the session alive still, ending it frees the lock all the same


def postgres_conninfo(env: dict[str, str]) -> str:
    """The connection string of the database eventsourcing's environment names."""
    return make_conninfo(
        dbname=env["POSTGRES_DBNAME"], host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"],
        user=env["POSTGRES_USER"], password=env["POSTGRES_PASSWORD"] or None,
        connect_timeout=env.get("POSTGRES_CONNECT_TIMEOUT", "10"))


class StoreLock:
    """Per-campaign advisory locks on a small pool of their own."""

    def __init__(self, env: dict[str, str], size: int, wait: float) -> None:
        conninfo = postgres_conninfo(env)
        self.wait, self.size = wait, size
        self.lock_class = lock_class(env.get("POSTGRES_SCHEMA") or "public")
        self.pool: ConnectionPool[Connection[tuple[object, ...]]] = HealingPool(
            conninfo, min_size=1, max_size=size, kwargs={"autocommit": True}, open=True,
            configure=self._bounded)

    def _bounded(self, conn: Connection[tuple[object, ...]]) -> None:
        """Waiting for a campaign's lock ends after the turn wait (LockNotAvailable)."""
        conn.execute("SELECT set_config('lock_timeout', %s, false)",
                     (f"{int(self.wait * 1000)}ms",))

    @contextmanager
    def hold(self, campaign_id: UUID) -> Iterator[None]:
        """Hold the campaign's lock (waiting for another process's command to finish)."""
        keys = self.lock_class, lock_key(campaign_id)
        # After an outage every pooled connection may be dead: each one found so is
        # discarded, so the pool's size plus one tries reach a connection made since.
        for attempt in range(self.size + 1):
            with self.pool.connection() as conn:
                if not self._locked(conn, keys, last=attempt == self.size):
                    continue  # a pooled connection an outage dropped: the pool discards it
                try:
                    yield
                finally:
                    unlock(conn, keys)
                return

    def _locked(self, conn: Connection[tuple[object, ...]], keys: tuple[int, int],
                last: bool) -> bool:
        """Take the lock on `conn`; False when the connection is dead and another may be
        tried (nothing was done on it yet, so trying again is safe)."""
        try:
            conn.execute("SELECT pg_advisory_lock(%s, %s)", keys)
        except errors.LockNotAvailable:
            raise CampaignBusy.after(self.wait, "another process's command") from None
        except (errors.OperationalError, errors.InterfaceError):
            if last or not conn.broken:
                raise
            log.info("campaign lock: a pooled connection was dropped; taking a fresh one")
            return False
        return True

    def close(self) -> None:
        """Close the lock connections."""
        self.pool.close()
