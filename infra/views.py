"""The projections as the service reads them: the materialized view (kept up to date by
the elected projection runner, or by catch-up), a campaign's rows brought to its own head
on a read without folding any other campaign's events, and any campaign's rows as of a
version or a step ("after 9.616 of 19PM")."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from functools import cached_property
from typing import Any, cast
from uuid import UUID

from domain.digits import digits
from domain.errors import CampaignNotFound, HistoryUnreadable, InvalidCommand
from domain.rules.calendar import step_named
from infra.election import ElectedRunner, elected_runner, local_runner
from infra.settings import backend_of
from infra.store import CampaignStore
from infra.supervisor import SupervisedRunner
from projections.campaign_catchup import caught_up, is_quarantined, stored_version
from projections.collector import collector_paused
from projections.quarantine import UNREADABLE, quarantined
from projections.read import RowSource
from projections.rows import META, STEP
from projections.runner import (
    CampaignLog,
    CampaignProjection,
    MemoryRows,
    catch_up,
    fold_onto,
    spaced,
)
from projections.sealed import RowUnsealed
from projections.view import ProjectionView, encode, view_class_for

log = logging.getLogger(__name__)
Point = int | str | None  # a version, or CGDATE/STEP: after that step (e.g. 19PM/9.616)
COMMAND_EVENTS = 256  # more events than any one command records (an advance: a few dozen)
STEP_POINT = re.compile(r"^(?P<date>[^/\s]{1,12})/(?P<step>[^/\s]{1,20})$")
STEP_EXAMPLE = "e.g. 14AM/3.617 (PBr) or 19PM/9.616 (ABtF)"  # said by every refusal of one
RUNNER_CONNECT_TIMEOUT = 3  # seconds the projection runner waits for a connection


def parse_point(text: str | int | None, field: str = "as_of") -> int | tuple[str, str] | None:
    """A point of the campaign: a version, or `CGDATE/STEP` (e.g. `19PM/9.616`)."""
    if text is None or isinstance(text, int):
        return text
    if digits(text):
        return int(text)
    found = STEP_POINT.match(text)
    if found is None:
        raise InvalidCommand(f"{text!r} is neither a version nor CGDATE/STEP, {STEP_EXAMPLE}",
                             field=field)
    return found["date"], found["step"]


def step_row(rows: RowSource, date: str, step: str) -> dict[str, Any] | None:
    """The row of a step done on a CG Date (the versions it began and ended at)."""
    return next((row for row in rows.select_rows(STEP)
                 if (row["cg_date"], row["step"]) == (date, step)), None)


def check_as_of(as_of: int | None, head: int) -> None:
    """An `as_of` names a version of the campaign: 1 to its head."""
    if as_of is not None and not 1 <= as_of <= head:
        raise InvalidCommand(f"as_of is a version from 1 to {head} (the head)", field="as_of")


class Views:
    """The campaigns' materialized view, read your writes, and rows as of any point."""

    def __init__(self, store: CampaignStore) -> None:
        self.store = store
        self.runner: SupervisedRunner | None = None
        if store.settings.projection_runner:
            # Restarted after a database error, from the view's tracking position.
            self.runner = SupervisedRunner(self._start_runner, CampaignLog.name)

    def _start_runner(self) -> ElectedRunner:
        """The projection runner of this database, if elected: it folds new events in
        batches as their NOTIFY comes (infra/election.py); on SQLite, every process's
        own, looking at the log's head a few times a second."""
        env = self.store.settings.eventsourcing_env()
        if backend_of(self.store.settings.database_url) != "postgres":
            view_class = view_class_for(env.get("PERSISTENCE_MODULE") or "")
            return local_runner(env, self._sealed(view_class), self.rows_at)
        # Three connections (not a pool of REFIT_POOL_SIZE): the lock's and LISTEN's, one
        # for the log and the view, and one for the batch read ahead (projections/prefetch.py).
        env |= {"POSTGRES_POOL_SIZE": "3",
                # A connection waited for 3 s, not 10: eventsourcing tries a read 10 times,
                # so through an outage the runner meets it within about 30 s (not 100)
                # and its supervisor says so and starts it again.
                "POSTGRES_CONNECT_TIMEOUT": str(RUNNER_CONNECT_TIMEOUT)}
        # An undo turns the view back to rows as of a version: the runner reads them here.
        view_class = view_class_for("eventsourcing.postgres")
        return elected_runner(env, self._sealed(view_class), self.rows_at)

    def _sealed(self, view_class: type[Any]) -> type[Any]:
        """The view class with this service's seal: its rows and checkpoints are MACed."""
        return type(view_class.__name__, (view_class,), {"seal": self.store.seal})

    def close(self) -> None:
        """Stop the runner (if any) and close its stores."""
        if self.runner is not None:
            self.runner.close()

    @cached_property
    def projection(self) -> CampaignProjection:
        """The projection and its materialized view, in the same database as the events."""
        view_class = view_class_for(self.store.env.get("PERSISTENCE_MODULE") or "")
        view = self.store.factory.tracking_recorder(self._sealed(view_class))
        view.events_table = self.store.recorder.events_table_name  # type: ignore[attr-defined]
        return CampaignProjection(cast(ProjectionView, view), reader=self.rows_at)

    @property
    def view(self) -> ProjectionView:
        """The materialized view."""
        return self.projection.view

    def catch_up(self) -> int:
        """Fold the events the view has not tracked yet."""
        return catch_up(self.store, self.projection)

    def up_to_date(self) -> None:
        """The whole view at the log's head (for reads of every campaign: listings,
        verify): the runner's work, waited for up to REFIT_READ_WAIT seconds; what it has
        not folded by then (or with no runner) is folded here. Beside a runner, catch-up's
        batches are refused where it moved the view on, so none is folded twice."""
        if self.runner is not None and self.runner.wait(
                self.store.recorder.max_notification_id(), self.store.settings.read_wait):
            return
        self.catch_up()

    def head(self, campaign_id: UUID) -> int:
        """A campaign's last version in the store: one row by its index, nothing decoded
        (CampaignNotFound if it has none)."""
        found = self.store.recorder.select_events(campaign_id, desc=True, limit=1)
        if not found:
            raise CampaignNotFound(f"no campaign {campaign_id}")
        return found[0].originator_version

    def live(self, campaign_id: UUID) -> RowSource:
        """A campaign's rows at its head, read your writes: the view's, if it has folded
        the campaign's last event; else the view's rows of this campaign with its own
        missing events folded on in memory (never another campaign's, never a wait)."""
        campaign = str(campaign_id)
        try:  # the head and the meta row in one statement: a read is a few trips in all
            head, meta = self.view.select_meta_at_head(campaign)
        except RowUnsealed:
            self.head(campaign_id)  # an unknown campaign is named as such, sealed or not
            return self.renewed(campaign_id)
        if head is None:
            raise CampaignNotFound(f"no campaign {campaign_id}")
        if meta and quarantined(meta[0]) is not None:
            return self.mended(campaign_id)
        if meta and meta[0]["version"] >= head:
            return _ViewRows(self.view, campaign, self.renewed, meta)
        return self.caught_up(campaign_id, head)

    def caught_up(self, campaign_id: UUID, head: int) -> RowSource:
        """The view's rows of one campaign (read in one statement) with its events after
        them, up to `head`, folded on in memory (projections/campaign_catchup.py)."""
        campaign = str(campaign_id)
        try:
            stored = self.view.select_campaign(campaign)
        except RowUnsealed:
            return self.renewed(campaign_id)
        if is_quarantined(stored):
            return self.mended(campaign_id)
        if stored_version(stored) is None:  # not in the view yet: from its checkpoints
            return self.rows_at(campaign_id, head)
        rows = caught_up(campaign, stored,
                         lambda start: self.store.records(campaign_id, gt=start, lte=head))
        return rows if rows is not None else self.rows_at(campaign_id, head)

    def rows_at(self, campaign_id: UUID, version: int) -> MemoryRows:
        """A campaign's rows as of a version: folded in memory from the latest checkpoint
        before it (the view keeps them as it folds, see `spacing`), or from the start
        (leaving checkpoints on the way)."""
        view, campaign, records = self.view, str(campaign_id), self.store.records
        limit = version
        with collector_paused():
            while (found := view.select_checkpoint(campaign, limit)) is not None:
                start, data = found
                history = list(records(campaign_id, lte=version, gt=start))
                rows = fold_onto(MemoryRows.load(data), start, history)
                if rows is not None:
                    return rows
                # An undo among them turns back past the checkpoint: start before its target.
                limit = min(r["data"]["to_version"] for r in history if r["type"] == "Undone")
            rows = fold_onto(MemoryRows(), 0, list(records(campaign_id, lte=version)),
                             spaced(lambda at, now: view.insert_checkpoint(campaign, at,
                                                                           now.dump())))
        assert rows is not None
        return rows

    def rows(self, campaign_id: UUID, as_of: Point = None) -> RowSource:
        """A campaign's projection rows: live from the view, or folded as of a point."""
        version = self.checked_version(campaign_id, as_of)
        return self.live(campaign_id) if version is None else self.rows_at(campaign_id, version)

    def checked_version(self, campaign_id: UUID, as_of: Point) -> int | None:
        """The version an `as_of` names (None: now), refused past the campaign's head."""
        version = self.version_at(campaign_id, as_of)
        if version is not None:
            check_as_of(version, self.store.campaign(campaign_id).version)
        return version

    def mended(self, campaign_id: UUID) -> RowSource:
        """The rows of a campaign the view quarantined (an event it could not read), folded
        from its events if they read now (mended from a backup); else HistoryUnreadable at
        the version. Its cached copy may predate the damage: it is dropped, so commands
        read the store and are refused too."""
        self.store.forget(campaign_id)
        campaign = self.store.campaign(campaign_id)
        return self.rows_at(campaign_id, campaign.version)

    def rows_now(self, campaign_id: UUID) -> RowSource:
        """The rows as of the head, folded from the log (with its checkpoints), not read
        from the view: they hold every step even if the view was folded by an older Refit
        that did not keep steps."""
        return self.rows_at(campaign_id, self.store.campaign(campaign_id).version)

    def renewed(self, campaign_id: UUID) -> RowSource:
        """A campaign's rows as of its head, folded from the events, written back to the
        view in place of rows whose seal failed (unless the view has moved on since)."""
        version = self.store.campaign(campaign_id).version
        rows = self.rows_at(campaign_id, version)
        campaign = str(campaign_id)
        if self.view.renew(campaign, encode({(campaign, kind, key): value for (kind, key), value
                                            in rows.rows.items()}), version):
            log.warning("the view rows of campaign %s were written afresh from its events",
                        campaign)
        return rows

    def all_meta(self) -> list[RowSource]:
        """Every campaign's meta row, one source each (for listings)."""
        self.up_to_date()
        unsealed: list[str] = []
        metas = self.view.select_all(META, unsealed)
        found: list[RowSource] = [_OneRow(meta) for meta in metas if quarantined(meta) is None]
        found += [_OneRow(rows.select_rows(META)[0]) for meta in metas
                  if quarantined(meta) is not None
                  and (rows := self._if_mended(UUID(meta[UNREADABLE]["campaign"])))]
        # A campaign whose meta row's seal fails is listed as its events say.
        return found + [_OneRow(self.renewed(UUID(c)).select_rows(META)[0]) for c in unsealed]

    def damaged_meta(self) -> list[RowSource]:
        """The meta rows of campaigns the fold quarantined and no mend reads again, as
        they stood before the event that cannot be read (the dashboard lists them,
        flagged; the admin's JSON list leaves them out); none damaged at its first."""
        self.up_to_date()
        return [_OneRow(meta) for meta in self.view.select_all(META, [])
                if quarantined(meta) is not None and "name" in meta
                and self._if_mended(UUID(meta[UNREADABLE]["campaign"])) is None]

    def _if_mended(self, campaign_id: UUID) -> RowSource | None:
        """A quarantined campaign's rows if it reads now, else None (its reads say why)."""
        try:
            return self.mended(campaign_id)
        except HistoryUnreadable:
            return None

    def version_at(self, campaign_id: UUID, point: Point, field: str = "as_of") -> int | None:
        """The version a point names: after step STEP of CG Date DATE is the last version
        of the advance that left it (the point an undo `--to-step` returns to, too)."""
        found = parse_point(point, field)
        if found is None or isinstance(found, int):
            return found
        rows = self.rows_now(campaign_id)
        row = step_row(rows, *found)
        if row is None:
            meta = rows.select_rows(META)[0]
            if (meta["cg_date"], meta["step"]) == found:
                raise InvalidCommand(f"{step_named(found[1])} of {found[0]} is not over yet",
                                     field=field)
            dates = list(dict.fromkeys([*(r["cg_date"] for r in rows.select_rows(STEP)),
                                        meta["cg_date"]]))
            if found[0] not in dates:
                raise InvalidCommand(f"the campaign has not reached CG Date {found[0]} (its "
                                     f"CG Dates so far: {', '.join(dates)})", field=field)
            raise InvalidCommand(f"the campaign has not done {step_named(found[1])} of "
                                 f"{found[0]}", field=field)
        return self.command_span(campaign_id, cast(int, row["left"]))[1]

    def command_span(self, campaign_id: UUID, version: int) -> tuple[int, int]:
        """The first and last versions of the command that recorded `version`: its events
        share one timestamp (Campaign._record; each event stored before they did counts
        as a command of its own)."""
        stamps: dict[int, str] = {}
        low, high = max(1, version - COMMAND_EVENTS), version + COMMAND_EVENTS
        first = last = version
        while True:  # versions low..high, wider each time, until the instant changes
            stamps |= {r["version"]: r["timestamp"]
                       for r in self.store.records(campaign_id, gt=low - 1, lte=high)}
            while first - 1 in stamps and stamps[first - 1] == stamps[version]:
                first -= 1
            while last + 1 in stamps and stamps[last + 1] == stamps[version]:
                last += 1
            # Ended below at the first version or another instant; above, at the head (a
            # version short of `high` with none after it) or another instant.
            if (first == 1 or first - 1 in stamps) and (last < high or last + 1 in stamps):
                return first, last
            low, high = max(1, low - COMMAND_EVENTS), high + COMMAND_EVENTS


class _ViewRows:
    """One campaign's rows in the materialized view; once a row's seal fails, its rows
    folded from the events instead (the view is a cache: it never changes an answer)."""

    def __init__(self, view: ProjectionView, campaign: str,
                 folded: Callable[[UUID], RowSource],
                 meta: list[dict[str, Any]] | None = None) -> None:
        self.view, self.campaign, self.folded = view, campaign, folded
        self.fallback: RowSource | None = None
        self.meta = meta  # the meta rows read to see the view is at the head: not read again

    def select_rows(self, kind: str) -> list[dict[str, Any]]:
        if kind == META and self.meta is not None:
            return self.meta
        if self.fallback is None:
            try:
                return self.view.select_rows(self.campaign, kind)
            except RowUnsealed:
                self.fallback = self.folded(UUID(self.campaign))
        return self.fallback.select_rows(kind)

    def select_last_rows(self, kind: str, count: int) -> list[dict[str, Any]]:
        if self.fallback is None:
            try:
                return self.view.select_last_rows(self.campaign, kind, count)
            except RowUnsealed:
                self.fallback = self.folded(UUID(self.campaign))
        return self.fallback.select_rows(kind)[-count:]


class _OneRow:
    """A campaign's meta row alone, for listings."""

    def __init__(self, meta: dict[str, Any]) -> None:
        self.meta = meta

    def select_rows(self, kind: str) -> list[dict[str, Any]]:
        return [self.meta] if kind == META else []

