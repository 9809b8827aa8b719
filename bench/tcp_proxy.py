"""A TCP proxy on the loopback between the service and PostgreSQL: down, it is a database
server that stopped (every connection ended, a new one refused at once); silent, a host
that went away (every connection ended, a new one taken and never answered, until the
client gives up on it); up again, the database is back. The shared server itself is
never restarted."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlparse


class Proxy:
    """Forwards 127.0.0.1:`port` to `target` while it is up."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.lock = threading.Lock()
        self.sockets: list[socket.socket] = []
        self.listener: socket.socket | None = None
        self.port = 0
        self.answering = True

    def up(self) -> None:
        """Listen (on the same port as before, if any) and forward what comes."""
        if self.listener is not None:  # silent: answer again
            self._end_all(keep_listener=True, answering=True)
            return
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        with self.lock:
            self.port, self.listener, self.answering = listener.getsockname()[1], listener, True
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        """End every connection and stop listening: the database server stopped."""
        self._end_all(keep_listener=False, answering=True)

    def silent(self) -> None:
        """End every connection; take new ones and never answer: the host went away."""
        self._end_all(keep_listener=True, answering=False)

    def _end_all(self, keep_listener: bool, answering: bool) -> None:
        with self.lock:
            self.answering = answering
            found, self.sockets = self.sockets, []
            if self.listener is not None and not keep_listener:
                found.append(self.listener)
                self.listener = None
        for sock in found:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut
            with self.lock:
                held = self.listener is listener and not self.answering
                if held:
                    self.sockets.append(client)  # silent: held open, never answered
            if held:
                continue
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                cut = self.listener is not listener or not self.answering
                if not cut:
                    self.sockets += [client, server]
            if cut:  # cut while this one was being connected: it must not outlive the cut
                client.close()
                server.close()
                continue
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=_pump, args=(source, sink), daemon=True).start()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


@contextmanager
def proxied(target: tuple[str, int]) -> Iterator[Proxy]:
    """A proxy to `target`, up; taken down afterwards."""
    proxy = Proxy(target)
    proxy.up()
    try:
        yield proxy
    finally:
        proxy.down()


@contextmanager
def proxied_database(url: str) -> Iterator[tuple[Proxy, str]]:
    """A proxy to the database a URL names, and that URL through it (its user, password,
    database and query kept)."""
    where = urlparse(url)
    with proxied((where.hostname or "127.0.0.1", where.port or 5432)) as proxy:
        user = where.netloc.rpartition("@")[0]
        login = f"{user}@" if user else ""
        yield proxy, where._replace(netloc=f"{login}127.0.0.1:{proxy.port}").geturl()
