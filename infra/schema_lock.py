"""A database's tables made by one process at a time.

eventsourcing makes each recorder's tables as it is made. PostgreSQL refuses CREATE TYPE
and CREATE TABLE IF NOT EXISTS (a unique violation on its catalog) when another session
makes the same name at the same moment, and SQLite answers "database is locked" at once,
without waiting, to connections that turn a new file to WAL together: services, workers or
an import starting together on a new database failed. While one process makes them, it
holds a lock of the database's; the others wait, then find them made."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from infra.settings import Settings, persistence_env


@contextlib.contextmanager
def tables_made_alone(settings: Settings) -> Iterator[None]:
    """Hold the database's table-making lock meanwhile: PostgreSQL's session advisory lock
    of the schema's, or SQLite's file's folder locked (flock; never the file itself, whose
    closing would drop SQLite's own locks in this process)."""
    env = persistence_env(settings.database_url)
    if env["PERSISTENCE_MODULE"] == "eventsourcing.postgres":
        with _advisory_lock(env):
            yield
        return
    with _folder_lock(env["SQLITE_DBNAME"]):
        yield


@contextlib.contextmanager
def _advisory_lock(env: dict[str, str]) -> Iterator[None]:
    """The schema's lock, on a connection of its own. When the database cannot be reached,
    go on without it: the store's own connection says why."""
    import psycopg

    from infra.election import advisory_key  # only here: a SQLite read never imports it

    try:
        conn = psycopg.connect(host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"],
                               dbname=env["POSTGRES_DBNAME"], user=env["POSTGRES_USER"],
                               password=env["POSTGRES_PASSWORD"] or None, autocommit=True,
                               connect_timeout=int(env["POSTGRES_CONNECT_TIMEOUT"]))
    except psycopg.OperationalError:
        yield
        return
    with conn:  # its session's end releases the lock, whatever happens
        conn.execute("SELECT pg_advisory_lock(%s)",
                     (advisory_key("refit-tables", env["POSTGRES_SCHEMA"]),))
        yield


@contextlib.contextmanager
def _folder_lock(path: str) -> Iterator[None]:
    """The database file's folder locked; none for a database in memory, or a folder that
    cannot be opened (SQLite then says why)."""
    if path == ":memory:" or path.startswith("file:"):
        yield
        return
    try:
        folder = os.open(Path(path).parent, os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        yield
    finally:
        os.close(folder)  # which releases the lock
