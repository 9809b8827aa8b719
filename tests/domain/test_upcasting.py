"""Stored shapes from before a change still load: snapshots are upcast (class_version)."""

from __future__ import annotations

from typing import Any

import pytest
from eventsourcing.domain import Snapshot
from eventsourcing.utils import get_topic

from domain.campaign import Campaign
from domain.campaign.upcasts import KGP_BOOK, V5_FIELDS
from infra.application import Refit
from tests.helpers.story import abtf_campaign, do, to_reph_step


def old_snapshot(live: Campaign, state: dict[str, Any]) -> Snapshot:
    """A snapshot of `live` with a stored state shaped as an older class_version was."""
    return Snapshot(originator_id=live.id, originator_version=live.version,  # type: ignore[call-arg]
                    timestamp=Snapshot.create_timestamp(), topic=get_topic(Campaign),
                    state=state)


def as_v5(live: Campaign) -> dict[str, Any]:
    """The campaign's state as class_version 5 kept it: every field on the campaign."""
    state = {k: v for k, v in vars(live).items()
             if k not in ("_id", "_version", "_pending_events", "book")
             and k not in {kind.name for kind in V5_FIELDS}}
    for kind, fields in V5_FIELDS.items():
        part = vars(getattr(live, kind.name)) | {"ordinals": {}}  # v5-v6 counted ordinals
        state |= {stored: part[mine] for stored, mine in fields.items()}
    state |= {"cg_lvp": dict.fromkeys(live.sides, 0), "objectives": {},
              "pf_halves": dict.fromkeys(live.sides, 0), "fanaticism": [], "massacre": None}
    assert set(KGP_BOOK) <= set(state)
    return state | {"class_version": 5}


def test_a_v1_snapshot_loads_with_purchase_lines_and_empty_new_tallies(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Old snapshot")
    to_reph_step(refit, campaign, "9.617")  # 18AM: the 9.6152 British I1 and I2 received
    do(refit, campaign, {"type": "credit_cpp", "side": "German", "amount": 5, "reason": "x"})
    live = refit.store.campaign(campaign)
    state = {k: v for k, v in as_v5(live).items()
             if k not in ("chits_chosen", "ww_box", "conditions", "previous_conditions",
                          "class_version")}
    state["purchases"] = [[line["side"], line["rg"]] for line in live.purchases.lines]  # v1
    loaded = old_snapshot(live, state).mutate(None)
    assert isinstance(loaded, Campaign)
    assert [(line["side"], line["rg"], line["strength"]) for line in loaded.purchases.lines] == [
        ("British", "I1", None), ("British", "I2", None)]
    assert loaded.scenario.ww_box == 0 and loaded.scenario.conditions == {} and \
        loaded.scenario.previous_conditions == {}
    assert loaded.initiative.chits_chosen == {"British": {"attack": 1, "idle": 0},
                                              "German": {"attack": 0, "idle": 0}}
    assert loaded.points.cpp == live.points.cpp


V3_FIELDS = ("forgone", "off_map", "balance", "lvp", "lvp_group", "cg_lvp", "objectives",
             "pf_halves", "fanaticism", "massacre", "table_rolls_cg")


def test_a_v2_snapshot_loads_with_the_pbr_and_kgp_tallies_empty(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "v2 snapshot")
    to_reph_step(refit, campaign, "9.617")
    live = refit.store.campaign(campaign)
    state = {k: v for k, v in as_v5(live).items() if k not in V3_FIELDS}
    state["purchases"] = [{k: v for k, v in line.items() if k not in ("given", "removed")}
                          for line in live.purchases.lines]
    state["class_version"] = 2
    loaded = old_snapshot(live, state).mutate(None)
    assert isinstance(loaded, Campaign)
    assert (loaded.scenario.lvp, loaded.book, loaded.scenario.off_map) == (
        {}, {}, {"British": False, "German": False})
    assert all(line["removed"] is False and line["given"] is False
               for line in loaded.purchases.lines)


def test_a_v3_snapshot_loads_with_nothing_undone_and_no_re_roll(refit: Refit) -> None:
    live = refit.store.campaign(abtf_campaign(refit, "v3 snapshot"))
    state = {k: v for k, v in as_v5(live).items() if k not in ("rolled_before", "epochs")}
    state["class_version"] = 3
    loaded = old_snapshot(live, state).mutate(None)
    assert isinstance(loaded, Campaign)
    assert (loaded.dice.rolled_before, loaded.dice.epochs) == ({}, {})


def test_a_v4_snapshot_loads_with_no_result_of_the_cg_dates_rolls(refit: Refit) -> None:
    live = refit.store.campaign(abtf_campaign(refit, "v4 snapshot"))
    state = {k: v for k, v in as_v5(live).items() if k != "results_today"}
    state["class_version"] = 4
    loaded = old_snapshot(live, state).mutate(None)
    assert isinstance(loaded, Campaign) and loaded.dice.results_today == {}


def test_a_v5_snapshot_loads_split_into_the_campaigns_parts(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "v5 snapshot")
    to_reph_step(refit, campaign, "9.617")
    live = refit.store.campaign(campaign)
    loaded = old_snapshot(live, as_v5(live)).mutate(None)
    assert isinstance(loaded, Campaign)
    vars(live.dice)["slots"] = {}  # before v7 no roll named its subject's slot
    assert loaded.parts() == live.parts() and loaded.book == live.book == {}


def test_a_v6_snapshot_loads_with_no_slot_rolled_and_no_side_done(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "v6 snapshot")
    to_reph_step(refit, campaign, "9.617")
    live = refit.store.campaign(campaign)
    taken = Snapshot.take(live)
    dice, reph = taken.state["dice"], taken.state["reph"]
    vars(dice).pop("slots")
    vars(dice)["ordinals"] = {"17N/9.616/9.6162/German": 1}
    vars(reph).pop("done")
    taken.state["class_version"] = 6
    loaded = taken.mutate(None)
    assert isinstance(loaded, Campaign)
    assert loaded.dice.slots == {} and "ordinals" not in vars(loaded.dice)
    assert loaded.reph.done == [] and loaded.points == live.points


def test_a_v7_snapshot_loads_with_no_report_open(refit: Refit) -> None:
    live = refit.store.campaign(abtf_campaign(refit, "v7 snapshot"))
    taken = Snapshot.take(live)
    del taken.state["reports"]  # before v8 no side reported a casualty or control change
    taken.state["class_version"] = 7
    loaded = taken.mutate(None)
    assert isinstance(loaded, Campaign)
    assert (loaded.reports.open, loaded.reports.made) == ({}, 0)
    assert loaded.reports is not taken.mutate(None).reports  # each load its own


def test_a_v8_snapshot_loads_with_no_unit_retained_yet(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "v8 snapshot")
    to_reph_step(refit, campaign, "9.617")
    live = refit.store.campaign(campaign)
    taken = Snapshot.take(live)
    taken.state.pop("retained")
    taken.state["class_version"] = 8
    loaded = taken.mutate(None)
    assert isinstance(loaded, Campaign)
    assert loaded.retained.units("German") == [] and loaded.retained.off_map == {
        "British": {}, "German": {}}
    assert loaded.points == live.points


def test_a_v9_snapshot_loads_with_no_seed_share_and_the_mix_closed_once_rolled(
        refit: Refit) -> None:
    campaign = abtf_campaign(refit, "v9 snapshot")
    fresh = Snapshot.take(refit.store.campaign(campaign))
    to_reph_step(refit, campaign, "9.617")  # server dice were read on the way
    rolled = Snapshot.take(refit.store.campaign(campaign))
    for taken in (fresh, rolled):
        vars(taken.state["dice"]).pop("shares")
        vars(taken.state["dice"]).pop("shares_closed")
        taken.state["class_version"] = 9
    before, after = fresh.mutate(None), rolled.mutate(None)
    assert isinstance(before, Campaign) and isinstance(after, Campaign)
    assert before.dice.shares == after.dice.shares == {}
    assert before.dice.shares_closed is False  # no die read yet: a side may still mix
    assert after.dice.table_rolls_cg and after.dice.shares_closed is True


def test_a_v10_snapshot_loads_with_no_key_registered_and_nothing_cosigned(
        refit: Refit) -> None:
    live = refit.store.campaign(abtf_campaign(refit, "v10 snapshot"))
    taken = Snapshot.take(live)
    taken.state.pop("cosigning")
    taken.state["class_version"] = 10
    loaded = taken.mutate(None)
    assert isinstance(loaded, Campaign)
    assert loaded.cosigning.keys == {} and loaded.cosigning.cosigned == {}


@pytest.mark.parametrize(("version", "missing"), [
    (12, ["hexes_today", "hexes_before"]),  # no Fortification hex kept
    (13, ["hexes_before"]),  # those of the CG Date only, not of the previous one
])
def test_an_older_state_loads_with_no_fortification_hex_placed(
        refit: Refit, version: int, missing: list[str]) -> None:
    live = refit.store.campaign(abtf_campaign(refit, f"v{version} snapshot"))
    taken = Snapshot.take(live)
    for name in missing:
        del vars(taken.state["purchases"])[name]
    taken.state["class_version"] = version
    loaded = taken.mutate(None)
    assert isinstance(loaded, Campaign)
    assert all(vars(loaded.purchases)[name] == {} for name in missing)


def test_an_older_state_knows_the_scenario_just_played_as_the_last_ended(
        refit: Refit) -> None:
    live = refit.store.campaign(abtf_campaign(refit, "v14 snapshot"))
    live.reph.phase, live.scenario.played = "reph", "17N"  # as a RePh after it holds them
    taken = Snapshot.take(live)
    del vars(taken.state["scenario"])["previous_date"]
    taken.state["class_version"] = 14
    loaded = taken.mutate(None)
    assert isinstance(loaded, Campaign) and loaded.scenario.previous_date == "17N"


def test_a_snapshot_taken_now_records_class_version_15(refit: Refit) -> None:
    live = refit.store.campaign(abtf_campaign(refit, "New snapshot"))
    taken = Snapshot.take(live)
    assert taken.state["class_version"] == 15
    again = taken.mutate(None)
    assert isinstance(again, Campaign) and again.purchases == live.purchases
    assert again.retained == live.retained


def test_events_defined_in_the_aggregates_parts_keep_the_campaign_topics() -> None:
    from domain.campaign import EVENTS

    # An event is stored under its name on the Campaign, wherever its class is defined
    # (a part of the aggregate, or a module's package).
    for name in ("RGPurchased", "RGReceived", "RGDetermined", "LVPTotalled", "DiceRolled"):
        assert get_topic(EVENTS[name]) == f"domain.campaign:Campaign.{name}"
    assert get_topic(Campaign) == "domain.campaign:Campaign"
