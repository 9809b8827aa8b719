"""Fixtures of the HTTP tests: the service, as a client calls it, on the test's own database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from infra.settings import Settings
from tests.helpers.http import serving
from tests.helpers.paths import FIXTURE_CHART


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The HTTP service on the test's own database, with the fictitious PBr test chart."""
    yield from serving(settings, FIXTURE_CHART)
