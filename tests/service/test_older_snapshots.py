"""A snapshot an older Refit took (another class_version of the campaign) holds a state
the events would not give again (v12 keeps each CG Date's roll results by subject too,
v13 the hexes its Fortifications were placed in, v14 those of the previous CG Date):
the store passes it over and rebuilds the campaign from its events, and verify leaves it
unchecked, as it leaves an older Refit's undo state."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from uuid import UUID

from domain.campaign import Campaign
from infra.application import Refit
from tests.helpers.story import do, to_reph_step


def an_older_snapshot(refit: Refit, campaign: UUID) -> None:
    """The campaign's snapshot as an older Refit took it (class_version 11: no roll result
    kept by subject, nor the hexes of v13 and v14); sealed by this service, as that Refit would
    have sealed it."""
    state = refit.store.campaign(campaign)
    stored = refit.store.mapper.to_stored_event(Campaign.Snapshot.take(state))
    body = json.loads(stored.state)
    assert body["state"]["class_version"] == Campaign.class_version == 15
    body["state"]["class_version"] = 11
    del body["state"]["purchases"]["_data_"]["hexes_today"]
    del body["state"]["purchases"]["_data_"]["hexes_before"]
    dice = body["state"]["dice"]["_data_"]
    dice["results_today"] = {k: v for k, v in dice["results_today"].items() if "@" not in k}
    older = replace(stored, state=json.dumps(body).encode())
    assert refit.store.snapshots is not None
    refit.store.snapshots.recorder.insert_events([refit.store.seal.seal(older)])


def test_an_older_refits_snapshot_is_passed_over_and_left_unchecked(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Older", "entered").id
    to_reph_step(refit, campaign, "3.606")
    do(refit, campaign, {"type": "roll", "table": "3.606-personnel", "side": "British",
                         "dice": [6, 6], "subject": "unit:Sqd2"})
    an_older_snapshot(refit, campaign)
    assert refit.reads.verify(campaign).ok
    refit.store.forget(campaign)  # loaded afresh: from the events, not that snapshot
    state = refit.store.campaign(campaign)
    assert any(re.search("@unit:Sqd2$", key) for key in state.dice.results_today)
    do(refit, campaign, {"type": "roll", "table": "3.6061", "side": "British",
                         "dice": [5], "subject": "unit:Sqd2"})
