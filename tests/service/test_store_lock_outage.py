"""After an outage every idle connection of the campaign locks' pool may be dead: a command
once the database is back takes its lock on a connection made since, however many of the
pool's it has to pass over (bench/chaos.py's db_outage with two processes met three)."""

from __future__ import annotations

import uuid
from contextlib import ExitStack

import pytest

from infra.settings import Settings
from infra.store_lock import StoreLock
from tests.http.test_outage import cut, named_connections

SIZE = 4  # the lock pool's connections


def test_a_lock_after_an_outage_passes_over_every_dead_pooled_connection(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    app_name = named_connections(settings, monkeypatch, "the campaign locks are "
                                 "PostgreSQL's advisory locks")
    locks = StoreLock(settings.eventsourcing_env(), SIZE, 5.0)
    try:
        with ExitStack() as held:  # every connection of the pool in use, then idle
            for _ in range(SIZE):
                held.enter_context(locks.hold(uuid.uuid4()))
        assert cut(settings.database_url, app_name) >= SIZE  # a restart, over at once
        with locks.hold(uuid.uuid4()):
            pass
    finally:
        locks.close()
