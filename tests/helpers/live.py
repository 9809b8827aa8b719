"""Live streams as a browser reads them: the service on a real socket (a test client
cannot stream without end), and each stream read on a thread of its own into a queue, so
a test waits for a message with a bound and never hangs."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn

from api.app import create_app
from infra.settings import Settings
from tests.helpers.http import ADMIN
from tests.helpers.processes import BOUND, free_port, until

HEARTBEAT = 0.3  # seconds: a stream's reader wakes this often to see if it may stop


@dataclass(frozen=True)
class Message:
    """One Server-Sent Event."""

    event: str
    id: str | None
    data: Any


@contextmanager
def live_service(settings: Settings) -> Iterator[str]:
    """The service on a free port of this host, in a thread; its URL."""
    conf = settings.model_copy(update={"admin_token": ADMIN, "live_heartbeat": HEARTBEAT})
    port = free_port()
    app = create_app(conf)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning",
                                           timeout_graceful_shutdown=5))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        assert until(lambda: server.started or not thread.is_alive()), "never started"
        assert server.started, "the service did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        # as `refit serve` does on a signal (api/live.py): streams end, so uvicorn need
        # not wait for them
        app.state.refit.live.end_streams()
        server.should_exit = True
        thread.join(BOUND)


class Stream:
    """A live stream being read: its status, then its messages as they come."""

    def __init__(self, url: str, token: str, **headers: str) -> None:
        self.messages: queue.Queue[Message | None] = queue.Queue()
        self.status: queue.Queue[int] = queue.Queue()
        self.ended = threading.Event()
        self.finished = False  # the service ended the stream (no error, no timeout)
        self.beats = 0  # heartbeat comments seen
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._read, args=(url, {"Authorization": f"Bearer {token}"} | headers),
            daemon=True)
        self._thread.start()

    def _read(self, url: str, headers: dict[str, str]) -> None:
        try:
            with httpx.stream("GET", url, headers=headers,
                              timeout=httpx.Timeout(BOUND, read=HEARTBEAT * 20)) as answer:
                self.status.put(answer.status_code)
                fields: dict[str, str] = {}
                for line in answer.iter_lines():
                    if self._stop.is_set():
                        return
                    if line:
                        name, _, value = line.partition(":")
                        fields[name] = value.removeprefix(" ")
                    elif "event" in fields:
                        self.messages.put(Message(fields["event"], fields.get("id"),
                                                  json.loads(fields["data"])))
                        fields = {}
                    else:
                        self.beats += "" in fields  # a comment line: the heartbeat
                        fields = {}  # a comment (heartbeat) or a retry line
                self.finished = True
        finally:
            self.ended.set()
            self.messages.put(None)

    def opened(self) -> int:
        """The answer's status code."""
        return self.status.get(timeout=BOUND)

    def next(self, event: str | None = None) -> Message:
        """The next message (of `event`, passing over others); fails if none comes."""
        while True:
            found = self.messages.get(timeout=BOUND)
            assert found is not None, "the stream ended"
            if event is None or found.event == event:
                return found

    def close(self) -> None:
        """Stop reading (within a heartbeat)."""
        self._stop.set()
        self._thread.join(BOUND)


@contextmanager
def streaming(url: str, token: str, **headers: str) -> Iterator[Stream]:
    """A live stream, read until the context ends."""
    stream = Stream(url, token, **headers)
    try:
        yield stream
    finally:
        stream.close()
