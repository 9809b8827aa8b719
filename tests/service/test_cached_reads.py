"""A read of the version the view is at takes the campaign from this process's cache when
it stands there, and loads it (snapshot and events) only when it stands elsewhere."""

from __future__ import annotations

from typing import Any

import pytest

from infra.application import Refit
from tests.helpers.story import do


@pytest.fixture
def snapshot_loads(refit: Refit, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The campaigns whose snapshots are read from the store."""
    loads: list[Any] = []
    snapshots = refit.store.snapshots
    assert snapshots is not None
    get = snapshots.get

    def counted(originator_id: Any, **kwargs: Any) -> Any:
        loads.append(originator_id)
        return get(originator_id, **kwargs)
    monkeypatch.setattr(snapshots, "get", counted)
    return loads


def credited(refit: Refit, times: int) -> Any:
    """A PBr campaign whose Axis was credited 1 CPP `times` times."""
    campaign = refit.commands.create_campaign("pbr", "I", "Cached", "server").id
    for number in range(times):
        do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 1,
                             "reason": f"credit {number}"})
    return campaign


def test_a_status_read_at_the_head_loads_no_snapshot(
        refit: Refit, snapshot_loads: list[Any]) -> None:
    campaign = credited(refit, 3)
    status = refit.reads.status(campaign)
    assert status.version == 4 and status.sides["Axis"]["cpp"] == 3
    assert snapshot_loads == []


def test_a_status_read_as_of_an_earlier_version_loads_that_version(
        refit: Refit, snapshot_loads: list[Any]) -> None:
    campaign = credited(refit, 3)
    status = refit.reads.status(campaign, as_of=2)
    assert status.version == 2 and status.sides["Axis"]["cpp"] == 1
    assert snapshot_loads == [campaign]
