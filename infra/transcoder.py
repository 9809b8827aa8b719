"""eventsourcing's JSON transcoder, reading a snapshot with pydantic's JSON reader: a
campaign's snapshot is its parts' plain state under a few transcoded values near the top,
and the standard library's decoder with an object hook for every dict took most of a
snapshot load (bench P2)."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import JSONTranscoder
from pydantic_core import from_json

_TYPED = b'"_type_"'  # how the transcoder marks a value it encoded
DEPTH = 2  # a snapshot's transcoded values: its own fields, and its state's


class ShallowJSONTranscoder(JSONTranscoder):
    """Writes as eventsourcing's JSONTranscoder does; reads a state whose transcoded values
    all lie within DEPTH levels of the top without an object hook, else as it does."""

    def decode(self, data: bytes) -> Any:
        """The decoded object, the same as JSONTranscoder.decode gives."""
        decoded = self._shallow(data)
        return super().decode(data) if decoded is None else decoded

    def _shallow(self, data: bytes) -> dict[str, Any] | None:
        """The state, if every marker of a transcoded value in the bytes is one found
        within DEPTH levels (a deeper one, or a marker inside a string, and the count
        differs: None)."""
        try:
            # Strings not interned: a snapshot's are mostly unique (one key per slot rolled
            # on the CG Date), and caching them made the read a third slower (bench P2).
            top = from_json(data, cache_strings=False)
            if type(top) is not dict or self._typed(top, DEPTH) != data.count(_TYPED):
                return None
        except Exception:  # not JSON, or a value its transcoding refuses: the full
            return None  # decoder says what is wrong, as it always did
        return top

    def _typed(self, holder: dict[str, Any], depth: int) -> int:
        """Decode the transcoded values among the dict's values (in place), looking
        `depth` levels down; how many there were."""
        found = 0
        for key, value in holder.items():
            if type(value) is not dict:
                continue
            if len(value) == 2 and "_type_" in value and "_data_" in value:
                transcoding = self.names.get(value["_type_"])
                if transcoding is None:
                    return -1  # unregistered: the full decoder says so
                holder[key] = transcoding.decode(value["_data_"])
                found += 1
            elif depth > 1:
                inner = self._typed(value, depth - 1)
                if inner < 0:
                    return -1
                found += inner
        return found
