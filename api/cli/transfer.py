"""`refit export` and `refit import`: moving campaigns as JSON lines, one or many at once."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from api.cli.core import (
    Db,
    Json,
    Viewer,
    campaign_key,
    emit,
    fail,
    guarded,
    ledger,
    make_tables,
    refusal_body,
    refusals,
    settings,
    viewer_of,
)

if TYPE_CHECKING:
    from infra.application import Refit
    from infra.results import Imported

Jobs = Annotated[int, typer.Option(
    "--jobs", min=1, help="Processes moving the campaigns at once (a share each), to use "
                          "every core when moving many.")]

app = typer.Typer()


@app.command()
def export(campaigns: Annotated[list[str], typer.Argument(
               help="Campaign id; several with --to.", metavar="ID")],
           viewer: Viewer = None,
           with_seed: Annotated[bool, typer.Option(
               "--with-seed", help="The operator's export for moving a campaign: it carries "
                                   "the private dice seed, so server rolls can go on.")] = False,
           to: Annotated[Path | None, typer.Option(
               "--to", help="A folder: each campaign written to ID.jsonl there (to move "
                            "several at once).")] = None,
           jobs: Jobs = 1, db: Db = None, as_json: Json = False) -> None:
    """The campaign's history as JSON lines: a header, every event, the head hash (JSON
    with or without --json, which makes a refusal JSON too)."""
    if to is None and len(campaigns) > 1:
        raise typer.BadParameter("several campaigns need --to DIR (a file each)",
                                 param_hint="--to")
    if to is not None and not to.is_dir():
        raise typer.BadParameter(f"{to} is not a folder", param_hint="--to")
    from api.parallel import in_processes

    if to is None:
        with ledger(db) as refit:
            lines = guarded(as_json, lambda: refit.transfer.export_text(
                campaign_key(campaigns[0]), viewer_of(refit, campaigns[0], viewer), with_seed))
            sys.stdout.flush()
            sys.stdout.buffer.writelines(lines)
        return
    campaigns = list(dict.fromkeys(campaigns))  # one process per file
    done = in_processes(partial(_export_share, db, viewer, with_seed, to), campaigns,
                        _tables_made(db, jobs))
    refusals = [body for body in done if body is not None]
    if refusals:
        fail(refusals[0], as_json)


def _tables_made(db: str | None, jobs: int) -> int:
    """`jobs`, once the tables are made if several processes will work on them."""
    if jobs > 1:
        guarded(False, lambda: make_tables(settings(db)))
    return jobs


def _export_share(db: str | None, viewer: str | None, with_seed: bool, to: Path,
                  campaigns: list[str]) -> list[dict[str, Any] | None]:
    """Each campaign written to its file, until one is refused (its error body last)."""
    done: list[dict[str, Any] | None] = []
    with ledger(db) as refit:
        for campaign in campaigns:
            try:
                lines = refit.transfer.export_text(
                    campaign_key(campaign), viewer_of(refit, campaign, viewer), with_seed)
                _write_file(to / f"{campaign_key(campaign)}.jsonl", lines, with_seed)
            except refusals() as error:
                return [*done, refusal_body(error)]
            done.append(None)
    return done


def _write_file(path: Path, lines: Iterator[bytes], private: bool = False) -> None:
    """An export file, under its name only once complete (a cut run leaves no such file);
    one that carries the private seeds is made 0600, as the signing key is."""
    part = path.with_name(path.name + ".part")
    handle = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o666)
    if private:  # a part file left by a cut run keeps its own mode otherwise
        os.fchmod(handle, 0o600)
    with os.fdopen(handle, "wb") as out:
        out.writelines(lines)
    part.replace(path)


def _read_lines(path: Path) -> Iterator[dict[str, Any]]:
    from infra.transfer import parse_lines

    with path.open(encoding="utf-8") as lines:
        yield from parse_lines(lines)


@app.command("import")
def import_(files: Annotated[list[Path], typer.Argument(
                help="An export (JSON lines); several are imported one after another, or a "
                     "share in each of --jobs processes.", metavar="FILE")],
            checkpoint: Annotated[list[Path] | None, typer.Option(
                "--checkpoint", help="A signed checkpoint you hold (repeatable): the import "
                                     "is refused if the history contradicts it.")] = None,
            jobs: Jobs = 1, db: Db = None, as_json: Json = False) -> None:
    """Rebuild a campaign from the director's export, refusing one that does not verify
    (its co-signed checkpoints too, and any checkpoint you hold)."""
    for file in [*files, *(checkpoint or [])]:
        if not file.is_file():
            raise typer.BadParameter(f"{file} is not a file", param_hint="FILE")
    from api.parallel import in_processes

    held = [path.read_text(encoding="utf-8") for path in checkpoint or []]
    done = in_processes(partial(_import_share, db, as_json, len(files) > 1, held), files,
                        _tables_made(db, jobs))
    refusals = [body for body in done if isinstance(body, dict)]
    if refusals:
        fail(refusals[0], as_json)
    if as_json:
        emit(True, done[0].__dict__ if len(files) == 1 else [d.__dict__ for d in done],
             lambda: None)


def _import_share(db: str | None, as_json: bool, several: bool, held: list[str],
                  files: list[Path]) -> list[Imported | dict[str, Any]]:
    """Each file imported (verified in full first), until one is refused (its error body
    last): those before it stay imported."""
    done: list[Imported | dict[str, Any]] = []
    with ledger(db) as refit:
        for file in files:
            try:
                done.append(_import_file(refit, file, as_json, several, held))
            except refusals() as error:
                return [*done, refusal_body(error)]
    return done


def _import_file(refit: Refit, file: Path, as_json: bool, several: bool,
                 held: list[str]) -> Imported:
    """One file imported (verified in full first, and against the checkpoints held), said
    as soon as it is done."""
    from domain.errors import RefitError

    # Among several, a refusal names its file.
    try:
        done = refit.transfer.import_export(lambda: _read_lines(file), held)
    except RefitError as error:
        if not several:
            raise
        raise type(error)(f"{file}: {error.message}", rule=error.rule,
                          field=error.field) from None
    if not as_json:
        typer.echo(f"imported {done.id}: {done.events} events, {done.rolls_verified} rolls "
                   f"verified, head {done.head_hash}" + (
                       "" if done.seed else " (no private seed: no more server dice)"))
    return done
