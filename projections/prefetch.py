"""A catch-up's next batch of notifications read and decoded while the one before it is
folded and written: on PostgreSQL a batch's read is mostly a wait on the server (a quarter
of a rebuild, see bench/), which a second thread spends while the first folds."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from eventsourcing.application import Application
from eventsourcing.persistence import Notification

from projections.collector import collector_paused
from projections.quarantine import decoded_or_unreadable

Batch = tuple[Sequence[Notification], list[Any]]


class Prefetch:
    """Batches of the log up to `head` (None: to its end), each read one step ahead of
    its use."""

    def __init__(self, app: Application[Any], head: int | None, size: int,
                 ahead: bool) -> None:
        self.app, self.head, self.size = app, head, size
        self.pool = ThreadPoolExecutor(1, "refit-prefetch") if ahead else None
        self.next: tuple[int, Future[Batch]] | None = None

    def __enter__(self) -> Prefetch:
        return self

    def __exit__(self, *_: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def batch(self, start: int) -> Batch:
        """The notifications from `start` (at most `size`, none past `head`), decoded; the
        batch after them is asked for at once. A batch read ahead from elsewhere (another
        process folded the log on meanwhile) is dropped."""
        pending, self.next = self.next, None
        found = pending[1].result() if pending and pending[0] == start else self.read(start)
        notifications = found[0]
        if self.pool is not None and notifications and (
                notifications[-1].id < self.head if self.head is not None
                else len(notifications) == self.size):
            after = notifications[-1].id + 1
            self.next = (after, self.pool.submit(self.read, after))
        return found

    def read(self, start: int) -> Batch:
        """One batch, read and decoded."""
        notifications = self.app.recorder.select_notifications(
            start=start, limit=self.size, stop=self.head)
        with collector_paused():
            return notifications, [decoded_or_unreadable(self.app.mapper, n)
                                   for n in notifications]
