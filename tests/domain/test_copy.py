"""The Campaign's own deep copy (eventsourcing copies a cached campaign per command)."""

from __future__ import annotations

import copy

from infra.application import Refit
from infra.demo import play_demo


def test_a_copied_campaign_equals_its_original_and_shares_nothing_mutable(
        refit: Refit) -> None:
    campaign_id, _ = play_demo(refit)
    original = refit.store.campaign(campaign_id)
    twin = copy.deepcopy(original)
    assert type(twin) is type(original) and vars(twin) == vars(original)
    twin.points.cpp["Axis"] += 100
    twin.purchases.lines[0]["strength"] = "changed"
    twin.purchases.rg_total["Axis"].clear()
    assert original.points.cpp["Axis"] != twin.points.cpp["Axis"]
    assert original.purchases.lines[0]["strength"] != "changed"
    assert original.purchases.rg_total["Axis"]
    assert twin.rules is original.rules  # the bound rules module is shared, not copied
