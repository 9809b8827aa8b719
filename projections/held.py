"""The rows a catch-up holds between its batches: each read from the view once, folded on
in memory, written back a batch at a time (with the batch's tracking), and dumped as an
as-of checkpoint straight from memory, without reading the campaign's rows back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from pydantic_core import from_json

from projections.dump import Dump, Key, Slot
from projections.rows import META
from projections.sealed import RowUnsealed
from projections.view import Encoded, ProjectionView, RowValue

MAX_HELD = 200_000  # rows held between batches; past it, campaigns of earlier batches let go
GONE = Slot(0, None, None)  # a row that is not there


class Refold(Exception):
    """A campaign's rows were renewed mid-event: fold the event again onto them."""


class Held:
    """One campaign's rows as this catch-up knows them."""

    def __init__(self) -> None:
        self.slots: dict[Key, Slot] = {}
        # Every row the campaign has in the view is in `slots`: it was folded from nothing
        # here, or read whole. None: not known yet (its meta row says: a campaign has no
        # row before its meta row, written with its first event).
        self.whole: bool | None = None
        self.kept: list[int] | None = None  # versions of its checkpoints, once read
        self.rows = 0  # how many of `slots` are rows (not gone)
        self.dump = Dump(self.slots)

    def set(self, key: Key, slot: Slot) -> None:
        """Hold a row as it now is."""
        old = self.slots.get(key)
        self.rows += (slot is not GONE) - (old is not None and old is not GONE)
        self.slots[key] = slot
        self.dump.changed(key)

    def document(self, key: Key) -> dict[str, Any] | None:
        """A held row's document, parsed from its JSON once (None: it is not there)."""
        slot = self.slots[key]
        if slot.doc is None and slot.json is not None:
            slot.doc = from_json(slot.json)
        return slot.doc


Reader = Callable[[UUID, int], Any]  # a campaign's rows as of a version (a MemoryRows)


class Holding:
    """Rows read through from the view, held across a catch-up's batches."""

    def __init__(self, view: ProjectionView, reader: Reader | None = None) -> None:
        self.view, self.reader = view, reader
        self.held: dict[str, Held] = {}
        self.dirty: dict[tuple[str, str, str], Slot] = {}
        self.checkpoints: list[tuple[str, int, bytes]] = []
        self.at: dict[str, int] = {}  # the version being folded, per campaign
        self.touched: set[str] = set()  # campaigns of this batch
        self.position: int | None = None  # the tracking its last batch wrote, if known

    def campaign(self, campaign: str) -> CampaignRows:
        """One campaign's rows (the fold's Rows)."""
        self.touched.add(campaign)
        return CampaignRows(self, campaign)

    def of(self, campaign: str) -> Held:
        """The campaign's held rows."""
        found = self.held.get(campaign)
        if found is None:
            found = self.held[campaign] = Held()
        return found

    def meet(self, campaigns: list[str]) -> None:
        """Read the meta rows of campaigns not held yet, in one query (a campaign without
        one has no rows: it is held whole from its first event on)."""
        new = [c for c in campaigns if (META, "") not in self.of(c).slots]
        if not new:
            return
        for campaign, found in self.view.select_metas(new).items():
            held = self.held[campaign]
            held.set((META, ""), GONE if found is None else Slot(found[0], None, found[1]))
            held.whole = found is None

    def get(self, campaign: str, kind: str, key: str) -> dict[str, Any] | None:
        """A row's document: held, or read from the view (a seal that fails: renewed)."""
        held = self.of(campaign)
        if (kind, key) not in held.slots:
            if held.whole:
                return None
            slot = self._read(campaign, kind, key)
            held.set((kind, key), slot)
            if held.whole is None and kind == META:
                held.whole = slot is GONE
        return held.document((kind, key))

    def _read(self, campaign: str, kind: str, key: str) -> Slot:
        try:
            found = self.view.select_row(campaign, kind, key)
        except RowUnsealed:
            self.renew(campaign)
            raise Refold from None
        return GONE if found is None else Slot(found[0], found[1], None)

    def put(self, campaign: str, kind: str, key: str, value: RowValue) -> None:
        """Write a row (a None document: delete it)."""
        slot = GONE if value[1] is None else Slot(value[0], value[1], None)
        self.of(campaign).set((kind, key), slot)
        self.dirty[(campaign, kind, key)] = slot

    def renew(self, campaign: str) -> None:
        """A row's seal failed: the campaign's rows are folded again from its events (as
        of the version before the one being folded) and all written back, sealed, so an
        edited row is neither folded on nor kept; the event is then folded again."""
        if self.reader is None:
            raise RuntimeError("the projection renews a campaign only with a reader of the log")
        self.campaign(campaign).become(self.reader(UUID(campaign), self.at[campaign] - 1))

    def whole(self, campaign: str) -> Held | None:
        """The campaign's rows, all of them (read from the view if not yet); None if one
        of the view's rows is not sealed."""
        held = self.of(campaign)
        if not held.whole:
            try:
                stored = self.view.select_campaign(campaign)
            except RowUnsealed:
                return None
            for kind, key, order, doc in stored:
                if (kind, key) not in held.slots:
                    held.set((kind, key), Slot(order, None, doc))
            held.whole = True
        return held

    def count(self, campaign: str) -> int:
        """How many rows the campaign has (in the view, if not all held)."""
        held = self.of(campaign)
        return held.rows if held.whole else self.view.count_rows(campaign)

    def kept(self, campaign: str) -> list[int]:
        """The versions of the campaign's checkpoints (read from the view once)."""
        held = self.of(campaign)
        if held.kept is None:
            held.kept = self.view.checkpoint_versions(campaign)
        return held.kept

    def keep(self, campaign: str, version: int) -> bool:
        """Add a checkpoint of the campaign's rows as they are now (written with the
        batch); False if a row of the view is not sealed."""
        held = self.whole(campaign)
        if held is None:
            return False
        self.checkpoints.append((campaign, version, held.dump.take()))
        self.kept(campaign).append(version)
        return True

    def take(self) -> tuple[Encoded, list[tuple[str, int, bytes]]]:
        """The batch's rows to write (as the view stores them) and checkpoints to keep;
        the holding then starts the next batch."""
        rows = [(c, kind, key, slot.order, slot.text())
                for (c, kind, key), slot in self.dirty.items()]
        checkpoints, self.checkpoints, self.dirty = self.checkpoints, [], {}
        self._trim()
        return rows, checkpoints

    def _trim(self) -> None:
        """Let go of campaigns of earlier batches while too many rows are held (and of all
        of them if this batch's alone are too many)."""
        if sum(len(held.slots) for held in self.held.values()) > MAX_HELD:
            self.held = {c: held for c, held in self.held.items() if c in self.touched}
            if sum(len(held.slots) for held in self.held.values()) > MAX_HELD:
                self.held = {}
        self.touched = set()

    def forget(self) -> None:
        """Another writer moved the view on: nothing held is known any more."""
        self.held, self.dirty, self.checkpoints, self.touched = {}, {}, [], set()
        self.position = None


class CampaignRows:
    """One campaign's rows in a holding (the fold's Rows)."""

    def __init__(self, holding: Holding, campaign: str) -> None:
        self.holding, self.id = holding, campaign

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        """The row's document, or None."""
        return self.holding.get(self.id, kind, key)

    def put(self, kind: str, key: str, order: int, doc: dict[str, Any]) -> None:
        """Write the row's document."""
        self.holding.put(self.id, kind, key, (order, doc))

    def become(self, fresh: Any) -> None:
        """Hold exactly `fresh`'s rows (a MemoryRows): the others deleted, each of its rows
        written."""
        held = self.holding.of(self.id)
        keys = set(held.slots) if held.whole else \
            set(self.holding.view.select_keys(self.id)) | set(held.slots)
        for kind, key in keys - set(fresh.rows):
            self.holding.put(self.id, kind, key, (0, None))
        for (kind, key), value in fresh.rows.items():
            self.holding.put(self.id, kind, key, value)
        held.whole = True
