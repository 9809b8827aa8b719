"""What a request with credentials is answered is never stored: a side's secrets read with
its token or session cookie must not stay in a browser's disk cache on a shared machine,
nor in a proxy's (an ASGI middleware)."""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.session import COOKIE

# Files that are the same for everyone (the pages' CSS and JS, the docs' assets): cached.
SHARED = ("/static/", "/docs-assets/")


class Uncached:
    """`Cache-Control: no-store` (and `nosniff`) on every answer to a request that carries
    a bearer token or the session cookie, unless the route chose its own."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(SHARED) or \
                not _credentials(Headers(scope=scope)):
            await self.app(scope, receive, send)
            return

        async def stored_nowhere(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("cache-control", "no-store")
                headers.setdefault("x-content-type-options", "nosniff")
            await send(message)

        await self.app(scope, receive, stored_nowhere)


def _credentials(headers: Headers) -> bool:
    return "authorization" in headers or f"{COOKIE}=" in headers.get("cookie", "")
