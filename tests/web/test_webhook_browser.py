"""The chat webhook in a real headless Chromium: the director opens it from the home page,
pastes a chat's URL, and once a public event is posted the page says it was delivered;
the URL is shown masked throughout. Screenshots go to test-artifacts/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from infra.settings import Settings
from tests.helpers.http import auth, new_campaign
from tests.helpers.live import live_service
from tests.helpers.processes import until
from tests.helpers.receiver import TOKEN, Receiver
from tests.web.test_browser import WIDTHS, joined, shoot


@pytest.fixture
def hooked(settings: Settings) -> Iterator[str]:
    """The service on a real port, allowed to post to this machine's chat."""
    conf = settings.model_copy(update={"webhook_allow_local": True,
                                       "public_url": "http://refit.test"})
    with live_service(conf) as found:
        yield found


def delivered(api: httpx.Client, campaign: dict) -> int | None:
    """The last version the service has recorded as delivered to the chat."""
    status = api.get(f"/campaigns/{campaign['id']}/webhook",
                     headers=auth(campaign["tokens"]["director"]))
    assert status.status_code == 200, status.text
    found: int | None = status.json()["delivered"]
    return found


def test_the_director_sets_the_webhook_on_its_page_and_sees_it_delivered(
        browser: Browser, hooked: str, shots: Path) -> None:
    chat = Receiver().start()
    try:
        with httpx.Client(base_url=hooked) as api:
            campaign = new_campaign(api)
            director = joined(browser, hooked, campaign, campaign["tokens"]["director"])
            director.get_by_role("link", name="Chat webhook").click()
            expect(director.locator("#hook-none")).to_be_visible()
            director.get_by_label("Webhook URL").fill(chat.url)
            director.get_by_role("button", name="Set the webhook").click()
            expect(director.locator("#done")).to_contain_text("The webhook is set")
            advanced = api.post(f"/campaigns/{campaign['id']}/commands",
                                json={"type": "advance"},
                                headers=auth(campaign["tokens"]["director"]))
            assert advanced.status_code == 200, advanced.text
            assert until(lambda: len(chat.bodies) == 1)
            # the chat has the post before the service records it delivered
            assert until(lambda: delivered(api, campaign) == advanced.json()["version"])
        director.reload()
        expect(director.locator("#hook-delivered")).to_contain_text(
            f"up to version {advanced.json()['version']}")
        expect(director.locator("#hook-url")).to_contain_text(f"127.0.0.1:{chat.port}/api/…")
        assert TOKEN not in director.content()
        shoot(director, shots, "webhook")
        assert director.viewport_size == {"width": WIDTHS[0], "height": 900}
    finally:
        chat.stop()
