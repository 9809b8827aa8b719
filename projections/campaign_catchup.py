"""One campaign's rows brought to its head for a read: the view's rows of that campaign,
with only its own missing events folded onto them in memory. Nothing is written, so the
view's tracking (which the runner and catch-up keep) is never touched: no event is folded
into the view twice, and a read never waits for, or folds, another campaign's events."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from projections.quarantine import quarantined
from projections.rows import META
from projections.runner import MemoryRows, fold_onto

# Events folded by reads, per campaign: tests see which campaigns a read folded.
FOLDED: Counter[str] = Counter()

StoredRows = list[tuple[str, str, int, str]]  # kind, key, order, document as JSON
History = Callable[[int], Iterable[dict[str, Any]]]  # the records after a version


def stored_version(stored: StoredRows) -> int | None:
    """The version the view's rows of a campaign were folded to (None: none folded)."""
    meta = next((doc for kind, key, _, doc in stored if kind == META and key == ""), None)
    return None if meta is None else int(json.loads(meta)["version"])


def is_quarantined(stored: StoredRows) -> bool:
    """Whether the view's rows say the campaign's history could not be read."""
    meta = next((doc for kind, key, _, doc in stored if kind == META and key == ""), None)
    return meta is not None and quarantined(json.loads(meta)) is not None


def caught_up(campaign: str, stored: StoredRows, history: History) -> MemoryRows | None:
    """The campaign's rows at its head: `stored` (read in one statement, so they are the
    rows as of the version their meta row names) with the records after that version
    folded on. None when an undo among them turns back before that version (the caller
    folds from a checkpoint instead)."""
    start = stored_version(stored) or 0
    rows = MemoryRows()
    rows.rows = {(kind, key): (order, json.loads(doc)) for kind, key, order, doc in stored}
    records = list(history(start))
    FOLDED[campaign] += len(records)
    if not records:
        return rows
    return fold_onto(rows, start, records)
