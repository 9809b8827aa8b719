"""An attacker with the database: stored event rows edited or deleted behind the
application's back, on SQLite or PostgreSQL."""

from __future__ import annotations

import sqlite3
from uuid import UUID

import psycopg

from infra.settings import persistence_env


def delete_from(url: str, campaign: UUID, version: int) -> None:
    """Delete the campaign's stored events from `version` on (its tail)."""
    env = persistence_env(url)
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
            gone = db.execute("DELETE FROM stored_events WHERE originator_id=? AND "
                              "originator_version>=?", (campaign.hex, version)).rowcount
    else:
        with psycopg.connect(url.split("?")[0], autocommit=True) as db:
            gone = db.execute(f'DELETE FROM "{env["POSTGRES_SCHEMA"]}".refit_events WHERE '
                              "originator_id=%s AND originator_version>=%s",
                              (campaign, version)).rowcount
    assert gone > 0


def edit_event(url: str, campaign: UUID, version: int, old: bytes, new: bytes) -> None:
    """Replace bytes in one stored event's state."""
    env = persistence_env(url)
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
            where = "WHERE originator_id=? AND originator_version=?"
            (state,) = db.execute(f"SELECT state FROM stored_events {where}",
                                  (campaign.hex, version)).fetchone()
            assert old in state
            db.execute(f"UPDATE stored_events SET state=? {where}",
                       (state.replace(old, new), campaign.hex, version))
        return
    table = f'"{env["POSTGRES_SCHEMA"]}".refit_events'
    with psycopg.connect(url.split("?")[0], autocommit=True) as db:
        where = "WHERE originator_id=%s AND originator_version=%s"
        row = db.execute(f"SELECT state FROM {table} {where}", (campaign, version)).fetchone()
        assert row is not None and old in bytes(row[0])
        db.execute(f"UPDATE {table} SET state=%s {where}",
                   (bytes(row[0]).replace(old, new), campaign, version))
