"""Each campaign's commands wait for their turn in the event loop, not on a thread: a
command takes one of the commands' threads (api/app.py) only once no other command of
this process holds its campaign, so commands queued on one busy campaign never hold the
threads another campaign's commands need (issue 17, item 4). The thread's own lock
(infra/commands.py) and, on a shared database, PostgreSQL's advisory lock still order the
commands of other callers and other processes."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from uuid import UUID

from anyio import CapacityLimiter

from domain.errors import CampaignBusy


class Turns:
    """The campaigns' turns in one event loop, and the commands' threads."""

    def __init__(self, wait: float, threads: int) -> None:
        self.wait = wait
        # Weakly held: a campaign nobody commands keeps no lock.
        self._locks: weakref.WeakValueDictionary[UUID, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        # A thread is taken here, where the wait is bounded; the limiter the command then
        # runs under has as many tokens, so it never makes a command wait again.
        self._threads = asyncio.Semaphore(threads)
        self.limiter = CapacityLimiter(threads)

    @asynccontextmanager
    async def turn(self, campaign_id: UUID) -> AsyncIterator[None]:
        """The campaign's turn, then a command thread; 503 `busy` once REFIT_TURN_WAIT
        seconds pass without both."""
        lock = self._locks.get(campaign_id)
        if lock is None:
            lock = self._locks[campaign_id] = asyncio.Lock()
        waiting_for = "another command"
        try:
            async with asyncio.timeout(self.wait):  # no task of its own, as wait_for makes
                await lock.acquire()
                waiting_for = "thread"
                try:
                    await self._threads.acquire()
                except BaseException:  # cancelled by the timeout: the turn passes on
                    lock.release()
                    raise
        except TimeoutError:
            if waiting_for == "thread":
                raise CampaignBusy.threads_taken(self.wait) from None
            raise CampaignBusy.after(self.wait) from None
        try:
            yield
        finally:
            self._threads.release()
            lock.release()
