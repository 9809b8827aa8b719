"""Commands on campaigns: creating one with its role tokens, and running a command in the
campaign's turn, with If-Match, Idempotency-Key and retries on another process's write."""

from __future__ import annotations

import contextlib
import random
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from domain import commands as cmd
from domain.campaign import Campaign, CampaignEvent, token_hash
from domain.errors import (
    CampaignBusy,
    CampaignExists,
    InvalidCommand,
    RefitError,
    VersionConflict,
)
from domain.hashing import sha256_hex
from domain.history import record_hash
from infra.results import CommandResult, Tokens
from infra.store import CampaignStore

if TYPE_CHECKING:  # psycopg's pool only for a shared PostgreSQL database
    from infra.store_lock import StoreLock

MAX_RETRIES = 10
Authorize = Callable[[Campaign], str]  # the caller's role on the campaign as loaded
# What the service adds to a command from outside the campaign's state (a co-signed
# checkpoint's log: infra/cosigning.py), the command returned as it is when nothing.
Facts = Callable[[UUID, cmd.Command], cmd.Command]


class Outcome(NamedTuple):
    """What acting on a campaign came to: who acted, and the first answer of a repeated
    Idempotency-Key (then nothing is saved)."""

    actor: str
    answered: CommandResult | None = None


def backoff(attempt: int) -> float:
    """Seconds before retry `attempt`: exponential with full jitter, so writers in other
    processes racing on one campaign fall out of step (at most about 0.25 s)."""
    return random.uniform(0, min(0.25, 0.001 * 2 ** attempt))


def new_token() -> str:
    """A bearer token: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def check_version(campaign: Campaign, expected_version: int | None) -> None:
    """If-Match: refuse a command sent for another version of the campaign (409)."""
    if expected_version is not None and campaign.version != expected_version:
        raise VersionConflict(f"campaign is at version {campaign.version}, not "
                              f"{expected_version}")


class _Lock:
    """A campaign's command lock (a class, so the lock map can hold it weakly)."""

    def __init__(self, wait: float) -> None:
        self._lock = threading.Lock()
        self.wait = wait

    def __enter__(self) -> None:
        if not self._lock.acquire(timeout=self.wait):
            raise CampaignBusy.after(self.wait)

    def __exit__(self, *_: object) -> None:
        self._lock.release()


class Commands:
    """Create campaigns and run commands on them, one at a time per campaign."""

    def __init__(self, store: CampaignStore, facts: Facts | None = None) -> None:
        self.store, self.facts = store, facts
        conf = store.settings
        self._locks: weakref.WeakValueDictionary[UUID, _Lock] = weakref.WeakValueDictionary()
        self._locks_guard = threading.Lock()
        postgres = store.env.get("PERSISTENCE_MODULE") == "eventsourcing.postgres"
        self.store_lock: StoreLock | None = None
        if conf.shared_database and postgres:
            from infra.store_lock import StoreLock

            self.store_lock = StoreLock(store.env, conf.pool_size + conf.max_overflow,
                                        conf.turn_wait)

    def close(self) -> None:
        """Close the cross-process lock's connections."""
        if self.store_lock is not None:
            self.store_lock.close()

    def open_campaign(self, module: str, cg: str, name: str, dice: str = "server",
                      actor: str = "admin", start_date: str | None = None,
                      balance: str | None = None,
                      ident: UUID | None = None) -> tuple[Campaign, Tokens]:
        """Start a campaign of a module's CG (with the CG Balance to one side, KGP 8.31)
        and issue its role tokens (returned once, kept as hashes). `ident`: the id to
        start it under (a form sent twice starts one campaign: the second save
        conflicts, CampaignExists)."""
        rules = self.store.module(module)
        tokens = Tokens(director=new_token(), observer=new_token(),
                        sides={side: new_token() for side in rules.sides})
        # It pins the module data loaded now, stored with its first event (infra/store.py).
        campaign = Campaign.start(self.store.loaded_data(module), cg, name, dice, actor,
                                  start_date, balance,
                                  {role: token_hash(t) for role, t in tokens.by_role().items()},
                                  ident)
        try:
            self.store.save(campaign)
        except IntegrityError:
            raise CampaignExists(f"campaign {campaign.id} has already been started") from None
        return campaign, tokens

    def create_campaign(self, module: str, cg: str, name: str, dice: str = "server",
                        actor: str = "admin", start_date: str | None = None,
                        balance: str | None = None) -> Campaign:
        """Start a campaign, its tokens unshown (for scripts and tests)."""
        return self.open_campaign(module, cg, name, dice, actor, start_date, balance)[0]

    def replace_token(self, campaign_id: UUID, role: str, actor: str) -> str:
        """A new token for a role (the director's remedy for a lost one); the old one dies."""
        token = new_token()
        self.run(campaign_id, lambda c: c.replace_token(role, token_hash(token), actor))
        return token

    def execute(self, campaign_id: UUID, command: cmd.Command, actor: str,
                expected_version: int | None = None, idempotency_key: str | None = None,
                authorize: Authorize | None = None) -> CommandResult:
        """Run one command; on a concurrent write, retry on the fresh state (bounded). A
        repeated Idempotency-Key answers the first answer and appends nothing."""
        if self.facts is not None:
            command = self.facts(campaign_id, command)
        digest = sha256_hex(command.model_dump_json().encode())

        def act(campaign: Campaign) -> Outcome:
            role = actor if authorize is None else authorize(campaign)  # never stale state
            # A key is the caller's own: another role's keys neither answer nor block it.
            key = None if idempotency_key is None else f"{role}\x1f{idempotency_key}"
            if key is not None and key in campaign.access.idempotency:
                return Outcome(role, self._first_answer(campaign, key, digest, role))
            check_version(campaign, expected_version)  # a repeat's If-Match was the first's
            campaign.execute(command, role, None if key is None else (key, digest))
            return Outcome(role)
        # One command at a time per campaign in this process (others never wait on it):
        # the retries are then only for writers in other processes.
        with self.turn(campaign_id):
            return self._attempts(campaign_id, act)

    def run(self, campaign_id: UUID, act: Callable[[Campaign], None],
            expected_version: int | None = None) -> CommandResult:
        """Do `act` to the campaign and save what it recorded, in the campaign's turn; on
        a concurrent write from another process, again on the fresh state (bounded)."""
        def acted(campaign: Campaign) -> Outcome:
            check_version(campaign, expected_version)
            act(campaign)
            return Outcome("")
        with self.turn(campaign_id):
            return self._attempts(campaign_id, acted)

    def _attempts(self, campaign_id: UUID,
                  act: Callable[[Campaign], Outcome]) -> CommandResult:
        """Run `act` on the campaign and save it. The first try runs on the cached copy
        (no read of the store) unless other processes share the database; a conflict on
        saving, or a refusal on a copy another process has moved past, tries again on the
        campaign read afresh."""
        store = self.store
        fresh = store.settings.shared_database
        for attempt in range(MAX_RETRIES):
            if attempt and fresh:
                time.sleep(backoff(attempt))
            campaign = store.campaign(campaign_id, fresh=fresh)
            try:
                outcome = act(campaign)
                if outcome.answered is not None:
                    if not fresh and store.behind(campaign):
                        fresh = True  # answered from a stale copy: answer from the store
                        continue
                    return outcome.answered
                recordings = store.save(campaign)
            except RefitError:
                if not fresh and store.behind(campaign):
                    fresh = True  # refused on a stale copy: decide on the stored campaign
                    continue
                raise
            except IntegrityError:
                # Another command was appended first: try again on the stored campaign, where
                # an If-Match now fails (409) unless this was its Idempotency-Key's repeat.
                store.forget(campaign_id)
                fresh = True
                continue
            return _result(campaign, recordings, outcome.actor)
        raise VersionConflict(f"still conflicting after {MAX_RETRIES} tries")

    @contextlib.contextmanager
    def turn(self, campaign_id: UUID) -> Iterator[None]:
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
                lock = self._locks[campaign_id] = _Lock(self.store.settings.turn_wait)
            return lock

    def _first_answer(self, campaign: Campaign, key: str, digest: str,
                      actor: str) -> CommandResult:
        seen = campaign.access.idempotency[key]
        if seen["digest"] != digest:
            raise InvalidCommand("this Idempotency-Key came with another command",
                                 field="Idempotency-Key")
        events = [r for r in self.store.records(campaign.id, lte=seen["last"])
                  if r["version"] >= seen["first"]]
        return CommandResult(seen["last"], record_hash(events[-1]), events,
                             campaign.reph.phase == "ended", actor)


def _result(campaign: Campaign, recordings: list[Any], actor: str) -> CommandResult:
    events = [r.domain_event.record() for r in recordings
              if isinstance(r.domain_event, CampaignEvent)]
    return CommandResult(campaign.version, campaign.head_hash, events,
                         campaign.reph.phase == "ended", actor)
