"""An export's lines made in one pass over the stored rows (issue 17 item 3): each row's
JSON decoded once, its record, its Merkle leaf (the bytes the chain hashes) and its line
encoded by orjson where that writes the canonical bytes, and the signed checkpoint's root
worked out from those leaves instead of a second read of the whole history."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any
from uuid import UUID

import orjson
from eventsourcing.persistence import StoredEvent
from eventsourcing.utils import resolve_topic

from domain import merkle
from domain.campaign import Campaign, CampaignEvent
from domain.campaign.events import event_record
from domain.hashing import GENESIS_HASH, canonical, is_plain, sha256_hex, sorted_json
from domain.history import as_seen, hashed_form
from domain.pins import PinWatch
from infra.mapper import LedgerMapper
from infra.rows import state_rows
from infra.store import CampaignStore

Item = tuple[dict[str, Any], bool]  # a line, and whether it is plain (orjson writes it)
Signer = Callable[[UUID, int, bytes], str]  # the service's signed checkpoint of a root
Extra = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]  # record, fields -> more
_TYPED = b'"_type_"'  # how eventsourcing's transcoder marks a value it encoded
_SORTED = orjson.OPT_SORT_KEYS


def encoded(value: Any, plain: bool) -> bytes:
    """Canonical JSON of a value; orjson's bytes at once where the value is plain."""
    if plain:
        try:
            return orjson.dumps(value, option=_SORTED)
        except (orjson.JSONEncodeError, RecursionError):
            pass
    return canonical(value)


def line_bytes(item: Item) -> bytes:
    """One export line as bytes: canonical JSON (NaN allowed, as `dump_line`), a newline."""
    value, plain = item
    if plain:
        try:
            return orjson.dumps(value, option=_SORTED) + b"\n"
        except (orjson.JSONEncodeError, RecursionError):
            pass
    return (sorted_json(value) + "\n").encode("utf-8")


def iso_text(text: str, moment: datetime) -> str:
    """`moment.isoformat()`, which is `text` itself when the text is that form already
    (microseconds and a UTC offset, as the transcoder writes a timestamp): no new string."""
    if len(text) == 32 and text[4::3][:5] + text[19] + text[29] == "--T::.:" \
            and text[26] in "+-" and text[20:26] != "000000":
        return text
    return moment.isoformat()


class RecordReader:
    """A campaign's history records, each with its event's fields and whether it is
    plain, read from the rows; a row that is not the usual one goes the store's way."""

    def __init__(self, store: CampaignStore) -> None:
        self.store, mapper = store, store.mapper
        self.mapper = mapper if isinstance(mapper, LedgerMapper) else None
        self.fast = self.mapper is not None and not (mapper.cipher or mapper.compressor)
        self._classes: dict[str, type | None] = {}

    def records(self, campaign_id: UUID) -> Iterator[tuple[dict[str, Any], dict[str, Any],
                                                          bool]]:
        """Every record of the campaign, oldest first."""
        text = str(campaign_id)
        rows = state_rows(self.store.recorder, campaign_id) if self.fast else None
        if rows is None:
            for record, fields in self.store.stored_records(campaign_id):
                yield record, fields, False
            return
        for version, topic, state in rows:
            made = self._plain(text, version, topic, state)
            if made is None:
                stored = StoredEvent(campaign_id, version, topic, state)
                yield *self.store.stored_record(stored, text), False
            else:
                yield made[0], made[1], True

    def _plain(self, campaign: str, version: int, topic: str,
               state: bytes) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The record of a usual row: a campaign event's plain JSON, its timestamp the one
        transcoded value; None for any other (the store reads it, or says what is wrong)."""
        cls = self._class(topic) if state.count(_TYPED) == 1 else None
        if cls is None:
            return None
        try:
            fields = orjson.loads(state)
            stamp = fields["timestamp"]
            if type(stamp) is not dict or len(stamp) != 2 or stamp["_type_"] != "datetime_iso":
                return None
            text = stamp["_data_"]
            moment = datetime.fromisoformat(text)
            fields["timestamp"] = None  # is_plain: checked as the text it is written as
            if "class_version" in fields or not is_plain(fields):
                return None
            fields["timestamp"] = moment
            assert self.mapper is not None  # `fast` only with the ledger's own
            self.mapper.open_seed(cls, fields)
        except Exception:
            return None
        return event_record(cls, campaign, version, iso_text(text, moment), fields), fields

    def _class(self, topic: str) -> type | None:
        """The event class of a topic, if it is a campaign event of class version 1."""
        if topic not in self._classes:
            try:
                cls = resolve_topic(topic)
            except Exception:
                cls = None
            usual = isinstance(cls, type) and issubclass(cls, CampaignEvent) \
                and getattr(cls, "class_version", 1) == 1
            self._classes[topic] = cls if usual else None
        return self._classes[topic]


class Export:
    """One campaign's export, as it streams: the events' lines, then the tail."""

    def __init__(self, store: CampaignStore, state: Campaign, viewer: str | None,
                 extra: Extra) -> None:
        self.store, self.state, self.viewer, self.extra = store, state, viewer, extra
        self.tree, self.pins, self.head = merkle.StreamingRoot(), PinWatch(), GENESIS_HASH

    def events(self) -> Iterator[Item]:
        """Each event's line as the viewer reads it; its leaf noted for the tail."""
        ended = self.state.reph.phase == "ended"
        leaf = b""
        for record, fields, plain in RecordReader(self.store).records(self.state.id):
            leaf = encoded(hashed_form(record), plain)  # the bytes the chain hashes
            self.tree.append(merkle.leaf_hash(leaf))
            more = self.extra(record, fields)
            shown = as_seen(record | more if more else record, self.viewer, ended)
            yield self.pins.see(shown), plain
        if self.tree.size:
            self.head = sha256_hex(leaf)

    def tail(self, sign: Signer | None) -> dict[str, Any]:
        """The last line: the count and head hash, the signed checkpoint of the events'
        Merkle root, and the module data the history pins (as the store keeps it)."""
        count = self.tree.size
        tail: dict[str, Any] = {"events": count, "head_hash": self.head}
        if sign is not None and count:
            tail["checkpoint"] = sign(self.state.id, count, self.tree.root())
        if self.pins.pins:
            tail["module_data"] = {pin: json.loads(text) for pin in self.pins.pins
                                   if (text := self.store.stored_module_data(pin))
                                   is not None}
        return tail
