"""eventsourcing's SQLite application recorder, with the table of module data pinned by
campaigns: a document per content hash, written in the transaction of the events that pin
it (README, 'Module data pinned per campaign'). PostgreSQL's is infra/recorder_postgres.py,
which the command line on SQLite never imports."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor

MODULE_DATA = "refit_module_data"  # hash -> module id and document (canonical JSON text)
Pin = tuple[str, str, str]  # hash, module id, document


class SQLiteLedgerRecorder(SQLiteApplicationRecorder):
    """eventsourcing's SQLite application recorder, with the module data table."""

    def construct_create_table_statements(self) -> list[str]:
        """eventsourcing's tables, and the module data's."""
        return [*super().construct_create_table_statements(),
                f"CREATE TABLE IF NOT EXISTS {MODULE_DATA} (hash TEXT PRIMARY KEY, "
                "module TEXT NOT NULL, doc TEXT NOT NULL)"]

    def _insert_events(self, c: SQLiteCursor, stored_events: Sequence[StoredEvent],
                       **kwargs: Any) -> Sequence[int] | None:
        """The events, and in their transaction the module data they pin (once a hash)."""
        c.executemany(f"INSERT OR IGNORE INTO {MODULE_DATA} VALUES (?, ?, ?)",
                      kwargs.get("module_data") or [])
        return super()._insert_events(c, stored_events, **kwargs)

    def select_module_data(self, pin: str) -> str | None:
        """The document stored for a hash, as stored (None if there is none)."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT doc FROM {MODULE_DATA} WHERE hash=?", (pin,))
            row = c.fetchone()
        return None if row is None else str(row["doc"])
