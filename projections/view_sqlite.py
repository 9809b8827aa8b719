"""The materialized view in the embedded SQLite database."""

from __future__ import annotations

import logging
from typing import Any
from uuid import UUID

from eventsourcing.persistence import Tracking
from eventsourcing.sqlite import SQLiteTrackingRecorder

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
    at_head,
    at_version,
    campaign_rows,
    check_after,
    checked_docs,
    latest_sealed,
    metas_found,
    outdated,
    sealed_docs,
    sealed_row,
    split,
)

log = logging.getLogger(__name__)


class SQLiteProjectionView(SQLiteTrackingRecorder):
    """Projection rows in the embedded SQLite database."""

    seal: Seal | None = None  # infra's (a subclass names it): rows and checkpoints sealed
    events_table = "stored_events"  # the log's, in the same database (infra names it)

    def construct_create_table_statements(self) -> list[str]:
        """eventsourcing's tracking table, plus the rows table."""
        return [*super().construct_create_table_statements(),
                f"CREATE TABLE IF NOT EXISTS {TABLE} (campaign TEXT, kind TEXT, key TEXT, "
                "ord INTEGER, doc TEXT, mac TEXT, PRIMARY KEY (campaign, kind, key)) "
                "WITHOUT ROWID",
                f"CREATE TABLE IF NOT EXISTS {CHECKPOINTS} (campaign TEXT, version INTEGER, "
                "doc BLOB, mac TEXT, PRIMARY KEY (campaign, version)) WITHOUT ROWID",
                f"CREATE TABLE IF NOT EXISTS {FOLD_TABLE} (version INTEGER NOT NULL)"]

    def create_table(self) -> None:
        """The tables; a view kept from before the seal gains its MAC column, and its rows
        and checkpoints are sealed as they stand (verify compares them with the events);
        a view another fold made is emptied, to be folded again from the events."""
        super().create_table()
        with self.datastore.transaction(commit=True) as c:
            self._sealed_as_they_stand(c)
            self._emptied_if_outdated(c)

    def _sealed_as_they_stand(self, c: Any) -> None:
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

    def _emptied_if_outdated(self, c: Any) -> None:
        c.execute(f"SELECT version FROM {FOLD_TABLE}")
        found = c.fetchone()
        if found and found["version"] == FOLD_VERSION:
            return  # nothing written: a start beside a writer holding the file waits for none
        c.execute(f"SELECT 1 FROM {TABLE} LIMIT 1")
        if outdated(found and found["version"], c.fetchone() is not None):
            for table in (TABLE, CHECKPOINTS):
                c.execute(f"DELETE FROM {table}")
            # eventsourcing's SQLite tracking table, the webhooks' position in it kept
            c.execute("DELETE FROM tracking WHERE application_name=?", (FOLDED_LOG,))
            log.warning("the view was folded by another version of the fold: emptied, it "
                        "is folded again from the events")
        c.execute(f"DELETE FROM {FOLD_TABLE}")
        c.execute(f"INSERT INTO {FOLD_TABLE} VALUES (?)", (FOLD_VERSION,))

    def select_checkpoint(self, campaign: str, at_most: int) -> tuple[int, bytes] | None:
        """The latest sealed checkpoint of a campaign at or before a version."""
        return latest_sealed(self.seal, campaign, at_most, self._checkpoint_at)

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
            self._insert_checkpoints(c, [(campaign, version, doc)])

    def _insert_checkpoints(self, c: Any, checkpoints: Checkpoints) -> None:
        c.executemany(f"INSERT INTO {CHECKPOINTS} VALUES (?, ?, ?, ?) ON CONFLICT (campaign, "
                      "version) DO UPDATE SET doc=excluded.doc, mac=excluded.mac "
                      "WHERE mac IS NOT excluded.mac",
                      [(campaign, version, doc, checkpoint_mac(self.seal, campaign, version, doc))
                       for campaign, version, doc in checkpoints])

    def checkpoint_versions(self, campaign: str) -> list[int]:
        """The versions of every checkpoint a campaign has, oldest first."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT version FROM {CHECKPOINTS} WHERE campaign=? ORDER BY version",
                      (campaign,))
            return [row["version"] for row in c.fetchall()]

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
        return sealed_row(self.seal, campaign, kind, key, row)

    def select_metas(self, campaigns: list[str]) -> dict[str, tuple[int, str] | None]:
        """Campaigns' meta rows as (order, JSON), None where there is none (a campaign
        whose meta row's seal fails is left out)."""
        found: dict[str, tuple[int, str] | None] = {}
        with self.datastore.transaction(commit=False) as c:
            for start in range(0, len(campaigns), 500):  # SQLite's parameters are few
                some = campaigns[start:start + 500]
                c.execute(f"SELECT campaign, ord, doc, mac FROM {TABLE} WHERE kind=? AND "
                          f"key='' AND campaign IN ({','.join('?' * len(some))})",
                          (META, *some))
                found |= metas_found(self.seal, some, c.fetchall())
        return found

    def select_rows(self, campaign: str, kind: str) -> list[dict[str, Any]]:
        """A campaign's rows of a kind, in order (RowUnsealed if a seal fails)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT key, ord, doc, mac FROM {TABLE} WHERE campaign=? AND kind=? "
                      "ORDER BY ord, key", (campaign, kind))
            return checked_docs(self.seal, campaign, kind, c.fetchall())

    def select_meta_at_head(self, campaign: str) -> tuple[int | None, list[dict[str, Any]]]:
        """The campaign's last stored version and its meta rows, in one statement (a read
        of one campaign asks both: whether the view has folded it, and from where)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT (SELECT max(originator_version) FROM {self.events_table} "
                      "WHERE originator_id=?) AS head, r.key AS key, r.ord AS ord, "
                      f"r.doc AS doc, r.mac AS mac FROM (SELECT 1) AS one LEFT JOIN {TABLE} "
                      "AS r ON r.campaign=? AND r.kind=? ORDER BY r.ord, r.key",
                      (UUID(campaign).hex, campaign, META))  # the log keys ids by hex
            found = c.fetchall()
        return at_head(self.seal, campaign, found)

    def select_last_rows(self, campaign: str, kind: str, count: int
                         ) -> list[dict[str, Any]]:
        """A campaign's last `count` rows of a kind by key, in order (RowUnsealed if a
        seal fails): a page's latest rolls, without reading them all. For a kind whose keys
        sort as its order (a roll's is its zero-padded version), so that the primary key
        finds them from its end, with no sort of every row of the kind."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT key, ord, doc, mac FROM {TABLE} WHERE campaign=? AND kind=? "
                      "ORDER BY key DESC LIMIT ?", (campaign, kind, count))
            return checked_docs(self.seal, campaign, kind, c.fetchall()[::-1])

    def select_all(self, kind: str, unsealed: list[str] | None = None
                   ) -> list[dict[str, Any]]:
        """Every campaign's rows of a kind (the campaigns of rows whose seal fails are
        listed in `unsealed` instead)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT campaign, key, ord, doc, mac FROM {TABLE} WHERE kind=? "
                      "ORDER BY campaign, ord", (kind,))
            return sealed_docs(self.seal, kind, c.fetchall(), unsealed)

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
        return campaign_rows(self.seal if checked else None, campaign, rows)

    def renew(self, campaign: str, rows: Encoded, version: int) -> bool:
        """Replace a campaign's rows with `rows` (folded from its events as of `version`),
        sealed; only while its sealed meta row says the view holds it at that version."""
        with self.datastore.transaction(commit=True) as c:
            c.execute(f"UPDATE {TABLE} SET ord = ord WHERE 0")  # the write lock, first
            c.execute(f"SELECT ord, doc, mac FROM {TABLE} WHERE campaign=? AND kind=? AND "
                      "key=''", (campaign, META))
            if not at_version(self.seal, campaign, c.fetchone(), version):
                return False
            c.execute(f"DELETE FROM {TABLE} WHERE campaign=?", (campaign,))
            c.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?, ?, ?)",
                          sealed_rows(self.seal, rows))
        return True

    def write(self, rows: Encoded, tracking: Tracking, after: int | None = ANY,
              checkpoints: Checkpoints = ()) -> None:
        """Upsert rows, keep checkpoints and record tracking atomically; refuse if the view
        has moved on."""
        kept, gone = split(rows)
        with self.datastore.transaction(commit=True) as c:
            # The empty update takes SQLite's write lock before tracking is read.
            c.execute(f"UPDATE {TABLE} SET ord = ord WHERE 0")
            check_after(self._max_tracking_id(tracking.application_name, c), after, tracking)
            c.executemany(f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?, ?, ?, ?)",
                          sealed_rows(self.seal, kept))
            c.executemany(f"DELETE FROM {TABLE} WHERE campaign=? AND kind=? AND key=?", gone)
            if checkpoints:
                self._insert_checkpoints(c, checkpoints)
            self._insert_tracking(c, tracking)
