"""A campaign asked for as it stood at a version (a status read asks for the version its
view rows are at) is the cached campaign's copy when that is the version cached, and is
the same campaign a replay from the store gives; any other version is replayed."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from infra.application import Refit
from infra.settings import Settings
from tests.helpers.story import do


def credited(refit: Refit, times: int) -> UUID:
    """A PBr campaign with `times` CPP credits to the Axis."""
    campaign = refit.commands.create_campaign("pbr", "I", "As of", "server").id
    for number in range(1, times + 1):
        do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 1,
                             "reason": f"credit {number}"})
    return campaign


def replays(refit: Refit, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The versions the repository is asked to replay from the store, as they come."""
    asked: list[Any] = []
    get = refit.store.repository.get

    def spy(ident: UUID, **kwargs: Any) -> Any:
        asked.append(kwargs.get("version"))
        return get(ident, **kwargs)
    monkeypatch.setattr(refit.store.repository, "get", spy)
    return asked


def test_the_head_version_is_read_from_the_cache_as_a_replay_gives_it(
        refit: Refit, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    campaign = credited(refit, 12)
    head = refit.store.campaign(campaign).version
    asked = replays(refit, monkeypatch)

    read = refit.store.campaign(campaign, version=head)

    assert asked == []  # nothing replayed
    cold = Refit(settings.model_copy(update={"aggregate_cache": 0}))
    try:
        replayed = cold.store.campaign(campaign, version=head)
    finally:
        cold.close()
    assert read.version == replayed.version == head
    assert vars(read) == vars(replayed)


def test_the_copy_read_at_the_head_leaves_the_cached_campaign_as_it_was(
        refit: Refit) -> None:
    campaign = credited(refit, 3)
    head = refit.store.campaign(campaign).version
    read = refit.store.campaign(campaign, version=head)

    read.points.cpp["Axis"] = 999  # a reader's slip: not the cache's state

    assert refit.store.campaign(campaign, version=head).points.cpp["Axis"] == 3
    assert refit.store.cached(campaign).points.cpp["Axis"] == 3


def test_an_earlier_version_is_replayed_as_it_stood(
        refit: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    campaign = credited(refit, 5)
    head = refit.store.campaign(campaign).version
    asked = replays(refit, monkeypatch)

    earlier = refit.store.campaign(campaign, version=head - 2)

    assert asked == [head - 2]
    assert earlier.version == head - 2
    assert earlier.points.cpp["Axis"] == 3


@pytest.mark.parametrize("setting", [("fastforward", True), ("deepcopy_from_cache", False)])
def test_a_cache_that_may_change_in_place_is_not_read_from(
        refit: Refit, monkeypatch: pytest.MonkeyPatch, setting: tuple[str, bool]) -> None:
    campaign = credited(refit, 3)
    head = refit.store.campaign(campaign).version
    monkeypatch.setattr(refit.store.repository, *setting)  # as an environment could set it
    asked = replays(refit, monkeypatch)

    read = refit.store.campaign(campaign, version=head)

    assert asked == [head]  # replayed: a fast-forwarded or shared cache may be mid-change
    assert read.version == head
