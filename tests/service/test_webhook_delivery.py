"""The webhooks' delivery beside the service (infra/webhook_delivery.py): two services on
one database post each public event once (elected on PostgreSQL; on SQLite the tracking
and each post's lease keep them from posting twice); the delivery resumes after its
connections end; the URL is sealed at rest, opened only with the service's own key."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest

from api.webhook_text import webhook_text
from infra.application import Refit
from infra.settings import Settings, backend_of
from infra.webhook_outbox import Outbox
from tests.helpers.processes import until
from tests.helpers.receiver import TOKEN, Receiver, linked_version
from tests.helpers.story import do, load_fixture_chart
from tests.service.test_runner_outage import outage

SITE = "http://refit.test"


@pytest.fixture
def hooked(settings: Settings) -> Settings:
    return settings.model_copy(update={"webhook_allow_local": True, "public_url": SITE})


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver().start()
    yield found
    found.stop()


def delivering(settings: Settings) -> Refit:
    """A service's Refit, delivering webhooks as the HTTP service's does."""
    refit = Refit(settings)
    refit.webhooks.start(webhook_text)
    return refit


def roll(refit: Refit, campaign: UUID, name: str) -> int:
    """A public roll (the fixture chart's T1); the version it ends at."""
    return do(refit, campaign, {"type": "roll", "table": "T1", "side": "British",
                                "subject": f"unit:Sgt.{name}"}).version


def public_after(refit: Refit, campaign: UUID, since: int) -> list[int]:
    """The versions after `since` the observer reads unsealed."""
    return [r["version"] for r in refit.reads.history(campaign, "observer", gt=since)
            if not r.get("redacted")]


def all_sent(refit: Refit, campaign: UUID, version: int) -> bool:
    now = refit.webhooks.status(campaign)
    return now.delivered == version and now.pending == 0


def test_two_services_on_one_database_post_each_public_event_once(
        hooked: Settings, receiver: Receiver) -> None:
    first = Refit(hooked)
    load_fixture_chart(first)
    first.close()
    first, second = delivering(hooked), delivering(hooked)
    try:
        campaign = first.commands.create_campaign("pbr", "I", "Ranville", "server").id
        since = second.webhooks.set(campaign, receiver.url).since
        assert since is not None
        last = 0
        for refit, name in ((first, "Able"), (second, "Baker"), (first, "Charlie"),
                            (second, "Dog")):
            last = roll(refit, campaign, name)
        assert until(lambda: all_sent(first, campaign, last))
        assert [linked_version(t) for t in receiver.texts()] == \
            public_after(first, campaign, since)
        assert [re.findall(r"Sgt\.(\w+)", t)[0] for t in receiver.texts()] == \
            ["Able", "Baker", "Charlie", "Dog"]
    finally:
        first.close()
        second.close()


def test_the_delivery_resumes_after_its_connections_end(
        hooked: Settings, receiver: Receiver, monkeypatch: pytest.MonkeyPatch) -> None:
    if backend_of(hooked.database_url) == "sqlite":
        pytest.skip("an outage here ends PostgreSQL connections; SQLite has none")
    monkeypatch.setenv("PGAPPNAME", f"refit-outage-{uuid.uuid4().hex[:12]}")
    service = Refit(hooked)
    load_fixture_chart(service)
    service.close()
    service = delivering(hooked)
    try:
        campaign = service.commands.create_campaign("pbr", "I", "Outage", "server").id
        service.webhooks.set(campaign, receiver.url)
        assert until(lambda: service.webhooks.delivery is not None)
        assert outage() > 0
        writer = Refit(hooked)  # fresh connections: the service's own were ended too
        try:
            last = roll(writer, campaign, "After")
            assert until(lambda: all_sent(writer, campaign, last))
        finally:
            writer.close()
        assert len(receiver.bodies) == 1 and "Sgt.After" in receiver.texts()[0]
    finally:
        service.close()


def test_the_url_is_sealed_at_rest_and_opens_with_the_services_key_only(
        settings: Settings, refit: Refit, tmp_path: Path) -> None:
    url = f"https://chat.example.com/api/webhooks/42/{TOKEN}"
    campaign = refit.commands.create_campaign("pbr", "I", "Ranville", "server").id
    refit.webhooks.set(campaign, url)
    stored = refit.webhooks.tables.hook(str(campaign))
    assert TOKEN not in stored.url and "chat.example.com" not in stored.url
    if backend_of(settings.database_url) == "sqlite":
        database = Path(settings.eventsourcing_env()["SQLITE_DBNAME"])
        for kept in database.parent.glob(database.name + "*"):  # its -wal too
            assert TOKEN.encode() not in kept.read_bytes(), kept
    other = Refit(settings.model_copy(update={"signing_key_file": tmp_path / "other-key"}))
    try:
        assert str(other.webhooks.status(campaign).url).startswith("(sealed with another key")
    finally:
        other.close()
    assert refit.webhooks.status(campaign).url == "https://chat.example.com/api/…"


def test_a_hook_set_while_the_outbox_looks_at_the_hooks_misses_no_event(
        hooked: Settings, receiver: Receiver, monkeypatch: pytest.MonkeyPatch) -> None:
    refit = Refit(hooked)  # not delivering: the test drives the outbox itself
    try:
        load_fixture_chart(refit)
        campaign = refit.commands.create_campaign("pbr", "I", "Merville", "server").id
        tables = refit.webhooks.tables
        outbox = Outbox(refit.store, tables, refit.webhooks.cipher, webhook_text, SITE, True)
        hooks = tables.hooked

        def set_and_played_meanwhile() -> dict[str, int]:
            found = hooks()  # none yet: then the director sets one, and a side plays
            refit.webhooks.set(campaign, receiver.url)
            roll(refit, campaign, "Easy")
            return found
        monkeypatch.setattr(tables, "hooked", set_and_played_meanwhile)
        outbox.follow()  # finds no hook: moves on, but not past the roll
        monkeypatch.setattr(tables, "hooked", hooks)
        while outbox.follow():
            pass
        assert refit.webhooks.status(campaign).pending == 1
    finally:
        refit.close()
