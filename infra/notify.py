"""A campaign's new versions told to whoever waits on it (the live streams): at once for
this process's own saves, and for other processes' through the database, which a watcher
thread follows (PostgreSQL: LISTEN on the events table's channel, which every insert
already notifies; SQLite: a poll of the log's last row, REFIT_LIVE_POLL seconds apart)."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING
from uuid import UUID

from infra.heads import Heads, heads_of

if TYPE_CHECKING:  # asyncio only once a live stream waits (the command line never does)
    import asyncio

log = logging.getLogger(__name__)
RETRY_MAX = 10.0  # seconds between two tries to reach the database again, at most


class Subscription:
    """One waiter on one campaign, woken at each new version (it then reads the store)."""

    def __init__(self, campaign_id: UUID, loop: asyncio.AbstractEventLoop) -> None:
        self.campaign_id, self.loop = campaign_id, loop
        self.closed = False
        import asyncio

        self._woken = asyncio.Event()

    def wake(self) -> None:
        """Tell the waiter (from any thread; nobody is left to tell once its loop ended)."""
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self._woken.set)

    async def woken(self, timeout: float) -> bool:
        """Wait for a wake-up, at most `timeout` seconds; whether one came. Cleared before
        the caller reads the store, so a version saved meanwhile wakes it again."""
        import asyncio

        try:
            await asyncio.wait_for(self._woken.wait(), timeout)
        except TimeoutError:
            return False
        self._woken.clear()
        return True


class Notifier:
    """Subscriptions by campaign; `publish` wakes a campaign's subscribers."""

    def __init__(self, heads: Heads | None, poll: float) -> None:
        self._subscribers: dict[UUID, set[Subscription]] = {}
        self._guard = threading.Lock()
        self._heads, self._poll = heads, poll
        self._watcher: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def count(self) -> int:
        """Subscriptions open now."""
        with self._guard:
            return sum(len(found) for found in self._subscribers.values())

    def publish(self, campaign_id: UUID, version: int) -> None:
        """The campaign is at `version` now, committed (thread-safe; cheap when nobody
        waits on it)."""
        with self._guard:
            waiting = list(self._subscribers.get(campaign_id, ()))
        for subscription in waiting:
            subscription.wake()

    @contextlib.contextmanager
    def subscribe(self, campaign_id: UUID,
                  loop: asyncio.AbstractEventLoop) -> Iterator[Subscription]:
        """A subscription to the campaign for as long as the context lasts (the watcher
        of other processes' saves starts with the first)."""
        subscription = Subscription(campaign_id, loop)
        subscription.closed = self._stop.is_set()
        with self._guard:
            self._subscribers.setdefault(campaign_id, set()).add(subscription)
            self._start_watching()
        try:
            yield subscription
        finally:
            with self._guard:
                found = self._subscribers.get(campaign_id, set())
                found.discard(subscription)
                if not found:
                    self._subscribers.pop(campaign_id, None)

    def end_streams(self) -> None:
        """Wake every subscriber for the last time, and refuse new ones (the service is
        stopping; safe in a signal handler: it waits for nothing)."""
        self._stop.set()
        for subscription in self._everyone():
            subscription.closed = True
            subscription.wake()

    def close(self) -> None:
        """End the streams and the watcher."""
        self.end_streams()
        if self._watcher is not None:
            self._watcher.join(timeout=self._poll + 5)

    def _everyone(self) -> list[Subscription]:
        with self._guard:
            return [s for found in self._subscribers.values() for s in found]

    def _wake_all(self) -> None:
        """Every subscriber reads the store again (the watcher may have missed saves)."""
        for subscription in self._everyone():
            subscription.wake()

    def _start_watching(self) -> None:
        if self._watcher is None and self._heads is not None and not self._stop.is_set():
            self._watcher = threading.Thread(target=self._watch, name="refit-live-watch",
                                             daemon=True)
            self._watcher.start()

    def _watch(self) -> None:
        """Follow other processes' saves until closed; after the database was away,
        everyone reads again (what was saved meanwhile was not told)."""
        assert self._heads is not None
        delay = 0.2
        while not self._stop.is_set():
            try:
                with self._heads.following() as follow:
                    self._wake_all()  # saved before the watcher's first look: read again
                    delay = 0.2
                    while not self._stop.is_set():
                        for campaign_id, version in follow(self._poll):
                            self.publish(campaign_id, version)
            except Exception:
                log.warning("live: cannot follow the database; trying again in %.1f s",
                            delay, exc_info=True)
                self._stop.wait(delay)
                delay = min(delay * 2, RETRY_MAX)


def notifier_for(env: dict[str, str], recorder: object, poll: float) -> Notifier:
    """A notifier over a store's database (its persistence environment and recorder)."""
    return Notifier(heads_of(env, recorder), poll)
