"""An import's events staged and folded as the verifier reads them (issue 17 item 3): one
pass over the export instead of a verifying pass and a writing pass. Nothing reaches the
shared tables before the switch (infra/staging.py), which runs only once the whole export
has verified: a refused export leaves only a temporary table, dropped with its
transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from domain.campaign import Campaign
from domain.errors import ImportRefused, RefitError
from domain.hashing import GENESIS_HASH
from infra.drivers import DatabaseAway, database_errors
from infra.recorder import Pin
from infra.staging import Staging
from infra.store import CampaignStore

PAGE = 1000  # events staged at a time: an import runs in constant memory
# The database's own failures are an outage, never the export's fault: they pass as they are.
EventOf = Callable[[UUID, dict[str, Any], Staging | None], Any]  # a line's domain event


class Rebuild:
    """The campaign an import rebuilds: each event staged and folded one line behind the
    verifier (so a line is hashed before anything applies it), the first that cannot be
    folded noted and refused at the end if the export verifies."""

    def __init__(self, store: CampaignStore, ident: UUID, staged: Staging,
                 event_of: EventOf) -> None:
        self.store, self.ident, self.staged, self.event_of = store, ident, staged, event_of
        self.batch: list[StoredEvent] = []
        self.campaign: Campaign | None = None
        self.seed = False  # whether the export carried the private seed
        self.pending: tuple[dict[str, Any], Any] | None = None
        self.failed: tuple[int, Exception] | None = None

    def see(self, line: dict[str, Any], event: Any) -> None:
        """Take the next event line (rebuilt, checked); stage the one before it."""
        self._take_pending()
        self.pending = line, event

    def finish(self, pins: list[Pin], head_hash: str) -> None:
        """Stage the last event, then switch every event in with the module data and the
        snapshot, its chain's head the verified `head_hash` (committed as the staging
        ends)."""
        self._take_pending()
        if self.failed is not None:
            version, error = self.failed
            if isinstance(error, RefitError):
                raise error
            raise ImportRefused(f"version {version} cannot be folded into the campaign: "
                                f"{error!r}", field="data")
        self._flush()
        snapshot = None
        if self.campaign is not None:
            self.campaign.head_hash = head_hash
            snapshot = self.store.stored_snapshot(self.campaign)
        self.staged.switch_in(pins, snapshot)

    def _take_pending(self) -> None:
        if self.pending is None or self.failed is not None:
            return
        line, event = self.pending
        self.pending = None
        if line["type"] == "Undone":  # its state is worked out from what is staged
            self._flush()
        try:
            self._fold(line, event)
        except DatabaseAway:  # the database's failure, not the file's
            raise
        except database_errors():
            raise
        except Exception as error:
            self.failed = line["version"], error
            return
        if len(self.batch) >= PAGE:
            self._flush()  # a failure to write is the import's, raised as it is

    def _fold(self, line: dict[str, Any], event: Any) -> None:
        if line["type"] == "Undone":
            event = self.event_of(self.ident, line, self.staged)
        self.seed = self.seed or line.get("private") is not None
        # Stored before it is applied: applying may share its data with the aggregate.
        self.batch.append(self.store.mapper.to_stored_event(event))
        # The chain's head is set once, at the end, from the chain verified (hashing each
        # event again here would only repeat the verifier's work).
        self.campaign = event.folded(self.campaign, GENESIS_HASH)

    def _flush(self) -> None:
        if self.batch:
            self.staged.stage(self.batch)
            self.batch.clear()
