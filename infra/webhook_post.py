"""One webhook post: what a public event says (Discord- and Slack-compatible JSON), and
the POST itself (standard library, a short timeout, no redirect followed), answered as
delivered, to try again later, or given up."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from infra.webhook_url import refused_addresses

TIMEOUT = 5.0  # seconds a post may take: a slow chat never holds the sender long
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


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is not followed: it could lead to an address the URL's check refused."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def post(url: str, body: str, allow_local: bool) -> None:
    """POST the body to the URL; Undelivered if it was not taken (a 2xx)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    refused = refused_addresses(parts.hostname or "", port, allow_local)
    if refused is not None:
        raise Undelivered(refused, again=False)
    request = urllib.request.Request(url, data=body.encode(), method="POST", headers={
        "Content-Type": "application/json", "User-Agent": "Refit-webhook/1"})
    try:
        with _opener.open(request, timeout=TIMEOUT) as answer:
            answer.read(1024)
    except urllib.error.HTTPError as error:
        raise _refused(error) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise Undelivered(f"no answer from {parts.hostname} "
                          f"({type(reason).__name__})", again=True) from None


def _refused(error: urllib.error.HTTPError) -> Undelivered:
    """An HTTP refusal: a 429 or 5xx is tried again; any other (the hook deleted: 404,
    a bad body: 400, a redirect not followed) would be refused again, so it is given up."""
    code = error.code
    why = f"HTTP {code} from {urlsplit(error.url or '').hostname or 'the chat'}"
    if code == 429:
        return Undelivered(why, True, _retry_after(error.headers.get("Retry-After")))
    return Undelivered(why, again=code >= 500)


def _retry_after(value: str | None) -> float | None:
    """A Retry-After in seconds (capped), if it is a number."""
    try:
        return min(max(float(value or ""), 0.0), MOST_RETRY_AFTER)
    except ValueError:
        return None
