"""Each campaign's commands wait for their turn in the event loop, not on a thread: a
command takes one of the commands' threads (api/app.py) only once no other command of
this process holds its campaign, so commands queued on one busy campaign never hold the
threads another campaign's commands need (issue 17, item 4). The thread's own lock
(infra/commands.py) and, on a shared database, PostgreSQL's advisory lock still order the
commands of other callers and other processes."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Awaitable
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
        deadline = asyncio.get_running_loop().time() + self.wait
        await _by(deadline, lock.acquire(), CampaignBusy.after(self.wait))
        try:
            await _by(deadline, self._threads.acquire(), CampaignBusy.threads_taken(self.wait))
        except BaseException:  # no thread in time: the turn passes on
            lock.release()
            raise
        try:
            yield
        finally:
            self._threads.release()
            lock.release()


async def _by(deadline: float, wait: Awaitable[object], refusal: CampaignBusy) -> None:
    """Wait until the deadline at most (no task of its own, as wait_for makes); then the
    refusal."""
    try:
        async with asyncio.timeout_at(deadline):
            await wait
    except TimeoutError:
        raise refusal from None
