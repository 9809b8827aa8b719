"""The webhooks' outbox, filled and emptied: the event log followed from the follower's
tracking position, a post queued for each public event of a campaign with a webhook (in
one transaction with that position), and the posts due made, retried with backoff or
given up. infra/webhook_delivery.py runs it in a thread of its own."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, cast
from uuid import UUID

from eventsourcing.persistence import IntegrityError, Tracking

from domain.campaign import CampaignEvent
from domain.history import as_seen
from infra.store import CampaignStore, not_damage
from infra.webhook_post import TIMEOUT, Happened, Undelivered, body_of, post
from infra.webhook_tables import FOLLOWER, Post
from infra.webhook_url import UrlCipher

log = logging.getLogger(__name__)
Compose = Callable[[Happened], str]  # an event's message, in ASL words (api/webhook_text.py)
BATCH = 500  # notifications read at a time
FIRST_RETRY, MOST_RETRY = 1.0, 300.0  # seconds before a post's second try; doubled to this
SKIP_EVERY = 5.0  # seconds: with no webhook set, the position is written this often
ATTEMPTS = 8  # tries before a post is given up (about eight minutes of a chat down)


class Outbox:
    """Posts queued from the log and made when due."""

    def __init__(self, store: CampaignStore, tables: Any, cipher: UrlCipher,
                 compose: Compose, base_url: str | None, allow_local: bool) -> None:
        self.store, self.tables, self.cipher, self.compose = store, tables, cipher, compose
        self.base_url, self.allow_local = base_url, allow_local
        self.skipped_at = 0.0  # when the position last moved on with no webhook to post to
        self.idle = False  # no webhook was set at the last look: nothing to queue or post

    def follow(self) -> int:
        """Queue the posts of the next notifications; how many were read."""
        # The head before the hooks: every event up to it was committed before the hooks
        # were read, so a hook stored after that read has a `since` past all of them.
        head = self.store.recorder.max_notification_id() or 0
        hooked = self.tables.hooked()
        self.idle = not hooked
        if not hooked:  # nothing to post: on to the head, every few seconds
            if time.monotonic() - self.skipped_at > SKIP_EVERY:
                self._skip(head)
            return 0
        last = self.tables.max_tracking_id(FOLLOWER)
        if last is not None and last >= head:
            return 0
        found = self.store.recorder.select_notifications(start=(last or 0) + 1, limit=BATCH,
                                                         stop=head)
        posts = []
        states: dict[UUID, Any] = {}
        for notification in found:
            campaign = notification.originator_id
            since = hooked.get(str(campaign))
            if since is not None and notification.originator_version > since:
                body = self._public(states, notification)
                if body is not None:
                    posts.append((str(campaign), notification.originator_version, body))
        if found:
            self._enqueue(posts, found[-1].id)
        return len(found)

    def _skip(self, head: int) -> None:
        """The position moved on to `head`, nothing queued (no webhook was set)."""
        last = self.tables.max_tracking_id(FOLLOWER)
        if last is None or last < head:
            self._enqueue([], head)
        self.skipped_at = time.monotonic()

    def _enqueue(self, posts: list[tuple[str, int, str]], position: int) -> None:
        try:
            self.tables.enqueue(posts, Tracking(FOLLOWER, position), time.time())
        except IntegrityError:  # another process queued these first (SQLite): go on
            log.debug("webhook posts up to notification %s were queued already", position)

    def _public(self, states: dict[UUID, Any], notification: Any) -> str | None:
        """`_body`, an event that cannot be read passed over (its campaign's reads and
        verify name it), not holding up every other campaign's posts."""
        try:
            return self._body(states, notification)
        except not_damage():
            raise
        except Exception as error:
            states.pop(notification.originator_id, None)
            log.error("webhook: campaign %s version %s cannot be read (%s): not posted",
                      notification.originator_id, notification.originator_version,
                      type(error).__name__)
            return None

    def _body(self, states: dict[UUID, Any], notification: Any) -> str | None:
        """The post of one event, if it is public; the campaign as it stands after it."""
        campaign_id, version = notification.originator_id, notification.originator_version
        state = states.get(campaign_id)
        if state is None or state.version != version - 1:
            state = self.store.campaign(campaign_id, version=version - 1)
        event = cast(CampaignEvent, self.store.mapper.to_domain_event(notification))
        state = states[campaign_id] = event.mutate(state)
        record = event.record()
        if record.get("sealed") is not None:
            return None
        seen = as_seen(record, "observer", ended=False)
        if seen.get("redacted"):
            return None
        reph = state.reph
        return body_of(self.compose(Happened(str(campaign_id), state.name, reph.cg_date,
                                             reph.phase, reph.step, seen,
                                             self._link(str(campaign_id), record))))

    def _link(self, campaign: str, record: dict[str, Any]) -> str | None:
        """The event's receipt: a roll's audit page, or any event's inclusion proof."""
        if not self.base_url:
            return None
        base, version = self.base_url.rstrip("/"), record["version"]
        if record["type"] == "DiceRolled":
            return f"{base}/play/{campaign}/rolls/{version}"
        return f"{base}/campaigns/{campaign}/proof?version={version}"

    def send_due(self, stopping: Callable[[], bool]) -> None:
        """Make each campaign's next post, if it is due (until `stopping` says so)."""
        for due in self.tables.due(time.time()):
            if stopping():
                return
            if self.tables.claim(due, time.time() + 3 * TIMEOUT, time.time()):
                self._send(due)

    def _send(self, due: Post) -> None:
        hook = self.tables.hook(due.campaign)
        url = None if hook is None else self.cipher.opened(hook.url, due.campaign)
        try:
            if url is None:
                raise Undelivered("this service's key does not open the webhook's URL: "
                                  "set it again", again=False)
            post(url, due.body, self.allow_local)
        except Undelivered as failed:
            tries = due.attempts + 1
            again = failed.again and tries < ATTEMPTS
            wait = failed.after or min(FIRST_RETRY * 2 ** due.attempts, MOST_RETRY)
            why = failed.why if again else f"{failed.why}; version {due.version} given up " \
                                              f"after {tries} {'try' if tries == 1 else 'tries'}"
            log.info("webhook of campaign %s, version %s: %s", due.campaign, due.version, why)
            self.tables.failed(due, why, time.time() + wait if again else None)
            return
        self.tables.delivered(due)
