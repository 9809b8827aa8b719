"""Fixtures of the web client's tests: the service as a browser reaches it, and Debian's
Chromium for Playwright (the browser tests skip, saying why, only where it is missing and
REFIT_REQUIRE_BROWSER is unset; CI sets it)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from infra.settings import Settings
from tests.helpers.http import serving
from tests.helpers.live import live_service

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
NO_BROWSER = ("no Chromium on this machine: .ci/run installs Debian's chromium (see "
              "README 'The web client'); REFIT_REQUIRE_BROWSER=1 makes this a failure")


def chromium() -> str | None:
    """The system Chromium, if installed."""
    found = shutil.which("chromium") or "/usr/bin/chromium"
    return found if os.path.exists(found) else None


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Playwright launches Debian's Chromium (`playwright install` downloads none here)."""
    path = chromium()
    if path is None:
        if os.environ.get("REFIT_REQUIRE_BROWSER"):
            pytest.fail(NO_BROWSER)
        pytest.skip(NO_BROWSER)
    return {**browser_type_launch_args, "executable_path": path}


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The service with PBr as it ships, called in-process (no browser)."""
    yield from serving(settings)


@pytest.fixture
def live(settings: Settings) -> Iterator[str]:
    """The service on a real local port, for the browser; its base URL."""
    with live_service(settings) as base:
        yield base


@pytest.fixture
def shots() -> Path:
    """Where the browser tests save their screenshots (gitignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
