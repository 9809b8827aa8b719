"""One campaign's stored rows read straight from the events table, a page at a time:
(version, topic, state) without eventsourcing's StoredEvent and id conversion per row,
for the passes that read a whole history (an export). PostgreSQL's query is
infra/recorder_postgres.py's, imported only where PostgreSQL is used."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from eventsourcing.sqlite import SQLiteApplicationRecorder

Row = tuple[int, str, bytes]
PAGE = 5000  # rows a query reads: a page is a few MB at most, each its own short read


def state_rows(recorder: Any, campaign_id: UUID, lte: int | None = None,
               gt: int = 0) -> Iterator[Row] | None:
    """The campaign's rows after `gt`, up to `lte`, oldest first; None for a recorder
    this does not know (the caller reads through eventsourcing then)."""
    if isinstance(recorder, SQLiteApplicationRecorder):
        return _pages(lambda after: _sqlite(recorder, campaign_id, after, lte), gt)
    # A PostgreSQL recorder exists only once eventsourcing's PostgreSQL module is imported.
    postgres = sys.modules.get("eventsourcing.postgres")
    if postgres is not None and isinstance(recorder, postgres.PostgresApplicationRecorder):
        from infra.recorder_postgres import state_page
        return _pages(lambda after: state_page(recorder, campaign_id, after, lte, PAGE), gt)
    return None


def _pages(select: Any, gt: int) -> Iterator[Row]:
    """Rows a page at a time, each page read after the last version of the one before."""
    while True:
        page: list[Row] = select(gt)
        yield from page
        if len(page) < PAGE:
            return
        gt = page[-1][0]


def _sqlite(recorder: SQLiteApplicationRecorder, campaign_id: UUID, gt: int,
            lte: int | None) -> list[Row]:
    statement = (f"SELECT originator_version, topic, state FROM {recorder.events_table_name} "
                 "WHERE originator_id=? AND originator_version>? AND originator_version<=? "
                 "ORDER BY originator_version LIMIT ?")
    top = lte if lte is not None else 2**62
    with recorder.datastore.transaction(commit=False) as cursor:
        cursor.execute(statement, (campaign_id.hex, gt, top, PAGE))
        return [(row[0], row[1], row[2]) for row in cursor.fetchall()]
