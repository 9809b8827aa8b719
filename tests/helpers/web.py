"""The web client as a browser uses it: the service on a real port, a campaign at the RePh
step where both sides roll in secret, a login by join link, pages read as text."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from api.app import create_app
from infra.settings import Settings
from tests.helpers.http import ADMIN, new_campaign, send

AXIS, BRITISH = "Axis", "British"


@contextmanager
def live_service(settings: Settings) -> Iterator[str]:
    """The service on a free local port, in a thread of this process; its base URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(settings.model_copy(update={"admin_token": ADMIN}))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):  # the server starts in well under a second; 10 s at most
        if server.started:
            break
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def secret_step(client: Any) -> dict[str, Any]:
    """PBr 14AM at 3.618: the Axis bought an I5 and an I7 (lines 1, 2), the British an I2
    (line 3), each in secret with its own token; each side's RG strength DR (3.6181,
    secret) is due."""
    campaign = new_campaign(client)
    tokens = campaign["tokens"]
    director, sides = tokens["director"], tokens["sides"]
    sent = [(director, {"type": "credit_cpp", "side": AXIS, "amount": 39, "reason": "3.6161"}),
            (director, {"type": "credit_cpp", "side": BRITISH, "amount": 17,
                        "reason": "3.6161"})]
    sent += [(sides[side], {"type": "purchase_rg", "side": side, "rg": rg})
             for side, rg in ((AXIS, "I5"), (AXIS, "I7"), (BRITISH, "I2"))]
    for token, body in [*sent, (director, {"type": "advance"})]:
        answer = send(client, campaign, token, body)
        assert answer.status_code == 200, answer.text
    return campaign


def join_link(base: str, campaign: dict[str, Any], token: str) -> str:
    """A join link: the campaign and the token in the URL's fragment."""
    return f"{base}/join#campaign={campaign['id']}&token={token}"


def csrf_of(html: str) -> str:
    """The CSRF token a page's forms carry."""
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None, "the page has no form with a CSRF token"
    return found.group(1)


def text_of(html: str) -> str:
    """A page's HTML without its tags: what a person reads (and attribute values)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
