"""Materialized views: projection rows and eventsourcing's tracking, in one transaction."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from eventsourcing.persistence import IntegrityError, Tracking, TrackingRecorder
from eventsourcing.postgres import PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteTrackingRecorder
from psycopg.sql import SQL, Identifier

from projections.rows import META
from projections.sealed import (
    RowUnsealed,
    Seal,
    check_row,
    checkpoint_holds,
    checkpoint_mac,
    checkpoint_macs,
    row_holds,
    row_macs,
    sealed_rows,
)

RowKey = tuple[str, str, str]  # campaign, kind, key
RowValue = tuple[int, dict[str, Any] | None]  # order, document (None: the row is gone)
Encoded = list[tuple[str, str, str, int, str | None]]  # campaign, kind, key, order, JSON

TABLE = "refit_projection_rows"
CHECKPOINTS = "refit_checkpoints"  # a campaign's rows as of a version, for `as_of` reads
ANY = -1  # `after` for a writer that is the view's only writer (eventsourcing's runner)


class ViewMovedOn(IntegrityError):
    """Another writer moved the view on since this batch was read: fold it again."""


def check_after(found: int | None, after: int | None, tracking: Tracking) -> None:
    """Refuse a batch folded from rows that another writer has changed since it read them."""
    if after != ANY and (found or 0) != (after or 0):
        raise ViewMovedOn(f"view of {tracking.application_name} is at {found}, not {after}")


def _dump(doc: dict[str, Any]) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False, check_circular=False)


class ProjectionView(Protocol):
    """What the projection runner needs of a view, on either database."""

    def max_tracking_id(self, application_name: str) -> int | None:
        """Last notification folded into the view."""

    def select_row(self, campaign: str, kind: str, key: str) -> RowValue | None:
        """One row."""

    def select_rows(self, campaign: str, kind: str) -> list[dict[str, Any]]:
        """A campaign's rows of a kind, in order."""

    def select_all(self, kind: str, unsealed: list[str] | None = None
                   ) -> list[dict[str, Any]]:
        """Every campaign's rows of a kind (the campaigns of rows whose seal fails are
        listed in `unsealed` instead)."""

    def select_keys(self, campaign: str) -> list[tuple[str, str]]:
        """The (kind, key) of every row a campaign has."""

    def select_campaign(self, campaign: str, checked: bool = True
                        ) -> list[tuple[str, str, int, str]]:
        """Every row a campaign has: (kind, key, order, document as JSON); `checked`:
        refusing a row whose seal fails."""

    def select_checkpoints(self, campaign: str) -> list[tuple[int, bytes]]:
        """Every checkpoint a campaign has, as stored, whatever its seal (for verify)."""

    def write(self, rows: Encoded, tracking: Tracking, after: int | None = ANY) -> None:
        """Upsert rows and record tracking atomically; refuse if the view has moved on."""

    def renew(self, campaign: str, rows: Encoded, version: int) -> bool:
        """Replace a campaign's rows (folded as of `version`), if the view holds it there."""

    def select_checkpoint(self, campaign: str, at_most: int) -> tuple[int, bytes] | None:
        """The latest sealed checkpoint of a campaign at or before a version."""

    def insert_checkpoint(self, campaign: str, version: int, doc: bytes) -> None:
        """Keep a campaign's rows as of a version (history: it never changes)."""

    def checkpoint_version(self, campaign: str, at_most: int) -> int | None:
        """The version of the latest checkpoint of a campaign at or before a version."""

    def count_rows(self, campaign: str) -> int:
        """How many rows a campaign has."""

    def wait(self, application_name: str, notification_id: int | None,
             timeout: float = 1.0) -> None:
        """Block until the view has folded that notification (TimeoutError if not)."""


class SQLiteProjectionView(SQLiteTrackingRecorder):
    """Projection rows in the embedded SQLite database."""

    seal: Seal | None = None  # infra's (a subclass names it): rows and checkpoints sealed

    def construct_create_table_statements(self) -> list[str]:
        """eventsourcing's tracking table, plus the rows table."""
        return [*super().construct_create_table_statements(),
                f"CREATE TABLE IF NOT EXISTS {TABLE} (campaign TEXT, kind TEXT, key TEXT, "
                "ord INTEGER, doc TEXT, mac TEXT, PRIMARY KEY (campaign, kind, key)) "
                "WITHOUT ROWID",
                f"CREATE TABLE IF NOT EXISTS {CHECKPOINTS} (campaign TEXT, version INTEGER, "
                "doc BLOB, mac TEXT, PRIMARY KEY (campaign, version)) WITHOUT ROWID"]

    def create_table(self) -> None:
        """The tables; a view kept from before the seal gains its MAC column, and its rows
        and checkpoints are sealed as they stand (verify compares them with the events)."""
        super().create_table()
        with self.datastore.transaction(commit=True) as c:
            added = []
            for table in (TABLE, CHECKPOINTS):
                c.execute(f"PRAGMA table_info({table})")
                if "mac" not in {row["name"] for row in c.fetchall()}:
                    c.execute(f"ALTER TABLE {table} ADD COLUMN mac TEXT")
                    added.append(table)
            if TABLE not in added:
                return
            c.execute(f"SELECT campaign, kind, key, ord, doc FROM {TABLE}")
            c.executemany(f"UPDATE {TABLE} SET mac=? WHERE campaign=? AND kind=? AND key=?",
                          row_macs(self.seal, c.fetchall()))
            c.execute(f"SELECT campaign, version, doc FROM {CHECKPOINTS}")
            c.executemany(f"UPDATE {CHECKPOINTS} SET mac=? WHERE campaign=? AND version=?",
                          checkpoint_macs(self.seal, c.fetchall()))

    def select_checkpoint(self, campaign: str, at_most: int) -> tuple[int, bytes] | None:
        """The latest sealed checkpoint of a campaign at or before a version."""
        return _latest_sealed(self.seal, campaign, at_most, self._checkpoint_at)

    def _checkpoint_at(self, campaign: str, at_most: int) -> Any:
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT version, doc, mac FROM {CHECKPOINTS} WHERE campaign=? AND "
                      "version<=? ORDER BY version DESC LIMIT 1", (campaign, at_most))
            return c.fetchone()

    def select_checkpoints(self, campaign: str) -> list[tuple[int, bytes]]:
        """Every checkpoint a campaign has, as stored, whatever its seal (for verify)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT version, doc FROM {CHECKPOINTS} WHERE campaign=? "
                      "ORDER BY version", (campaign,))
            return [(row["version"], bytes(row["doc"])) for row in c.fetchall()]

    def insert_checkpoint(self, campaign: str, version: int, doc: bytes) -> None:
        """Keep a campaign's rows as of a version (history: only an unsealed one is
        replaced)."""
        with self.datastore.transaction(commit=True) as c:
            c.execute(f"INSERT INTO {CHECKPOINTS} VALUES (?, ?, ?, ?) ON CONFLICT (campaign, "
                      "version) DO UPDATE SET doc=excluded.doc, mac=excluded.mac "
                      "WHERE mac IS NOT excluded.mac",
                      (campaign, version, doc, checkpoint_mac(self.seal, campaign, version,
                                                              doc)))

    def checkpoint_version(self, campaign: str, at_most: int) -> int | None:
        """The version of the latest checkpoint of a campaign at or before a version."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT max(version) AS v FROM {CHECKPOINTS} WHERE campaign=? AND "
                      "version<=?", (campaign, at_most))
            return c.fetchone()["v"]  # type: ignore[no-any-return]

    def count_rows(self, campaign: str) -> int:
        """How many rows a campaign has."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT count(*) AS n FROM {TABLE} WHERE campaign=?", (campaign,))
            return int(c.fetchone()["n"])

    def select_row(self, campaign: str, kind: str, key: str) -> RowValue | None:
        """One row (RowUnsealed if its seal fails)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT ord, doc, mac FROM {TABLE} WHERE campaign=? AND kind=? AND "
                      "key=?", (campaign, kind, key))
            row = c.fetchone()
        if row is None:
            return None
        check_row(self.seal, campaign, kind, key, row["ord"], row["doc"], row["mac"])
        return row["ord"], json.loads(row["doc"])

    def select_rows(self, campaign: str, kind: str) -> list[dict[str, Any]]:
        """A campaign's rows of a kind, in order (RowUnsealed if a seal fails)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT key, ord, doc, mac FROM {TABLE} WHERE campaign=? AND kind=? "
                      "ORDER BY ord, key", (campaign, kind))
            return _checked_docs(self.seal, campaign, kind, c.fetchall())

    def select_all(self, kind: str, unsealed: list[str] | None = None
                   ) -> list[dict[str, Any]]:
        """Every campaign's rows of a kind (the campaigns of rows whose seal fails are
        listed in `unsealed` instead)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT campaign, key, ord, doc, mac FROM {TABLE} WHERE kind=? "
                      "ORDER BY campaign, ord", (kind,))
            return _sealed_docs(self.seal, kind, c.fetchall(), unsealed)

    def select_keys(self, campaign: str) -> list[tuple[str, str]]:
        """The (kind, key) of every row a campaign has."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT kind, key FROM {TABLE} WHERE campaign=?", (campaign,))
            return [(row["kind"], row["key"]) for row in c.fetchall()]

    def select_campaign(self, campaign: str, checked: bool = True
                        ) -> list[tuple[str, str, int, str]]:
        """Every row a campaign has: (kind, key, order, document as JSON); `checked`:
        refusing a row whose seal fails."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT kind, key, ord, doc, mac FROM {TABLE} WHERE campaign=?",
                      (campaign,))
            rows = c.fetchall()
        return _campaign_rows(self.seal if checked else None, campaign, rows)

    def renew(self, campaign: str, rows: Encoded, version: int) -> bool:
        """Replace a campaign's rows with `rows` (folded from its events as of `version`),
        sealed; only while its sealed meta row says the view holds it at that version."""
        with self.datastore.transaction(commit=True) as c:
            c.execute(f"UPDATE {TABLE} SET ord = ord WHERE 0")  # the write lock, first
            c.execute(f"SELECT ord, doc, mac FROM {TABLE} WHERE campaign=? AND kind=? AND "
                      "key=''", (campaign, META))
            if not _at_version(self.seal, campaign, c.fetchone(), version):
                return False
            c.execute(f"DELETE FROM {TABLE} WHERE campaign=?", (campaign,))
            c.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?, ?, ?)",
                          sealed_rows(self.seal, rows))
        return True

    def write(self, rows: Encoded, tracking: Tracking, after: int | None = ANY) -> None:
        """Upsert rows and record tracking atomically; refuse if the view has moved on."""
        kept, gone = split(rows)
        with self.datastore.transaction(commit=True) as c:
            # The empty update takes SQLite's write lock before tracking is read.
            c.execute(f"UPDATE {TABLE} SET ord = ord WHERE 0")
            check_after(self._max_tracking_id(tracking.application_name, c), after, tracking)
            c.executemany(f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?, ?, ?, ?)",
                          sealed_rows(self.seal, kept))
            c.executemany(f"DELETE FROM {TABLE} WHERE campaign=? AND kind=? AND key=?", gone)
            self._insert_tracking(c, tracking)


def _checked_docs(seal: Seal | None, campaign: str, kind: str,
                  rows: Any) -> list[dict[str, Any]]:
    """The documents of a campaign's rows of a kind (key, ord, doc, mac), each seal
    checked (RowUnsealed if one fails)."""
    for row in rows:
        check_row(seal, campaign, kind, row["key"], row["ord"], row["doc"], row["mac"])
    return [json.loads(row["doc"]) for row in rows]


def _latest_sealed(seal: Seal | None, campaign: str, at_most: int,
                   latest: Callable[[str, int], Any]) -> tuple[int, bytes] | None:
    """The latest checkpoint at or before a version whose seal holds (`latest` reads the
    latest at or before a version, whatever its seal)."""
    while (row := latest(campaign, at_most)) is not None:
        version, doc = row["version"], bytes(row["doc"])
        if checkpoint_holds(seal, campaign, version, doc, row["mac"]):
            return version, doc
        at_most = version - 1
    return None


def _at_version(seal: Seal | None, campaign: str, meta: Any, version: int) -> bool:
    """Whether a campaign's meta row (ord, doc, mac) is sealed and names `version`."""
    return meta is not None and row_holds(seal, campaign, META, "", meta["ord"], meta["doc"],
                                          meta["mac"]) \
        and json.loads(meta["doc"]).get("version") == version


def _sealed_docs(seal: Seal | None, kind: str, rows: Any,
                 unsealed: list[str] | None) -> list[dict[str, Any]]:
    """The documents of rows (campaign, key, ord, doc, mac) whose seal holds; the
    campaigns of the others are noted in `unsealed` (or RowUnsealed if not asked)."""
    docs = []
    for campaign, key, order, doc, mac in (tuple(row) for row in rows):
        try:
            check_row(seal, campaign, kind, key, order, doc, mac)
        except RowUnsealed:
            if unsealed is None:
                raise
            unsealed.append(campaign)
            continue
        docs.append(json.loads(doc))
    return docs


def _campaign_rows(seal: Seal | None, campaign: str,
                   rows: Any) -> list[tuple[str, str, int, str]]:
    """A campaign's rows (kind, key, ord, doc, mac), each seal checked when `seal`."""
    found = []
    for kind, key, order, doc, mac in (tuple(row) for row in rows):
        check_row(seal, campaign, kind, key, order, doc, mac)
        found.append((kind, key, order, doc))
    return found


# Before they shared the application's tracking table, the projection runner's views kept
# their position in a table of their own: it is merged in (the further position kept) and
# dropped, so that no notification is folded again.
_RUNNER_TRACKING = "boundprojection_tracking"
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
        self._checkpoint_version = SQL(
            "SELECT max(version) AS v FROM {0}.{1} WHERE campaign=%s AND version<=%s"
        ).format(*checkpoints)
        self._count_rows = SQL("SELECT count(*) AS n FROM {0}.{1} WHERE campaign=%s").format(
            *table)
        self._select_row = SQL(
            "SELECT ord, doc, mac FROM {0}.{1} WHERE campaign=%s AND kind=%s AND key=%s"
        ).format(*table)
        self._select_rows = SQL(
            "SELECT key, ord, doc, mac FROM {0}.{1} WHERE campaign=%s AND kind=%s "
            "ORDER BY ord, key").format(*table)
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
        and checkpoints are sealed as they stand (verify compares them with the events)."""
        super().create_table()
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(self._lock)  # processes starting together add the column once
            curs.execute("SELECT 1 FROM information_schema.columns WHERE table_schema=%s "
                         "AND table_name=%s AND column_name='mac'",
                         (self.datastore.schema, TABLE))
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

    def select_row(self, campaign: str, kind: str, key: str) -> RowValue | None:
        """One row (RowUnsealed if its seal fails)."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(self._select_row, (campaign, kind, key))
            row = curs.fetchone()
        if row is None:
            return None
        check_row(self.seal, campaign, kind, key, row["ord"], row["doc"], row["mac"])
        return row["ord"], json.loads(row["doc"])

    def select_rows(self, campaign: str, kind: str) -> list[dict[str, Any]]:
        """A campaign's rows of a kind, in order (RowUnsealed if a seal fails)."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(self._select_rows, (campaign, kind))
            return _checked_docs(self.seal, campaign, kind, curs.fetchall())

    def select_all(self, kind: str, unsealed: list[str] | None = None
                   ) -> list[dict[str, Any]]:
        """Every campaign's rows of a kind (the campaigns of rows whose seal fails are
        listed in `unsealed` instead)."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(self._select_all, (kind,))
            rows = [(r["campaign"], r["key"], r["ord"], r["doc"], r["mac"])
                    for r in curs.fetchall()]
        return _sealed_docs(self.seal, kind, rows, unsealed)

    def select_checkpoint(self, campaign: str, at_most: int) -> tuple[int, bytes] | None:
        """The latest sealed checkpoint of a campaign at or before a version."""
        return _latest_sealed(self.seal, campaign, at_most, self._checkpoint_at)

    def _checkpoint_at(self, campaign: str, at_most: int) -> Any:
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(self._select_checkpoint, (campaign, at_most))
            return curs.fetchone()

    def select_checkpoints(self, campaign: str) -> list[tuple[int, bytes]]:
        """Every checkpoint a campaign has, as stored, whatever its seal (for verify)."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(self._select_checkpoints, (campaign,))
            return [(row["version"], bytes(row["doc"])) for row in curs.fetchall()]

    def insert_checkpoint(self, campaign: str, version: int, doc: bytes) -> None:
        """Keep a campaign's rows as of a version (history: only an unsealed one is
        replaced)."""
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(self._insert_checkpoint, (campaign, version, doc, checkpoint_mac(
                self.seal, campaign, version, doc)))

    def checkpoint_version(self, campaign: str, at_most: int) -> int | None:
        """The version of the latest checkpoint of a campaign at or before a version."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(self._checkpoint_version, (campaign, at_most))
            found = curs.fetchone()
        return None if found is None else found["v"]

    def count_rows(self, campaign: str) -> int:
        """How many rows a campaign has."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(self._count_rows, (campaign,))
            found = curs.fetchone()
        return 0 if found is None else int(found["n"])

    def select_keys(self, campaign: str) -> list[tuple[str, str]]:
        """The (kind, key) of every row a campaign has."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(self._select_keys, (campaign,))
            return [(row["kind"], row["key"]) for row in curs.fetchall()]

    def select_campaign(self, campaign: str, checked: bool = True
                        ) -> list[tuple[str, str, int, str]]:
        """Every row a campaign has: (kind, key, order, document as JSON); `checked`:
        refusing a row whose seal fails."""
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(self._select_campaign, (campaign,))
            rows = [(r["kind"], r["key"], r["ord"], r["doc"], r["mac"]) for r in curs.fetchall()]
        return _campaign_rows(self.seal if checked else None, campaign, rows)

    def renew(self, campaign: str, rows: Encoded, version: int) -> bool:
        """Replace a campaign's rows with `rows` (folded from its events as of `version`),
        sealed; only while its sealed meta row says the view holds it at that version."""
        columns = [list(column) for column in zip(*sealed_rows(self.seal, rows), strict=True)]
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(self._lock)  # one writer of the view at a time, until commit
            curs.execute(self._select_row, (campaign, META, ""))
            if not _at_version(self.seal, campaign, curs.fetchone(), version):
                return False
            curs.execute(SQL("DELETE FROM {0}.{1} WHERE campaign=%s").format(*self._tables),
                         (campaign,))
            if columns:
                curs.execute(self._upsert, columns)
        return True

    def write(self, rows: Encoded, tracking: Tracking, after: int | None = ANY) -> None:
        """Upsert rows and record tracking atomically; refuse if the view has moved on."""
        kept, gone = split(rows)
        columns = [list(column) for column in zip(*sealed_rows(self.seal, kept), strict=True)]
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(self._lock)  # one writer of the view at a time, until commit
            check_after(self._max_tracking_id(tracking.application_name, curs), after, tracking)
            if columns:
                curs.execute(self._upsert, columns)
            if gone:
                curs.executemany(self._delete, gone)
            self._insert_tracking(curs, tracking)


def encode(rows: dict[RowKey, RowValue]) -> Encoded:
    """Rows as the view stores them: the documents as compact JSON (None: delete it)."""
    return [(c, k, key, order, None if doc is None else _dump(doc))
            for (c, k, key), (order, doc) in rows.items()]


def split(rows: Encoded) -> tuple[Encoded, list[tuple[str, str, str]]]:
    """The rows to write, and the keys of those to delete (an undo's, see fold_undone)."""
    if all(row[4] is not None for row in rows):
        return rows, []
    return ([row for row in rows if row[4] is not None],
            [row[:3] for row in rows if row[4] is None])


def view_class_for(persistence_module: str) -> type[TrackingRecorder]:
    """The view class for eventsourcing's persistence module."""
    if persistence_module == "eventsourcing.postgres":
        return PostgresProjectionView
    return SQLiteProjectionView
