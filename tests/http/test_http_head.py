"""A request whose headers are over 64 KB is answered 431 in the contract's error body and
its connection closed, by the HTTP protocol `refit serve` runs (uvicorn with httptools set
no bound: a 20 MB header was read whole); a large body after small headers still reaches
the app, and a second request on a kept-alive connection is bounded alike."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import uvicorn
from uvicorn.config import Config
from uvicorn.server import ServerState

from api.http_head import MAX_HEAD, BoundedHead

HEAD = "api.http_head:BoundedHead"  # as api/cli/service.py names it to uvicorn


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Reads the whole body and answers how many bytes it had."""
    if scope["type"] != "http":
        return
    size, more = 0, True
    while more:
        message = await receive()
        size += len(message.get("body", b""))
        more = message.get("more_body", False)
    body = json.dumps({"read": size}).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture
def port() -> Iterator[int]:
    """uvicorn serving `app` with the bounded protocol on a free local port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=free, http=HEAD,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started, "uvicorn did not start"
    yield free
    server.should_exit = True
    thread.join(10)


def exchange(port: int, *requests: bytes) -> bytes:
    """Send the requests on one connection; everything answered until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        for request in requests:
            try:
                conn.sendall(request)
            except (BrokenPipeError, ConnectionResetError):
                break  # refused before all of it was sent: its answer is read below
        answer = b""
        try:
            conn.shutdown(socket.SHUT_WR)
            while chunk := conn.recv(65536):
                answer += chunk
        except ConnectionResetError:  # closed with the rest of the head unread: a reset
            pass
    return answer


def get(extra: bytes = b"", close: bool = True) -> bytes:
    return (b"GET / HTTP/1.1\r\nHost: x\r\n" + extra +
            (b"Connection: close\r\n" if close else b"") + b"\r\n")


def test_headers_over_the_limit_are_answered_431_in_the_error_body(port: int) -> None:
    answer = exchange(port, get(b"X-Big: " + b"a" * (MAX_HEAD * 4) + b"\r\n"))
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 ")
    assert json.loads(body)["error"]["code"] == "headers_too_large"


def test_headers_under_the_limit_and_a_large_body_reach_the_app(port: int) -> None:
    body = b"x" * (MAX_HEAD * 3)  # sent at once with its headers: a body is not headers
    request = (b"POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: " +
               str(len(body)).encode() + b"\r\nX-Some: " + b"a" * 1000 + b"\r\n\r\n" + body)
    answer = exchange(port, request)
    assert answer.startswith(b"HTTP/1.1 200 ")
    assert json.loads(answer.partition(b"\r\n\r\n")[2]) == {"read": len(body)}


def test_a_second_request_on_a_kept_alive_connection_is_bounded_too(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(get(close=False))
        first = conn.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 ")
        answer = b""
        try:
            conn.sendall(get(b"X-Big: " + b"a" * (MAX_HEAD * 4) + b"\r\n"))
            while chunk := conn.recv(65536):
                answer += chunk
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before all of it was sent, or closed with some unread
    assert answer.startswith(b"HTTP/1.1 431 ")


def test_a_request_the_parser_cannot_read_is_refused_400_in_the_error_body(port: int) -> None:
    answer = exchange(port, b"GET /" + b"%zz" * 10 + b" HTTP/1.1 junk\r\n\r\n")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert json.loads(body)["error"]["code"] == "invalid_request"


def test_a_head_sent_in_two_reads_the_second_completing_it_is_bounded_too(port: int) -> None:
    request = get(b"X-A: " + b"a" * (MAX_HEAD * 2) + b"\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request[:MAX_HEAD - 500])
        time.sleep(0.3)  # the server reads the first part alone
        answer = b""
        try:
            conn.sendall(request[MAX_HEAD - 500:])
            while chunk := conn.recv(65536):
                answer += chunk
        except (BrokenPipeError, ConnectionResetError):
            pass
    assert answer.startswith(b"HTTP/1.1 431 ")


class Transport:
    """What the protocol writes, in memory: a connection whose reads the test hands over
    whole, as the kernel may."""

    def __init__(self) -> None:
        self.written, self.closing = b"", False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 5000)}.get(
            name, default)

    def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        """Flow control: nothing to pause here."""

    def resume_reading(self) -> None:
        """Flow control: nothing to resume here."""

    def set_protocol(self, protocol: Any) -> None:
        """An upgrade's: never made here."""


def test_whole_requests_over_the_limit_each_in_one_read_reach_the_app_on_one_connection(
        ) -> None:
    """A body is not head, even when a whole request (head, body and all) comes in one
    read: it was counted as head once the request completed, and answered 431 while the
    app still ran it."""
    body = b"x" * (MAX_HEAD + 5000)  # a command of 70 KB: the head is small
    request = (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: " + str(len(body)).encode() +
               b"\r\n\r\n" + body)

    async def served() -> bytes:
        config = Config(app, http=BoundedHead, lifespan="off", log_level="warning")
        protocol = BoundedHead(config, ServerState(), {}, asyncio.get_running_loop())
        transport = Transport()
        protocol.connection_made(transport)  # type: ignore[arg-type]
        for _ in range(3):  # each request arrives whole in one read, kept alive
            answered = transport.written.count(b"HTTP/1.1 ")
            protocol.data_received(request)
            while transport.written.count(b"HTTP/1.1 ") == answered:
                await asyncio.sleep(0.01)
        return transport.written

    written = on_a_loop_of_its_own(served)
    assert written.count(b"HTTP/1.1 200 ") == 3, written[:300]
    assert b"431" not in written
    assert written.count(json.dumps({"read": len(body)}).encode()) == 3  # each body whole


def on_a_loop_of_its_own(served: Callable[[], Coroutine[Any, Any, bytes]]) -> bytes:
    """What `served` wrote, run on a thread's own event loop: a browser test run before in
    the same worker (Playwright's sync API) leaves a loop running on this thread."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(lambda: asyncio.run(asyncio.wait_for(served(), 30))).result()


@pytest.mark.parametrize(("after", "refused"), [
    (get(b"X-Big: " + b"a" * (MAX_HEAD * 2) + b"\r\n"), b"HTTP/1.1 431 "),
    (b"GET /" + b"%zz" * 10 + b" HTTP/1.1 junk\r\n\r\n", b"HTTP/1.1 400 ")])
def test_a_request_refused_after_one_still_running_is_refused_after_its_answer(
        after: bytes, refused: bytes) -> None:
    """Pipelined: the first request's answer comes first, then the refusal and the end.
    The refusal was written at once, ending the connection's writing, and the first
    answer then failed ("write() after write_eof()"), or was lost with the 400's close."""
    first = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok"

    async def served() -> bytes:
        config = Config(app, http=BoundedHead, lifespan="off", log_level="warning")
        protocol = BoundedHead(config, ServerState(), {}, asyncio.get_running_loop())
        transport = Transport()
        protocol.connection_made(transport)  # type: ignore[arg-type]
        protocol.data_received(first + after)  # both in one read, the app not yet run
        while refused not in transport.written:
            await asyncio.sleep(0.01)
        return transport.written

    written = on_a_loop_of_its_own(served)
    assert written.startswith(b"HTTP/1.1 200 "), written[:300]
    assert json.dumps({"read": 2}).encode() in written.split(refused)[0]
    assert written.count(b"HTTP/1.1 ") == 2
