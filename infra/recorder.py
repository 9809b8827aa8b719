"""eventsourcing's PostgreSQL recorder, its insert one statement the server commits."""

from __future__ import annotations

from typing import Any

from eventsourcing.postgres import PostgresApplicationRecorder
from psycopg import Cursor
from psycopg.rows import DictRow
from psycopg.sql import SQL, Identifier, Literal

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
        super().__init__(datastore, **kwargs)
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

    def _create_table(self, curs: Cursor[DictRow]) -> None:
        """eventsourcing's, one process at a time: processes starting together (`--jobs`,
        `refit serve --workers`) would otherwise replace the insert function at once, which
        PostgreSQL refuses ("tuple concurrently updated")."""
        curs.execute(self._create_lock)
        super()._create_table(curs)
