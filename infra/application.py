"""Refit's service layer, composed: the campaign store and the use cases over it, one
object per family (commands, reads, the director's audit, export and import).

The HTTP service, the command line and the demo each build one Refit and call its
parts: `refit.commands.execute(...)`, `refit.reads.roster(...)`, `refit.audit.undo(...)`,
`refit.transfer.export(...)`, `refit.proofs.checkpoint(...)`, `refit.store.campaign(...)`,
`refit.live.subscribe(...)` (a campaign's new versions, for the live streams).
"""

from __future__ import annotations

from domain.rules import Module
from infra.audit import Audit
from infra.commands import Commands
from infra.cosigning import LogReader
from infra.keys import Keys
from infra.notify import notifier_for
from infra.proofs import Proofs
from infra.queries import Queries
from infra.settings import Settings
from infra.store import CampaignStore
from infra.transfer import Transfer
from infra.views import Views


class Refit:
    """The campaign store and Refit's use cases on one database."""

    def __init__(self, settings: Settings | None = None,
                 modules: dict[str, Module] | None = None) -> None:
        self.settings = settings or Settings()
        self.store = CampaignStore(self.settings, modules)
        self.views = Views(self.store)
        self.keys = Keys(self.settings)
        self.proofs = Proofs(self.store, self.keys)
        self.commands = Commands(self.store, LogReader(self.proofs))
        self.reads = Queries(self.store, self.views)
        self.audit = Audit(self.store, self.views, self.commands, self.reads)
        self.transfer = Transfer(self.store, self.proofs.signed)
        self.live = notifier_for(self.store.env, self.store.recorder, self.settings.live_poll)
        self.store.listeners.append(self.live.publish)

    def close(self) -> None:
        """Stop the projection runner (if any), then close every connection."""
        try:
            self.live.close()
            self.views.close()
        finally:
            self.commands.close()
            self.store.close()
