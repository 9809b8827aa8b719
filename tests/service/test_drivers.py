"""The drivers' errors (infra/drivers.py): psycopg's are named once psycopg is imported,
so an outage or a database error on PostgreSQL is still told from damage or a refusal;
before that, SQLite's alone (a driver never imported raised nothing). That the command
line on SQLite never imports psycopg is tests/cli/test_cli_start.py's."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import psycopg

from infra.drivers import database_errors, outage_errors
from tests.helpers.paths import ROOT


def test_once_psycopg_is_imported_its_errors_are_named_beside_sqlites() -> None:
    assert set(database_errors()) == {sqlite3.Error, psycopg.Error}
    assert set(outage_errors()) == {sqlite3.OperationalError, psycopg.OperationalError,
                                    psycopg.InterfaceError}


def test_before_psycopg_is_imported_only_sqlites_unless_every_driver_is_asked_for() -> None:
    script = ("import sys; from infra.drivers import database_errors as d; "
              "print(len(d()), 'psycopg' in sys.modules, len(d(every=True)))")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, check=True, timeout=60)
    assert done.stdout.split() == ["1", "False", "2"]
