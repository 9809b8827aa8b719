"""Co-signing (CONTRACT 'Proofs'): each side registers an Ed25519 key and co-signs the
service's checkpoints with it, e.g. at the end of each RePh step, so a history that
contradicts one is refused by anyone who checks it (domain/cosigned.py)."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from domain import commands as cmd
from domain.campaign.events import CampaignEvent
from domain.campaign.handlers import handles
from domain.campaign.part import Part
from domain.checkpoint import CheckpointInvalid, parse_verifier_key, signature_by
from domain.errors import InvalidCommand

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


class Cosigning(Part):
    """Each side's registered key and the tree sizes it co-signed. An undo keeps them:
    a key is who the side is, and what it co-signed stays in the log."""

    name = "cosigning"
    kept_by_undo = frozenset({"keys", "cosigned"})

    def __init__(self) -> None:
        self.keys: dict[str, str] = {}  # side -> its verifier key now
        self.cosigned: dict[str, list[int]] = {}  # side -> the tree sizes it co-signed

    def check_new_key(self, side: str, vkey: str) -> str:
        """A well-formed Ed25519 verifier key, neither the side's key already nor another
        side's (then 'both sides signed' would be one signer)."""
        try:
            parse_verifier_key(vkey)
        except CheckpointInvalid as error:
            raise InvalidCommand(f"key: {error}", field="key") from None
        owner = next((who for who, known in self.keys.items() if known == vkey), None)
        if owner == side:
            raise InvalidCommand(f"the {side} side has registered this key already", field="key")
        if owner is not None:
            raise InvalidCommand(f"this key is the {owner}'s", field="key")
        return vkey.strip()

    def key_of(self, side: str) -> str:
        """The key a side co-signs with."""
        if side not in self.keys:
            raise InvalidCommand(f"the {side} side has registered no key: send register_key "
                                 "first", field="side")
        return self.keys[side]


class SideKeyRegistered(CampaignEvent):
    """A side's key to co-sign checkpoints with; `replaces` the key it had (None: its
    first). Public: anyone checks a co-signature with it."""

    side: str
    key: str
    replaces: str | None

    def apply(self, campaign: Any) -> None:
        campaign.cosigning.keys[self.side] = self.key


class CheckpointCosigned(CampaignEvent):
    """A side signed the checkpoint `origin`, `size`, `root` (hex) of this log with its
    registered key: `signature` is base64(key id || Ed25519 signature), its note line's."""

    side: str
    origin: str
    size: int
    root: str
    signature: str

    def apply(self, campaign: Any) -> None:
        sizes = campaign.cosigning.cosigned.setdefault(self.side, [])
        sizes.append(self.size)


@handles(cmd.RegisterKey)
def register_key(campaign: Campaign, command: cmd.RegisterKey, actor: str) -> None:
    """Register (or replace, recorded) the key a side co-signs checkpoints with."""
    side = campaign.check_side(command.side)
    key = campaign.cosigning.check_new_key(side, command.key)
    campaign._record(SideKeyRegistered, actor, side=side, key=key,
                     replaces=campaign.cosigning.keys.get(side))


@handles(cmd.CosignCheckpoint)
def cosign_checkpoint(campaign: Campaign, command: cmd.CosignCheckpoint, actor: str) -> None:
    """Record a side's co-signature of a checkpoint of this very log, checked with the
    side's key."""
    side = campaign.check_side(command.side)
    key = campaign.cosigning.key_of(side)
    try:
        point, signature = signature_by(command.checkpoint, key)
    except CheckpointInvalid as error:
        raise InvalidCommand(f"checkpoint: {error} (the {side}'s key is {key})",
                             field="checkpoint") from None
    log = command.log
    if log is None:  # the service gives it with every co-signature (infra/cosigning.py)
        raise InvalidCommand("this ledger cannot read its log here", field="checkpoint")
    _check_statement(log, point.origin, point.size, point.root)
    if point.size in campaign.cosigning.cosigned.get(side, []):
        raise InvalidCommand(f"the {side} side has co-signed size {point.size} already",
                             field="checkpoint")
    campaign._record(CheckpointCosigned, actor, side=side, origin=point.origin,
                     size=point.size, root=point.root.hex(),
                     signature=base64.b64encode(signature).decode())


def _check_statement(log: cmd.LogFacts, origin: str, size: int, root: bytes) -> None:
    """The checkpoint states this log: its origin, a size it has had, its root there."""
    if origin != log.origin:
        raise InvalidCommand(f"the checkpoint is of {origin!r}, not of this log "
                             f"({log.origin!r})", field="checkpoint")
    if log.root is None:
        raise InvalidCommand(f"the checkpoint's size {size} is not a size of this log (1 "
                             f"to {log.head})", field="checkpoint")
    if root != log.root:
        raise InvalidCommand(f"the checkpoint's root is not this log's root at size {size} "
                             f"({log.root.hex()})", field="checkpoint")
