"""Every event the campaign records is folded into the forms, or named as not folded."""

from __future__ import annotations

import pytest

from domain.campaign import EVENTS
from projections.fold import _HANDLERS, NOT_FOLDED, fold
from projections.runner import MemoryRows


def test_every_event_type_is_folded_or_named_as_not_folded_with_its_reason() -> None:
    for name in EVENTS:
        assert (name in _HANDLERS) != (name in NOT_FOLDED), name
    assert all(reason.strip() for reason in NOT_FOLDED.values())
    assert set(_HANDLERS) | set(NOT_FOLDED) <= set(EVENTS)  # no fold of a gone event


def test_the_fold_refuses_an_event_it_was_never_taught() -> None:
    rows = MemoryRows()
    rows.put("meta", "", 0, {"version": 1})
    with pytest.raises(LookupError, match="NOT_FOLDED"):
        fold(rows, {"type": "SomethingNew", "version": 2, "data": {}})
