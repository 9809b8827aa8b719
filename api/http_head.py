"""uvicorn's HTTP protocol with a bound on a request's head (its request line and headers):
uvicorn sets none with httptools, which read a 20 MB header whole and answered 200. A head
over MAX_HEAD bytes is answered 431 in the contract's error body and the connection closed,
having kept at most MAX_HEAD bytes of it and one read (a read in which a head completes is
not counted: it may carry a body too, even a whole request, and a body has limits of its
own, api/guard.py)."""

from __future__ import annotations

import json

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

MAX_HEAD = 64 * 1024  # bytes: nginx's default takes 4 x 8 KB header lines; a browser sends ~1 KB
LINGER = 5.0  # seconds a refused connection is read and dropped before it is closed


def answer(status: bytes, code: str, message: str) -> bytes:
    """A whole response, written before the app ever sees the request: the status line,
    the contract's error body, and the connection closed after it."""
    body = json.dumps({"error": {"code": code, "message": message, "rule": None,
                                 "field": None}}).encode()
    return b"".join([b"HTTP/1.1 ", status, b"\r\ncontent-type: application/json\r\n",
                     b"content-length: ", str(len(body)).encode(), b"\r\n",
                     b"connection: close\r\n\r\n", body])


TOO_LARGE = answer(b"431 Request Header Fields Too Large", "headers_too_large",
                   f"the request's headers are over the limit of {MAX_HEAD} bytes")
UNREADABLE = answer(b"400 Bad Request", "invalid_request",
                    "the request cannot be read as HTTP/1.1")


class HeadTooLarge(Exception):
    """Raised in a parser callback: the head is over MAX_HEAD bytes."""


class BoundedHead(HttpToolsProtocol):
    """HttpToolsProtocol, refusing a head over MAX_HEAD bytes with 431."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._in_head, self._head, self._refused = True, 0, False
        self._parsed = 0  # the head's bytes the parser has handed over, exactly
        self._heads = 0  # heads completed on this connection
        self._refusal_due = b""  # a refusal waiting for earlier requests' answers

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # the rest of a refused head: read and dropped until the client closes
        counting, heads = self._in_head, self._heads
        super().data_received(data)
        # Only a read in which no head completed is all head: one that completed a head
        # may hold its body, or the whole request (then the next one's head is waited for
        # again, and it must not count what was the body).
        if counting and self._heads == heads:
            self._head += len(data)
            if self._head > MAX_HEAD:
                self._refuse()

    # What the parser has read of the head is counted exactly as it hands it over: the
    # read that completes a head is not counted above (it may carry a body), so a head
    # sent as 64 KB and then the rest in one read is caught here.
    def on_url(self, url: bytes) -> None:
        self._parsed_more(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._parsed_more(len(name) + len(value) + 4)  # ": " and CRLF
        super().on_header(name, value)

    def _parsed_more(self, size: int) -> None:
        self._parsed += size
        if self._parsed > MAX_HEAD:
            raise HeadTooLarge  # the parser stops; uvicorn then calls send_400_response

    def send_400_response(self, msg: str) -> None:
        """A request the parser cannot read (a malformed request line, an overlong URL):
        400 in the contract's error body, as every other refusal, not uvicorn's text; a
        head found too large as it was parsed: 431."""
        self._refuse(TOO_LARGE if self._parsed > MAX_HEAD else UNREADABLE)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head, self._head, self._parsed = True, 0, 0

    def on_headers_complete(self) -> None:
        self._in_head, self._heads = False, self._heads + 1
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_head, self._head = True, 0  # the next request on this connection

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._refusal_due and not self._answering():
            self._send_refusal(self._refusal_due)
            self._refusal_due = b""

    def _answering(self) -> bool:
        """Whether an earlier request on this connection (pipelined) is still to be
        answered: its answer comes first, and nothing may be written after the 431's end."""
        return bool(self.pipeline) or (self.cycle is not None
                                       and not self.cycle.response_complete)

    def _refuse(self, refusal: bytes = TOO_LARGE) -> None:
        """The refusal (431, or 400) in the contract's body, after the answers to earlier
        requests still running, and no more from this side. The rest is read and dropped
        (closing with it unread would reset the connection, and the client might lose the
        answer) until the client closes, or LINGER seconds."""
        if self._refused or self.transport.is_closing():
            return
        self._refused = True
        if self._answering():
            self._refusal_due = refusal
            return
        self._send_refusal(refusal)

    def _send_refusal(self, refusal: bytes) -> None:
        if self.transport.is_closing():
            return
        self.transport.write(refusal)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER, self.transport.close)
