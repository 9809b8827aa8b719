"""An import's staging on PostgreSQL (infra/staging.py says what staging is): apart, so
that SQLite's command line never imports psycopg."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import psycopg
from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from psycopg.sql import SQL, Identifier

from infra.recorder import MODULE_DATA, Pin
from infra.staging import PAGE, STAGE, Staging

# PostgreSQL ends a session idle in a transaction after 5 s (eventsourcing's default), lest
# it hold locks; staging holds none that others wait for, and between two pages the
# import works out the next: it may wait longer, though not for ever.
IDLE_WHILE_STAGING_S = 60


class PostgresStaging(Staging):
    """Staged by COPY in a temporary table of the import's transaction (dropped at its
    end); the events table's lock is taken for the copy into it alone."""

    def __init__(self, curs: psycopg.Cursor[Any], recorder: PostgresApplicationRecorder,
                 snapshots: Any, campaign_id: UUID, mapper: Mapper[UUID]) -> None:
        super().__init__(campaign_id, mapper)
        self.curs = curs
        schema = Identifier(recorder.datastore.schema)
        idle = SQL("SET LOCAL idle_in_transaction_session_timeout = '{0}ms'")
        self.lock = [idle.format(int(recorder.datastore.idle_in_transaction_session_timeout
                                     * 1000)), *recorder.lock_table_statements,
                     SQL("NOTIFY {0}").format(Identifier(recorder.channel_name))]
        self.copy_in = SQL(
            "INSERT INTO {0}.{1} (originator_id, originator_version, topic, state) "
            "SELECT %s, version, topic, state FROM pg_temp.{2} ORDER BY version").format(
            schema, Identifier(recorder.events_table_name), Identifier(STAGE))
        self.pin = SQL("INSERT INTO {0}.{1} VALUES (%s, %s, %s) ON CONFLICT (hash) "
                       "DO NOTHING").format(schema, Identifier(MODULE_DATA))
        self.snapshot = SQL("INSERT INTO {0}.{1} (originator_id, originator_version, topic, "
                            "state) VALUES (%s, %s, %s, %s)").format(
            schema, Identifier(snapshots.events_table_name))
        curs.execute(idle.format(IDLE_WHILE_STAGING_S * 1000))
        curs.execute(SQL("CREATE TEMP TABLE {0} (version bigint PRIMARY KEY, topic text NOT "
                         "NULL, state bytea NOT NULL) ON COMMIT DROP").format(Identifier(STAGE)))

    def stage(self, events: Sequence[StoredEvent]) -> None:
        """Add a page of events by COPY (binary)."""
        with self.curs.copy(SQL("COPY pg_temp.{0} (version, topic, state) FROM STDIN "
                                "(FORMAT BINARY)").format(Identifier(STAGE))) as copy:
            copy.set_types(["int8", "text", "bytea"])
            for event in events:
                copy.write_row((event.originator_version, event.topic, event.state))

    def _select(self, gt: int, lte: int | None) -> list[tuple[int, str, bytes]]:
        self.curs.execute(SQL("SELECT version, topic, state FROM pg_temp.{0} WHERE version>%s "
                              "AND version<=%s ORDER BY version LIMIT %s").format(
            Identifier(STAGE)), (gt, lte if lte is not None else 2**62, PAGE))
        return [(row["version"], row["topic"], bytes(row["state"]))
                for row in self.curs.fetchall()]

    def switch_in(self, pins: list[Pin], snapshot: StoredEvent | None) -> None:
        """Copy the staged events in under the events table's lock (as every insert takes
        it, so notification ids commit in order and the views' readers miss none); from
        here on idle for no longer than any other transaction."""
        for statement in self.lock:
            self.curs.execute(statement)
        try:
            self.curs.execute(self.copy_in, (self.campaign_id,))
        except psycopg.errors.UniqueViolation:
            raise self._refused() from None
        self.curs.executemany(self.pin, pins)
        if snapshot is not None:
            self.curs.execute(self.snapshot, (self.campaign_id, snapshot.originator_version,
                                              snapshot.topic, snapshot.state))


@contextmanager
def postgres_staging(recorder: Any, snapshots: Any,
                     campaign_id: UUID, mapper: Mapper[UUID]) -> Iterator[Staging]:
    """An import's staging on PostgreSQL, in one transaction: what it switched in is
    committed as the context ends, and nothing at all if it ends by an error."""
    with recorder.datastore.get_connection() as conn, conn.transaction(), \
            conn.cursor() as curs:
        yield PostgresStaging(curs, recorder, snapshots, campaign_id, mapper)
