"""A webhook's post is refused where it could reach the service's own network: a name that
resolves to a private address when posting, a redirect; a chat that answers 404 (its
webhook deleted) is given up at once, the error kept for the director."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


@pytest.mark.parametrize("address", ["10.1.2.3", "127.0.0.1", "169.254.169.254", "224.0.0.1",
                                     "::ffff:127.0.0.1", "64:ff9b::a01:203"])
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


def test_a_post_connects_to_the_address_checked_not_to_what_the_name_resolves_to_next(
        monkeypatch: pytest.MonkeyPatch) -> None:
    chat = Receiver().start()
    answers = iter(["127.0.0.1", "10.9.9.9"])  # public (here: this machine), then private
    real = socket.getaddrinfo

    def rebinding(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        if host != "chat.example.test":
            return real(host, port, *args, **kwargs)
        return resolving_to(next(answers))(host, port)
    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    try:
        post(f"http://chat.example.test:{chat.port}/api/webhooks/42/{TOKEN}", '{"a": 1}',
             allow_local=True)
        assert chat.bodies == [{"a": 1}] and next(answers) == "10.9.9.9"  # asked once
    finally:
        chat.stop()


def test_a_name_that_is_no_name_is_refused_when_set_and_undelivered_when_posted() -> None:
    from domain.errors import InvalidCommand
    from infra.webhook_url import checked_url

    for host in ("a..b.com", "x" * 64 + ".example.com"):
        with pytest.raises(InvalidCommand, match="not a host name"):
            checked_url(f"https://{host}/api/webhooks/1/t", allow_local=False)
        with pytest.raises(Undelivered) as failed:
            post(f"https://{host}/api/webhooks/1/t", "{}", allow_local=False)
        assert "does not resolve" in failed.value.why and not failed.value.again


@contextmanager
def answering(respond: Callable[[socket.socket], None]) -> Iterator[int]:
    """A port on this machine where each connection's request is read, then `respond`ed."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        conn.recv(65536)
        respond(conn)
        conn.close()
    threading.Thread(target=serve, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


def test_an_answer_that_is_not_http_is_a_failed_try_not_a_crash() -> None:
    garbage = answering(lambda conn: conn.sendall(b"NOT HTTP AT ALL\r\n\r\n"))
    with garbage as port, pytest.raises(Undelivered) as failed:
        post(f"http://127.0.0.1:{port}/hook", "{}", allow_local=True)
    assert failed.value.again and "BadStatusLine" in failed.value.why


def test_a_chat_answering_a_byte_at_a_time_is_a_failed_try_within_the_whole_posts_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from infra import webhook_post
    monkeypatch.setattr(webhook_post, "WHOLE", 0.5)
    done = threading.Event()

    def dripping(conn: socket.socket) -> None:
        while not done.wait(0.1):
            conn.sendall(b"H")  # never a whole status line

    with answering(dripping) as port:
        try:
            with pytest.raises(Undelivered) as failed:
                post(f"http://127.0.0.1:{port}/hook", "{}", allow_local=True)
        finally:
            done.set()
    assert failed.value.again and "within" in failed.value.why
