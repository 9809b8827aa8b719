"""A live stream keeps its heartbeat while a read waits on a slow database (an outage,
until the pool gives up): a proxy's idle timeout never cuts it, and when the read fails
the stream's last message says why (api/live.py)."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from api.live import HEARTBEAT, _messages
from infra.live import Appended, Batch
from infra.notify import Subscription
from infra.settings import Settings

BEAT = 0.05  # seconds between heartbeats here


def stream(read: Any) -> list[str]:
    """The stream's messages up to its first read's answer (or its end)."""
    async def run() -> list[str]:
        subscription = Subscription(uuid.uuid4(), asyncio.get_running_loop())
        first = Appended(version=1, head_hash="a" * 64, batches=[])
        said: list[str] = []
        async for message in _messages(Settings(live_heartbeat=BEAT), read, subscription,
                                       first):
            said.append(message)
            if message.startswith(("id: 2", "event: error")):
                break
        return said
    return asyncio.run(asyncio.wait_for(run(), 30))


def test_heartbeats_go_on_while_a_read_waits_on_the_database() -> None:
    def slow(last: int) -> Appended:
        time.sleep(10 * BEAT)  # the database slow to answer
        return Appended(version=2, head_hash="b" * 64,
                        batches=[Batch(version=2, head_hash="b" * 64, events=[])])
    said = stream(slow)
    waiting = said[said.index(next(m for m in said if m.startswith("id: 1\nevent: ready"))) + 1:]
    assert waiting.count(HEARTBEAT) >= 5, said  # one each BEAT, not one for the whole read
    assert waiting[-1].startswith("id: 2\nevent: appended")


def test_a_read_that_fails_ends_the_stream_saying_why() -> None:
    def down(last: int) -> Appended:
        time.sleep(3 * BEAT)
        raise ConnectionError("the database does not answer")
    said = stream(down)
    assert said[-1].startswith("event: error") and HEARTBEAT in said
