"""Drive the fold two ways: into the materialized view (with tracking), or in memory."""

from __future__ import annotations

import sys
import zlib
from collections.abc import Callable, Iterable
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
from projections.collector import collector_paused
from projections.fold import fold
from projections.held import CampaignRows, Holding, Refold
from projections.prefetch import Prefetch
from projections.quarantine import TolerantMapper, passed_over
from projections.view import ANY, RowValue, ViewMovedOn
from projections.view_sql import FOLDED_LOG

CHECKPOINT_EVERY = 500  # the fewest versions between two as-of checkpoints of a campaign
ROWS_PER_VERSION = 8  # ... and for a campaign of many rows, its rows / this (see `spacing`)
BATCH = 2000  # notifications a catch-up reads, folds and writes at a time
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
        # A list of [kind, key, order, doc]: the view's checkpoints (projections/dump.py),
        # as they were kept before they split keys and docs, and again since.
        if isinstance(found, list):
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


class CampaignLog(Application[UUID]):
    """The campaigns' event store as eventsourcing's ProjectionRunner subscribes to it."""

    name = FOLDED_LOG  # "refit": the view's position in the log is tracked by this name

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
                      after: int | None = ANY, holding: Holding | None = None) -> None:
        """Fold events and write every row they touched, and the checkpoints they took
        campaigns to, with one tracking record, in one transaction.

        `after` is the tracking the batch was read after: if another writer has moved the
        view on since, the write is refused (ViewMovedOn) and nothing is counted twice.
        `holding`: the rows a catch-up holds from its earlier batches.
        """
        holding = Holding(self.view, self.reader) if holding is None else holding
        with collector_paused():
            self.fold(events, holding)
            rows, checkpoints = holding.take()
        try:
            self.view.write(rows, tracking, after, checkpoints)
        except Exception:
            holding.forget()  # what it holds may be what the view now is not
            raise

    def fold(self, events: Iterable[Any], holding: Holding) -> None:
        """Fold the events onto the rows, read through from the view."""
        campaigns: dict[UUID, CampaignRows] = {}
        events = list(events)
        holding.meet([str(ident) for ident in dict.fromkeys(e.originator_id for e in events)])
        for event in events:
            rows = campaigns.get(event.originator_id)
            if rows is None:
                rows = campaigns[event.originator_id] = holding.campaign(str(event.originator_id))
            holding.at[rows.id] = event.originator_version
            try:
                skipped = passed_over(rows, event)
            except Refold:  # its meta row renewed: ask again
                skipped = passed_over(rows, event)
            if skipped:  # one campaign's damage is its own: the others fold on
                continue
            if type(event).__name__ == "Undone":
                self._undone(rows, event)
            try:
                fold(rows, _fold_record(event, rows.id))
            except Refold:  # the campaign's rows are renewed as of the version before
                fold(rows, _fold_record(event, rows.id))
            if event.originator_version % CHECKPOINT_EVERY == 0:
                self._checkpoint(holding, rows.id, event.originator_version)

    def _checkpoint(self, holding: Holding, campaign: str, version: int) -> None:
        """Keep a checkpoint of a campaign the fold took to a CHECKPOINT_EVERY-th version,
        if `spacing` says one is due: its rows as they are now (so "as of" reads fold from
        near there, not from the start). A rebuild of the view finds the checkpoints it
        kept before (history), and keeps none again."""
        last = max((v for v in holding.kept(campaign) if v < version + CHECKPOINT_EVERY),
                   default=None)
        if last is None or version - last >= spacing(holding.count(campaign)):
            holding.keep(campaign, version)

    def _undone(self, rows: CampaignRows, event: Any) -> None:
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


def catch_up(app: Application[Any], projection: CampaignProjection, batch: int = BATCH,
             holding: Holding | None = None, follow: bool = False) -> int:
    """Fold every notification up to the log's head as it is now; returns how many. The
    rows folded are held from one batch to the next (each read from the view once), and
    from one catch-up to the next when given a `holding` (a runner's: while no other
    writer moves the view on); on a database server, the next batch is read while one is
    folded (projections/prefetch.py).

    `follow` (a runner's): fold what the log holds, without first reading its head, and
    from the tracking its holding last wrote, without reading it back. A live catch-up
    folds a few events, and two queries fewer spare a tenth of its CPU (issue 17). The
    write checks the tracking under the view's lock anyway, so a holding another writer
    has overtaken is refused there (ViewMovedOn), and the tracking is read then."""
    head = None if follow else app.recorder.max_notification_id() or 0
    holding = Holding(projection.view, projection.reader) if holding is None else holding
    done = raced = 0
    last = holding.position if follow else None
    try:
        # Paused from the first batch to the last, not batch by batch: each pass after a
        # batch walked every row still held, 7-11% of a rebuild (bench/run.py, A/B). The
        # fold makes no cycles; what a batch leaves is freed as its references go.
        with collector_paused(), Prefetch(app, head, batch, ahead=reads_ahead(app)) as log:
            while True:
                if last is None:
                    last = projection.view.max_tracking_id(app.name) or 0
                    if holding.position is not None and last != holding.position:
                        holding.forget()  # another process folded on: what it holds is behind
                if head is not None and last >= head:
                    return done
                notifications, events = log.batch(last + 1)
                if not notifications:
                    return done
                try:
                    projection.process_batch(events, Tracking(app.name, notifications[-1].id),
                                             last, holding)
                except ViewMovedOn:
                    raced += 1  # another process folded these first: go on from its tracking
                    if raced > MAX_RACES:
                        raise
                    last = None
                    continue
                done += len(notifications)
                holding.position = last = notifications[-1].id
                # Written up to the head (following: to the log's end, a batch short of
                # full): the tracking is known, not read back.
                if last >= head if head is not None else len(notifications) < batch:
                    return done
    except BaseException:
        holding.forget()  # a batch that was not written may be half held
        raise


def reads_ahead(app: Application[Any]) -> bool:
    """Whether a catch-up reads its next batch in a second thread: on a database server,
    whose reads wait on the network; SQLite's are in-process. PostgreSQL's module is
    looked up, not imported: its recorder cannot exist unless it was, and the command line
    on SQLite never imports it (issue 17, item 6)."""
    postgres = sys.modules.get("eventsourcing.postgres")
    return postgres is not None and isinstance(app.recorder,
                                                postgres.PostgresApplicationRecorder)
