"""Fixtures: every test that touches storage runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from infra.application import Refit
from infra.settings import Settings

PG_URL = os.environ.get("REFIT_TEST_POSTGRES_URL", "postgresql://root@127.0.0.1:5432/test")
REQUIRE_PG = os.environ.get("REFIT_REQUIRE_POSTGRES") == "1"


def _postgres_reachable() -> str | None:
    try:
        with psycopg.connect(PG_URL, connect_timeout=3):
            return None
    except psycopg.OperationalError as error:
        return str(error).strip().splitlines()[0]


@pytest.fixture(scope="session")
def postgres_problem() -> str | None:
    """Why PostgreSQL cannot be used, or None."""
    return _postgres_reachable()


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path,
                 postgres_problem: str | None) -> Iterator[str]:
    """A fresh, empty database of each kind, removed afterwards."""
    with fresh_database(request.param, tmp_path, postgres_problem) as url:
        yield url


@pytest.fixture
def other_database_url(database_url: str, tmp_path: Path,
                       postgres_problem: str | None) -> Iterator[str]:
    """A fresh, empty database of the other kind (for moving a campaign between them)."""
    kind = "postgres" if database_url.startswith("sqlite") else "sqlite"
    (tmp_path / "other").mkdir()
    with fresh_database(kind, tmp_path / "other", postgres_problem) as url:
        yield url


@contextmanager
def fresh_database(kind: str, tmp_path: Path, postgres_problem: str | None) -> Iterator[str]:
    """A fresh, empty database of a kind (sqlite or postgres), removed afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'refit.db'}"
        return
    if postgres_problem is not None:
        if REQUIRE_PG:
            pytest.fail(f"PostgreSQL is required (REFIT_REQUIRE_POSTGRES=1): {postgres_problem}")
        pytest.skip(f"PostgreSQL unreachable at {PG_URL}: {postgres_problem}")
    schema = f"refit_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_URL}?schema={schema}"
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    """Settings for the test's own database and module dir."""
    return Settings(database_url=database_url, module_dir=tmp_path / "modules")


@pytest.fixture
def refit(settings: Settings) -> Iterator[Refit]:
    """The application on the test's own database."""
    app = Refit(settings)
    yield app
    app.close()
