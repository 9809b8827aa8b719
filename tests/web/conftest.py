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


@pytest.fixture(autouse=True)
def page_errors(request: pytest.FixtureRequest) -> Iterator[list[str]]:
    """Every browser page a test opens is read for what the pages must never log: a
    refusal by their Content-Security-Policy (htmx once set a style attribute on each
    swap) and an uncaught script error; any one fails the test as it ends. (A refused
    form's 422 is logged too, as a failed load: that is a page answering, not an error.)"""
    if "browser" not in request.fixturenames:
        yield []
        return
    browser = request.getfixturevalue("browser")
    errors: list[str] = []
    make = browser.new_context

    def logged(message: Any) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            errors.append(message.text)

    def watched(*args: Any, **kwargs: Any) -> Any:
        context = make(*args, **kwargs)
        context.on("console", logged)
        context.on("weberror", lambda error: errors.append(f"script error: {error.error}"))
        return context
    browser.new_context = watched
    try:
        yield errors
    finally:
        del browser.new_context  # the class's again, for the session's next test
    assert not errors, errors


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
