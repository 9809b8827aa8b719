"""The service layer: one eventsourcing Application whose methods are Refit's use cases."""

from __future__ import annotations

import contextlib
import copy
import logging
import random
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import IntegrityError, JSONTranscoder, Mapper
from eventsourcing.projection import ProjectionRunner

from domain import commands as cmd
from domain.campaign import Campaign, CampaignEvent, token_hash
from domain.campaign.part import part_transcodings
from domain.errors import CampaignNotFound, InvalidCommand, RefitError, RuleViolation
from domain.hashing import sha256_hex
from domain.history import record_hash, redacted
from domain.rules import Module
from domain.verify import VerifyReport, verify_records
from infra.audit import AuditUseCases
from infra.mapper import LedgerMapper
from infra.modules import load_modules
from infra.settings import Settings
from infra.store_lock import CampaignBusy, StoreLock
from infra.transfer import TransferUseCases
from projections import read
from projections.read import RowSource
from projections.runner import (
    CampaignLog,
    CampaignProjection,
    MemoryRows,
    catch_up,
    collector_paused,
    fold_onto,
    spaced,
)
from projections.view import PostgresProjectionView, ProjectionView, view_class_for

log = logging.getLogger(__name__)
MAX_RETRIES = 10
Point = int | str | None  # a version, or CGDATE/STEP: after that step (e.g. 19PM/9.616)


@dataclass(frozen=True)
class CommandResult:
    """What a command appended: the new version, head hash and event records."""

    version: int
    head_hash: str
    events: list[dict[str, Any]]
    ended: bool = False  # the CG has ended: every secret is open
    actor: str = ""  # who the command ran as (its role, when authorized)


@dataclass(frozen=True)
class Tokens:
    """A campaign's role tokens, shown once at creation."""

    director: str
    observer: str
    sides: dict[str, str]

    def by_role(self) -> dict[str, str]:
        """Role name -> token (a side's role is its name)."""
        return {"director": self.director, "observer": self.observer} | self.sides


def backoff(attempt: int) -> float:
    """Seconds before retry `attempt`: exponential with full jitter, so writers in other
    processes racing on one campaign fall out of step (at most about 0.25 s)."""
    return random.uniform(0, min(0.25, 0.001 * 2 ** attempt))


def _check_as_of(as_of: int | None, head: int) -> None:
    """An `as_of` names a version of the campaign: 1 to its head."""
    if as_of is not None and not 1 <= as_of <= head:
        raise InvalidCommand(f"as_of is a version from 1 to {head} (the head)", field="as_of")


class _Lock:
    """A campaign's command lock (a class, so the lock map can hold it weakly)."""

    def __init__(self, wait: float) -> None:
        self._lock = threading.Lock()
        self.wait = wait

    def __enter__(self) -> None:
        if not self._lock.acquire(timeout=self.wait):
            raise CampaignBusy(f"another command has held this campaign for {self.wait:g} s; "
                               "try again")

    def __exit__(self, *_: object) -> None:
        self._lock.release()


def new_token() -> str:
    """A bearer token: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


class ViewBehind(RefitError):
    """The projection runner has not reached the ledger's head in time (503)."""

    code = "view_behind"


class VersionConflict(RuleViolation):
    """The campaign moved on since the version the caller expected."""

    code = "conflict"


def _expect(campaign: Campaign, expected_version: int | None) -> None:
    """If-Match: refuse a command sent for another version of the campaign (409)."""
    if expected_version is not None and campaign.version != expected_version:
        raise VersionConflict(f"campaign is at version {campaign.version}, not "
                              f"{expected_version}")


class Refit(AuditUseCases, TransferUseCases, Application[UUID]):
    """Campaign ledgers: create, command, read history, verify."""

    name = "refit"
    is_snapshotting_enabled = True  # eventsourcing's snapshot store; see _snapshot_if_due

    def __init__(self, settings: Settings | None = None,
                 modules: dict[str, Module] | None = None) -> None:
        self.settings = conf = settings or Settings()
        super().__init__(self.settings.eventsourcing_env())
        self.modules = modules if modules is not None else load_modules(
            self.settings.module_dir)
        self._locks: weakref.WeakValueDictionary[UUID, _Lock] = weakref.WeakValueDictionary()
        self._locks_guard = threading.Lock()
        postgres = self.env.get("PERSISTENCE_MODULE") == "eventsourcing.postgres"
        self.store_lock = StoreLock(self.env, conf.pool_size + conf.max_overflow,
                                    conf.turn_wait) \
            if conf.shared_database and postgres else None
        self.runner: ProjectionRunner[Any, Any] | None = None
        self._runner_stack = contextlib.ExitStack()
        if self.settings.projection_runner:
            self.runner = self._start_runner()

    def _start_runner(self) -> ProjectionRunner[Any, Any]:
        """eventsourcing's projection runner, folding new events as they are notified."""
        env = self.settings.eventsourcing_env()
        if env["PERSISTENCE_MODULE"] != "eventsourcing.postgres":
            raise InvalidCommand("the projection runner needs PostgreSQL (REFIT_DATABASE_URL)",
                                 field="projection_runner")
        # One thread folds, and reads poll its position: a connection each, at rest, rather
        # than a pool of REFIT_POOL_SIZE for the runner's log and another for its view.
        env |= {"POSTGRES_POOL_SIZE": "1"}
        # An undo turns the view back to rows as of a version: the runner reads them here.
        bound = type("BoundProjection", (CampaignProjection,),
                     {"name": CampaignProjection.name, "reader": staticmethod(self.rows_at)})
        runner = ProjectionRunner(application_class=CampaignLog, projection_class=bound,
                                  view_class=PostgresProjectionView, env=env)
        # Closed in turn: the runner's threads and log (its exit), then its view's pool,
        # which that exit leaves open.
        self._runner_stack.callback(runner.view.datastore.close)
        return self._runner_stack.enter_context(runner)

    def close(self) -> None:
        """Stop the runner (if any) and close its stores, then this application's."""
        try:
            self._runner_stack.close()
        finally:
            if self.store_lock is not None:
                self.store_lock.close()
            super().close()

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        """eventsourcing's, and the campaign's parts (in snapshots and undos)."""
        super().register_transcodings(transcoder)
        for transcoding in part_transcodings():
            transcoder.register(transcoding)

    def construct_mapper(self) -> Mapper[UUID]:
        """eventsourcing's mapper, storing no empty idempotency envelope."""
        return self.factory.mapper(transcoder=self.construct_transcoder(),
                                   mapper_class=LedgerMapper)

    def module(self, module_id: str) -> Module:
        """A registered module by id (abtf, pbr, kgp, ...)."""
        if module_id not in self.modules:
            raise InvalidCommand(f"no module {module_id!r}; modules: {sorted(self.modules)}",
                                 field="module")
        return self.modules[module_id]

    def create_campaign(self, module: str, cg: str, name: str, dice: str = "server",
                        actor: str = "admin", start_date: str | None = None,
                        balance: str | None = None) -> Campaign:
        """Start a campaign of a module's CG (with the CG Balance to one side, KGP 8.31)."""
        return self.open_campaign(module, cg, name, dice, actor, start_date, balance)[0]

    def open_campaign(self, module: str, cg: str, name: str, dice: str = "server",
                      actor: str = "admin", start_date: str | None = None,
                      balance: str | None = None) -> tuple[Campaign, Tokens]:
        """Start a campaign and issue its role tokens (returned once, kept as hashes)."""
        rules = self.module(module)
        tokens = Tokens(director=new_token(), observer=new_token(),
                        sides={side: new_token() for side in rules.sides})
        campaign = Campaign.start(rules, cg, name, dice, actor, start_date, balance,
                                  {role: token_hash(t) for role, t in tokens.by_role().items()})
        self.save(campaign)
        return campaign, tokens

    def replace_token(self, campaign_id: UUID, role: str, actor: str) -> str:
        """A new token for a role (the director's remedy for a lost one); the old one dies."""
        token = new_token()
        self.run(campaign_id, lambda c: c.replace_token(role, token_hash(token), actor))
        return token

    def run(self, campaign_id: UUID, act: Callable[[Campaign], None],
            expected_version: int | None = None) -> CommandResult:
        """Do `act` to the campaign and save what it recorded, under the campaign's lock;
        on a concurrent write from another process, again on the fresh state (bounded)."""
        def acted(campaign: Campaign) -> str:
            _expect(campaign, expected_version)
            act(campaign)
            return ""
        with self._turn(campaign_id):
            return self._attempts(campaign_id, acted)

    def _attempts(self, campaign_id: UUID,
                  act: Callable[[Campaign], str | CommandResult]) -> CommandResult:
        """Run `act` on the campaign (it checks If-Match itself, after an Idempotency-Key's
        repeat has had its answer) and save it. The first try runs on the cached copy (no
        read of the store) unless other processes share the database; a conflict on
        saving, or a refusal on a copy another process has moved past, tries again on the
        campaign read afresh."""
        fresh = self.settings.shared_database
        for attempt in range(MAX_RETRIES):
            if attempt and fresh:
                time.sleep(backoff(attempt))
            campaign = self.campaign(campaign_id, fresh=fresh)
            try:
                actor = act(campaign)
                if isinstance(actor, CommandResult):
                    if not fresh and self._behind(campaign):
                        fresh = True  # answered from a stale copy: answer from the store
                        continue
                    return actor
                recordings = self.save(campaign)
            except RefitError:
                if not fresh and self._behind(campaign):
                    fresh = True  # refused on a stale copy: decide on the stored campaign
                    continue
                raise
            except IntegrityError:
                # Another command was appended first: try again on the stored campaign, where
                # an If-Match now fails (409) unless this was its Idempotency-Key's repeat.
                self._forget(campaign_id)
                fresh = True
                continue
            return self._result(campaign, recordings, actor)
        raise VersionConflict(f"still conflicting after {MAX_RETRIES} tries")

    def save(self, *objs: Any, **kwargs: Any) -> list[Any]:
        """eventsourcing's save; then a snapshot of each campaign saved that is due one."""
        recordings = super().save(*objs, **kwargs)
        for saved in objs:
            if not isinstance(saved, Campaign):
                continue
            try:
                self._snapshot_if_due(saved, sum(
                    1 for r in recordings if r.domain_event.originator_id == saved.id))
            except Exception:  # the events are saved: a snapshot only spares a replay
                log.warning("no snapshot of campaign %s at version %s", saved.id,
                            saved.version, exc_info=True)
        return recordings

    def _snapshot_if_due(self, campaign: Campaign, appended: int) -> None:
        """A snapshot of the campaign just saved, once it passes a multiple of the snapshot
        interval. eventsourcing's own (`snapshotting_intervals`) would read the campaign
        back from the store and replay it, holding the command's thread for as long."""
        interval = self.settings.snapshot_interval
        if self.snapshots is not None and \
                campaign.version // interval > (campaign.version - appended) // interval:
            self.snapshots.put([Campaign.Snapshot.take(campaign)])

    def _behind(self, campaign: Campaign) -> bool:
        """Whether the store holds events this copy of the campaign has not seen."""
        return bool(self.recorder.select_events(campaign.id, gt=campaign.version, limit=1))

    def _forget(self, campaign_id: UUID) -> None:
        """Drop a cached campaign that another process has moved past."""
        if self.repository.cache is not None:
            with contextlib.suppress(KeyError):
                self.repository.cache.get(campaign_id, evict=True)

    @staticmethod
    def _result(campaign: Campaign, recordings: list[Any], actor: str) -> CommandResult:
        events = [r.domain_event.record() for r in recordings
                  if isinstance(r.domain_event, CampaignEvent)]
        return CommandResult(campaign.version, campaign.head_hash, events,
                             campaign.reph.phase == "ended", actor)

    def campaign(self, campaign_id: UUID, version: int | None = None,
                 fresh: bool = True) -> Campaign:
        """The campaign as it stands (or stood at `version`). This process caches
        campaigns without reading the store for each use (another process may have
        appended since); `fresh` reads what was appended since the cached copy."""
        try:
            campaign: Campaign = self.repository.get(campaign_id, version=version)
        except AggregateNotFoundError:
            raise CampaignNotFound(f"no campaign {campaign_id}") from None
        if version is None and fresh and self.repository.cache is not None:
            newer = list(self.events.get(campaign_id, gt=campaign.version))
            for event in newer:
                campaign = cast(CampaignEvent, event).mutate(campaign)
            if newer:
                self._cache_newer(campaign)
        module = self.modules.get(campaign.module_id)
        if module is not None:  # else it is read, and refuses commands naming its module
            campaign.bind(module)
        return campaign

    def _cache_newer(self, campaign: Campaign) -> None:
        """Keep a copy of a campaign read afresh, unless the cache already holds as new."""
        cache = self.repository.cache
        assert cache is not None
        with self._locks_guard:
            try:
                held = cache.get(campaign.id)
            except KeyError:
                held = None
            if held is None or held.version < campaign.version:
                cache.put(campaign.id, copy.deepcopy(campaign))

    def execute(self, campaign_id: UUID, command: cmd.Command, actor: str,
                expected_version: int | None = None,
                idempotency_key: str | None = None,
                authorize: Callable[[Campaign], str] | None = None) -> CommandResult:
        """Run one command; on a concurrent write, retry on the fresh state (bounded). A
        repeated Idempotency-Key answers the first answer and appends nothing."""
        digest = sha256_hex(command.model_dump_json().encode())

        def act(campaign: Campaign) -> str | CommandResult:
            role = actor if authorize is None else authorize(campaign)  # never stale state
            # A key is the caller's own: another role's keys neither answer nor block it.
            key = None if idempotency_key is None else f"{role}\x1f{idempotency_key}"
            if key is not None and key in campaign.access.idempotency:
                return self._first_answer(campaign_id, campaign, key, digest, role)
            _expect(campaign, expected_version)  # a repeat's If-Match was the first's
            campaign.execute(command, role, None if key is None else (key, digest))
            return role
        # One command at a time per campaign in this process (others never wait on it):
        # the retries are then only for writers in other processes.
        with self._turn(campaign_id):
            return self._attempts(campaign_id, act)

    @contextlib.contextmanager
    def _turn(self, campaign_id: UUID) -> Iterator[None]:
        """The campaign's turn for a command: in this process, and (when the database is
        shared) across processes."""
        with self._campaign_lock(campaign_id):
            if self.store_lock is None:
                yield
                return
            with self.store_lock.hold(campaign_id):
                yield

    def _campaign_lock(self, campaign_id: UUID) -> _Lock:
        with self._locks_guard:  # a lock lives while a command holds it: the map stays small
            lock = self._locks.get(campaign_id)
            if lock is None:
                lock = self._locks[campaign_id] = _Lock(self.settings.turn_wait)
            return lock

    def _first_answer(self, campaign_id: UUID, campaign: Campaign, key: str,
                      digest: str, actor: str) -> CommandResult:
        seen = campaign.access.idempotency[key]
        if seen["digest"] != digest:
            raise InvalidCommand("this Idempotency-Key came with another command",
                                 field="Idempotency-Key")
        events = [r for r in self.records(campaign_id, lte=seen["last"])
                  if r["version"] >= seen["first"]]
        return CommandResult(seen["last"], record_hash(events[-1]), events,
                             campaign.reph.phase == "ended", actor)

    def records(self, campaign_id: UUID, lte: int | None = None,
                gt: int = 0) -> Iterator[dict[str, Any]]:
        """The campaign's history records, oldest first (after `gt`, up to `lte`)."""
        found = False
        for record, _ in self.stored_records(campaign_id, lte=lte, gt=gt):
            found = True
            yield record
        if not found and not gt:
            raise CampaignNotFound(f"no campaign {campaign_id}")

    def history(self, campaign_id: UUID, viewer: str | None = None,
                lte: int | None = None) -> Iterator[dict[str, Any]]:
        """The event log as a viewer may read it: another side's secrets redacted (they
        still verify), all open at CG End; `viewer` None is the director."""
        state = self.campaign(campaign_id)
        _check_as_of(lte, state.version)
        yield from redacted(self.records(campaign_id, lte), viewer,
                            state.reph.phase == "ended")

    def verify(self, campaign_id: UUID, viewer: str | None = None) -> VerifyReport:
        """Recompute the hash chain and every server roll whose seed is revealed: of the
        history as the viewer reads it (so a finding never names another side's secret).

        A stored event too damaged to read is reported at its version, not raised.
        """
        damaged: list[tuple[int, str]] = []
        records = self._readable(campaign_id, damaged)
        if viewer is not None:
            records = redacted(records, viewer,
                               self.campaign(campaign_id).reph.phase == "ended")
        report = verify_records(records)
        if report.events == 0 and not damaged:
            raise CampaignNotFound(f"no campaign {campaign_id}")
        if damaged:
            version, why = damaged[0]
            if report.first_bad_version is None or version <= report.first_bad_version:
                return VerifyReport(False, report.events, report.rolls_verified, version,
                                    report.head_hash, f"version {version} cannot be read: {why}")
        return report

    def _readable(self, campaign_id: UUID,
                  damaged: list[tuple[int, str]]) -> Iterator[dict[str, Any]]:
        """History records until one cannot be read; that one is noted in `damaged`."""
        events, last = iter(self.events.get(campaign_id)), 0
        while True:
            try:
                event = cast(CampaignEvent, next(events))
                record = event.record()
            except StopIteration:
                return
            except Exception as error:  # any damage at all is the finding, not a crash
                damaged.append((last + 1, str(error)))
                return
            last = event.originator_version
            yield record

    # -- projections (read-your-writes: the view catches up before every read) --

    @cached_property
    def projection(self) -> CampaignProjection:
        """The projection and its materialized view, in the same database as the events."""
        view_class = view_class_for(self.env.get("PERSISTENCE_MODULE") or "")
        view = self.factory.tracking_recorder(view_class)
        return CampaignProjection(cast(ProjectionView, view), reader=self.rows_at)

    @property
    def view(self) -> ProjectionView:
        """The materialized view."""
        return self.projection.view

    def catch_up(self) -> int:
        """Fold the events the view has not tracked yet."""
        return catch_up(self, self.projection)

    def _view_up_to_date(self) -> None:
        """Read your writes: fold what is missing, or wait for the runner to (a 503 if it
        does not within REFIT_READ_WAIT seconds)."""
        if self.runner is None:
            self.catch_up()
            return
        head = self.recorder.max_notification_id()
        with contextlib.suppress(TimeoutError):  # answered just below, as a 503
            self.runner.wait(head, timeout=self.settings.read_wait)
        if head is not None and (self.runner.view.max_tracking_id("refit") or 0) < head:
            raise ViewBehind(f"the projections are more than {self.settings.read_wait} s "
                             "behind the ledger; try again")

    def rows_at(self, campaign_id: UUID, version: int) -> MemoryRows:
        """A campaign's rows as of a version: folded in memory from the latest checkpoint
        before it (the view keeps them as it folds, see `spacing`), or from the start
        (leaving checkpoints on the way)."""
        view, campaign = self.view, str(campaign_id)
        limit = version
        with collector_paused():
            while (found := view.select_checkpoint(campaign, limit)) is not None:
                start, data = found
                history = list(self.records(campaign_id, lte=version, gt=start))
                rows = fold_onto(MemoryRows.load(data), start, history)
                if rows is not None:
                    return rows
                # An undo among them turns back past the checkpoint: start before its target.
                limit = min(r["data"]["to_version"] for r in history if r["type"] == "Undone")
            rows = fold_onto(MemoryRows(), 0, list(self.records(campaign_id, lte=version)),
                             spaced(lambda at, now: view.insert_checkpoint(campaign, at,
                                                                           now.dump())))
        assert rows is not None
        return rows

    def rows(self, campaign_id: UUID, as_of: Point = None) -> RowSource:
        """A campaign's projection rows: live from the view, or folded as of a version."""
        version = self.as_of(campaign_id, as_of) if isinstance(as_of, str) else as_of
        if version is not None:
            _check_as_of(version, self.campaign(campaign_id).version)
            if self.runner is None:
                self.catch_up()  # the view's checkpoints up to the head
            return self.rows_at(campaign_id, version)
        self._view_up_to_date()
        source = _ViewRows(self.view, str(campaign_id))
        if not source.select_rows("meta"):
            raise CampaignNotFound(f"no campaign {campaign_id}")
        return source

    def campaigns(self) -> list[read.CampaignStatus]:
        """Every campaign, one line each."""
        self._view_up_to_date()
        return [read.status(_OneRow(meta)) for meta in self.view.select_all("meta")]

    def status(self, campaign_id: UUID, as_of: Point = None,
               viewer: str | None = None) -> read.CampaignStatus:
        """Where the campaign stands, and the rolls its RePh step still waits for."""
        answer = read.status(self.rows(campaign_id, as_of), viewer)
        state = self.campaign(campaign_id, version=answer.version)
        answer.head_hash = state.head_hash
        module = state.rules
        answer.to_roll = [  # an RG's own rolls are its side's secret (9.617)
            f"{table} {side}" + (f" for RG #{number}" if number is not None else "")
            for table, side, number in state.missing_rolls()
            if number is None or viewer in (None, side)]
        answer.entry_areas = {side: module.eligible_entry_areas(side, state.reph.cg_date)
                              for side in state.sides if module.entry_areas}
        return answer

    def lvp(self, campaign_id: UUID, as_of: Point = None) -> list[read.LVPRow]:
        """LVP totals at each CG-Scenario End (KGP 8.2)."""
        return read.lvp(self.rows(campaign_id, as_of))

    def objectives(self, campaign_id: UUID, as_of: Point = None,
                   viewer: str | None = None) -> list[read.ObjectiveRow]:
        """Objective Hexes (KGP 8.6198), secret to their side until revealed."""
        return read.objectives(self.rows(campaign_id, as_of), viewer)

    def holding(self, campaign_id: UUID, as_of: Point = None,
                viewer: str | None = None) -> list[dict[str, Any]]:
        """Holding Box entries (KGP 8.15), each side's own."""
        return read.holding(self.rows(campaign_id, as_of), viewer)

    def roster(self, campaign_id: UUID, as_of: Point = None,
               viewer: str | None = None) -> list[read.RosterRow]:
        """The CG Roster."""
        return read.roster(self.rows(campaign_id, as_of), viewer)

    def purchase_record(self, campaign_id: UUID, as_of: Point = None,
                        viewer: str | None = None) -> list[read.PurchaseRow]:
        """The RG Purchase Record."""
        return read.purchases(self.rows(campaign_id, as_of), viewer)

    def cvp(self, campaign_id: UUID, as_of: Point = None) -> read.CVPAnswer:
        """CVP per scenario and side."""
        return read.cvp(self.rows(campaign_id, as_of))

    def elr(self, campaign_id: UUID, as_of: Point = None) -> read.ELRAnswer:
        """ELR now and its changes."""
        return read.elr(self.rows(campaign_id, as_of))

    def paper_forms(self, campaign_id: UUID, as_of: Point = None,
                    viewer: str | None = None) -> read.PaperForms:
        """The paper forms' contents (CG Roster, RG Purchase Record, CVP, ELR), read once."""
        return read.paper_forms(self.rows(campaign_id, as_of), viewer)

    def san(self, campaign_id: UUID, as_of: Point = None) -> list[read.RatingChange]:
        """SAN changes with their causes."""
        return read.san(self.rows(campaign_id, as_of))

    def control(self, campaign_id: UUID, as_of: Point = None) -> list[dict[str, Any]]:
        """Who controls each Location whose control was recorded."""
        return read.control(self.rows(campaign_id, as_of))

    def rolls(self, campaign_id: UUID, as_of: Point = None,
              viewer: str | None = None) -> list[read.RollRow]:
        """Every roll."""
        return read.rolls(self.rows(campaign_id, as_of), viewer)


class _ViewRows:
    """One campaign's rows in the materialized view."""

    def __init__(self, view: ProjectionView, campaign: str) -> None:
        self.view, self.campaign = view, campaign

    def select_rows(self, kind: str) -> list[dict[str, Any]]:
        return self.view.select_rows(self.campaign, kind)


class _OneRow:
    """A campaign's meta row alone, for listings."""

    def __init__(self, meta: dict[str, Any]) -> None:
        self.meta = meta

    def select_rows(self, kind: str) -> list[dict[str, Any]]:
        return [self.meta] if kind == "meta" else []
