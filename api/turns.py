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

from domain.errors import CampaignBusy


class Turns:
    """The campaigns' turns in one event loop."""

    def __init__(self, wait: float) -> None:
        self.wait = wait
        # Weakly held: a campaign nobody commands keeps no lock.
        self._locks: weakref.WeakValueDictionary[UUID, asyncio.Lock] = (
            weakref.WeakValueDictionary())

    @asynccontextmanager
    async def turn(self, campaign_id: UUID) -> AsyncIterator[None]:
        """The campaign's turn; 503 `busy` after REFIT_TURN_WAIT seconds without it."""
        lock = self._locks.get(campaign_id)
        if lock is None:
            lock = self._locks[campaign_id] = asyncio.Lock()
        try:
            async with asyncio.timeout(self.wait):  # no task of its own, as wait_for makes
                await lock.acquire()
        except TimeoutError:
            raise CampaignBusy.after(self.wait) from None
        try:
            yield
        finally:
            lock.release()
