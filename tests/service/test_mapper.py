"""The ledger's mapper stores every event exactly as eventsourcing's own mapper would (less
an empty idempotency envelope, its private seed sealed), whichever way it encodes it."""

from __future__ import annotations

import copy
from typing import Any

from eventsourcing.persistence import Mapper

from infra.application import Refit
from infra.at_rest import TAG
from infra.mapper import OPTIONAL_ENVELOPE
from tests.helpers.story import abtf_campaign, do, to_reph_step


def eventsourcings(mapper: Mapper[Any], event: Any, sealed: dict[str, Any]) -> Any:
    """What eventsourcing's Mapper stores of the event, its empty envelope left out and its
    private seed as `sealed`."""
    trimmed = copy.copy(event)
    trimmed.__dict__.update(sealed)
    for name in OPTIONAL_ENVELOPE:
        if trimmed.__dict__.get(name, 0) is None:
            del trimmed.__dict__[name]
    return mapper.to_stored_event(trimmed)


def test_every_event_is_stored_as_eventsourcings_mapper_stores_it(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Mapper")
    to_reph_step(refit, campaign, "9.617")
    target = refit.store.campaign(campaign).version
    do(refit, campaign, {"type": "purchase_rg", "side": "German", "rg": "I1", "kg": "K"})
    do(refit, campaign, {"type": "record_casualty", "side": "British", "unit": "4-5-7",
                         "cvp": 2})
    refit.audit.undo(campaign, "a mistake", "director", to_version=target)
    plain = Mapper[Any](transcoder=refit.store.mapper.transcoder)
    events = list(refit.store.events.get(campaign))
    fast = 0
    for event in events:
        sealed = refit.store.mapper._sealed_seed(event)
        assert refit.store.mapper.to_stored_event(event) == eventsourcings(plain, event, sealed)
        fast += refit.store.mapper._plain_stored(event, [], sealed) is not None
    kinds = {type(e).__name__ for e in events}
    assert {"Created", "Undone", "DiceRolled"} <= kinds and fast >= len(events) - 2
    assert refit.store.mapper._sealed_seed(events[0])["seed"].startswith(TAG)


def test_records_are_read_as_each_decoded_event_records_itself(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Records")
    to_reph_step(refit, campaign, "9.617")
    target = refit.store.campaign(campaign).version
    do(refit, campaign, {"type": "purchase_rg", "side": "German", "rg": "I1", "kg": "K"})
    refit.audit.undo(campaign, "a mistake", "director", to_version=target)
    events = list(refit.store.events.get(campaign))
    rows = list(refit.store.stored_records(campaign))
    assert [record for record, _ in rows] == [e.record() for e in events]
    assert [fields.get("seed") for _, fields in rows] == \
        [e.__dict__.get("seed") for e in events]
    assert rows[0][1]["seed"] is not None  # the private seed is among the fields
    assert [r for r, _ in refit.store.stored_records(campaign, lte=5, gt=2)] == \
        [e.record() for e in events[2:5]]
    sealed = [record for record, _ in rows if record["sealed"] is not None]
    assert sealed and all(record["salt"] for record in sealed)
