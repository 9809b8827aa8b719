"""The campaign store: eventsourcing's Application over the campaigns' event log, with
their snapshots, the rules modules they are bound to, and the log read a page at a time."""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import (
    EventStore,
    JSONTranscoder,
    Mapper,
    PersistenceError,
    StoredEvent,
    Transcoder,
)
from eventsourcing.sqlite import SQLiteApplicationRecorder

from domain.campaign import Campaign, CampaignEvent
from domain.campaign.access import Access
from domain.campaign.dice import DiceRolled
from domain.campaign.events import event_record
from domain.campaign.pinning import Binding, ModuleData, new_pins
from domain.errors import CampaignNotFound, HistoryUnreadable, InvalidCommand, RefitError
from domain.hashing import canonical, data_hash
from domain.rules import Module
from infra.at_rest import SealedDiceTranscoding, SeedCipher, private_database
from infra.drivers import database_errors
from infra.mapper import LedgerMapper, decoded, plain_fields
from infra.modules import load_modules, module_data, read_module_data
from infra.seal import CacheSeal, SealedSnapshots
from infra.settings import Settings
from infra.staging import Staging, sqlite_staging
from infra.transcoder import ShallowJSONTranscoder
from projections.runner import CampaignLog

log = logging.getLogger(__name__)
PAGE = 1000  # events read at a time: a campaign's history is read in constant memory


class CampaignStore(CampaignLog):
    """Campaign ledgers in one database (the log the projection runner reads, with its
    transcodings): saved with snapshots, loaded bound to their rules, read back as history
    records."""

    # Its tables' names (refit_events, refit_snapshots): eventsourcing gives a subclass its
    # class name unless it names itself, so the name is said again here.
    name = CampaignLog.name
    is_snapshotting_enabled = True  # eventsourcing's snapshot store; see _snapshot_if_due

    def __init__(self, settings: Settings, modules: dict[str, Module] | None = None) -> None:
        self.settings = settings
        self.seal = CacheSeal(settings)  # snapshots and views: caches, sealed
        self.seeds = SeedCipher(self.seal.keys)  # unrevealed seeds, encrypted at rest
        private_database(settings)  # 0600, before SQLite makes the file
        super().__init__(settings.eventsourcing_env())
        self.modules = modules if modules is not None else load_modules(settings.module_dir)
        self._cache_guard = threading.Lock()
        self._loaded: dict[str, ModuleData] = {}  # the loaded modules as data, by id
        self._pinned: dict[str, ModuleData] = {}  # data read back from the store, by hash
        # Told each campaign's new version once committed (the live streams: infra/notify.py).
        self.listeners: list[Callable[[UUID, int], None]] = []

    def construct_mapper(self) -> Mapper[UUID]:
        """eventsourcing's mapper, storing no empty idempotency envelope and no seed in
        plain text."""
        mapper = self.factory.mapper(transcoder=self.construct_transcoder(),
                                     mapper_class=LedgerMapper)
        cast(LedgerMapper, mapper).seeds = self.seeds
        return mapper

    def construct_transcoder(self) -> Transcoder:
        """eventsourcing's JSON transcoder, reading snapshots faster (infra/transcoder.py)."""
        transcoder = ShallowJSONTranscoder()
        self.register_transcodings(transcoder)
        return transcoder

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        """The log's, the dice part's replaced by one that seals its seed in snapshots."""
        super().register_transcodings(transcoder)
        transcoder.register(SealedDiceTranscoding(self.seeds))

    def construct_snapshot_store(self) -> EventStore[UUID]:
        """eventsourcing's snapshot store, each snapshot sealed (infra/seal.py): one that
        this service did not write is passed over, never trusted (a token check included)."""
        recorder = self.factory.aggregate_recorder(purpose="snapshots")
        return SealedSnapshots(self.mapper, recorder, self.seal)

    def reload_modules(self) -> None:
        """Read the rules modules again (an owner has installed a file). Campaigns keep
        the data they are pinned to; new campaigns, and upgrades, take the new data."""
        self.modules = load_modules(self.settings.module_dir)
        self._loaded = {}

    def module(self, module_id: str) -> Module:
        """A registered module by id (abtf, pbr, kgp, ...)."""
        if module_id not in self.modules:
            raise InvalidCommand(f"no module {module_id!r}; modules: {sorted(self.modules)}",
                                 field="module")
        return self.modules[module_id]

    def loaded_data(self, module_id: str) -> ModuleData:
        """A registered module as the data a new campaign (or an upgrade) pins."""
        found = self._loaded.get(module_id)
        if found is None or found.module is not self.module(module_id):
            found = self._loaded[module_id] = module_data(self.module(module_id))
        return found

    def stored_module_data(self, pin: str) -> str | None:
        """The module data stored for a hash, as stored (canonical JSON text), if any."""
        return cast(Any, self.recorder).select_module_data(pin)  # type: ignore[no-any-return]

    def binding(self, module_id: str, pin: str | None) -> Binding:
        """The data a campaign of this module pinned to `pin` plays (infra binds it)."""
        loaded = self.loaded_data(module_id) if module_id in self.modules else None
        if pin is None or (loaded is not None and loaded.hash == pin):
            return Binding(module_id, loaded if pin else None, loaded)
        pinned = self._pinned.get(pin)
        if pinned is None:
            text = self.stored_module_data(pin)
            doc = None if text is None else json.loads(text)
            if doc is None or data_hash(doc) != pin:
                why = "is missing from the store" if doc is None else "no longer hashes to its pin"
                return Binding(module_id, None, loaded,
                               f"the {module_id} module data this campaign is pinned to "
                               f"({pin[:12]}) {why}: see `refit verify`")
            pinned = self._pinned.setdefault(pin, read_module_data(pin, doc))
        problem = None if pinned.module is not None else (
            f"this release cannot read the {module_id} module data this campaign is pinned "
            f"to ({pin[:12]}): its director upgrades it (`upgrade_module`)")
        return Binding(module_id, pinned, loaded, problem)

    # -- saving -----------------------------------------------------------------

    def save(self, *objs: Any, **kwargs: Any) -> list[Any]:
        """eventsourcing's save; then a snapshot of each campaign saved that is due one."""
        pins = [data for saved in objs if isinstance(saved, Campaign)
                for data in new_pins(saved)]
        if pins:  # stored in the transaction of the events that pin them
            kwargs["module_data"] = [pin_row(data) for data in pins]
        recordings = super().save(*objs, **kwargs)
        for saved in objs:
            if not isinstance(saved, Campaign):
                continue
            self.tell(saved.id, saved.version)
            try:
                self._snapshot_if_due(saved, sum(
                    1 for r in recordings if r.domain_event.originator_id == saved.id))
            except Exception:  # the events are saved: a snapshot only spares a replay
                log.warning("no snapshot of campaign %s at version %s", saved.id,
                            saved.version, exc_info=True)
        return recordings

    def tell(self, campaign_id: UUID, version: int) -> None:
        """Tell the listeners that the campaign's `version` is committed."""
        for listener in self.listeners:
            listener(campaign_id, version)

    def _snapshot_if_due(self, campaign: Campaign, appended: int) -> None:
        """A snapshot of the campaign just saved, once it passes a multiple of the snapshot
        interval. eventsourcing's own (`snapshotting_intervals`) would read the campaign
        back from the store and replay it, holding the command's thread for as long."""
        interval = self.settings.snapshot_interval
        if campaign.version // interval > (campaign.version - appended) // interval:
            self.snapshot(campaign)

    def snapshot(self, campaign: Campaign) -> None:
        """Keep a snapshot of the campaign as it is."""
        if self.snapshots is not None:
            self.snapshots.put([Campaign.Snapshot.take(campaign)])

    def stored_snapshot(self, campaign: Campaign) -> StoredEvent:
        """A snapshot of the campaign as the snapshot store keeps it (sealed), for a write
        in a transaction of its own (an import's)."""
        return self.seal.seal(self.mapper.to_stored_event(Campaign.Snapshot.take(campaign)))

    def staged_import(self, campaign_id: UUID) -> contextlib.AbstractContextManager[Staging]:
        """An import's staging: its events staged as they come, then switched in with the
        module data they pin and the snapshot, all or nothing (infra/staging.py)."""
        assert self.snapshots is not None
        if isinstance(self.recorder, SQLiteApplicationRecorder):
            return sqlite_staging(self.recorder, self.snapshots.recorder, campaign_id,
                                  self.mapper)
        from infra.staging_postgres import postgres_staging  # psycopg only where it is used

        return postgres_staging(self.recorder, self.snapshots.recorder, campaign_id,
                                self.mapper)

    # -- loading ----------------------------------------------------------------

    def campaign(self, campaign_id: UUID, version: int | None = None,
                 fresh: bool = True) -> Campaign:
        """The campaign as it stands (or stood at `version`), bound to its rules. This
        process caches campaigns without reading the store for each use (another process
        may have appended since); `fresh` reads what was appended since the cached copy."""
        with self.damage_named(campaign_id):
            try:
                campaign: Campaign = self._at(campaign_id, version)
            except AggregateNotFoundError:
                raise CampaignNotFound(f"no campaign {campaign_id}") from None
            if version is None and fresh and self.repository.cache is not None:
                newer = list(self.events.get(campaign_id, gt=campaign.version))
                for event in newer:
                    campaign = cast(CampaignEvent, event).mutate(campaign)
                if newer:
                    self._cache_newer(campaign)
        if version is None:
            self._resnapshot(campaign)
        # Its own pinned data (else it is read, and refuses commands, saying why).
        campaign.bind(self.binding(campaign.module_id, campaign.module_hash))
        return campaign

    def _at(self, campaign_id: UUID, version: int | None) -> Campaign:
        """The campaign from the repository; as it stood at `version`, a copy of the cached
        campaign when that is the version cached (a status read asks for the version its
        view rows are at, mostly the head: replaying it from its snapshot took most of
        the read). The cache holds only campaigns as saved or read, never mutated after:
        so only while eventsourcing neither fast-forwards a cached campaign in place nor
        hands commands the cached one itself (settings an environment could change)."""
        repository = self.repository
        if version is not None and not repository.fastforward \
                and repository.deepcopy_from_cache:
            held = self.cached(campaign_id)
            if held is not None and held.version == version:
                return cast(Campaign, copy.deepcopy(held))
        return cast(Campaign, repository.get(campaign_id, version=version))

    @contextlib.contextmanager
    def damage_named(self, campaign_id: UUID) -> Iterator[None]:
        """A failure to read the campaign's stored events, answered as HistoryUnreadable at
        the first version that cannot be read (as verify finds it); any other failure (an
        outage, a refusal) as it is."""
        try:
            yield
        except not_damage():
            raise
        except Exception as error:
            damaged: list[tuple[int, str]] = []
            for _ in self.readable(campaign_id, damaged):
                pass
            if not damaged:
                raise
            log.error("campaign %s: version %s cannot be read (%s)", campaign_id,
                      *damaged[0])
            raise HistoryUnreadable(damaged[0][0]) from error

    def _resnapshot(self, campaign: Campaign) -> None:
        """A sealed snapshot of a campaign whose stored one was passed over (edited, or
        from before the seal), so the next load need not replay it all again."""
        passed_over = cast(SealedSnapshots, self.snapshots).passed_over
        if campaign.id not in passed_over:
            return
        passed_over.discard(campaign.id)
        try:
            self.snapshot(campaign)
        except Exception:  # one at this version is kept already: the next interval's will do
            log.warning("no fresh snapshot of campaign %s at version %s", campaign.id,
                        campaign.version, exc_info=True)

    def cached(self, campaign_id: UUID) -> Campaign | None:
        """This process's cached copy of a campaign, if it holds one (no I/O)."""
        cache = self.repository.cache
        if cache is None:
            return None
        with self._cache_guard:
            try:
                held = cache.get(campaign_id)
            except KeyError:
                return None
        return cast(Campaign, held)

    def _cache_newer(self, campaign: Campaign) -> None:
        """Keep a copy of a campaign read afresh, unless the cache already holds as new."""
        cache = self.repository.cache
        assert cache is not None
        with self._cache_guard:
            try:
                held = cache.get(campaign.id)
            except KeyError:
                held = None
            if held is None or held.version < campaign.version:
                cache.put(campaign.id, copy.deepcopy(campaign))

    def behind(self, campaign: Campaign) -> bool:
        """Whether the store holds events this copy of the campaign has not seen."""
        return bool(self.recorder.select_events(campaign.id, gt=campaign.version, limit=1))

    def forget(self, campaign_id: UUID) -> None:
        """Drop a cached campaign that another process has moved past."""
        if self.repository.cache is not None:
            with contextlib.suppress(KeyError):
                self.repository.cache.get(campaign_id, evict=True)

    # -- reading the log --------------------------------------------------------

    def records(self, campaign_id: UUID, lte: int | None = None,
                gt: int = 0) -> Iterator[dict[str, Any]]:
        """The campaign's history records, oldest first (after `gt`, up to `lte`)."""
        found = False
        for record, _ in self.stored_records(campaign_id, lte=lte, gt=gt):
            found = True
            yield record
        if not found and not gt:
            raise CampaignNotFound(f"no campaign {campaign_id}")

    def stored_events(self, campaign_id: UUID, lte: int | None = None,
                      gt: int = 0) -> Iterator[Any]:
        """The campaign's events, oldest first, read a page at a time."""
        for stored in self._stored(campaign_id, lte, gt):
            with self.damage_named(campaign_id):
                event = decoded(self.mapper, stored)
            yield event

    def stored_records(self, campaign_id: UUID, lte: int | None = None,
                       gt: int = 0) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """The campaign's history records, oldest first, each with its event's fields."""
        text = str(campaign_id)
        for stored in self._stored(campaign_id, lte, gt):
            yield self.stored_record(stored, text)

    def stored_record(self, stored: StoredEvent,
                      campaign: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """One stored event's history record (its campaign id as text) and its fields."""
        with self.damage_named(cast(UUID, stored.originator_id)):
            plain = plain_fields(self.mapper, stored)
            if plain is None or not issubclass(plain[0], CampaignEvent):
                event = self.mapper.to_domain_event(stored)
                return cast(CampaignEvent, event).record(), event.__dict__
        kind, fields = plain
        # No event object: the record made as the event's `record` makes it.
        return event_record(kind, campaign, stored.originator_version,
                            fields["timestamp"].isoformat(), fields), fields

    def _stored(self, campaign_id: UUID, lte: int | None, gt: int) -> Iterator[StoredEvent]:
        """The campaign's stored events, oldest first, read a page at a time."""
        last = gt
        while True:
            page = self.recorder.select_events(campaign_id, gt=last, lte=lte, limit=PAGE)
            yield from page
            if len(page) < PAGE:
                return
            last = page[-1].originator_version

    def readable(self, campaign_id: UUID,
                 damaged: list[tuple[int, str]]) -> Iterator[dict[str, Any]]:
        """History records until one cannot be read; that one is noted in `damaged`."""
        events, last = iter(self.events.get(campaign_id)), 0
        while True:
            try:
                event = cast(CampaignEvent, next(events))
                record = event.record()
            except StopIteration:
                return
            # a database that does not answer damages nothing
            except not_damage():
                raise
            except Exception as error:  # any damage at all is the finding, not a crash
                damaged.append((last + 1, str(error)))
                return
            last = event.originator_version
            yield record

    def readable_access(self, campaign_id: UUID) -> Access | None:
        """The campaign's roles as its events before the first unreadable one give them
        (None if even its creation cannot be read): whom a damaged campaign may tell so."""
        campaign: Campaign | None = None
        events = iter(self.events.get(campaign_id))
        while True:
            try:
                event = cast(CampaignEvent, next(events))
            except StopIteration:
                break
            except not_damage():
                raise
            except Exception:  # the damage: the roles as they stood before it
                break
            campaign = event.mutate(campaign)
        return None if campaign is None else campaign.access

    def dice_after(self, campaign_id: UUID, version: int) -> dict[str, list[int]]:
        """What each roll's key showed after `version` (an undo keeps them for a redo)."""
        return dice_of(self.events.get(campaign_id, gt=version))


def dice_of(events: Iterable[Any]) -> dict[str, list[int]]:
    """What each roll's key showed among these events (the last roll of a key counts)."""
    return {event.key: list(event.dice) for event in events if isinstance(event, DiceRolled)}


def pin_row(data: ModuleData) -> tuple[str, str, str]:
    """Module data as its table stores it: hash, module id, canonical JSON text."""
    return data.hash, data.module_id, canonical(data.doc).decode("utf-8")


def not_damage() -> tuple[type[Exception], ...]:
    """Failures that say nothing of a stored event's damage: a refusal, the database's."""
    return RefitError, PersistenceError, AggregateNotFoundError, *database_errors()
