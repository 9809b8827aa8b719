"""Fixtures: every test that touches storage runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from infra.application import Refit
from infra.settings import Settings
from tests.helpers.databases import fresh_database, postgres_unreachable

# No heap collected and frozen per service (api/app.py): this process starts hundreds of
# services, and each collection would walk the whole run's heap (about 0.3 s a test).
os.environ.setdefault("REFIT_FREEZE_HEAP", "false")


@pytest.fixture(scope="session")
def postgres_problem() -> str | None:
    """Why PostgreSQL cannot be used, or None."""
    return postgres_unreachable()


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


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    """Settings for the test's own database and module dir."""
    return Settings(database_url=database_url, module_dir=tmp_path / "modules",
                    signing_key_file=tmp_path / "refit-signing-key")  # never the cwd


@pytest.fixture
def refit(settings: Settings) -> Iterator[Refit]:
    """The application on the test's own database."""
    app = Refit(settings)
    yield app
    app.close()

