"""The database drivers' errors, without importing a driver not in use: the command line
on SQLite never imports psycopg (about 90 ms of each start, issue 17 item 6), and an error
of a driver never imported cannot have been raised."""

from __future__ import annotations

import sqlite3
import sys
from types import ModuleType

from eventsourcing.persistence import PersistenceError


def _psycopg(load: bool) -> ModuleType | None:
    if load:
        import psycopg
        return psycopg
    found = sys.modules.get("psycopg")  # not one another thread is still importing
    return found if found is not None and hasattr(found, "InterfaceError") else None


def database_errors(every: bool = False) -> tuple[type[Exception], ...]:
    """Each driver's base error (psycopg's once imported, or always with every)."""
    psycopg = _psycopg(every)
    return (sqlite3.Error, psycopg.Error) if psycopg else (sqlite3.Error,)


def outage_errors(every: bool = False) -> tuple[type[Exception], ...]:
    """Each driver's errors of a database that does not answer now."""
    psycopg = _psycopg(every)
    if psycopg is None:
        return (sqlite3.OperationalError,)
    return sqlite3.OperationalError, psycopg.OperationalError, psycopg.InterfaceError


class DatabaseAway(PersistenceError):
    """PostgreSQL took no connection at the pool's last try (infra/healing_pool.py): a
    request is refused at once, not after the pool's wait and eventsourcing's ten tries
    of it. Not an OperationalError, so that nothing tries it again at once."""
