"""Fixtures of the HTTP tests: the service, as a client calls it, on the test's own database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from infra.modules import install_file
from infra.settings import Settings
from tests.helpers.http import ADMIN
from tests.helpers.paths import FIXTURE_CHART


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The HTTP service on the test's own database, with the fictitious PBr test chart."""
    install_file(FIXTURE_CHART, settings.module_dir)
    app = create_app(settings.model_copy(update={"admin_token": ADMIN}))
    with TestClient(app) as test_client:
        yield test_client
