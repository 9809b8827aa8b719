"""A snapshot is read by pydantic's JSON reader where its transcoded values lie near the
top (infra/transcoder.py), and to exactly what eventsourcing's own transcoder reads."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.persistence import JSONTranscoder
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from domain.campaign.part import part_transcodings
from infra.application import Refit
from infra.transcoder import ShallowJSONTranscoder
from tests.helpers.story import do
from tests.service.test_json_speed import KEYS

TYPED = (st.datetimes(timezones=st.just(UTC)) | st.uuids())
LEAVES = st.none() | st.booleans() | st.integers() | st.text() | TYPED | st.sampled_from(
    ['"_type_"', "_type_", '{"_type_":"uuid_hex","_data_":"x"}'])
MARKED = st.fixed_dictionaries({"_type_": st.text(max_size=3)}, optional={"x": st.integers()})
VALUES = st.recursive(LEAVES | MARKED, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(KEYS | st.just("_type_") | st.just("_data_"), inner,
                                        max_size=4), max_leaves=25)


def registered(transcoder: JSONTranscoder) -> JSONTranscoder:
    """The transcoder with the log's transcodings (datetime, UUID, the campaign's parts)."""
    from eventsourcing.persistence import DatetimeAsISO, UUIDAsHex

    for transcoding in (UUIDAsHex(), DatetimeAsISO(), *part_transcodings()):
        transcoder.register(transcoding)
    return transcoder


STANDARD, SHALLOW = registered(JSONTranscoder()), registered(ShallowJSONTranscoder())


def read(transcoder: JSONTranscoder, data: bytes) -> tuple[str, Any]:
    """What a transcoder reads of the bytes, or the kind of error it raises."""
    try:
        return "ok", transcoder.decode(data)
    except Exception as error:
        return "error", type(error)


@settings(max_examples=500)
@given(st.dictionaries(KEYS, VALUES, max_size=5))
def test_any_state_reads_as_the_standard_transcoder_reads_it(state: dict[str, Any]) -> None:
    try:
        data = STANDARD.encode(state)
    except UnicodeEncodeError:  # a lone surrogate: never stored
        assume(False)
    assert read(SHALLOW, data) == read(STANDARD, data)


def test_a_snapshot_with_typed_values_near_the_top_skips_the_object_hook() -> None:
    when, ident = datetime(2026, 11, 26, 9, 0, tzinfo=UTC), uuid4()
    state = {"timestamp": when, "state": {"_id": ident, "slots": {"14AM/T1/Axis/x": 0}}}
    data = STANDARD.encode(state)
    assert SHALLOW._shallow(data) == {"timestamp": when,
                                      "state": {"_id": ident, "slots": {"14AM/T1/Axis/x": 0}}}


def test_a_typed_value_deeper_down_is_read_the_standard_way() -> None:
    deep = {"a": {"b": {"c": UUID(int=7)}}}
    data = STANDARD.encode(deep)
    assert SHALLOW._shallow(data) is None
    assert SHALLOW.decode(data) == deep


def test_a_campaign_loads_from_its_snapshot_as_it_stood(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Snapshots", "server").id
    for number in range(1, 150):  # past the snapshot taken at version 100
        do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 1,
                             "reason": f"credit {number}"})
    kept = refit.store.campaign(campaign)
    refit.store.forget(campaign)
    assert [s.originator_version for s in refit.store.snapshots.get(campaign)] == [100]
    loaded = refit.store.campaign(campaign)
    assert loaded.version == kept.version == 150
    assert vars(loaded) == vars(kept)
