"""The materialized view in PostgreSQL."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InterfaceError, OperationalError, Tracking
from eventsourcing.postgres import PostgresTrackingRecorder
from eventsourcing.utils import retry
from psycopg import Cursor
from psycopg.rows import DictRow
from psycopg.sql import SQL, Composed, Identifier

from projections import view_sql as shared
from projections.fold import FOLD_VERSION
from projections.rows import META
from projections.sealed import (
    Seal,
    checkpoint_mac,
    checkpoint_macs,
    row_macs,
    sealed_rows,
)
from projections.view_sql import (
    ANY,
    CHECKPOINTS,
    FOLD_TABLE,
    FOLDED_LOG,
    TABLE,
    Checkpoints,
    Encoded,
    RowValue,
    outdated,
)

# Before they shared the application's tracking table, the projection runner's views kept
# their position in a table of their own: it is merged in (the further position kept) and
# dropped, so that no notification is folded again.
_RUNNER_TRACKING = "boundprojection_tracking"
log = logging.getLogger(__name__)
_MERGE_RUNNER_TRACKING = (
    "DO $refit_merge$ BEGIN "
    "PERFORM pg_advisory_xact_lock(hashtext({old_name})); "  # processes starting together
    "IF to_regclass({old_name}) IS NOT NULL THEN "
    "INSERT INTO {schema}.{tracking} AS t SELECT application_name, notification_id "
    "FROM {schema}.{old} WHERE application_name <> '__migration__' "
    "ON CONFLICT (application_name) DO UPDATE "
    "SET notification_id = GREATEST(t.notification_id, EXCLUDED.notification_id); "
    "DROP TABLE {schema}.{old}; "
    "END IF; END $refit_merge$"
)


class PostgresProjectionView(PostgresTrackingRecorder):
    """Projection rows in PostgreSQL."""

    seal: Seal | None = None  # infra's (a subclass names it): rows and checkpoints sealed
    events_table = "stored_events"  # the log's, in the same schema (infra names it)

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        super().__init__(datastore, **kwargs)
        table = Identifier(self.datastore.schema), Identifier(TABLE)
        self._tables = table
        self.sql_create_statements.append(SQL(
            "CREATE TABLE IF NOT EXISTS {0}.{1} (campaign text, kind text, key text, "
            "ord bigint, doc text, mac text, PRIMARY KEY (campaign, kind, key))").format(*table))
        self.sql_create_statements.append(SQL(_MERGE_RUNNER_TRACKING).format(
            schema=Identifier(self.datastore.schema),
            tracking=Identifier(self.tracking_table_name), old=Identifier(_RUNNER_TRACKING),
            old_name=f'"{self.datastore.schema}"."{_RUNNER_TRACKING}"'))
        checkpoints = Identifier(self.datastore.schema), Identifier(CHECKPOINTS)
        self._checkpoints = checkpoints
        self.sql_create_statements.append(SQL(
            "CREATE TABLE IF NOT EXISTS {0}.{1} (campaign text, version bigint, doc bytea, "
            "mac text, PRIMARY KEY (campaign, version))").format(*checkpoints))
        self.sql_create_statements.append(SQL(
            "CREATE TABLE IF NOT EXISTS {0}.{1} (version integer NOT NULL)").format(
            Identifier(self.datastore.schema), Identifier(FOLD_TABLE)))
        self._select_checkpoint = SQL(
            "SELECT version, doc, mac FROM {0}.{1} WHERE campaign=%s AND version<=%s "
            "ORDER BY version DESC LIMIT 1").format(*checkpoints)
        self._select_checkpoints = SQL(
            "SELECT version, doc FROM {0}.{1} WHERE campaign=%s ORDER BY version"
        ).format(*checkpoints)
        self._insert_checkpoint = SQL(
            "INSERT INTO {0}.{1} AS t VALUES (%s, %s, %s, %s) ON CONFLICT (campaign, version) "
            "DO UPDATE SET doc = EXCLUDED.doc, mac = EXCLUDED.mac "
            "WHERE t.mac IS DISTINCT FROM EXCLUDED.mac").format(*checkpoints)
        self._checkpoint_versions = SQL(
            "SELECT version FROM {0}.{1} WHERE campaign=%s ORDER BY version").format(*checkpoints)
        self._checkpoint_version = SQL(
            "SELECT max(version) AS v FROM {0}.{1} WHERE campaign=%s AND version<=%s"
        ).format(*checkpoints)
        self._count_rows = SQL("SELECT count(*) AS n FROM {0}.{1} WHERE campaign=%s").format(
            *table)
        self._select_row = SQL(
            "SELECT ord, doc, mac FROM {0}.{1} WHERE campaign=%s AND kind=%s AND key=%s"
        ).format(*table)
        self._select_metas = SQL(
            "SELECT campaign, ord, doc, mac FROM {0}.{1} WHERE kind=%s AND key='' "
            "AND campaign = ANY(%s)").format(*table)
        self._select_rows = SQL(
            "SELECT key, ord, doc, mac FROM {0}.{1} WHERE campaign=%s AND kind=%s "
            "ORDER BY ord, key").format(*table)
        self._select_last_rows = SQL(
            "SELECT key, ord, doc, mac FROM {0}.{1} WHERE campaign=%s AND kind=%s "
            "ORDER BY key DESC LIMIT %s").format(*table)
        self._lock = SQL("SELECT pg_advisory_xact_lock(hashtext({0}))").format(
            f"{self.datastore.schema}.{TABLE}")
        self._select_keys = SQL(
            "SELECT kind, key FROM {0}.{1} WHERE campaign=%s").format(*table)
        self._select_campaign = SQL(
            "SELECT kind, key, ord, doc, mac FROM {0}.{1} WHERE campaign=%s").format(*table)
        self._delete = SQL(
            "DELETE FROM {0}.{1} WHERE campaign=%s AND kind=%s AND key=%s").format(*table)
        self._select_all = SQL(
            "SELECT campaign, key, ord, doc, mac FROM {0}.{1} WHERE kind=%s "
            "ORDER BY campaign, ord").format(*table)
        # One statement per batch: the rows travel as six binary arrays (keys are unique
        # per batch); binary spares the server parsing JSON quoted inside array literals.
        self._upsert = SQL(
            "INSERT INTO {0}.{1} SELECT * FROM unnest(%b::text[], %b::text[], %b::text[], "
            "%b::bigint[], %b::text[], %b::text[]) ON CONFLICT (campaign, kind, key) "
            "DO UPDATE SET ord = EXCLUDED.ord, doc = EXCLUDED.doc, mac = EXCLUDED.mac"
        ).format(*table)

    def create_table(self) -> None:
        """The tables; a view kept from before the seal gains its MAC column, and its rows
        and checkpoints are sealed as they stand (verify compares them with the events);
        a view another fold made is emptied, to be folded again from the events."""
        super().create_table()
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(self._lock)  # processes starting together do each once
            self._sealed_as_they_stand(curs)
            self._emptied_if_outdated(curs)

    def _sealed_as_they_stand(self, curs: Any) -> None:
        curs.execute("SELECT 1 FROM information_schema.columns WHERE table_schema=%s "
                     "AND table_name=%s AND column_name='mac'", (self.datastore.schema, TABLE))
        if curs.fetchone() is not None:
            return
        for names in (self._tables, self._checkpoints):
            curs.execute(SQL("ALTER TABLE {0}.{1} ADD COLUMN IF NOT EXISTS mac text")
                         .format(*names))
        curs.execute(SQL("SELECT campaign, kind, key, ord, doc FROM {0}.{1}").format(
            *self._tables))
        curs.executemany(SQL("UPDATE {0}.{1} SET mac=%s WHERE campaign=%s AND kind=%s "
                             "AND key=%s").format(*self._tables),
                         row_macs(self.seal, curs.fetchall()))
        curs.execute(SQL("SELECT campaign, version, doc FROM {0}.{1}").format(
            *self._checkpoints))
        curs.executemany(SQL("UPDATE {0}.{1} SET mac=%s WHERE campaign=%s AND version=%s")
                         .format(*self._checkpoints),
                         checkpoint_macs(self.seal, curs.fetchall()))

    def _emptied_if_outdated(self, curs: Any) -> None:
        schema = Identifier(self.datastore.schema)
        fold = Identifier(FOLD_TABLE)
        curs.execute(SQL("SELECT version FROM {0}.{1}").format(schema, fold))
        found = curs.fetchone()
        if found and found["version"] == FOLD_VERSION:
            return
        curs.execute(SQL("SELECT 1 FROM {0}.{1} LIMIT 1").format(*self._tables))
        if outdated(found and found["version"], curs.fetchone() is not None):
            for names in (self._tables, self._checkpoints):
                curs.execute(SQL("DELETE FROM {0}.{1}").format(*names))
            # the tracking table it shares with the webhooks, whose position is kept
            curs.execute(SQL("DELETE FROM {0}.{1} WHERE application_name=%s").format(
                schema, Identifier(self.tracking_table_name)), (FOLDED_LOG,))
            log.warning("the view was folded by another version of the fold: emptied, it "
                        "is folded again from the events")
        curs.execute(SQL("DELETE FROM {0}.{1}").format(schema, fold))
        curs.execute(SQL("INSERT INTO {0}.{1} VALUES (%s)").format(schema, fold),
                     (FOLD_VERSION,))

    @contextmanager
    def _reading(self) -> Iterator[Cursor[DictRow]]:
        """A cursor for one read statement, on the pool's autocommit connection: one
        statement reads one snapshot of the database, so a transaction around it would
        only add two round trips (its BEGIN and ROLLBACK) to each read."""
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            yield curs

    def select_row(self, campaign: str, kind: str, key: str) -> RowValue | None:
        """One row (RowUnsealed if its seal fails)."""
        with self._reading() as curs:
            curs.execute(self._select_row, (campaign, kind, key))
            row = curs.fetchone()
        return shared.sealed_row(self.seal, campaign, kind, key, row)

    def select_metas(self, campaigns: list[str]) -> dict[str, tuple[int, str] | None]:
        """Campaigns' meta rows (as SQLite's view reads them), in one query."""
        with self._reading() as curs:
            curs.execute(self._select_metas, (META, campaigns))
            rows = [(r["campaign"], r["ord"], r["doc"], r["mac"]) for r in curs.fetchall()]
        return shared.metas_found(self.seal, campaigns, rows)

    def select_rows(self, campaign: str, kind: str) -> list[dict[str, Any]]:
        """A campaign's rows of a kind, in order (RowUnsealed if a seal fails)."""
        with self._reading() as curs:
            curs.execute(self._select_rows, (campaign, kind))
            return shared.checked_docs(self.seal, campaign, kind, curs.fetchall())

    @cached_property
    def _select_meta_at_head(self) -> Composed:
        """`select_meta_at_head`'s statement, made once infra has named the log's table."""
        return SQL(
            "SELECT (SELECT max(originator_version) FROM {0}.{2} WHERE originator_id=%s) "
            "AS head, r.key AS key, r.ord AS ord, r.doc AS doc, r.mac AS mac "
            "FROM (SELECT 1) AS one LEFT JOIN {0}.{1} AS r ON r.campaign=%s AND r.kind=%s "
            "ORDER BY r.ord, r.key").format(*self._tables, Identifier(self.events_table))

    # Retried as the log's own reads are (it stands in for one): after an outage the pool
    # may hand out a connection the server has ended.
    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_meta_at_head(self, campaign: str) -> tuple[int | None, list[dict[str, Any]]]:
        """The campaign's last stored version and its meta rows, in one statement (a read
        of one campaign asks both: whether the view has folded it, and from where)."""
        with self._reading() as curs:
            curs.execute(self._select_meta_at_head, (UUID(campaign), campaign, META))
            found = curs.fetchall()
        return shared.at_head(self.seal, campaign, found)

    def select_last_rows(self, campaign: str, kind: str, count: int
                         ) -> list[dict[str, Any]]:
        """A campaign's last `count` rows of a kind by key, in order (RowUnsealed if a
        seal fails): a page's latest rolls, without reading them all. For a kind whose keys
        sort as its order (a roll's is its zero-padded version), so that the primary key
        finds them from its end, with no sort of every row of the kind."""
        with self._reading() as curs:
            curs.execute(self._select_last_rows, (campaign, kind, count))
            return shared.checked_docs(self.seal, campaign, kind, curs.fetchall()[::-1])

    def select_all(self, kind: str, unsealed: list[str] | None = None
                   ) -> list[dict[str, Any]]:
        """Every campaign's rows of a kind (the campaigns of rows whose seal fails are
        listed in `unsealed` instead)."""
        with self._reading() as curs:
            curs.execute(self._select_all, (kind,))
            rows = [(r["campaign"], r["key"], r["ord"], r["doc"], r["mac"])
                    for r in curs.fetchall()]
        return shared.sealed_docs(self.seal, kind, rows, unsealed)

    def select_checkpoint(self, campaign: str, at_most: int) -> tuple[int, bytes] | None:
        """The latest sealed checkpoint of a campaign at or before a version."""
        return shared.latest_sealed(self.seal, campaign, at_most, self._checkpoint_at)

    def _checkpoint_at(self, campaign: str, at_most: int) -> Any:
        with self._reading() as curs:
            curs.execute(self._select_checkpoint, (campaign, at_most))
            return curs.fetchone()

    def select_checkpoints(self, campaign: str) -> list[tuple[int, bytes]]:
        """Every checkpoint a campaign has, as stored, whatever its seal (for verify)."""
        with self._reading() as curs:
            curs.execute(self._select_checkpoints, (campaign,))
            return [(row["version"], bytes(row["doc"])) for row in curs.fetchall()]

    def insert_checkpoint(self, campaign: str, version: int, doc: bytes) -> None:
        """Keep a campaign's rows as of a version (history: only an unsealed one is
        replaced)."""
        with self.datastore.transaction(commit=True) as curs:
            self._insert_checkpoints(curs, [(campaign, version, doc)])

    def _insert_checkpoints(self, curs: Any, checkpoints: Checkpoints) -> None:
        curs.executemany(self._insert_checkpoint, [
            (campaign, version, doc, checkpoint_mac(self.seal, campaign, version, doc))
            for campaign, version, doc in checkpoints])

    def checkpoint_versions(self, campaign: str) -> list[int]:
        """The versions of every checkpoint a campaign has, oldest first."""
        with self._reading() as curs:
            curs.execute(self._checkpoint_versions, (campaign,))
            return [row["version"] for row in curs.fetchall()]

    def checkpoint_version(self, campaign: str, at_most: int) -> int | None:
        """The version of the latest checkpoint of a campaign at or before a version."""
        with self._reading() as curs:
            curs.execute(self._checkpoint_version, (campaign, at_most))
            found = curs.fetchone()
        return None if found is None else found["v"]

    def count_rows(self, campaign: str) -> int:
        """How many rows a campaign has."""
        with self._reading() as curs:
            curs.execute(self._count_rows, (campaign,))
            found = curs.fetchone()
        return 0 if found is None else int(found["n"])

    def select_keys(self, campaign: str) -> list[tuple[str, str]]:
        """The (kind, key) of every row a campaign has."""
        with self._reading() as curs:
            curs.execute(self._select_keys, (campaign,))
            return [(row["kind"], row["key"]) for row in curs.fetchall()]

    def select_campaign(self, campaign: str, checked: bool = True
                        ) -> list[tuple[str, str, int, str]]:
        """Every row a campaign has: (kind, key, order, document as JSON); `checked`:
        refusing a row whose seal fails."""
        with self._reading() as curs:
            curs.execute(self._select_campaign, (campaign,))
            rows = [(r["kind"], r["key"], r["ord"], r["doc"], r["mac"]) for r in curs.fetchall()]
        return shared.campaign_rows(self.seal if checked else None, campaign, rows)

    def renew(self, campaign: str, rows: Encoded, version: int) -> bool:
        """Replace a campaign's rows with `rows` (folded from its events as of `version`),
        sealed; only while its sealed meta row says the view holds it at that version."""
        columns = [list(column) for column in zip(*sealed_rows(self.seal, rows), strict=True)]
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(self._lock)  # one writer of the view at a time, until commit
            curs.execute(self._select_row, (campaign, META, ""))
            if not shared.at_version(self.seal, campaign, curs.fetchone(), version):
                return False
            curs.execute(SQL("DELETE FROM {0}.{1} WHERE campaign=%s").format(*self._tables),
                         (campaign,))
            if columns:
                curs.execute(self._upsert, columns)
        return True

    def write(self, rows: Encoded, tracking: Tracking, after: int | None = ANY,
              checkpoints: Checkpoints = ()) -> None:
        """Upsert rows, keep checkpoints and record tracking atomically; refuse if the view
        has moved on."""
        kept, gone = shared.split(rows)
        columns = [list(column) for column in zip(*sealed_rows(self.seal, kept), strict=True)]
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(self._lock)  # one writer of the view at a time, until commit
            found = self._max_tracking_id(tracking.application_name, curs)
            shared.check_after(found, after, tracking)
            if columns:
                curs.execute(self._upsert, columns)
            if gone:
                curs.executemany(self._delete, gone)
            if checkpoints:
                self._insert_checkpoints(curs, checkpoints)
            self._insert_tracking(curs, tracking)
