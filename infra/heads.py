"""Which campaigns other processes have saved to, read from the events table: each new
row's campaign and its last version, after the last row seen (the notification id, in
commit order: infra/recorder_postgres.py holds the table's lock for each insert)."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol
from uuid import UUID

Saved = list[tuple[UUID, int]]  # campaigns saved to, each at its last version
Follow = Callable[[float], Saved]  # wait up to so many seconds, then what was saved


class Heads(Protocol):
    """A way to follow the saves to one database."""

    def following(self) -> contextlib.AbstractContextManager[Follow]:
        """Follow from now on, on a connection of its own."""


class _Since:
    """The rows after the last one seen, grouped by campaign."""

    def __init__(self, select_last: str, select_since: Any) -> None:
        self.select_last, self.select_since = select_last, select_since
        self.last = 0

    def start(self, cursor: Any) -> None:
        cursor.execute(self.select_last)
        row = cursor.fetchone()
        self.last = int(row[0] or 0) if row else 0

    def saved(self, cursor: Any) -> Saved:
        cursor.execute(self.select_since, (self.last,))
        found: Saved = []
        for ident, version, last in cursor.fetchall():
            found.append((ident if isinstance(ident, UUID) else UUID(str(ident)), int(version)))
            self.last = max(self.last, int(last))
        return found


class SQLiteHeads:
    """SQLite tells no other process: its log is polled."""

    def __init__(self, path: str, table: str) -> None:
        self.path = path
        self.since = _Since(f"SELECT MAX(rowid) FROM {table}",
                            f"SELECT originator_id, MAX(originator_version), MAX(rowid) "
                            f"FROM {table} WHERE rowid > ? GROUP BY originator_id")

    @contextlib.contextmanager
    def following(self) -> Iterator[Follow]:
        connection = sqlite3.connect(self.path, timeout=5, check_same_thread=False)
        try:
            self.since.start(connection.cursor())

            def follow(wait: float) -> Saved:
                time.sleep(wait)
                return self.since.saved(connection.cursor())
            yield follow
        finally:
            connection.close()


class PostgresHeads:
    """PostgreSQL notifies the events table's channel at each insert (eventsourcing's
    and infra/recorder_postgres.py's insert do): one listening connection per process."""

    def __init__(self, conninfo: str, schema: str, table: str, channel: str) -> None:
        from psycopg.sql import SQL, Identifier  # psycopg only where PostgreSQL is used

        self.conninfo = conninfo
        self.listen = SQL("LISTEN {0}").format(Identifier(channel))
        where = Identifier(schema), Identifier(table)
        self.since = _Since(
            SQL("SELECT MAX(notification_id) FROM {0}.{1}").format(*where).as_string(),
            SQL("SELECT originator_id, MAX(originator_version), MAX(notification_id) "
                "FROM {0}.{1} WHERE notification_id > %s GROUP BY originator_id").format(
                *where))

    @contextlib.contextmanager
    def following(self) -> Iterator[Follow]:
        import psycopg

        with psycopg.connect(self.conninfo, autocommit=True) as connection:
            connection.execute(self.listen)  # before the first look: no save falls between
            self.since.start(connection.cursor())

            def follow(wait: float) -> Saved:
                told = sum(1 for _ in connection.notifies(timeout=wait, stop_after=1))
                return self.since.saved(connection.cursor()) if told else []
            yield follow


def heads_of(env: dict[str, str], recorder: Any) -> Heads | None:
    """How to follow the database a store's persistence environment names (None: an
    in-memory SQLite database, which no other process can write)."""
    if env.get("PERSISTENCE_MODULE") == "eventsourcing.postgres":
        from infra.store_lock import postgres_conninfo

        return PostgresHeads(postgres_conninfo(env), recorder.datastore.schema or "public",
                             recorder.events_table_name, recorder.channel_name)
    path = env.get("SQLITE_DBNAME", ":memory:")
    if ":memory:" in path or "mode=memory" in path:
        return None
    return SQLiteHeads(path, recorder.events_table_name)
