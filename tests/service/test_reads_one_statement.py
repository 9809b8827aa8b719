"""On PostgreSQL a read of a campaign's view sends each statement alone on the pool's
autocommit connection (projections/view_postgres.py): one statement reads one snapshot,
and a transaction around it (BEGIN, ROLLBACK) would add two round trips to every read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from infra.application import Refit
from infra.settings import Settings
from tests.helpers.databases import fresh_database
from tests.service.test_reads_at_head import credited


@pytest.fixture
def on_postgres(tmp_path: Path, postgres_problem: str | None) -> Iterator[Refit]:
    """The application on a fresh PostgreSQL database."""
    with fresh_database("postgres", tmp_path, postgres_problem) as url:
        refit = Refit(Settings(database_url=url, module_dir=tmp_path / "modules",
                               signing_key_file=tmp_path / "refit-signing-key"))
        yield refit
        refit.close()


def transactions_opened(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each transaction a psycopg connection opens while counting, one entry each."""
    opened: list[int] = []
    transaction = psycopg.Connection.transaction

    def counting(self: psycopg.Connection[Any], *args: Any, **kwargs: Any) -> Any:
        opened.append(1)
        return transaction(self, *args, **kwargs)
    monkeypatch.setattr(psycopg.Connection, "transaction", counting)
    return opened


def test_a_campaigns_reads_open_no_transaction_and_answer_as_before(
        on_postgres: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    refit = on_postgres
    campaign = credited(refit, "One statement", 3)
    refit.views.catch_up()  # the view holds the campaign: its reads are the view's
    opened = transactions_opened(monkeypatch)

    status = refit.reads.status(campaign, None, "Axis")
    record = refit.reads.purchase_record(campaign, None, "Axis")
    rolls = refit.reads.recent_rolls(campaign, "Axis", 8)

    assert status.sides["Axis"]["cpp"] == 3 and status.version == 4
    assert record is not None and rolls == []
    assert opened == []


def test_a_write_still_commits_its_rows_and_tracking_in_one_transaction(
        on_postgres: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    refit = on_postgres
    campaign = credited(refit, "Folded", 2)
    opened = transactions_opened(monkeypatch)

    refit.views.catch_up()  # the fold's rows and its tracking, together

    assert opened  # the view's write is still a transaction
    assert refit.reads.status(campaign, None, None).sides["Axis"]["cpp"] == 2
