"""A dispute, live in a real headless Chromium: the director has the Axis's secret roll's
audit page open when the Axis disputes it; the dispute shows there without a reload, and
the ruling form names the Axis. The British, on the same roll's sealed page, follows the
same stream and learns nothing of it."""

from __future__ import annotations

from pathlib import Path

import httpx
from playwright.sync_api import Browser, expect

from tests.helpers.http import auth
from tests.helpers.web import AXIS, BRITISH, secret_roll
from tests.web.test_browser import joined, shoot


def test_a_dispute_shows_live_on_the_directors_audit_page_and_never_on_the_opponents(
        browser: Browser, live: str, shots: Path) -> None:
    with httpx.Client(base_url=live) as api:
        campaign = secret_roll(api)
        tokens, version = campaign["tokens"], campaign["rolled"]
        roll_page = f"{live}/play/{campaign['id']}/rolls/{version}"
        director = joined(browser, live, campaign, tokens["director"])
        director.goto(roll_page)
        british = joined(browser, live, campaign, tokens["sides"][BRITISH])
        british.goto(roll_page)
        expect(british.get_by_text(f"A secret roll of the {AXIS}")).to_be_visible()
        expect(director.locator("#r-disputed_by")).to_have_value("")
        answer = api.post(f"/campaigns/{campaign['id']}/disputes",
                          headers=auth(tokens["sides"][AXIS]),
                          json={"version": version, "reason": "the I5 is Elite: -1 DRM"})
        assert answer.status_code == 200, answer.text
        expect(director.get_by_text("The Axis disputed it")).to_be_visible(timeout=5000)
        expect(director.get_by_text("awaits the director's ruling")).to_be_visible()
        expect(director.locator("#r-disputed_by")).to_have_value(AXIS)
        shoot(director, shots, "dispute-live-director")
        # the British page followed the stream too (its live area reloaded) and shows
        # nothing of a dispute sealed to the Axis
        expect(british.locator("#live")).to_have_attribute(
            "data-version", str(answer.json()["version"]), timeout=5000)
        assert "disput" not in british.locator("main").inner_text().lower()
        assert "Elite" not in british.content()
