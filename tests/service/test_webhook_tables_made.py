"""The webhooks' tables are made even when SQLite refuses the first tries at once."""

from __future__ import annotations

import pytest
from eventsourcing.persistence import OperationalError

from infra.webhooks import made_again


def refused(times: int, why: str = "database is locked") -> tuple[list[int], object]:
    """A maker refused `times` times, then made; and the tries it saw."""
    tries: list[int] = []

    def make() -> str:
        tries.append(1)
        if len(tries) <= times:
            raise OperationalError(why)
        return "made"
    return tries, make


def test_a_schema_write_refused_while_another_connection_commits_is_tried_again() -> None:
    tries, make = refused(3)
    assert made_again(make) == "made"  # type: ignore[arg-type]
    assert len(tries) == 4


def test_a_database_that_stays_locked_is_said_after_the_last_try() -> None:
    tries, make = refused(10)
    with pytest.raises(OperationalError, match="locked"):
        made_again(make, tries=3)  # type: ignore[arg-type]
    assert len(tries) == 3


def test_an_outage_is_said_at_once_not_tried_again() -> None:
    tries, make = refused(1, "connection refused")
    with pytest.raises(OperationalError, match="refused"):
        made_again(make)  # type: ignore[arg-type]
    assert len(tries) == 1
