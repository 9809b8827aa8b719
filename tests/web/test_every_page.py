"""Every page at a phone's width, light and dark, in a real headless Chromium: none
scrolls sideways (a wide table scrolls in its own box), and screenshots of each go to
test-artifacts/ (every-SCHEME-ROLE-PAGE.png) to be looked at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.helpers.http import ADMIN, auth
from tests.helpers.web import AXIS, join_link, strength_rolled

PHONE = {"width": 390, "height": 844}
SIDE_PAGES = {"guide": "", "forms": "/forms", "diff": "/forms/diff?from=1",
              "charts": "/charts", "audit": "/rolls/{roll}"}
DIRECTOR_PAGES = {"guide": "", "undo": "/undo", "preview": "/undo?to={before}&reason=test",
                  "audit": "/rolls/{roll}", "webhook": "/webhook"}


@pytest.fixture
def campaign(live: str) -> dict[str, Any]:
    """14AM at 3.618: both sides bought in secret, the Axis rolled its strength DR."""
    with httpx.Client(base_url=live) as api:
        made = strength_rolled(api)
        rolls = api.get(f"/campaigns/{made['id']}/rolls",
                        headers=auth(made["tokens"]["director"])).json()
        return made | {"roll": rolls[-1]["version"], "before": rolls[-1]["version"] - 1}


def opened(browser: Browser, scheme: str) -> Page:
    """A phone-sized page of a browser context of its own, in the colour scheme."""
    return browser.new_context(viewport=PHONE, color_scheme=scheme).new_page()


def look(page: Page, shots: Path, name: str) -> None:
    """The page fits the phone's width (no sideways scroll), and its screenshot."""
    page.wait_for_load_state("load")
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= PHONE["width"], f"{name} is {wide}px wide at {PHONE['width']}px"
    page.screenshot(path=shots / f"{name}.png", full_page=True)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_fits_a_phone_in_light_and_dark(
        browser: Browser, live: str, campaign: dict[str, Any], shots: Path,
        scheme: str) -> None:
    tokens = campaign["tokens"]
    base = f"{live}/play/{campaign['id']}"
    for role, token, pages in (("axis", tokens["sides"][AXIS], SIDE_PAGES),
                               ("director", tokens["director"], DIRECTOR_PAGES),
                               ("observer", tokens["observer"], {"guide": ""})):
        page = opened(browser, scheme)
        page.goto(join_link(live, campaign, token))
        page.wait_for_url(base)
        for name, path in pages.items():
            page.goto(base + path.format(**campaign))
            look(page, shots, f"every-{scheme}-{role}-{name}")
    page = opened(browser, scheme)
    page.goto(live)
    look(page, shots, f"every-{scheme}-login")
    page.get_by_label("Token").fill(ADMIN)
    page.get_by_label("Token").press("Enter")
    page.wait_for_url(f"{live}/admin")
    look(page, shots, f"every-{scheme}-admin")
