"""The gate before a request's body is read (an ASGI middleware): a body over the configured
size answers 413 without being read into memory (Content-Length first, a chunked body
counted as it arrives), a JSON route's body in another content type answers 415, and a
POST without a bearer token answers 401 before any of its body is read."""

from __future__ import annotations

import email.message
import json
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, TypeVar

from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from domain.digits import digits

# The web client's login and logout (CONTRACT 'Web pages'), the admin's import form and
# its pages' forms (under WEB_FORMS, api/web) post a form, and no token: a session cookie
# and a CSRF token.
IMPORT_PAGE = "/admin/import"  # an import's form: its body has the import's own limit
NEW_CAMPAIGN_PAGE = "/admin/new"  # the admin's form that starts a campaign
TOKENS_PAGE = "/admin/tokens"  # the admin's form that replaces a role's token
NO_TOKEN = frozenset({"/login", "/logout", IMPORT_PAGE, NEW_CAMPAIGN_PAGE, TOKENS_PAGE})
WEB_FORMS = "/play/"
# Bodies that are not JSON: an import's JSON lines, the web client's forms.
NOT_JSON = frozenset({"/campaigns/import"}) | NO_TOKEN
WITH_BODY = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class BodyGuard:
    """Refuses, before the app reads it, a body too large, not JSON, or sent anonymously."""

    def __init__(self, app: ASGIApp, limit: int, limits: Mapping[str, int]) -> None:
        self.app, self.limit, self.limits = app, limit, limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in WITH_BODY:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        limit = self.limits.get(scope["path"], self.limit)
        refusal = _refusal(scope, headers, limit)
        if refusal is not None:
            await _answer(send, *refusal)
            return
        await self.app(scope, _counted(receive, limit), send)


class HeadAsGet:
    """HEAD answered as GET is, without the body (RFC 9110 9.3.2): FastAPI's routes take
    GET only, so monitors that send HEAD got 405. The server leaves the body out. A live
    stream never ends, so its HEAD stays 405: run as GET it would go on, unread, and hold
    the connection's next request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "HEAD" and \
                not scope["path"].endswith(LIVE):
            scope = dict(scope, method="GET")
        await self.app(scope, receive, send)


LIVE = "/live"  # GET /campaigns/{id}/live: Server-Sent Events (api/live.py)


def _refusal(scope: Scope, headers: Headers, limit: int) -> tuple[int, str, str] | None:
    """Why this request is refused before its body is read (status, code, message)."""
    length = headers.get("content-length")
    if length is not None and digits(length) and int(length) > limit:
        return too_large(limit)
    form = web_form(scope["path"])
    if scope["method"] == "POST" and not form and not _bearer(headers.get("authorization")):
        return 401, "unauthorized", "give a token: Authorization: Bearer TOKEN"
    has_body = "transfer-encoding" in headers or (length is not None and length != "0")
    if has_body and not form and scope["path"] not in NOT_JSON:
        return _media_refusal(headers.get("content-type"))
    return None


def _media_refusal(content_type: str | None) -> tuple[int, str, str] | None:
    """415 unless the body is declared JSON, in UTF-8 if a charset is declared at all."""
    media = _media(content_type or "")
    if not content_type or not _is_json(media):
        return 415, "unsupported_media_type", "send the body as Content-Type: application/json"
    charset = media.get_param("charset")
    if isinstance(charset, str) and charset.lower() not in ("utf-8", "utf8"):
        return 415, "unsupported_media_type", (f"a JSON body is UTF-8 (RFC 8259 8.1), not "
                                               f"charset={charset}")
    return None


def web_form(path: str) -> bool:
    """Whether a path takes the web client's forms (a session, not a token)."""
    return path in NO_TOKEN or path.startswith(WEB_FORMS)


def too_large(limit: int) -> tuple[int, str, str]:
    """The 413 refusal of a body over `limit` bytes."""
    return 413, "too_large", f"the body is over the limit of {limit} bytes"


def _counted(receive: Receive, limit: int) -> Receive:
    """`receive`, refusing (413) once the body read so far is over the limit."""
    seen = 0

    async def counted() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:  # the app's error handlers answer it in the contract's body
                raise HTTPException(413, too_large(limit)[2])
        return message
    return counted


def _bearer(authorization: str | None) -> bool:
    """Whether the header gives a bearer token (as FastAPI's HTTPBearer reads one)."""
    scheme, _, token = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and bool(token.strip())


def is_json(content_type: str | None) -> bool:
    """application/json or application/*+json, with any parameters."""
    return content_type is not None and _is_json(_media(content_type))


def _media(content_type: str) -> email.message.Message:
    """A Content-Type header read as email reads one: its type and parameters."""
    message = email.message.Message()
    message["content-type"] = content_type
    return message


def _is_json(media: email.message.Message) -> bool:
    subtype = media.get_content_subtype()
    return media.get_content_maintype() == "application" and \
        (subtype == "json" or subtype.endswith("+json"))


async def _answer(send: Send, status: int, code: str, message: str) -> None:
    """The contract's error body, sent without reading the request's body (the server
    closes the connection rather than read the rest)."""
    body = json.dumps({"error": {"code": code, "message": message, "rule": None,
                                 "field": None}}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class DuplicateKey(json.JSONDecodeError):
    """A JSON object that names a key twice: ambiguous (which one counts?), so refused."""

    def __init__(self, key: str, doc: str) -> None:
        super().__init__(f"{DUPLICATE} {key!r}", doc, 0)
        self.key = key


DUPLICATE = "a JSON object names each key once; this body repeats"


def strict_json(body: bytes) -> Any:
    """A JSON body read as UTF-8 only (json.loads would guess UTF-16 or UTF-32 too), each
    object's keys once; a UnicodeDecodeError or JSONDecodeError is the caller's refusal."""
    text = body.decode("utf-8-sig")

    def once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        found = dict(pairs)
        if len(found) != len(pairs):
            keys = [key for key, _ in pairs]
            raise DuplicateKey(next(k for i, k in enumerate(keys) if k in keys[:i]), text)
        return found
    return json.loads(text, object_pairs_hook=once)


class UTF8Request(Request):
    """A request whose JSON body must be UTF-8."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = strict_json(await self.body())
        return self._json


Gate = Callable[[Request], Awaitable[None]]  # raises the refusal of a request it stops
Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


def gated(gate: Gate) -> Callable[[Endpoint], Endpoint]:
    """Mark a route's endpoint with the check (its token) a request passes before the
    route reads its body: FastAPI reads a declared body before the route runs."""
    def mark(endpoint: Endpoint) -> Endpoint:
        endpoint.gate = gate  # type: ignore[attr-defined]
        return endpoint
    return mark


class UTF8Route(APIRoute):
    """A route that passes its gate (if `gated`) before it reads its declared JSON body,
    and reads that body as UTF-8 only."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        gate: Gate | None = getattr(self.endpoint, "gate", None)

        async def read_as_utf8(request: Request) -> Response:
            if gate is not None:
                await gate(request)
            return await handler(UTF8Request(request.scope, request.receive))
        return read_as_utf8
