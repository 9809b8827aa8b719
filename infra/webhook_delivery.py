"""The webhooks' delivery, in a background thread of the service (never a command's): it
follows the event log from its tracking position, queues a post for each public event of
a campaign with a webhook (with the position, in one transaction), and makes the posts
due, retrying with backoff. On PostgreSQL one process does it, elected by an advisory lock
of its own (as the projection runner is, infra/election.py); on SQLite each process runs
it, the tracking and each post's lease keeping any post from being queued or made twice.
A database fault ends a round: it starts again, with backoff (as infra/supervisor.py)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.sql import SQL, Identifier

from infra.election import advisory_key
from infra.store import CampaignStore
from infra.store_lock import postgres_conninfo
from infra.webhook_outbox import Compose, Outbox
from infra.webhook_post import TIMEOUT
from infra.webhook_url import UrlCipher

log = logging.getLogger(__name__)
IDLE = 0.5  # seconds between two looks at the log without a save told (or NOTIFY'd)
STANDBY = 1.0  # seconds between a standby's tries of the lock
LEAST = 0.1  # seconds at least between two looks, however many saves are told
FIRST_DELAY, MOST_DELAY = 0.2, 5.0  # seconds before a round starts again after a fault


def lock_key(schema: str) -> int:
    """The advisory lock of a schema's webhook sender."""
    return advisory_key("refit-webhooks", schema)


class Delivery:
    """Follows the log into the outbox and posts what is due, until stopped."""

    def __init__(self, store: CampaignStore, tables: Any, cipher: UrlCipher,
                 compose: Compose, base_url: str | None, allow_local: bool) -> None:
        self.store = store
        self.outbox = Outbox(store, tables, cipher, compose, base_url, allow_local)
        self.stopping = threading.Event()
        self.woken = threading.Event()  # a save in this process: look at the log now
        store.listeners.append(self._wake)
        self.thread = threading.Thread(target=self._rounds, name="refit-webhooks", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _wake(self, *_: object) -> None:
        self.woken.set()

    def close(self) -> None:
        """Stop (a post under way ends within its timeout)."""
        self.stopping.set()
        self.woken.set()
        if self._wake in self.store.listeners:
            self.store.listeners.remove(self._wake)
        if self.thread.is_alive():  # a post's DNS look-up has no timeout: not waited out
            self.thread.join(timeout=2 * TIMEOUT)

    def _rounds(self) -> None:
        delay = FIRST_DELAY
        while not self.stopping.is_set():
            try:
                self._round()
                delay = FIRST_DELAY
            except Exception as error:  # an outage: the next round, after a while
                log.warning("webhook delivery stopped (%s); again in %.1f s",
                            type(error).__name__, delay)
                self.stopping.wait(delay)
                delay = min(delay * 2, MOST_DELAY)

    def _round(self) -> None:
        """Lead on PostgreSQL (stand by while another process does), or just run."""
        env = self.store.env
        if env.get("PERSISTENCE_MODULE") != "eventsourcing.postgres":
            self._work(self._napped)
            return
        with psycopg.connect(postgres_conninfo(env), autocommit=True) as conn:
            key = lock_key(env.get("POSTGRES_SCHEMA") or "public")
            while not self.stopping.is_set():
                won = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
                if won and won[0]:
                    conn.execute(SQL("LISTEN {0}").format(Identifier(
                        self.store.recorder.channel_name)))  # type: ignore[attr-defined]
                    self._work(lambda: self._notified(conn))
                    return
                self.stopping.wait(STANDBY)  # another process posts: take over if it dies

    def _napped(self) -> None:
        """Wait for a save in this process, or IDLE seconds (another process's)."""
        self.woken.wait(IDLE)
        self.woken.clear()

    def _notified(self, conn: psycopg.Connection[Any]) -> None:
        deadline = time.monotonic() + IDLE
        while not self.stopping.is_set() and time.monotonic() < deadline:
            if next(conn.notifies(timeout=0.05, stop_after=1), None) is not None:
                return

    def _work(self, wait: Callable[[], Any]) -> None:
        while not self.stopping.is_set():
            while self.outbox.follow() and not self.stopping.is_set():
                pass
            if not self.outbox.idle:
                self.outbox.send_due(self.stopping.is_set)
            # A busy service saves many times a second: one look at a time is enough; with
            # no webhook set, one look (a query) every IDLE seconds, however busy.
            self.stopping.wait(IDLE if self.outbox.idle else LEAST)
            wait()
