"""A campaign's checkpoints compressed as they grow read back as its rows at each one."""

from __future__ import annotations

from typing import Any

from projections.dump import Dump, Key, Slot
from projections.runner import MemoryRows


def _write(slots: dict[Key, Slot], dump: Dump, key: Key, order: int, doc: dict[str, Any] | None
           ) -> None:
    slots[key] = Slot(order, doc, None) if doc is not None else Slot(0, None, None)
    dump.changed(key)


def test_each_checkpoint_reads_back_as_the_rows_then_whatever_changed_between() -> None:
    slots: dict[Key, Slot] = {}
    dump = Dump(slots)
    expected: list[dict[Key, tuple[int, dict[str, Any] | None]]] = []
    steps: list[list[tuple[Key, int, dict[str, Any] | None]]] = [
        [(("meta", ""), 0, {"version": 1}), (("roll", "1"), 1, {"dice": [3]})],
        [(("meta", ""), 0, {"version": 2}), (("roll", "2"), 2, {"dice": [5, "é"]})],
        [(("meta", ""), 0, {"version": 3})],  # roll 1 and 2 settle into the prefix
        [(("roll", "1"), 1, {"dice": [3], "voided": True})],  # a settled row changes
        [(("roll", "2"), 0, None), (("roll", "3"), 3, {"dice": []})],  # one row gone
        [],
    ]
    taken = []
    for step in steps:
        for key, order, doc in step:
            _write(slots, dump, key, order, doc)
        expected.append({key: (slot.order, slot.doc) for key, slot in slots.items()
                         if slot.doc is not None})
        taken.append(dump.take())
    for data, rows in zip(taken, expected, strict=True):
        assert MemoryRows.load(data).rows == rows
    assert dump.settled  # unchanged rows were compressed into the prefix once
