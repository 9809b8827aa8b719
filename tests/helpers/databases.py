"""The databases the tests run on: PostgreSQL at PG_URL (required when REFIT_REQUIRE_POSTGRES
is 1), SQLite in the test's folder; each fresh, in a schema of its own, removed afterwards."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import psycopg
import pytest

PG_URL = os.environ.get("REFIT_TEST_POSTGRES_URL", "postgresql://root@127.0.0.1:5432/test")
REQUIRE_PG = os.environ.get("REFIT_REQUIRE_POSTGRES") == "1"


def postgres_unreachable() -> str | None:
    """Why PostgreSQL cannot be used, or None."""
    try:
        with psycopg.connect(PG_URL, connect_timeout=3):
            return None
    except psycopg.OperationalError as error:
        return str(error).strip().splitlines()[0]


def without_postgres(problem: str, why: str) -> NoReturn:
    """A test that needs PostgreSQL, which it cannot reach: it fails where PostgreSQL is
    required, else it is skipped, saying `why` it needs it."""
    if REQUIRE_PG:
        pytest.fail(f"PostgreSQL is required (REFIT_REQUIRE_POSTGRES=1): {problem}")
    pytest.skip(f"{why}: {problem}")


@contextmanager
def fresh_database(kind: str, tmp_path: Path, postgres_problem: str | None) -> Iterator[str]:
    """A fresh, empty database of a kind (sqlite or postgres), removed afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'refit.db'}"
        return
    if postgres_problem is not None:
        without_postgres(postgres_problem, f"PostgreSQL unreachable at {PG_URL}")
    schema = f"refit_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_URL}?schema={schema}"
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
