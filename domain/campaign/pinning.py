"""Module data pinned per campaign: a campaign plays the module data its history names by
content hash (README, 'Module data pinned per campaign'), never whatever is loaded now.

The application binds each campaign it loads to a Binding: the data it is pinned to and
the data loaded here (what an upgrade would move it to). Loading new data changes only
the latter; a director's `upgrade_module` records the move, with what changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain import commands as cmd
from domain.campaign.events import CampaignEvent
from domain.campaign.handlers import handles
from domain.errors import InvalidCommand
from domain.rules import Module
from domain.rules.diff import changes

FIRST_PIN = "pinned to the data loaded here at its first command (made before pinning)"


@dataclass(frozen=True)
class ModuleData:
    """A module's data: its document, the content hash of it, and the Module it reads as
    (None if this release cannot read it)."""

    module_id: str
    hash: str
    doc: dict[str, Any]
    module: Module | None


@dataclass(frozen=True)
class Binding:
    """What a loaded campaign plays: its pinned data (None: unpinned, made before pinning),
    the data loaded here, and why its pinned data cannot be played, if it cannot."""

    module_id: str
    pinned: ModuleData | None
    loaded: ModuleData | None
    problem: str | None = None

    @property
    def rules(self) -> Module | None:
        """The module the campaign plays: its pinned data's; the loaded one's if unpinned."""
        if self.problem is not None:
            return None
        data = self.pinned or self.loaded
        return None if data is None else data.module


def rules_of(binding: Binding | None, module_id: str) -> Module:
    """The campaign's rules, or a refusal saying why it has none here."""
    module = None if binding is None else binding.rules
    if module is None:
        problem = binding.problem if binding is not None else None
        raise InvalidCommand(problem or f"the {module_id} rules module is not loaded here",
                             field="module")
    return module


class ModuleUpgraded(CampaignEvent):
    """The campaign plays other module data from here on: `new_hash` (from `old_hash`;
    None for a campaign made before pinning), with what changed between them."""

    module: str
    old_hash: str | None
    new_hash: str
    changes: list[dict[str, Any]]
    reason: str

    def apply(self, campaign: Any) -> None:
        campaign.module_hash = self.new_hash


@handles(cmd.UpgradeModule)
def upgrade_module(campaign: Any, command: cmd.UpgradeModule, actor: str) -> None:
    """Move the campaign to the module data loaded here, recording what changed; refused
    when it already plays that data."""
    campaign.reph.check_not_ended()
    binding: Binding | None = campaign.binding
    loaded = binding.loaded if binding is not None else None
    if loaded is None:
        raise InvalidCommand(f"no {campaign.module_id} module data is loaded here",
                             field="module")
    if campaign.module_hash == loaded.hash:
        raise InvalidCommand(f"nothing to upgrade: the campaign already plays the "
                             f"{campaign.module_id} data loaded here ({loaded.hash[:12]})",
                             field="type")
    _record_upgrade(campaign, binding, loaded, command.reason or "errata", actor)


def check_step(campaign: Any, command: cmd.Command) -> None:
    """A command the module's RePh puts in a step is made in it. An upgrade needs no
    rules: the data it leaves may be what cannot be played."""
    if command.type != "upgrade_module":
        campaign.reph.check_command_step(campaign.rules, command.type)


def pin_unpinned(campaign: Any, command: cmd.Command, actor: str) -> None:
    """A campaign made before pinning is pinned, by its first command, to the data loaded
    here (the data it has played on so far)."""
    binding: Binding | None = campaign.binding
    if campaign.module_hash is not None or command.type == "upgrade_module" \
            or binding is None or binding.loaded is None:
        return
    _record_upgrade(campaign, binding, binding.loaded, FIRST_PIN, actor)


def _record_upgrade(campaign: Any, binding: Any, loaded: ModuleData, reason: str,
                    actor: str) -> None:
    pinned = binding.pinned
    found = changes(pinned.doc, loaded.doc) if pinned is not None else []
    campaign._record(ModuleUpgraded, actor, module=campaign.module_id,
                     old_hash=campaign.module_hash, new_hash=loaded.hash, changes=found,
                     reason=reason)
    campaign.bind(Binding(campaign.module_id, loaded, loaded))


def new_pins(campaign: Any) -> list[ModuleData]:
    """The module data the campaign's unsaved events pin (to store with them)."""
    binding: Binding | None = campaign.binding
    if binding is None:
        return []
    named = {getattr(event, "module_hash", None) or getattr(event, "new_hash", None)
             for event in campaign.pending_events}
    known = {data.hash: data for data in (binding.pinned, binding.loaded) if data is not None}
    return [known[pin] for pin in named if pin in known]
