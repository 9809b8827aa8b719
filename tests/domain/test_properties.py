"""Properties: replay rebuilds exactly the live state and projections; refusals append nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from domain.campaign import Campaign
from domain.errors import RefitError
from infra.application import Refit
from infra.settings import Settings
from tests.helpers.story import do, load_abtf_owner_data, load_fixture_chart, to_reph_step

SIDES = st.sampled_from(["Axis", "British", "Italians"])
COMMANDS = st.one_of(
    st.builds(lambda side, drm, secret: {"type": "roll", "table": "T1", "side": side,
                                         "drm": drm, "secret": secret},
              SIDES, st.lists(st.sampled_from([{"id": "T1-isolated"}, {"id": "T1-heroic"},
                                               {"id": "T1-british"}, {"id": "lucky"}]),
                       max_size=2),
              st.booleans()),
    st.builds(lambda table, side: {"type": "roll", "table": table, "side": side},
              st.sampled_from(["3.610", "T2"]), SIDES),
    st.builds(lambda side, amount: {"type": "credit_cpp", "side": side, "amount": amount,
                                    "reason": "Base"}, SIDES, st.integers(-2, 30)),
    st.builds(lambda side, amount: {"type": "spend_cpp", "side": side, "amount": amount,
                                    "reason": "Recon", "rule": "3.620"},
              SIDES, st.integers(1, 12)),
    st.builds(lambda side, rg: {"type": "purchase_rg", "side": side, "rg": rg},
              SIDES, st.sampled_from(["X1", "X2", "Y1", "Z9"])),
    st.builds(lambda side, cvp: {"type": "record_casualty", "side": side, "unit": "4-6-7",
                                 "cvp": cvp}, SIDES, st.integers(0, 4)),
    st.builds(lambda side, value: {"type": "change_elr", "side": side, "value": value,
                                   "cause": "test"}, SIDES, st.integers(0, 6)),
    st.builds(lambda side, chit: {"type": "select_initiative", "side": side, "chit": chit},
              SIDES, st.sampled_from(["attack", "idle"])),
    st.builds(lambda side, rg: {"type": "receive_rg", "side": side, "rg": rg, "reason": "OB"},
              SIDES, st.sampled_from(["X1", "Y1", "Z9"])),
    st.builds(lambda side, n, strength: {"type": "determine_rg", "side": side, "purchase": n,
                                         "strength": strength},
              SIDES, st.integers(1, 4), st.sampled_from(["F", "D", None])),
    st.builds(lambda side, count: {"type": "purchase_fortification", "side": side,
                                   "reason": "Foxhole (1-squad)", "count": count,
                                   "amount": count},
              SIDES, st.integers(1, 3)),
    st.builds(lambda side, n: {"type": "credit_fpp", "side": side, "amount": n,
                               "reason": "RG"}, SIDES, st.integers(1, 5)),
    st.builds(lambda level, value: {"type": "change_level", "level": level, "value": value,
                                    "cause": "SSR"},
              st.sampled_from(["ammo_shortage", "none"]), st.integers(0, 6)),
    st.builds(lambda reason, side: {"type": "end_cg", "reason": reason, "side": side},
              st.sampled_from(["concession", "sudden_death"]), SIDES),
    st.just({"type": "advance"}),
    st.just({"type": "end_scenario"}),
)


@pytest.fixture
def small_snapshots(database_url: str, tmp_path: Any) -> Iterator[Refit]:
    """An app that snapshots every 5 events and caches nothing, to exercise replay."""
    app = Refit(Settings(database_url=database_url, module_dir=tmp_path / "modules",
                         snapshot_interval=5, aggregate_cache=0))
    load_fixture_chart(app)
    yield app
    app.close()


def replayed(refit: Refit, campaign_id: Any) -> Campaign:
    """The aggregate rebuilt from every event, ignoring snapshots."""
    state = None
    for event in refit.store.events.get(campaign_id):
        state = event.mutate(state)
    assert isinstance(state, Campaign)
    return state


PROPERTY_SETTINGS = settings(deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def play(refit: Refit, campaign: Any, commands: list[dict[str, Any]]) -> Campaign:
    """Run every command; each refused one must leave the log as it was."""
    for body in commands:
        before = refit.store.campaign(campaign).version
        try:
            do(refit, campaign, body)
        except (RefitError, ValidationError):
            assert refit.store.campaign(campaign).version == before
            assert len(list(refit.store.records(campaign))) == before
    return refit.store.campaign(campaign)


def comparable(campaign: Campaign) -> dict[str, Any]:
    """An aggregate's state, without what is not state."""
    return {k: v for k, v in vars(campaign).items() if k not in ("_pending_events",)}


@settings(PROPERTY_SETTINGS, max_examples=15)
@given(commands=st.lists(COMMANDS, min_size=1, max_size=30))
def test_replay_rebuilds_the_live_state_and_projections(small_snapshots: Refit,
                                                         commands: list[dict[str, Any]]) -> None:
    refit = small_snapshots
    campaign = refit.commands.create_campaign("pbr", "I", "Property", "server").id
    live = play(refit, campaign, commands)
    assert comparable(live) == comparable(replayed(refit, campaign))
    status = refit.reads.status(campaign)  # the projection agrees with the aggregate
    assert (status.cg_date, status.phase, status.step, status.version) == (
        live.reph.cg_date, live.reph.phase, live.reph.step, live.version)
    assert {side: (v["cpp"], v["fpp"], v["elr"], v["san"]) for side, v in status.sides.items()} \
        == {side: (live.points.cpp[side], live.points.fpp[side], live.points.elr[side],
                   live.points.san[side])
            for side in live.sides}
    head = live.version
    assert refit.reads.roster(campaign) == refit.reads.roster(campaign, as_of=head)
    assert refit.reads.purchase_record(campaign) == refit.reads.purchase_record(campaign,
                                                                                as_of=head)
    assert refit.reads.cvp(campaign) == refit.reads.cvp(campaign, as_of=head)
    assert refit.reads.elr(campaign) == refit.reads.elr(campaign, as_of=head)
    assert refit.reads.rolls(campaign) == refit.reads.rolls(campaign, as_of=head)
    assert refit.reads.verify(campaign).ok


def test_a_snapshot_is_taken_and_loading_from_it_equals_replay(small_snapshots: Refit) -> None:
    refit = small_snapshots
    campaign = refit.commands.create_campaign("pbr", "I", "Snapshots", "server").id
    for _ in range(12):
        do(refit, campaign, {"type": "roll", "table": "T1", "side": "Axis"})
    snapshots = list(refit.store.snapshots.get(campaign)) if refit.store.snapshots else []
    assert [s.originator_version for s in snapshots] == [5, 10]
    assert comparable(refit.store.campaign(campaign)) == comparable(replayed(refit, campaign))


ABTF_SIDES = st.sampled_from(["British", "German"])
ABTF_COMMANDS = st.one_of(
    st.builds(lambda table, side, secret: {"type": "roll", "table": table, "side": side,
                                           "secret": secret},
              st.sampled_from(["9.6122", "9.6201", "9.6202", "9.6142", "9.62133", "CG4"]),
              ABTF_SIDES, st.booleans()),
    st.builds(lambda side, value: {"type": "change_elr", "side": side, "value": value,
                                   "cause": "test"}, ABTF_SIDES, st.integers(0, 5)),
    st.builds(lambda side, value: {"type": "change_san", "side": side, "value": value,
                                   "cause": "test"}, ABTF_SIDES, st.integers(0, 7)),
    st.builds(lambda value: {"type": "change_level", "level": "ammo_shortage", "value": value,
                             "cause": "SSR"}, st.integers(0, 5)),
    st.builds(lambda side, n: {"type": "credit_fpp", "side": side, "amount": n,
                               "reason": "RG"}, ABTF_SIDES, st.integers(1, 30)),
    st.builds(lambda side, count: {"type": "purchase_fortification", "side": side,
                                   "reason": "A-P minefield factor", "count": count,
                                   "amount": count * (3 if side == "German" else 6)},
              ABTF_SIDES, st.integers(1, 6)),
    st.builds(lambda side, cvp: {"type": "record_casualty", "side": side, "unit": "4-6-7",
                                 "cvp": cvp}, ABTF_SIDES, st.integers(0, 40)),
    st.builds(lambda side, chit: {"type": "select_initiative", "side": side, "chit": chit},
              ABTF_SIDES, st.sampled_from(["attack", "idle"])),
    st.just({"type": "advance"}),
    st.just({"type": "advance"}),
    st.just({"type": "end_scenario"}),
    st.builds(lambda turn: {"type": "end_turn", "turn": turn}, st.integers(1, 7)),
)


@settings(PROPERTY_SETTINGS, max_examples=12)
@given(commands=st.lists(ABTF_COMMANDS, min_size=1, max_size=40))
def test_abtf_replay_rebuilds_levels_ratings_and_forms(small_snapshots: Refit,
                                                       commands: list[dict[str, Any]]) -> None:
    refit = small_snapshots
    load_abtf_owner_data(refit)  # ELR and SAN known, so every ELR roll can apply
    campaign = refit.commands.create_campaign("abtf", "I", "Property", "server",
                                              start_date="19AM").id
    to_reph_step(refit, campaign, "9.612")  # 19PM: the steps with rolls that move things
    live = play(refit, campaign, commands)
    assert comparable(live) == comparable(replayed(refit, campaign))
    status = refit.reads.status(campaign)
    assert status.levels == live.points.levels
    assert {side: status.sides[side]["elr"] for side in live.sides} == live.points.elr
    assert refit.reads.roster(campaign) == refit.reads.roster(campaign, as_of=live.version)
    assert refit.reads.elr(campaign) == refit.reads.elr(campaign, as_of=live.version)
    assert refit.reads.verify(campaign).ok
