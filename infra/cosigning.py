"""Co-signing, the service's part (CONTRACT 'Proofs'): what its log states where a side
co-signs a checkpoint, the checkpoints an importer holds, and a player's offline tools
(a key of its own, a co-signature added to a checkpoint)."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from domain import commands as cmd
from domain import merkle
from domain.checkpoint import (
    Checkpoint,
    CheckpointInvalid,
    checkpoint_text,
    signs,
    verify_checkpoint,
)
from domain.cosigned import CosignWatch, held_checkpoint_problem
from domain.errors import ImportRefused, InvalidCommand
from infra.keys import ServiceKey
from infra.proofs import Proofs


class LogReader:
    """Gives a co-signature command what the ledger's log states at the checkpoint's size
    (its origin, its size now, its root there), read from the store."""

    def __init__(self, proofs: Proofs) -> None:
        self.proofs = proofs

    def __call__(self, campaign_id: UUID, command: cmd.Command) -> cmd.Command:
        """The command with the log's facts, if it co-signs a checkpoint."""
        if not isinstance(command, cmd.CosignCheckpoint):
            return command
        try:
            size = checkpoint_text(command.checkpoint)[1].size
        except CheckpointInvalid:
            return command  # the campaign names what is wrong with it
        leaves = self.proofs.leaves(campaign_id, size) if size >= 1 else []
        root = merkle.root(leaves) if size >= 1 and len(leaves) == size else None
        return command.on_log(cmd.LogFacts(self.proofs.origin(campaign_id),
                                           self.proofs.head(campaign_id), root))


def checkpoint_at(proofs: Proofs, campaign_id: UUID, size: int) -> str:
    """The signed checkpoint of the log when it had `size` events: the one both sides
    co-sign at a step's end, whatever was appended since (each co-signature, say)."""
    head = proofs.head(campaign_id)
    if not 1 <= size <= head:
        raise InvalidCommand(f"size is a tree size from 1 to {head} (the version)",
                             field="size")
    return proofs.checkpoint_at(campaign_id, size)  # from the cached log


def cosign(note: str, key: ServiceKey) -> str:
    """A signed checkpoint with this key's signature line added (its text unchanged)."""
    try:
        text = checkpoint_text(note)[0]
    except CheckpointInvalid as error:
        raise ValueError(f"not a signed checkpoint: {error}") from None
    return note + key.signature(text)


def held_checkpoints(notes: Sequence[str]) -> list[Checkpoint]:
    """What each checkpoint an importer holds states (its signatures are his to trust)."""
    held = []
    for number, note in enumerate(notes, start=1):
        try:
            held.append(checkpoint_text(note)[1])
        except CheckpointInvalid as error:
            raise ImportRefused(f"checkpoint {number} is not a checkpoint: {error}",
                                field="checkpoint") from None
    return held


def check_own(watch: CosignWatch, own_keys: Sequence[str]) -> None:
    """Refuse an export whose tail's signed checkpoint contradicts its events (an event
    altered and the chain made again), or bears a signature of this service's key that
    does not hold. An export made before exports were signed carries none."""
    note = watch.tail_checkpoint
    if note is None:
        return
    if not isinstance(note, str):
        raise ImportRefused("the export's tail holds a checkpoint that is not text",
                            field="checkpoint")
    try:
        point = checkpoint_text(note)[1]
        for key in own_keys:
            if signs(note, key):
                verify_checkpoint(note, key)
    except CheckpointInvalid as error:
        raise ImportRefused(f"the export's signed checkpoint does not check: {error}",
                            field="checkpoint") from None
    problem = held_checkpoint_problem(watch, point, "the checkpoint")
    if problem is not None:
        altered = watch.root_at(point.size) not in (None, point.root)
        why = ": an event was altered and the chain made again" if altered else ""
        raise ImportRefused(f"the export contradicts its own signed checkpoint ({problem})"
                            f"{why}", field="checkpoint")


def check_held(watch: CosignWatch, held: Sequence[Checkpoint]) -> None:
    """Refuse a history that contradicts a checkpoint the importer holds."""
    for point in held:
        problem = held_checkpoint_problem(watch, point)
        if problem is not None:
            raise ImportRefused(f"the export contradicts a checkpoint you hold: {problem}",
                                field="checkpoint")
