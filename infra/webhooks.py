"""A campaign's outgoing webhook (issue 18, item 7): its director sets, replaces or removes
the URL of a chat's webhook (Discord, Slack), and each public event after that is posted
there (infra/webhook_delivery.py). The URL is a secret (it carries the chat's token): kept
out of the event log, sealed in a table of its own, only ever shown masked. Setting it
records no event: it changes no fact of the campaign, and an event would put a URL (or
that a chat listens) in every export and read."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from uuid import UUID

from eventsourcing.persistence import OperationalError

from infra.keys import Keys
from infra.settings import Settings
from infra.store import CampaignStore
from infra.webhook_delivery import Delivery
from infra.webhook_outbox import Compose
from infra.webhook_tables import tables_class_for
from infra.webhook_url import UrlCipher, checked_url, masked

T = TypeVar("T")
TRIES = 40  # about 40 s of tries in all: a first fold of a long history has ended by then


def made_again(make: Callable[[], T], tries: int = TRIES) -> T:
    """`make` (which creates tables), tried again while SQLite refuses it at once: in WAL
    mode a schema write that meets another connection's commit (a runner folding a history
    on the service's first start) is refused without waiting ("database is locked")."""
    for attempt in range(1, tries + 1):
        try:
            return make()
        except OperationalError as error:
            if attempt == tries or "locked" not in str(error):  # an outage: said at once
                raise
            time.sleep(0.05 * attempt)
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class HookStatus:
    """What the director reads of a campaign's webhook: never the whole URL."""

    set: bool
    url: str | None = None  # masked: scheme, host, the path's first part
    since: int | None = None  # only events after this version are posted
    delivered: int | None = None  # the last version delivered
    error: str | None = None  # the last try's failure, until a post is delivered
    pending: int = 0  # posts waiting (retrying, or behind one that is)

    def as_dict(self) -> dict[str, Any]:
        return dict(vars(self))


class Webhooks:
    """Each campaign's webhook: set, read (masked) and removed; delivered in the
    background once `start` is called (the HTTP service does)."""

    def __init__(self, store: CampaignStore, keys: Keys, settings: Settings) -> None:
        self.store, self.settings = store, settings
        self.cipher = UrlCipher(keys)
        module = store.env.get("PERSISTENCE_MODULE") or ""
        self.tables: Any = made_again(
            lambda: store.factory.tracking_recorder(tables_class_for(module)))
        self.delivery: Delivery | None = None

    def set(self, campaign_id: UUID, url: object) -> HookStatus:
        """Set or replace the campaign's webhook: the events after its version now are
        posted (a replaced one's pending posts go to the new URL)."""
        checked = checked_url(url, self.settings.webhook_allow_local)
        version = self.store.campaign(campaign_id).version
        campaign = str(campaign_id)
        self.tables.put_hook(campaign, self.cipher.sealed(checked, campaign), version)
        return self.status(campaign_id)

    def remove(self, campaign_id: UUID) -> HookStatus:
        """Remove the campaign's webhook, and its pending posts (none had: as it was)."""
        self.tables.drop_hook(str(campaign_id))
        return HookStatus(set=False)

    def status(self, campaign_id: UUID) -> HookStatus:
        """The webhook, masked, and how its posts go."""
        campaign = str(campaign_id)
        hook = self.tables.hook(campaign)
        if hook is None:
            return HookStatus(set=False)
        url = self.cipher.opened(hook.url, campaign)
        shown = masked(url) if url is not None else "(sealed with another key: set it again)"
        return HookStatus(True, shown, hook.since, hook.delivered, hook.error,
                          int(hook.pending))

    def start(self, compose: Compose) -> None:
        """Deliver in the background, each event's message made by `compose`."""
        if self.delivery is None:
            self.delivery = Delivery(self.store, self.tables, self.cipher, compose,
                                     self.settings.public_url,
                                     self.settings.webhook_allow_local)
            self.delivery.start()

    def close(self) -> None:
        """Stop delivering (within a post's timeout)."""
        if self.delivery is not None:
            self.delivery.close()
            self.delivery = None  # (its tables share the store's connections)
