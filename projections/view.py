"""Materialized views: projection rows and eventsourcing's tracking, in one transaction
(the SQLite view in view_sqlite.py, PostgreSQL's in view_postgres.py, what they share in
view_sql.py)."""

from __future__ import annotations

from typing import Any, Protocol

from eventsourcing.persistence import Tracking, TrackingRecorder

from projections.view_sql import (
    ANY,
    CHECKPOINTS,
    TABLE,
    Checkpoints,
    Encoded,
    RowKey,
    RowValue,
    ViewMovedOn,
    check_after,
    encode,
    split,
)
from projections.view_sqlite import SQLiteProjectionView

__all__ = ["ANY", "CHECKPOINTS", "TABLE", "Checkpoints", "Encoded", "ProjectionView",
           "RowKey", "RowValue", "SQLiteProjectionView", "ViewMovedOn",
           "check_after", "encode", "split", "view_class_for"]


class ProjectionView(Protocol):
    """What the projection runner needs of a view, on either database."""

    def max_tracking_id(self, application_name: str) -> int | None:
        """Last notification folded into the view."""

    def select_row(self, campaign: str, kind: str, key: str) -> RowValue | None:
        """One row."""

    def select_metas(self, campaigns: list[str]) -> dict[str, tuple[int, str] | None]:
        """Campaigns' meta rows as (order, JSON), None where there is none (a campaign
        whose meta row's seal fails is left out)."""

    def select_rows(self, campaign: str, kind: str) -> list[dict[str, Any]]:
        """A campaign's rows of a kind, in order."""

    def select_meta_at_head(self, campaign: str) -> tuple[int | None, list[dict[str, Any]]]:
        """The campaign's last stored version (None: it has no events) and its meta rows,
        read in one statement (RowUnsealed if a seal fails)."""

    def select_last_rows(self, campaign: str, kind: str, count: int
                         ) -> list[dict[str, Any]]:
        """A campaign's last `count` rows of a kind, in order."""

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

    def write(self, rows: Encoded, tracking: Tracking, after: int | None = ANY,
              checkpoints: Checkpoints = ()) -> None:
        """Upsert rows, keep checkpoints and record tracking atomically; refuse if the view
        has moved on."""

    def renew(self, campaign: str, rows: Encoded, version: int) -> bool:
        """Replace a campaign's rows (folded as of `version`), if the view holds it there."""

    def select_checkpoint(self, campaign: str, at_most: int) -> tuple[int, bytes] | None:
        """The latest sealed checkpoint of a campaign at or before a version."""

    def insert_checkpoint(self, campaign: str, version: int, doc: bytes) -> None:
        """Keep a campaign's rows as of a version (history: it never changes)."""

    def checkpoint_versions(self, campaign: str) -> list[int]:
        """The versions of every checkpoint a campaign has, oldest first."""

    def checkpoint_version(self, campaign: str, at_most: int) -> int | None:
        """The version of the latest checkpoint of a campaign at or before a version."""

    def count_rows(self, campaign: str) -> int:
        """How many rows a campaign has."""

    def wait(self, application_name: str, notification_id: int | None,
             timeout: float = 1.0) -> None:
        """Block until the view has folded that notification (TimeoutError if not)."""



def view_class_for(persistence_module: str) -> type[TrackingRecorder]:
    """The view class for eventsourcing's persistence module (PostgreSQL's imported only
    for it: psycopg is no part of SQLite's command line, issue 17 item 6)."""
    if persistence_module == "eventsourcing.postgres":
        from projections.view_postgres import PostgresProjectionView

        return PostgresProjectionView
    return SQLiteProjectionView
