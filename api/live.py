"""`GET /campaigns/{id}/live`: a campaign's new events as Server-Sent Events, each as the
caller's role reads them in the event log, the moment they are committed (infra/notify.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import ExitStack, contextmanager
from types import FrameType
from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Header, Query
from fastapi.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from api.access import Credentials, caller_for
from api.errors import http_body, outage
from domain.errors import RefitError, StreamsFull
from infra.application import Refit
from infra.live import Appended, Batch, appended
from infra.notify import Notifier, Subscription
from infra.settings import Settings

log = logging.getLogger(__name__)
RETRY_MS = 2000  # how long a browser's EventSource waits before it reconnects
HEARTBEAT = ": keep-alive\n\n"  # a comment: clients ignore it, proxies see the stream alive

LastEventId = Annotated[str | None, Header(
    alias="Last-Event-ID", pattern=r"^[0-9]{1,18}$",
    description="The last version received (a reconnecting EventSource sends it): what "
                "was appended after it is sent first")]
After = Annotated[int | None, Query(
    ge=0, le=10**18, description="As Last-Event-ID, for a first connection (an EventSource "
                                 "cannot set headers); the header wins")]

LIVE = ("Server-Sent Events: the campaign's new events as they are committed, each exactly "
        "as `GET /campaigns/{id}/events` shows them to the caller's role (another side's "
        "secrets redacted). First, with Last-Event-ID (or `after`), what was appended after "
        "that version; then `event: ready` with the head (`id: VERSION`, data "
        "`{version, head_hash}`); then one `event: appended` message per commit (`id: "
        "VERSION`, data `{version, head_hash, events}`; a long catch-up comes in batches "
        "of 200 events). A comment every REFIT_LIVE_HEARTBEAT seconds (15) keeps it open. "
        "If the database stops answering mid-stream, `event: error` with the error body, "
        "and the stream ends (reconnect with Last-Event-ID). At most "
        "REFIT_LIVE_MAX_STREAMS (1000) streams per service process: beyond, 503 "
        "streams_full. A token replaced (`POST /campaigns/{id}/tokens/{role}`) ends the "
        "streams it opened (`event: error`, unauthorized). Who: the campaign's roles, as "
        "for the other reads.")
STREAM_RESPONSE: dict[int | str, dict[str, Any]] = {200: {
    "description": "an event stream (text/event-stream)",
    "content": {"text/event-stream": {"schema": {"type": "string"}}}}}


class Slots:
    """The streams a process may hold open at once."""

    def __init__(self, most: int) -> None:
        self.most, self.held = most, 0
        self._guard = threading.Lock()

    @contextmanager
    def taken(self) -> Iterator[None]:
        """One slot for as long as the context lasts; 503 streams_full when none is free."""
        with self._guard:
            if self.held >= self.most:
                raise StreamsFull(f"this service process already holds {self.most} live "
                                  "streams; try again later, or another process")
            self.held += 1
        try:
            yield
        finally:
            with self._guard:
                self.held -= 1


class EventStream(StreamingResponse):
    """A stream that lets go of what it holds (its slot, its subscription) when it ends,
    even if it never started (the client left first)."""

    media_type = "text/event-stream"

    def __init__(self, content: AsyncIterator[str], held: ExitStack,
                 status_code: int = 200) -> None:
        super().__init__(content, status_code, headers={"Cache-Control": "no-cache",
                                                        "X-Accel-Buffering": "no"})
        self.held = held

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.held.close()


def live_route(app: APIRouter, refit: Refit, conf: Settings) -> None:
    """The campaign's live stream, for its roles."""
    slots = Slots(conf.live_max_streams)

    @app.get("/campaigns/{campaign}/live", response_class=EventStream, summary="Live events",
             responses=STREAM_RESPONSE, description=LIVE)
    async def live(campaign: str, credentials: Credentials, last_event_id: LastEventId = None,
                   after: After = None) -> EventStream:
        ident, caller = await run_in_threadpool(caller_for, refit, campaign, credentials)
        start, field = (int(last_event_id), "Last-Event-ID") if last_event_id is not None \
            else (after, "after")
        held = ExitStack()
        try:
            held.enter_context(slots.taken())
            # Subscribed before the first read: nothing committed between them is missed.
            subscription = held.enter_context(
                refit.live.subscribe(ident, asyncio.get_running_loop()))
            first = await run_in_threadpool(appended, refit.reads, ident, caller.viewer,
                                            start, field)
        except BaseException:
            held.close()
            raise
        read = _reader(refit, campaign, credentials, ident, caller.viewer)
        return EventStream(_messages(conf, read, subscription, first), held)


def _reader(refit: Refit, campaign: str, credentials: Any, ident: UUID,
            viewer: str | None) -> Callable[[int], Appended]:
    """What was appended after a version, as the caller reads it; the token checked
    again each time, after the read, so a token replaced (the old one dies) ends its open
    streams too, and is never sent an event read after it died (not even its own death)."""
    def read(last: int) -> Appended:
        now = appended(refit.reads, ident, viewer, last)
        caller_for(refit, campaign, credentials)  # the store's head, at least `now`'s
        return now
    return read


async def _messages(conf: Settings, read: Callable[[int], Appended],
                    subscription: Subscription, first: Appended) -> AsyncIterator[str]:
    """The stream: the catch-up, `ready`, then each commit's events until the service
    stops (or the database stops answering, or the token is replaced)."""
    yield f"retry: {RETRY_MS}\n\n"
    for batch in first.batches:
        yield message(batch)
    yield f"id: {first.version}\nevent: ready\ndata: " + json.dumps(
        {"version": first.version, "head_hash": first.head_hash}) + "\n\n"
    last = first.version
    while not subscription.closed:  # (closed already if the service began to stop)
        woken = await subscription.woken(conf.live_heartbeat)
        if subscription.closed:
            return
        if not woken:
            yield HEARTBEAT  # and a read all the same: a save no one told of is caught
        reading = asyncio.ensure_future(run_in_threadpool(read, last))
        try:
            # A read the database is slow to answer (an outage, until the pool gives up)
            # still leaves the stream its heartbeat: a proxy's idle timeout never cuts it.
            while not (await asyncio.wait({reading}, timeout=conf.live_heartbeat))[0]:
                yield HEARTBEAT
            now = reading.result()
        except Exception as error:
            yield _failed(subscription.campaign_id, error)
            return
        finally:
            reading.cancel()  # the stream ended while it read: its answer is not wanted
        for batch in now.batches:
            yield message(batch)
        last = now.version


def message(batch: Batch) -> str:
    """One `appended` message."""
    data = json.dumps({"version": batch.version, "head_hash": batch.head_hash,
                       "events": batch.events}, separators=(",", ":"))
    return f"id: {batch.version}\nevent: appended\ndata: {data}\n\n"


def _failed(campaign_id: UUID, error: Exception) -> str:
    """The stream's last message: why it ends, in the contract's error body."""
    if outage(error):
        log.warning("live stream of campaign %s ends: database outage: %r", campaign_id, error)
    elif isinstance(error, RefitError):
        log.info("live stream of campaign %s ends: %s", campaign_id, error)
    else:
        log.error("live stream of campaign %s ends", campaign_id, exc_info=error)
    return f"event: error\ndata: {json.dumps(http_body(error))}\n\n"


def end_streams_on_exit(notifier: Notifier) -> None:
    """On SIGINT or SIGTERM, end the live streams before the server's own handler runs:
    uvicorn waits for every response to finish before it stops, and a stream never would.
    (Signals reach the main thread only; elsewhere, say under a test client, nothing to do.)"""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(sig)
        if callable(previous):
            signal.signal(sig, _chained(notifier, previous))


def _chained(notifier: Notifier, previous: Any) -> Any:
    def handler(signum: int, frame: FrameType | None) -> None:
        notifier.end_streams()
        previous(signum, frame)
    return handler
