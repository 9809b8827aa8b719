"""The forms pages in a real headless Chromium: a side opens its forms from its home page,
picks an earlier point, is told a version past the head is none, then compares two points;
then opens the charts, each drawn by its image route; screenshots at desktop and phone width,
and as printed, go to test-artifacts/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.helpers.web import AXIS, strength_rolled
from tests.web.test_browser import joined, shoot


@pytest.fixture
def campaign(live: str) -> dict[str, Any]:
    """14AM: both sides bought in secret in 3.617, and the Axis rolled its strength DR."""
    with httpx.Client(base_url=live) as api:
        return strength_rolled(api)


def test_a_side_opens_its_forms_as_of_a_step_and_compares_two_points(
        browser: Browser, live: str, campaign: dict[str, Any], shots: Path) -> None:
    axis = joined(browser, live, campaign, campaign["tokens"]["sides"][AXIS])
    axis.get_by_role("link", name="Forms: as of a point, and what changed").click()
    sheet = axis.locator("article.sheet")
    expect(sheet).to_contain_text("now (version")
    expect(axis.locator("#form-purchases td.secret").first).to_be_visible()  # the British's
    shoot(axis, shots, "forms-now")

    axis.get_by_label("As of").select_option("14AM/3.617")
    axis.locator("form.pick-one").first.get_by_role("button", name="Show").click()
    expect(sheet).to_contain_text("14AM, after step 3.617")
    shoot(axis, shots, "forms-as-of")
    axis.emulate_media(media="print")
    axis.screenshot(path=shots / "forms-as-of-print.png", full_page=True)
    axis.emulate_media(media="screen")

    axis.get_by_label("Or at version").fill("999")
    axis.get_by_label("Or at version").press("Enter")  # the keyboard alone asks
    expect(axis.get_by_role("alert")).to_contain_text("there is no version 999")
    expect(axis.get_by_label("Or at version")).to_have_attribute("aria-invalid", "true")
    shoot(axis, shots, "forms-refused")

    axis.get_by_role("link", name="What changed", exact=True).click()
    axis.get_by_label("From", exact=True).select_option("14AM/3.617")
    axis.get_by_label("To", exact=True).select_option("")
    axis.get_by_role("button", name="Compare", exact=True).click()
    # The comparison's own page, not the one before it (which may already show a change):
    # typing into the page the navigation is about to replace would be lost.
    expect(axis).to_have_url(re.compile(r"[?&]from=14AM%2F3\.617"))
    changed = axis.locator('#diff-purchase_record tr[data-change="changed"]')
    expect(changed.first).to_contain_text("#1")
    shoot(axis, shots, "forms-diff")
    axis.get_by_label("Or from version").fill("2")
    axis.get_by_role("button", name="Compare versions").click()
    heading = re.compile(r"^What changed from version 2 to \d+$")
    expect(axis.locator("article.sheet h1")).to_have_text(heading)
    expect(axis.locator('#diff-purchase_record tr[data-change="added"]')).to_have_count(3)
    shoot(axis, shots, "forms-diff-versions")
    axis.emulate_media(media="print")
    axis.screenshot(path=shots / "forms-diff-print.png", full_page=True)
    axis.emulate_media(media="screen")

    axis.get_by_role("link", name="Charts", exact=True).click()
    expect(axis.locator("article.charts h1")).to_have_text("Charts")
    images = axis.locator("article.charts img")
    expect(images).to_have_count(4)
    for index in range(4):  # each chart's route answered an image the browser drew
        images.nth(index).scroll_into_view_if_needed()
        expect(images.nth(index)).to_have_js_property("complete", True)
        assert images.nth(index).evaluate("img => img.naturalWidth") > 0
    expect(axis.locator(f'table.dice-count[data-side="{AXIS}"][data-kind="DR"] caption')) \
        .to_contain_text("1 DR: χ² =")
    shoot(axis, shots, "charts")
