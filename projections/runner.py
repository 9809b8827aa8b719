"""Drive the fold two ways: into the materialized view (with tracking), or in memory."""

from __future__ import annotations

import gc
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.persistence import IntegrityError, JSONTranscoder, Mapper, Tracking
from eventsourcing.projection import Projection
from pydantic_core import from_json, to_json

import domain.modules  # noqa: F401  (every module's events: their stored topics resolve)
from domain.campaign import CampaignEvent
from domain.campaign.part import part_transcodings
from domain.history import is_undone, undone_ranges
from projections.fold import fold
from projections.quarantine import TolerantMapper, decoded_or_unreadable, passed_over
from projections.rows import META
from projections.sealed import RowUnsealed
from projections.view import ANY, ProjectionView, RowKey, RowValue, ViewMovedOn, encode

CHECKPOINT_EVERY = 500  # the fewest versions between two as-of checkpoints of a campaign
ROWS_PER_VERSION = 8  # ... and for a campaign of many rows, its rows / this (see `spacing`)
BATCH = CHECKPOINT_EVERY  # a catch-up's batches end near each campaign's checkpoints
MAX_RACES = 100  # a view that never settles is a fault to report, not to spin on


class MemoryRows:
    """A campaign's rows in memory: for "as of version N" reads and tests."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], RowValue] = {}

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        """The row's document, or None."""
        found = self.rows.get((kind, key))
        return None if found is None else found[1]

    def put(self, kind: str, key: str, order: int, doc: dict[str, Any]) -> None:
        """Write the row's document."""
        self.rows[(kind, key)] = (order, doc)

    def select_rows(self, kind: str) -> list[dict[str, Any]]:
        """The rows of a kind, in order."""
        found = [(order, key, doc) for (k, key), (order, doc) in self.rows.items()
                 if k == kind and doc is not None]
        return [doc for _, _, doc in sorted(found, key=lambda item: (item[0], item[1]))]

    def dump(self) -> bytes:
        """The rows as a compressed checkpoint."""
        kept = [(kind, key, order, doc) for (kind, key), (order, doc) in self.rows.items()
                if doc is not None]
        return pack([[kind, key, order] for kind, key, order, _ in kept],
                    to_json([doc for *_, doc in kept]))

    @classmethod
    def load(cls, data: bytes) -> MemoryRows:
        """Rows from a checkpoint."""
        rows = cls()
        found = from_json(zlib.decompress(data))
        if isinstance(found, list):  # as checkpoints were kept before they split keys and docs
            found = {"keys": [row[:3] for row in found], "docs": [row[3] for row in found]}
        rows.rows = {(kind, key): (order, doc)
                     for (kind, key, order), doc in zip(found["keys"], found["docs"],
                                                        strict=True)}
        return rows


def pack(keys: list[list[Any]], docs: bytes) -> bytes:
    """A checkpoint: each row's kind, key and order, then the documents as one JSON array
    (which the view's rows join from the JSON they are stored as, parsing none)."""
    return zlib.compress(b'{"keys":' + to_json(keys) + b',"docs":' + docs + b"}", 1)


def spacing(rows: int) -> int:
    """Versions between two checkpoints of a campaign with this many rows. Writing one
    costs about as much as its rows, so a longer campaign keeps them further apart: the
    views' checkpoints cost a few per cent of their fold at any length, and an as-of read
    folds events in proportion to the rows it reads anyway."""
    return max(CHECKPOINT_EVERY, rows // ROWS_PER_VERSION)


def spaced(insert: Callable[[int, MemoryRows], None]) -> Callable[[int, MemoryRows], None]:
    """`insert`, offered rows at every CHECKPOINT_EVERY-th version, called as `spacing`
    says."""
    last = 0

    def offer(version: int, rows: MemoryRows) -> None:
        nonlocal last
        if version - last >= spacing(len(rows.rows)):
            insert(version, rows)
            last = version
    return offer


def fold_records(records: Iterable[dict[str, Any]]) -> MemoryRows:
    """Fold a campaign's history (or a prefix of it) into memory: only what is live, so
    the rows after an undo are the rows as of its target. A revealed seed stays revealed,
    undone or not."""
    found = fold_onto(MemoryRows(), 0, list(records))
    assert found is not None  # from the start, every undo's target is in the history
    return found


def fold_onto(rows: MemoryRows, start: int, history: list[dict[str, Any]],
              checkpoint: Callable[[int, MemoryRows], None] | None = None) -> MemoryRows | None:
    """Fold the records after version `start` onto the rows as of `start`; None if an undo
    among them goes back before `start`. With no undo among them, `checkpoint` is offered
    the rows at every CHECKPOINT_EVERY-th version on the way."""
    jumps = {r["version"]: r["data"]["to_version"] for r in history if r["type"] == "Undone"}
    if any(target < start for target in jumps.values()):
        return None
    ranges = undone_ranges(jumps, history[-1]["version"]) if jumps else []
    for record in history:
        if not ranges or record["type"] == "SeedRevealed" or \
                not is_undone(record["version"], ranges):
            fold(rows, record)
        if checkpoint is not None and not jumps and record["version"] % CHECKPOINT_EVERY == 0:
            checkpoint(record["version"], rows)
    return rows


Reader = Callable[[UUID, int], MemoryRows]  # a campaign's rows as of a version


class _Refold(Exception):
    """A campaign's rows were renewed mid-event: fold the event again onto them."""


class _Buffer:
    """Rows read through from the view and written back in one transaction."""

    def __init__(self, view: ProjectionView, reader: Reader | None = None) -> None:
        self.view, self.reader = view, reader
        self.cache: dict[RowKey, RowValue | None] = {}
        self.dirty: dict[RowKey, RowValue] = {}
        self.crossed: dict[str, int] = {}  # campaigns folded past a CHECKPOINT_EVERY-th version
        self.at: dict[str, int] = {}  # the version being folded, per campaign

    def campaign(self, campaign: str) -> _CampaignRows:
        return _CampaignRows(self, campaign)

    def get(self, key: RowKey) -> dict[str, Any] | None:
        if key not in self.cache:
            try:
                self.cache[key] = self.view.select_row(*key)
            except RowUnsealed:
                self.renew(key[0])
                raise _Refold from None
        found = self.cache[key]
        return None if found is None else found[1]

    def renew(self, campaign: str) -> None:
        """A row's seal failed: the campaign's rows are folded again from its events (as
        of the version before the one being folded) and all written back, sealed, so an
        edited row is neither folded on nor kept; the event is then folded again."""
        if self.reader is None:
            raise RuntimeError("the projection renews a campaign only with a reader of the log")
        self.campaign(campaign).become(self.reader(UUID(campaign), self.at[campaign] - 1))

    def put(self, key: RowKey, value: RowValue) -> None:
        self.cache[key] = value
        self.dirty[key] = value


class _CampaignRows:
    def __init__(self, buffer: _Buffer, campaign: str) -> None:
        self.buffer, self.id = buffer, campaign

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        return self.buffer.get((self.id, kind, key))

    def put(self, kind: str, key: str, order: int, doc: dict[str, Any]) -> None:
        self.buffer.put((self.id, kind, key), (order, doc))

    def put_row(self, kind: str, key: str, value: RowValue) -> None:
        self.buffer.put((self.id, kind, key), value)

    def become(self, fresh: MemoryRows) -> None:
        """Hold exactly `fresh`'s rows: the others deleted, each of its rows written."""
        for kind, key in self.row_keys():
            if (kind, key) not in fresh.rows:
                self.put_row(kind, key, (0, None))
        for (kind, key), value in fresh.rows.items():
            self.put_row(kind, key, value)

    def row_keys(self) -> set[tuple[str, str]]:
        """The (kind, key) of every row the campaign has, in the view or this batch."""
        found = set(self.buffer.view.select_keys(self.id))
        found |= {(k, key) for (c, k, key) in self.buffer.cache if c == self.id}
        return found


class CampaignLog(Application[UUID]):
    """The campaigns' event store as eventsourcing's ProjectionRunner subscribes to it."""

    name = "refit"

    def construct_mapper(self) -> Mapper[UUID]:
        """eventsourcing's mapper, but a damaged event reaches the projection runner as
        Unreadable (its campaign quarantined) instead of ending the runner."""
        return self.factory.mapper(transcoder=self.construct_transcoder(),
                                   mapper_class=TolerantMapper)

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        """eventsourcing's, and the campaign's parts (snapshots and Undone states hold
        them)."""
        super().register_transcodings(transcoder)
        for transcoding in part_transcodings():
            transcoder.register(transcoding)


class CampaignProjection(Projection[Any]):
    """The campaign projection: the fold, written with eventsourcing's tracking."""

    # The application's name, so its tracking table is the one catch-up keeps: a process
    # with the runner and one without (a director's CLI read beside the service) then
    # fold from one position and never fold a notification twice.
    name = CampaignLog.name
    reader: Reader | None = None  # rows as of a version, which an undo turns the view back to

    def __init__(self, view: Any, reader: Reader | None = None) -> None:
        super().__init__(view=view)
        if reader is not None:
            self.reader = reader

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        """Fold one event and write its rows with its tracking (ProjectionRunner's path).

        Several service processes may each run a runner on one database: when another
        has folded this notification first, its tracking refuses ours (rows and all, in
        one transaction) and this runner goes on instead of stopping.
        """
        try:
            self.process_batch([domain_event], tracking)
        except IntegrityError:
            folded = self.view.max_tracking_id(tracking.application_name) or 0
            if folded < tracking.notification_id:
                raise

    def process_batch(self, events: Iterable[Any], tracking: Tracking,
                      after: int | None = ANY) -> None:
        """Fold events and write every row they touched with one tracking record.

        `after` is the tracking the batch was read after: if another writer has moved the
        view on since, the write is refused (ViewMovedOn) and nothing is counted twice.
        """
        with collector_paused():
            folded = self.fold(events)
            rows = encode(folded.dirty)
        self.view.write(rows, tracking, after)
        self.keep_checkpoints(folded)

    def keep_checkpoints(self, folded: _Buffer) -> None:
        """Once its rows are written, keep a checkpoint of each campaign the fold took past
        a CHECKPOINT_EVERY-th version, if `spacing` says one is due: the view's rows as they
        stand, as of the version its meta row names (so "as of" reads fold from near
        there, not from the start)."""
        for campaign, crossed in folded.crossed.items():
            last = self.view.checkpoint_version(campaign, crossed + CHECKPOINT_EVERY - 1)
            # A rebuild of the view finds the checkpoints it kept before: history.
            if last is not None and crossed - last < spacing(self.view.count_rows(campaign)):
                continue
            try:
                found = self.view.select_campaign(campaign)
            except RowUnsealed:
                continue  # no checkpoint of rows that are not all sealed
            meta = next(from_json(doc) for kind, _, _, doc in found if kind == META)
            keys = [[kind, key, order] for kind, key, order, _ in found]
            docs = "[" + ",".join(doc for *_, doc in found) + "]"
            self.view.insert_checkpoint(campaign, meta["version"], pack(keys, docs.encode()))

    def fold(self, events: Iterable[Any]) -> _Buffer:
        """The rows these events change, read through from the view."""
        buffer = _Buffer(self.view, self.reader)
        campaigns: dict[UUID, _CampaignRows] = {}
        for event in events:
            rows = campaigns.get(event.originator_id)
            if rows is None:
                rows = campaigns[event.originator_id] = buffer.campaign(str(event.originator_id))
            buffer.at[rows.id] = event.originator_version
            try:
                skipped = passed_over(rows, event)
            except _Refold:  # its meta row renewed: ask again
                skipped = passed_over(rows, event)
            if skipped:  # one campaign's damage is its own: the others fold on
                continue
            if type(event).__name__ == "Undone":
                self._undone(rows, event)
            try:
                fold(rows, _fold_record(event, rows.id))
            except _Refold:  # the campaign's rows are renewed as of the version before
                fold(rows, _fold_record(event, rows.id))
            if event.originator_version % CHECKPOINT_EVERY == 0:
                buffer.crossed[rows.id] = event.originator_version
        return buffer

    def _undone(self, rows: _CampaignRows, event: Any) -> None:
        """Turn the campaign's rows to what they are after the undo (as of its target)."""
        if self.reader is None:
            raise RuntimeError("the projection folds an undo only with a reader of the log")
        rows.become(self.reader(event.originator_id, event.originator_version))


def _fold_record(event: CampaignEvent, campaign: str) -> dict[str, Any]:
    """The record the fold needs, cheaply: the event's own dict stands in for `data`, and
    the timestamp stays a datetime until a row needs its text.

    The fold reads content fields by name only, so the envelope fields beside them in the
    event's dict are never copied into a row (the private seed included).
    """
    return {"campaign": campaign, "version": event.originator_version,
            "type": type(event).__name__, "timestamp": event.timestamp,
            "data": event.__dict__, "sealed": event.sealed}


def catch_up(app: Application[Any], projection: CampaignProjection, batch: int = BATCH) -> int:
    """Fold every notification up to the log's head as it is now; returns how many."""
    head = app.recorder.max_notification_id() or 0
    done = raced = 0
    while (last := projection.view.max_tracking_id(app.name) or 0) < head:
        notifications = app.recorder.select_notifications(start=last + 1, limit=batch,
                                                          stop=head)
        if not notifications:
            return done
        with collector_paused():
            events = [decoded_or_unreadable(app.mapper, n) for n in notifications]
        try:
            projection.process_batch(events, Tracking(app.name, notifications[-1].id), last)
        except ViewMovedOn:
            raced += 1  # another process folded these first: go on from its tracking
            if raced > MAX_RACES:
                raise
            continue
        done += len(notifications)
    return done


_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic GC passes while a batch is decoded, folded and encoded (not while it waits
    for the database): the fold makes no cycles,
    and passes over thousands of fresh dicts cost a fifth of a rebuild (see bench/).
    Counted, so threads folding at once leave the collector as they found it."""
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()
