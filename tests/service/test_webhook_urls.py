"""A webhook's post is refused where it could reach the service's own network: a name that
resolves to a private address when posting, a redirect; a chat that answers 404 (its
webhook deleted) is given up at once, the error kept for the director."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from api.webhook_text import webhook_text
from infra.application import Refit
from infra.settings import Settings
from infra.webhook_post import Undelivered, post
from tests.helpers.processes import until
from tests.helpers.receiver import TOKEN, Receiver
from tests.helpers.story import do


def resolving_to(address: str) -> Any:
    """getaddrinfo as if every name resolved to `address`."""
    def found(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]
    return found


@pytest.mark.parametrize("address", ["10.1.2.3", "127.0.0.1", "169.254.169.254"])
def test_a_name_resolving_to_a_private_address_is_not_posted_to(
        monkeypatch: pytest.MonkeyPatch, address: str) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", resolving_to(address))
    with pytest.raises(Undelivered) as refused:
        post(f"https://chat.example.com/api/webhooks/42/{TOKEN}", "{}", allow_local=False)
    assert "private address" in refused.value.why and not refused.value.again
    assert TOKEN not in refused.value.why


def test_a_redirect_is_not_followed() -> None:
    moved = Receiver(307).start()
    try:
        with pytest.raises(Undelivered) as refused:
            post(moved.url, "{}", allow_local=True)
        assert refused.value.why == "HTTP 307 from 127.0.0.1" and not refused.value.again
        assert moved.tries == 1
    finally:
        moved.stop()


@pytest.fixture
def gone() -> Iterator[Receiver]:
    found = Receiver(404, 404).start()
    yield found
    found.stop()


def test_a_chat_whose_webhook_was_deleted_is_given_up_at_once_saying_why(
        settings: Settings, gone: Receiver) -> None:
    refit = Refit(settings.model_copy(update={"webhook_allow_local": True}))
    refit.webhooks.start(webhook_text)
    try:
        campaign = refit.commands.create_campaign("pbr", "I", "Ranville", "server").id
        refit.webhooks.set(campaign, gone.url)
        do(refit, campaign, {"type": "advance"})
        assert until(lambda: refit.webhooks.status(campaign).error is not None)
        now = refit.webhooks.status(campaign)
        assert now.error is not None and now.error.startswith("HTTP 404 from 127.0.0.1")
        assert "given up after 1 try" in now.error and now.pending == 0
        assert now.delivered is None and gone.tries == 1
    finally:
        refit.close()
