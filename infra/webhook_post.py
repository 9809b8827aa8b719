"""One webhook post: what a public event says (Discord- and Slack-compatible JSON), and
the POST itself (standard library, to the address checked, no redirect followed, the
whole of it within a deadline), answered as delivered, to try again later, or given up."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from infra.webhook_url import checked_address

TIMEOUT = 5.0  # seconds each step of a post (connect, send, a read) may take
WHOLE = 2 * TIMEOUT  # seconds the whole post may take: within its lease (3 x TIMEOUT)
MOST_TEXT = 1900  # characters of a message (Discord takes 2000)
MOST_RETRY_AFTER = 300.0  # seconds: a 429's Retry-After beyond this is taken as this


@dataclass(frozen=True)
class Happened:
    """A public event of a campaign, as the observer reads it, with where it stood."""

    campaign: str
    name: str
    cg_date: str
    phase: str
    step: str | None
    record: dict[str, Any]  # the observer's record (never a sealed one)
    link: str | None  # its roll audit page or inclusion proof, if the service's URL is known


class Undelivered(Exception):
    """A post not made: why (never the URL, which carries the chat's token), and whether
    trying again may help (a 5xx, a timeout, a refused connection, a 429)."""

    def __init__(self, why: str, again: bool, after: float | None = None) -> None:
        super().__init__(why)
        self.why, self.again, self.after = why, again, after


def body_of(text: str) -> str:
    """The JSON posted: Discord reads `content` and `username` (and pings no one, whatever
    a name or reason in the text says: `allowed_mentions`), Slack `text` (its control
    characters escaped as Slack asks, so no `<!channel>` in a reason notifies anyone)."""
    if len(text) > MOST_TEXT:
        text = text[:MOST_TEXT - 1] + "…"
    slack = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return json.dumps({"content": text, "text": slack, "username": "Refit",
                       "allowed_mentions": {"parse": []}})


def post(url: str, body: str, allow_local: bool) -> None:
    """POST the body to the URL; Undelivered if it was not taken (a 2xx) within WHOLE
    seconds, name lookup included: a chat answering a byte at a time, or a name server
    that never answers, holds no other campaign's posts longer than that."""
    outcome: list[Undelivered | None] = []
    worker = threading.Thread(target=_settled, args=(outcome, url, body, allow_local),
                              name="refit-webhook-post", daemon=True)
    worker.start()
    worker.join(WHOLE)
    if not outcome:
        raise Undelivered(f"no answer from {urlsplit(url).hostname} within {WHOLE:.0f} s",
                          again=True)
    if outcome[0] is not None:
        raise outcome[0]


def _settled(outcome: list[Undelivered | None], url: str, body: str,
             allow_local: bool) -> None:
    """`_post`, its outcome noted: anything a chat's answer can raise is a failed try."""
    try:
        _post(url, body, allow_local)
        outcome.append(None)
    except Undelivered as failed:
        outcome.append(failed)
    except Exception as error:  # an answer that is not HTTP, say: BadStatusLine
        outcome.append(Undelivered(f"no answer from {urlsplit(url).hostname} "
                                   f"({type(error).__name__})", again=True))


def _post(url: str, body: str, allow_local: bool) -> None:
    """The POST, to the address the host's check found."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address, refused = checked_address(host, port, allow_local)
    if address is None:
        raise Undelivered(refused or f"the host {host} does not resolve", again=False)
    connection = _Pinned(parts.scheme == "https", host, address, port)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST", path, body=body.encode(), headers={
            "Host": parts.netloc.rpartition("@")[2], "Content-Type": "application/json",
            "User-Agent": "Refit-webhook/1"})
        answer = connection.getresponse()
        answer.read(1024)
    except OSError as error:  # refused, reset, timed out, a certificate not the host's
        raise Undelivered(f"no answer from {host} ({type(error).__name__})",
                          again=True) from None
    finally:
        connection.close()
    if not 200 <= answer.status < 300:  # a redirect too: it is not followed
        raise _refused(answer.status, host, answer.getheader("Retry-After"))


class _Pinned(http.client.HTTPSConnection):
    """A connection to the address checked, speaking to (and, over TLS, checking the
    certificate of) the host named: never to what the name resolves to a moment later."""

    def __init__(self, tls: bool, host: str, address: str, port: int) -> None:
        self.tls_context = ssl.create_default_context()
        super().__init__(host, port, timeout=TIMEOUT, context=self.tls_context)
        self.tls, self.address = tls, address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self.tls_context.wrap_socket(sock, server_hostname=self.host) \
            if self.tls else sock


def _refused(code: int, host: str, retry_after: str | None) -> Undelivered:
    """An HTTP refusal: a 429 or 5xx is tried again; any other (the hook deleted: 404,
    a bad body: 400, a redirect not followed) would be refused again, so it is given up."""
    why = f"HTTP {code} from {host or 'the chat'}"
    if code == 429:
        return Undelivered(why, True, _retry_after(retry_after))
    return Undelivered(why, again=code >= 500)


def _retry_after(value: str | None) -> float | None:
    """A Retry-After in seconds (capped), if it is a number."""
    try:
        return min(max(float(value or ""), 0.0), MOST_RETRY_AFTER)
    except ValueError:
        return None
