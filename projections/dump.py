"""As-of checkpoints compressed as a campaign's rows grow: the rows unchanged since the
last checkpoint are compressed once, into a prefix that the next checkpoints continue
from, so a checkpoint costs what changed since the last one, not every row again."""

from __future__ import annotations

import zlib
from typing import Any

from pydantic_core import to_json

from projections.view_sql import dump_doc

Key = tuple[str, str]  # a row's kind and key, within its campaign


class Slot:
    """One row: its order, its document, and the JSON the view stores (each made when
    first needed; neither: the row is gone)."""

    __slots__ = ("doc", "json", "order")

    def __init__(self, order: int, doc: dict[str, Any] | None, json: str | None) -> None:
        self.order, self.doc, self.json = order, doc, json

    def text(self) -> str | None:
        """The JSON, encoded from the document once (None: the row is gone)."""
        if self.json is None and self.doc is not None:
            self.json = dump_doc(self.doc)
        return self.json


class Dump:
    """One campaign's checkpoints: a zlib stream of the JSON list of its rows, each
    [kind, key, order, document] (MemoryRows.load reads it). Rows that stayed unchanged
    over a checkpoint join the prefix, compressed once; a prefix row written again
    starts the prefix over."""

    def __init__(self, slots: dict[Key, Slot]) -> None:
        self.slots = slots  # the campaign's rows (a slot of neither document nor JSON: gone)
        self.start()

    def start(self) -> None:
        """An empty prefix; every row loose."""
        self.packer = zlib.compressobj(1)
        self.head = self.packer.compress(b"[")  # the prefix's compressed bytes so far
        self.settled: set[Key] = set()  # the rows in the prefix
        self.loose = dict.fromkeys(self.slots)  # the rows not in it (an ordered set)
        self.moved: set[Key] = set()  # rows written since the last checkpoint

    def changed(self, key: Key) -> None:
        """A row is written or read: loose, until unchanged over a checkpoint."""
        if key in self.settled:  # a row of the prefix changed: the prefix starts over
            self.start()
        self.loose[key] = None
        self.moved.add(key)

    def take(self) -> bytes:
        """The checkpoint of the rows as they now are."""
        texts = {key: row for key in self.loose if (row := _row(key, self.slots[key]))}
        end = self.packer.copy()
        body = b",".join(texts.values())
        data = self.head + end.compress((b"," if self.settled and body else b"") + body + b"]")
        data += end.flush()
        still = [key for key in texts if key not in self.moved]
        if still:  # unchanged since the last checkpoint: settled into the prefix
            self.head += self.packer.compress((b"," if self.settled else b"") +
                                              b",".join(texts[key] for key in still))
            self.settled.update(still)
        self.loose = {key: None for key in texts if key not in self.settled}
        self.moved = set()
        return data


def _row(key: Key, slot: Slot) -> bytes:
    """A row as a checkpoint lists it, [kind, key, order, document] (empty: gone)."""
    text = slot.text()
    if text is None:
        return b""
    return to_json([key[0], key[1], slot.order])[:-1] + b"," + text.encode() + b"]"
