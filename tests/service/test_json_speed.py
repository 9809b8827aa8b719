"""orjson writes and reads the export and the hashed JSON only where it gives exactly what the
stdlib gives: every stored hash depends on those bytes."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.hashing import _orjson, canonical, is_plain, sorted_json
from infra.exporting import iso_text
from infra.transfer import _loads

ANY_CHAR = st.characters(codec=None, categories=None)  # controls and lone surrogates too
KEYS = st.text(max_size=6) | st.text(ANY_CHAR, max_size=4) | st.sampled_from(
    ["a", "é", "\uffff", "\U00010000", "\x7f", "\u2028", "\ud800", ""])
LEAVES = (st.none() | st.booleans() | st.integers() | st.text() | st.text(ANY_CHAR)
          | st.integers(min_value=-(2**63), max_value=2**64 - 1))
PLAIN_LEAVES = (st.none() | st.booleans() | st.text()
                | st.integers(min_value=-(2**63), max_value=2**64 - 1))
PLAIN = st.recursive(PLAIN_LEAVES, lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=30)
WEIRD_KEYS = KEYS | st.integers(-5, 5) | st.booleans() | st.none() | st.floats(-2, 2)
WEIRD = st.recursive(LEAVES | st.floats(), lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(WEIRD_KEYS, inner, max_size=4), max_leaves=30)


def stdlib_canonical(value: Any) -> bytes:
    """Canonical JSON as it always was written."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def stdlib_line(value: Any) -> str:
    """An export line's JSON as it always was written."""
    return json.JSONEncoder(sort_keys=True, ensure_ascii=False,
                            separators=(",", ":")).encode(value)


def outcome(write: Any, value: Any) -> tuple[str, Any]:
    """What a writer gives: its output, or the kind of error it raises."""
    try:
        return "ok", write(value)
    except Exception as error:
        return "error", type(error)


@settings(max_examples=400)
@given(PLAIN)
def test_orjson_writes_plain_values_byte_for_byte_as_the_stdlib(value: Any) -> None:
    fast = _orjson(value)
    assert fast is not None, "a plain value took the slow way"
    assert fast == stdlib_canonical(value)


@settings(max_examples=400)
@given(st.dictionaries(KEYS, LEAVES, max_size=6))
def test_keys_and_strings_of_any_characters_sort_and_escape_as_the_stdlib(value: Any) -> None:
    assert outcome(canonical, value) == outcome(stdlib_canonical, value)
    assert outcome(sorted_json, value) == outcome(stdlib_line, value)


@settings(max_examples=400)
@given(WEIRD)
def test_what_orjson_would_write_otherwise_takes_the_stdlib_way(value: Any) -> None:
    assert outcome(canonical, value) == outcome(stdlib_canonical, value)
    assert outcome(sorted_json, value) == outcome(stdlib_line, value)


def test_the_stdlib_cases_are_caught() -> None:
    assert _loads('{"a":[1,2.5e-7]}') == json.loads('{"a":[1,2.5e-7]}')
    assert _loads('{"a":18446744073709551616}') == {"a": 2**64}  # orjson: a float
    for value in [{"a": 1e-05}, {"a": math.nan}, {"a": [2**64]}, {2: 1, 10: 2},
                  {"a": "\ud800"}, {True: 1}, {"a": 1.5}]:
        assert outcome(canonical, value) == outcome(stdlib_canonical, value)
        assert outcome(sorted_json, value) == outcome(stdlib_line, value)
    assert canonical({10: 1, 9: 2}) == b'{"9":2,"10":1}'  # numeric order, as the stdlib
    assert sorted_json({"a": math.nan}) == '{"a":NaN}'
    deep: Any = []
    for _ in range(300):  # past orjson's nesting limit
        deep = [deep]
    assert canonical(deep) == stdlib_canonical(deep)


def tagged(value: Any) -> Any:
    """A value with every type spelled out (1 and 1.0 and True differ; NaN equals NaN)."""
    if isinstance(value, dict):
        return ("dict", [(key, tagged(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [tagged(item) for item in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def read(parse: Any, text: str | bytes) -> tuple[str, Any]:
    """What a reader gives: the value, type by type, or its error's kind and message."""
    try:
        return "ok", tagged(parse(text))
    except Exception as error:
        return "error", (type(error), str(error))


JSON_TEXT = st.builds(
    lambda value, sep, ascii_: json.dumps(value, separators=sep, ensure_ascii=ascii_),
    WEIRD, st.sampled_from([(",", ":"), (", ", ": "), (" ,\n", "\t:\r ")]), st.booleans())
NUMBERS = st.sampled_from(["1", "-0", "1.0", "1e5", "1E-7", "-2.5e+300", "1e400", "NaN",
                           "-Infinity", "18446744073709551615", "18446744073709551616",
                           "-9223372036854775809", "12345678901234567890123", "01", "1.",
                           ".5", "+1", "0x10", "\"\\ud800\"", "\"\\u00e9\"", "[]", "{}"])
NUMBER_LINES = st.builds(lambda n, sep: '{"a":[1,' + sep + n + '],"b":' + n + "}",
                         NUMBERS, st.sampled_from(["", " ", "\n", "\t"]))


@settings(max_examples=400)
@given(JSON_TEXT | NUMBER_LINES | st.text(ANY_CHAR, max_size=12)
       | st.text(alphabet='{}[]":,0123456789.eE-+ tnufalsrNIy\\', max_size=16))
def test_lines_read_as_json_loads_reads_them(text: str) -> None:
    assert read(_loads, text) == read(json.loads, text)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return
    assert read(_loads, data) == read(json.loads, data)


@given(st.binary(max_size=12))
def test_bytes_read_as_json_loads_reads_them(data: bytes) -> None:
    assert read(_loads, data) == read(json.loads, data)


@settings(max_examples=300)
@given(st.dictionaries(st.text(ANY_CHAR, max_size=5), PLAIN, max_size=6))
def test_orjson_writes_a_stored_state_as_the_transcoder_would(value: dict[str, Any]) -> None:
    transcoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)

    def stdlib(state: dict[str, Any]) -> bytes:
        return transcoder.encode(state).encode("utf8")

    def as_the_mapper(state: dict[str, Any]) -> bytes:  # orjson, or what it refuses: stdlib
        try:
            return orjson.dumps(state)
        except orjson.JSONEncodeError:
            return stdlib(state)
    assert is_plain(value)
    assert outcome(as_the_mapper, value) == outcome(stdlib, value)


TIMESTAMPS = st.datetimes(timezones=st.timezones()) | st.datetimes(
    timezones=st.just(UTC))


@given(TIMESTAMPS, st.sampled_from(["iso", "Z", "space", "short"]))
def test_an_export_writes_a_timestamp_as_isoformat_whatever_text_it_was_read_from(
        moment: datetime, form: str) -> None:
    text = moment.isoformat()
    text = {"iso": text, "Z": text.replace("+00:00", "Z"), "space": text.replace("T", " "),
            "short": moment.isoformat(timespec="seconds")}[form]
    read = datetime.fromisoformat(text)
    assert iso_text(text, read) == read.isoformat()
