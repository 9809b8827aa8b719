"""The command route's fast path: an ordinary `POST /campaigns/{id}/commands` answered
without FastAPI's middleware, routing and dependency machinery, which cost about as much
CPU as the command itself (bench/load.py). Anything out of the ordinary (another content
type, an odd header, a body the schema refuses) goes to the FastAPI route unchanged, so
its refusals stay FastAPI's; a parsed command runs the route's own code on the same
threads, and its answer or refusal is the route's."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from anyio import to_thread
from fastapi.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import http_body, status_of
from domain import commands as cmd

PATH = re.compile(r"/campaigns/([^/]+)/commands")
DIGITS = re.compile(r"[0-9]{1,18}")
MAX_KEY = 200  # the route's Idempotency-Key max_length
HEADERS = (b"authorization", b"content-type", b"if-match", b"idempotency-key")
log = logging.getLogger("uvicorn.error")

# (campaign, token, command, If-Match, Idempotency-Key) -> the route's answer
Runner = Callable[[str, str | None, cmd.Command, int | None, str | None], Response]


@dataclass(frozen=True, slots=True)
class Plain:
    """What an ordinary command request carries: its campaign, token and headers."""

    campaign: str
    token: str
    if_match: int | None
    key: str | None


def plain_request(scope: Scope) -> Plain | None:
    """The request's parts if it is an ordinary command request, else None."""
    if scope["type"] != "http" or scope["method"] != "POST" or scope.get("root_path"):
        return None
    path = PATH.fullmatch(scope["path"])
    if path is None:
        return None
    seen: dict[bytes, str] = {}
    for name, value in scope["headers"]:
        name = name.lower()
        if name in HEADERS:
            if name in seen:
                return None  # a repeated header: FastAPI's reading of it decides
            seen[name] = value.decode("latin-1")
    return _parts(path.group(1), seen)


def _parts(campaign: str, seen: dict[bytes, str]) -> Plain | None:
    scheme, _, token = seen.get(b"authorization", "").partition(" ")
    if scheme != "Bearer" or not token or token != token.strip() or " " in token:
        return None
    if seen.get(b"content-type") != "application/json":
        return None
    match, key = seen.get(b"if-match"), seen.get(b"idempotency-key")
    if match is not None and DIGITS.fullmatch(match) is None:
        return None
    if key is not None and len(key) > MAX_KEY:
        return None
    return Plain(campaign, token, None if match is None else int(match), key)


def parsed(body: bytes) -> cmd.Command | None:
    """The command, read as FastAPI reads a JSON body (json, then the union in Python
    mode); None if it is not one."""
    try:
        return cmd.parse_command(json.loads(body))
    except Exception:  # any failure at all (even a RecursionError): FastAPI's answer
        return None


class CommandFastPath:
    """ASGI: ordinary command requests to `run`, everything else to `app`."""

    def __init__(self, app: ASGIApp, run: Runner) -> None:
        self.app, self.run = app, run

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer an ordinary command request here; hand any other to the app."""
        plain = plain_request(scope)
        if plain is None:
            await self.app(scope, receive, send)
            return
        body = await _body(receive)
        if body is None:
            return  # the client went away before sending the whole command
        command = parsed(body)
        if command is None:
            await self.app(scope, _replay(body, receive), send)
            return
        response = await to_thread.run_sync(self._answer, plain, command)
        await response(scope, receive, send)

    def _answer(self, plain: Plain, command: cmd.Command) -> Response:
        try:
            return self.run(plain.campaign, plain.token, command, plain.if_match, plain.key)
        except Exception as error:  # the app's handlers' answer: the contract's body
            if status_of(error) == 500:
                log.exception("Exception in ASGI application")
            return JSONResponse(http_body(error), status_code=status_of(error))


async def _body(receive: Receive) -> bytes | None:
    """The whole request body, or None if the client went away."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the body already read, then the client's own messages."""
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed() -> Message:
        return pending.pop() if pending else await receive()
    return replayed

