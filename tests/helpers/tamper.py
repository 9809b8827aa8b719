"""An attacker with database access: raw SQL edits of stored events, snapshots and view
rows, behind the application's back (SQLite or PostgreSQL)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import psycopg

from infra.settings import persistence_env

Run = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]
EVENTS = {"sqlite": "stored_events", "postgres": "refit_events"}
SNAPSHOTS = {"sqlite": "stored_snapshots", "postgres": "refit_snapshots"}


@contextmanager
def database(url: str) -> Iterator[tuple[str, Run, Callable[[str], str]]]:
    """(kind, run SQL with `?` placeholders, a table's qualified name)."""
    env = persistence_env(url)
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
            yield "sqlite", lambda sql, args: db.execute(sql, args).fetchall(), str
        return
    schema = env["POSTGRES_SCHEMA"]
    with psycopg.connect(url.split("?")[0], autocommit=True) as pg:
        def run(sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
            cursor = pg.execute(sql.replace("?", "%s"), args)
            return cursor.fetchall() if cursor.description else []
        yield "postgres", run, lambda table: f'"{schema}".{table}'


def _ident(kind: str, campaign: UUID) -> Any:
    return campaign.hex if kind == "sqlite" else campaign


def _edit_state(url: str, tables: dict[str, str], campaign: UUID, version: int,
                old: bytes, new: bytes) -> None:
    with database(url) as (kind, run, name):
        table, ident = name(tables[kind]), _ident(kind, campaign)
        found = run(f"SELECT state FROM {table} WHERE originator_id=? AND "
                    "originator_version=?", (ident, version))
        state = bytes(found[0][0])
        assert old in state, state[:400]
        run(f"UPDATE {table} SET state=? WHERE originator_id=? AND originator_version=?",
            (state.replace(old, new, 1), ident, version))


def edit_event(url: str, campaign: UUID, version: int, old: bytes, new: bytes) -> None:
    """Replace bytes in one stored event."""
    _edit_state(url, EVENTS, campaign, version, old, new)


def edit_snapshot(url: str, campaign: UUID, version: int, old: bytes, new: bytes) -> None:
    """Replace bytes in one stored snapshot."""
    _edit_state(url, SNAPSHOTS, campaign, version, old, new)


def event_state(url: str, campaign: UUID, version: int) -> bytes:
    """One stored event's state, as stored."""
    with database(url) as (kind, run, name):
        return bytes(run(f"SELECT state FROM {name(EVENTS[kind])} WHERE originator_id=? "
                         "AND originator_version=?", (_ident(kind, campaign), version))[0][0])


def swap_events(url: str, campaign: UUID, first: int, second: int) -> None:
    """Swap two stored events' contents (each keeps its version)."""
    states = [event_state(url, campaign, v) for v in (first, second)]
    with database(url) as (kind, run, name):
        for version, state in zip((first, second), reversed(states), strict=True):
            run(f"UPDATE {name(EVENTS[kind])} SET state=? WHERE originator_id=? AND "
                "originator_version=?", (state, _ident(kind, campaign), version))


def delete_event(url: str, campaign: UUID, version: int) -> None:
    """Delete one stored event."""
    with database(url) as (kind, run, name):
        run(f"DELETE FROM {name(EVENTS[kind])} WHERE originator_id=? AND "
            "originator_version=?", (_ident(kind, campaign), version))


def edit_view_row(url: str, campaign: UUID, row_kind: str, key: str, old: str,
                  new: str) -> None:
    """Replace text in one view row's document."""
    with database(url) as (_, run, name):
        table = name("refit_projection_rows")
        found = run(f"SELECT doc FROM {table} WHERE campaign=? AND kind=? AND key=?",
                    (str(campaign), row_kind, key))
        assert old in found[0][0], found[0][0]
        run(f"UPDATE {table} SET doc=? WHERE campaign=? AND kind=? AND key=?",
            (found[0][0].replace(old, new, 1), str(campaign), row_kind, key))


def edit_checkpoint(url: str, campaign: UUID, version: int,
                    change: Callable[[bytes], bytes]) -> None:
    """Replace one view checkpoint's stored bytes with `change` of them."""
    with database(url) as (_, run, name):
        table = name("refit_checkpoints")
        found = run(f"SELECT doc FROM {table} WHERE campaign=? AND version=?",
                    (str(campaign), version))
        run(f"UPDATE {table} SET doc=? WHERE campaign=? AND version=?",
            (change(bytes(found[0][0])), str(campaign), version))


def delete_from(url: str, campaign: UUID, version: int) -> None:
    """Delete the campaign's stored events from `version` on (its tail)."""
    with database(url) as (kind, run, name):
        ident = _ident(kind, campaign)
        where = "WHERE originator_id=? AND originator_version>=?"
        assert run(f"SELECT count(*) FROM {name(EVENTS[kind])} {where}", (ident, version)) \
            [0][0] > 0
        run(f"DELETE FROM {name(EVENTS[kind])} {where}", (ident, version))


Corrupt = Callable[[bytes], bytes]
CORRUPTIONS: dict[str, Corrupt] = {
    "garbage state": lambda state: b"\xff\xfe garbage",
    "undecodable JSON": lambda state: state[: len(state) // 2],
}


def set_row(url: str, campaign: UUID, version: int, state: Corrupt | None = None,
            topic: str | None = None) -> None:
    """Overwrite one stored event's state (or topic) with raw SQL, behind the service."""
    with database(url) as (kind, run, name):
        table, ident = name(EVENTS[kind]), _ident(kind, campaign)
        where = "WHERE originator_id=? AND originator_version=?"
        if state is not None:
            old = bytes(run(f"SELECT state FROM {table} {where}", (ident, version))[0][0])
            run(f"UPDATE {table} SET state=? {where}", (state(old), ident, version))
        if topic is not None:
            run(f"UPDATE {table} SET topic=? {where}", (topic, ident, version))
