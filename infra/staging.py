"""An import written all or nothing (issue 15 item 6; README, 'Export and import').

Its events are staged a page at a time in a temporary table of the import's own
connection, then switched in, with the module data they pin and the campaign's snapshot,
in one transaction: a `refit import` killed at any point leaves either no campaign or the
whole one. A temporary table goes with its connection, so a killed import leaves nothing
behind, and nothing reached the shared tables before the switch: no event, no view row,
no tracking. The shared events table is locked (PostgreSQL) or written (SQLite) only while
the staged pages are copied in, so other campaigns' commands wait for that copy alone,
never for the whole import."""

from __future__ import annotations

import contextlib
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder

from domain.errors import CampaignExists
from infra.mapper import decoded
from infra.recorder import MODULE_DATA, Pin

STAGE = "refit_import"  # the temporary table: version, topic, state
PAGE = 1000  # staged events read back at a time


class Staging(ABC):
    """One import's staged events, read back as it goes and switched in at its end."""

    def __init__(self, campaign_id: UUID, mapper: Mapper[UUID]) -> None:
        self.campaign_id = campaign_id
        self.mapper = mapper

    @abstractmethod
    def stage(self, events: Sequence[StoredEvent]) -> None:
        """Add a page of the campaign's events, in version order."""

    @abstractmethod
    def _select(self, gt: int, lte: int | None) -> list[tuple[int, str, bytes]]:
        """A page of staged rows (version, topic, state) after `gt`, up to `lte`."""

    @abstractmethod
    def switch_in(self, pins: list[Pin], snapshot: StoredEvent | None) -> None:
        """Write the staged events, the module data they pin and the snapshot to the
        shared tables, committed as the import's context ends."""

    def events(self, gt: int = 0, lte: int | None = None) -> Iterator[Any]:
        """The staged domain events after `gt`, up to `lte`, read a page at a time."""
        while True:
            page = self._select(gt, lte)
            for version, topic, state in page:
                yield decoded(self.mapper, StoredEvent(self.campaign_id, version, topic, state))
            if len(page) < PAGE:
                return
            gt = page[-1][0]

    def _refused(self) -> CampaignExists:
        """A second import of the campaign that finished first: nothing of this one stays."""
        return CampaignExists(f"campaign {self.campaign_id} was imported by another import "
                              "meanwhile; nothing of this one was written", field="campaign")


class SQLiteStaging(Staging):
    """Staged in the connection's temporary database, which SQLite keeps apart from the
    main one: staging takes none of the database's write lock."""

    def __init__(self, conn: Any, recorder: SQLiteApplicationRecorder, snapshots: Any,
                 campaign_id: UUID, mapper: Mapper[UUID]) -> None:
        super().__init__(campaign_id, mapper)
        self.conn, self.cursor = conn, conn.cursor()
        self.events_table, self.snapshots_table = (recorder.events_table_name,
                                                   snapshots.events_table_name)
        self.cursor.execute(f"DROP TABLE IF EXISTS temp.{STAGE}")
        self.cursor.execute(f"CREATE TEMP TABLE {STAGE} (version INTEGER PRIMARY KEY, "
                            "topic TEXT NOT NULL, state BLOB NOT NULL)")

    def stage(self, events: Sequence[StoredEvent]) -> None:
        """Add a page of events, in a transaction of the temporary database only."""
        self.cursor.execute("BEGIN")
        self.cursor.executemany(f"INSERT INTO temp.{STAGE} VALUES (?, ?, ?)",
                                [(e.originator_version, e.topic, e.state) for e in events])
        self.conn.commit()

    def _select(self, gt: int, lte: int | None) -> list[tuple[int, str, bytes]]:
        self.cursor.execute(f"SELECT version, topic, state FROM temp.{STAGE} WHERE version>? "
                            "AND version<=? ORDER BY version LIMIT ?",
                            (gt, lte if lte is not None else 2**62, PAGE))
        return [(row[0], row[1], row[2]) for row in self.cursor.fetchall()]

    def switch_in(self, pins: list[Pin], snapshot: StoredEvent | None) -> None:
        """Copy the staged events in, holding the database's write lock from the start
        (a transaction that read first would fail at once, not wait, if another wrote
        meanwhile)."""
        self.cursor.execute("BEGIN IMMEDIATE")
        try:
            self.cursor.execute(
                f"INSERT INTO {self.events_table} (originator_id, originator_version, topic, "
                f"state) SELECT ?, version, topic, state FROM temp.{STAGE} ORDER BY version",
                (self.campaign_id.hex,))
        except sqlite3.IntegrityError:
            raise self._refused() from None
        self.cursor.executemany(f"INSERT OR IGNORE INTO {MODULE_DATA} VALUES (?, ?, ?)", pins)
        if snapshot is not None:
            self.cursor.execute(f"INSERT INTO {self.snapshots_table} VALUES (?, ?, ?, ?)",
                                (self.campaign_id.hex, snapshot.originator_version,
                                 snapshot.topic, snapshot.state))


@contextmanager
def sqlite_staging(recorder: SQLiteApplicationRecorder, snapshots: Any, campaign_id: UUID,
                   mapper: Mapper[UUID]) -> Iterator[Staging]:
    """An import's staging on SQLite; what it switched in is committed as the context
    ends, and nothing at all if it ends by an error."""
    # A reader's connection from the pool: a writer's would keep this process's other
    # writers waiting for the whole import (SQLite's own lock orders the switch).
    with recorder.datastore.get_connection(commit=False) as lite:
        staged = SQLiteStaging(lite, recorder, snapshots, campaign_id, mapper)
        try:
            yield staged
            lite.commit()
        except BaseException:
            lite.rollback()
            raise
        finally:  # the connection goes back to the pool: its temporary table need not
            with contextlib.suppress(sqlite3.Error):
                staged.cursor.execute(f"DROP TABLE IF EXISTS temp.{STAGE}")
