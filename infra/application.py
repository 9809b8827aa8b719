"""Refit's service layer, composed: the campaign store and the use cases over it, one
object per family (commands, reads, the director's audit, export and import).

The HTTP service, the command line and the demo each build one Refit and call its
parts: `refit.commands.execute(...)`, `refit.reads.roster(...)`, `refit.audit.undo(...)`,
`refit.transfer.export(...)`, `refit.proofs.checkpoint(...)`, `refit.store.campaign(...)`,
`refit.live.subscribe(...)` (a campaign's new versions, for the live streams),
`refit.webhooks.set(...)` (a campaign's outgoing webhook).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from domain.rules import Module
from infra.notify import notifier_for
from infra.queries import Queries
from infra.schema_lock import tables_made_alone
from infra.settings import Settings
from infra.store import CampaignStore
from infra.views import Views

if TYPE_CHECKING:
    from infra.audit import Audit
    from infra.commands import Commands
    from infra.keys import Keys
    from infra.proofs import Proofs
    from infra.transfer import Transfer
    from infra.webhooks import Webhooks

T = TypeVar("T")


class part(Generic[T]):
    """A part of Refit made when first used, once even when several threads ask at once
    (functools.cached_property takes no lock from Python 3.12 on), then a plain attribute."""

    def __init__(self, make: Callable[[Any], T]) -> None:
        self.make, self.__doc__ = make, make.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, refit: None, owner: type) -> part[T]: ...
    @overload
    def __get__(self, refit: Refit, owner: type) -> T: ...
    def __get__(self, refit: Refit | None, owner: type) -> part[T] | T:
        if refit is None:
            return self
        with refit.making:  # reentrant: the proofs make the keys
            if self.name not in refit.__dict__:
                refit.__dict__[self.name] = self.make(refit)
        return refit.__dict__[self.name]  # type: ignore[no-any-return]


class Refit:
    """The campaign store and Refit's use cases on one database.

    The reads are made at once; every other part when first used, its module imported
    then: a `refit` read never imports the command path, the audit or export (issue 17)."""

    def __init__(self, settings: Settings | None = None,
                 modules: dict[str, Module] | None = None) -> None:
        self.making = threading.RLock()
        self.settings = settings or Settings()
        with tables_made_alone(self.settings):
            self.store = CampaignStore(self.settings, modules)
            self.views = Views(self.store)
        self.reads = Queries(self.store, self.views)
        self.live = notifier_for(self.store.env, self.store.recorder, self.settings.live_poll)
        self.store.listeners.append(self.live.publish)

    @part
    def keys(self) -> Keys:
        """The service's keys: the one that signs checkpoints, and those derived from it."""
        from infra.keys import Keys

        return Keys(self.settings)

    @part
    def proofs(self) -> Proofs:
        """Signed checkpoints, inclusion proofs and receipts."""
        from infra.proofs import Proofs

        return Proofs(self.store, self.keys)

    @part
    def commands(self) -> Commands:
        """The command path: one campaign's commands at a time, each appended whole."""
        from infra.commands import Commands
        from infra.cosigning import LogReader

        return Commands(self.store, LogReader(self.proofs))

    @part
    def audit(self) -> Audit:
        """The director's audit: undo, re-roll, rulings, roll audits and diffs."""
        from infra.audit import Audit

        return Audit(self.store, self.views, self.commands, self.reads)

    @part
    def transfer(self) -> Transfer:
        """Export and import."""
        from infra.transfer import Transfer

        return Transfer(self.store, self.proofs.signed, self.keys.verifier_keys)

    @part
    def webhooks(self) -> Webhooks:
        """Each campaign's outgoing webhook, and its delivery."""
        from infra.webhooks import Webhooks

        return Webhooks(self.store, self.keys, self.settings)

    def close(self) -> None:
        """Stop the projection runner and webhook delivery (if any), then close every
        connection."""
        try:
            if "webhooks" in self.__dict__:
                self.webhooks.close()
            self.live.close()
            self.views.close()
        finally:
            if "commands" in self.__dict__:  # made only once used
                self.commands.close()
            self.store.close()
