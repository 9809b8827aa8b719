"""Co-signing at the command line (CONTRACT 'Proofs'): `refit checkpoint` prints a
campaign's signed checkpoint; a player's offline tools (no database) `refit keygen` make a
side's Ed25519 key and `refit cosign` add the side's signature line to a checkpoint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from api.cli.core import Db, Id, Json, campaign_key, emit, guarded, query
from domain.errors import InvalidCommand

if TYPE_CHECKING:
    from infra.keys import ServiceKey

app = typer.Typer()


@app.command()
def keygen(name: Annotated[str, typer.Option(
               "--name", help="The key's name, in its signature lines (no space, no '+').")],
           out: Annotated[Path, typer.Option(
               "--out", help="A new file for the private key (made 0600, never over one).")],
           as_json: Json = False) -> None:
    """Make a side's Ed25519 key: the private key to a new file (0600), its C2SP verifier
    key printed, to register with `{"type": "register_key", "side": S, "key": VKEY}`."""
    key = guarded(as_json, lambda: _new_key(name, out))
    emit(as_json, {"key": key.verifier_key, "file": str(out)},
         lambda: typer.echo(key.verifier_key))


@app.command()
def checkpoint(campaign: Id, size: Annotated[int | None, typer.Option(
                   "--size", help="Of the log when it had this many events (default: now).")]
               = None, db: Db = None, as_json: Json = False) -> None:
    """Print the campaign's signed checkpoint (as GET /campaigns/ID/checkpoint gives it)."""
    from infra.cosigning import checkpoint_at

    note = query(db, as_json, lambda refit: refit.proofs.checkpoint(campaign_key(campaign))
                 if size is None else checkpoint_at(refit.proofs, campaign_key(campaign), size))
    emit(as_json, {"checkpoint": note}, lambda: typer.echo(note, nl=False))


@app.command()
def cosign(checkpoint: Annotated[Path, typer.Argument(
               help="The campaign's signed checkpoint (GET /campaigns/ID/checkpoint).")],
           key_file: Annotated[Path, typer.Option(
               "--key-file", help="The side's private key (refit keygen --out).")],
           side: Annotated[str | None, typer.Option(
               "--side", help="Print the command to send for this side instead, as JSON.")]
           = None, as_json: Json = False) -> None:
    """Print the checkpoint with the side's signature line added, to send as
    `{"type": "cosign_checkpoint", "side": S, "checkpoint": TEXT}` (which --side prints)."""
    note = guarded(as_json, lambda: _cosigned(checkpoint, key_file))
    if side is not None:
        typer.echo(json.dumps({"type": "cosign_checkpoint", "side": side, "checkpoint": note}))
    else:
        emit(as_json, {"checkpoint": note}, lambda: typer.echo(note, nl=False))


def _new_key(name: str, out: Path) -> ServiceKey:
    from domain.checkpoint import valid_name
    from infra.keys import generate, write_key

    if not valid_name(name):
        raise InvalidCommand("a key's name is not empty and holds no space nor '+'",
                             field="name")
    key = generate(name)
    try:
        write_key(out, key)
    except FileExistsError:
        raise InvalidCommand(f"{out} exists: a key is never written over", field="out") from None
    except OSError as error:
        raise InvalidCommand(f"cannot write {out}: {error.strerror}", field="out") from None
    return key


def _cosigned(checkpoint: Path, key_file: Path) -> str:
    from infra.cosigning import cosign as cosigned
    from infra.keys import parse_signer_key

    try:
        note, signer = checkpoint.read_text(encoding="utf-8"), key_file.read_text()
    except OSError as error:
        raise InvalidCommand(f"cannot read {error.filename}: {error.strerror}",
                             field="file") from None
    try:
        key = parse_signer_key(signer)
    except ValueError as error:
        raise InvalidCommand(f"key-file: {error}", field="key-file") from None
    try:
        return cosigned(note, key)
    except ValueError as error:
        raise InvalidCommand(f"checkpoint: {error}", field="checkpoint") from None
