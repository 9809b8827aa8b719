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


def test_a_copied_campaigns_dice_tallies_are_its_own(refit: Refit) -> None:
    campaign_id, _ = play_demo(refit)
    original = refit.store.campaign(campaign_id)
    twin = copy.deepcopy(original)
    assert twin.dice.table_rolls_cg and vars(twin.dice) == vars(original.dice)
    for field in type(original.dice).flat:
        assert getattr(twin.dice, field) is not getattr(original.dice, field), field
    twin.dice.table_rolls_cg["3.6213/British"] = 99
    assert original.dice.table_rolls_cg.get("3.6213/British") != 99


def test_every_flat_field_of_a_played_campaign_holds_only_plain_leaves(refit: Refit) -> None:
    """A part's `flat` fields are copied with dict.copy: a list or dict inside one would
    be shared between the cached campaign and a command's copy."""
    campaign_id, _ = play_demo(refit)
    campaign = refit.store.campaign(campaign_id)
    leaves = (str, int, bool, type(None))
    checked = 0
    for part in vars(campaign).values():
        for field in getattr(type(part), "flat", ()):
            value = getattr(part, field)
            assert type(value) is dict, (type(part).__name__, field)
            assert all(type(item) in leaves for item in value.values()), (field, value)
            checked += bool(value)
    assert checked >= 3  # the demo rolled: its slots and tallies are not empty
