"""eventsourcing's PostgreSQL application recorder, whose insert is one statement the
server commits, with the module data table (infra/recorder.py has SQLite's), and a page of
one campaign's rows for reads of a whole history (infra/rows.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import (
    InterfaceError,
    Notification,
    OperationalError,
    StoredEvent,
)
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.utils import retry
from psycopg import Cursor
from psycopg.rows import DictRow, tuple_row
from psycopg.sql import SQL, Identifier, Literal

from infra.healing_pool import heal
from infra.recorder import MODULE_DATA, Pin

# The body of eventsourcing's own insert function (POSTGRES_ENABLE_DB_FUNCTIONS), with the
# table lock its two-step insert takes. Without the lock, notification ids could commit
# out of order and a reader of the log (the views' catch-up) could pass over one.
_FUNCTION = (
    "CREATE OR REPLACE FUNCTION {schema}.{name}(events {schema}.{event}[]) "
    "RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$ "
    "BEGIN "
    "SET LOCAL lock_timeout = '{lock_timeout}s'; "
    "LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; "
    "NOTIFY {channel}; "
    "RETURN QUERY INSERT INTO {schema}.{table} AS t "
    "(originator_id, originator_version, topic, state) "
    "SELECT originator_id, originator_version, topic, state FROM unnest(events) "
    "RETURNING notification_id; "
    "END; $BODY$"
)


class LedgerRecorder(PostgresApplicationRecorder):
    """eventsourcing's application recorder, inserting through a function that takes the
    events table's lock, so that each save is one autocommit statement.

    eventsourcing's own insert holds that lock from the insert until the client has read
    the result and sent COMMIT; in a busy service that client is a thread waiting for
    Python's GIL, and every other save waits behind it. Here the server commits as the
    statement ends, so the lock is held for the insert and the commit only.
    """

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        heal(datastore)  # every datastore of the service has one of these recorders
        super().__init__(datastore, **kwargs)  # which opens its pool
        self.pg_function_name_insert_events = f"refit_insert_events_{datastore.originator_id_type}"
        schema = Identifier(datastore.schema)
        name = Identifier(self.pg_function_name_insert_events)
        self.sql_invoke_pg_function_insert_events = SQL("SELECT * FROM {0}.{1}((%s))").format(
            schema, name)
        self.sql_create_statements[self.create_insert_function_statement_index] = SQL(
            _FUNCTION).format(schema=schema, name=name,
                              event=Identifier(self.stored_event_type_name),
                              lock_timeout=datastore.lock_timeout,
                              table=Identifier(self.events_table_name),
                              channel=Identifier(self.channel_name))
        self._create_lock = SQL("SELECT pg_advisory_xact_lock(hashtext({0}))").format(
            Literal(f"{datastore.schema}.{self.events_table_name}.create"))
        data = Identifier(datastore.schema), Identifier(MODULE_DATA)
        self.sql_create_statements.append(SQL(
            "CREATE TABLE IF NOT EXISTS {0}.{1} (hash text PRIMARY KEY, module text NOT NULL, "
            "doc text NOT NULL)").format(*data))
        self._insert_data = SQL(
            "INSERT INTO {0}.{1} VALUES (%s, %s, %s) ON CONFLICT (hash) DO NOTHING").format(*data)
        self._select_data = SQL("SELECT doc FROM {0}.{1} WHERE hash=%s").format(*data)
        self._select_log = SQL(
            "SELECT notification_id, originator_id, originator_version, topic, state "
            "FROM {0}.{1} WHERE notification_id>=%s AND notification_id<=%s "
            "ORDER BY notification_id LIMIT %s").format(schema,
                                                        Identifier(self.events_table_name))

    def insert_events(self, stored_events: Sequence[StoredEvent],
                      **kwargs: Any) -> Sequence[int] | None:
        """The events; with module data to keep, that data and the events in one
        transaction (a campaign's creation, an upgrade, an import's first page)."""
        pins: list[Pin] = kwargs.get("module_data") or []
        if not pins:
            return super().insert_events(stored_events, **kwargs)
        events = [self.construct_pg_stored_event(e.originator_id, e.originator_version,
                                                 e.topic, e.state) for e in stored_events]
        with self.datastore.get_connection() as conn, conn.transaction(), \
                conn.cursor() as curs:
            curs.executemany(self._insert_data, pins)
            curs.execute(self.sql_invoke_pg_function_insert_events, (events,))
            return [r[self.pg_function_name_insert_events] for r in curs.fetchall()]

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_notifications(self, start: int | None, limit: int, stop: int | None = None,
                             topics: Sequence[str] = (), *,
                             inclusive_of_start: bool = True) -> Sequence[Notification]:
        """eventsourcing's read of the log, its rows as tuples in PostgreSQL's binary
        format: twice eventsourcing's rows per CPU-second (dicts, and bytea as hex text),
        and the views' rebuild and runner read every row (bench/, issue 17)."""
        if topics or start is None or not inclusive_of_start:
            return super().select_notifications(start, limit, stop, topics,
                                                inclusive_of_start=inclusive_of_start)
        with self.datastore.get_connection() as conn, \
                conn.cursor(row_factory=tuple_row, binary=True) as curs:
            curs.execute(self._select_log, (start, 2**62 if stop is None else stop, limit),
                         prepare=True)
            return [Notification(id=ident, originator_id=originator, originator_version=version,
                                 topic=topic, state=state)
                    for ident, originator, version, topic, state in curs.fetchall()]

    def select_module_data(self, pin: str) -> str | None:
        """The document stored for a hash, as stored (None if there is none)."""
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self._select_data, (pin,))
            row = curs.fetchone()
        return None if row is None else str(row["doc"])

    def _create_table(self, curs: Cursor[DictRow]) -> None:
        """eventsourcing's, one process at a time: processes starting together (`--jobs`,
        `refit serve --workers`) would otherwise replace the insert function at once, which
        PostgreSQL refuses ("tuple concurrently updated")."""
        curs.execute(self._create_lock)
        super()._create_table(curs)


def state_page(recorder: PostgresApplicationRecorder, campaign_id: UUID, gt: int,
               lte: int | None, limit: int) -> list[tuple[int, str, bytes]]:
    """A page of the campaign's rows (version, topic, state) after `gt`, up to `lte`, for
    infra/rows.py's reads of a whole history."""
    statement = SQL("SELECT originator_version, topic, state FROM {0}.{1} WHERE "
                    "originator_id=%s AND originator_version>%s AND originator_version<=%s "
                    "ORDER BY originator_version LIMIT %s").format(
        Identifier(recorder.datastore.schema), Identifier(recorder.events_table_name))
    top = lte if lte is not None else 2**62
    with recorder.datastore.get_connection() as conn, \
            conn.cursor(row_factory=tuple_row) as cursor:
        cursor.execute(statement, (campaign_id, gt, top, limit), prepare=True)
        return [(version, topic, bytes(state)) for version, topic, state in cursor.fetchall()]
