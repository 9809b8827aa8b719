"""A chat's webhook on this machine: an HTTP server in a thread that keeps each JSON body
posted to it, answering each post with the next status it was given (then 204, as
Discord does), and that can be down (nothing listening on its port) until started."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.helpers.processes import free_port

TOKEN = "Zq9SeCrEtChAtToKeN"  # the chat's token, in the URL's path as Discord's is


class Receiver:
    """The posts received (their bodies, in order) and the statuses still to answer."""

    def __init__(self, *answers: int) -> None:
        self.answers = list(answers)
        self.bodies: list[dict[str, Any]] = []
        self.tries = 0
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/api/webhooks/42/{TOKEN}"
        self.server: ThreadingHTTPServer | None = None

    def start(self) -> Receiver:
        """Listen (a receiver made down comes up)."""
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), self._handler())
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def texts(self) -> list[str]:
        """The messages received, in order."""
        return [body["content"] for body in self.bodies]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.tries += 1
                status = receiver.answers.pop(0) if receiver.answers else 204
                if status < 300:
                    receiver.bodies.append(json.loads(body))
                self.send_response(status)
                if 300 <= status < 400:  # a redirect: to where a check would refuse
                    self.send_header("Location", "http://10.0.0.1/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


def linked_version(text: str) -> int:
    """The version a post's link names (its receipt's)."""
    found = re.search(r"(?:version=|rolls/)(\d+)$", text)
    assert found is not None, text
    return int(found[1])
