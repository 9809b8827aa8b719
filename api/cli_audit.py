"""`refit` commands for a director's audit: export/import, undo, re-roll, rulings, the roll
audit, diffs, the paper forms and the history report."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from api.cli import (
    REFUSALS,
    AsOf,
    By,
    Db,
    Id,
    Json,
    answer,
    app,
    emit,
    fail,
    guarded,
    ledger,
    make_tables,
    print_table,
    query,
    settings,
)
from api.errors import error_body
from api.forms import render_form
from api.parallel import in_processes
from api.report import history_report
from domain.campaign import campaign_id
from domain.errors import RefitError
from infra.application import Refit
from infra.transfer import Imported, dump_line, parse_lines

Viewer = Annotated[str | None, typer.Option(
    "--as", help="A side: as that side may read it (the other side's secrets kept).")]
Reason = Annotated[str, typer.Option(help="Why (recorded in the event).")]
Form = Literal["roster", "purchases", "cvp", "elr", "html"]


Jobs = Annotated[int, typer.Option(
    "--jobs", min=1, help="Processes moving the campaigns at once (a share each), to use "
                          "every core when moving many.")]


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
    if to is None:
        with ledger(db) as refit:
            lines = guarded(as_json, lambda: refit.export(campaign_id(campaigns[0]), viewer,
                                                          with_seed))
            sys.stdout.writelines(map(dump_line, lines))
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
                lines = refit.export(campaign_id(campaign), viewer, with_seed)
                _write_file(to / f"{campaign_id(campaign)}.jsonl", lines)
            except REFUSALS as error:
                return [*done, error_body(error)]
            done.append(None)
    return done


def _write_file(path: Path, lines: Iterator[dict[str, Any]]) -> None:
    """An export file, under its name only once complete (a cut run leaves no such file)."""
    part = path.with_name(path.name + ".part")
    with part.open("w", encoding="utf-8") as out:
        out.writelines(map(dump_line, lines))
    part.replace(path)


def _read_lines(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        yield from parse_lines(lines)


@app.command("import")
def import_(files: Annotated[list[Path], typer.Argument(
                help="An export (JSON lines); several are imported one after another, or a "
                     "share in each of --jobs processes.", metavar="FILE")],
            jobs: Jobs = 1, db: Db = None, as_json: Json = False) -> None:
    """Rebuild a campaign from the director's export, refusing one that does not verify."""
    for file in files:
        if not file.is_file():
            raise typer.BadParameter(f"{file} is not a file", param_hint="FILE")
    done = in_processes(partial(_import_share, db, as_json, len(files) > 1), files,
                        _tables_made(db, jobs))
    refusals = [body for body in done if isinstance(body, dict)]
    if refusals:
        fail(refusals[0], as_json)
    if as_json:
        emit(True, done[0].__dict__ if len(files) == 1 else [d.__dict__ for d in done],
             lambda: None)


def _import_share(db: str | None, as_json: bool, several: bool,
                  files: list[Path]) -> list[Imported | dict[str, Any]]:
    """Each file imported (verified in full first), until one is refused (its error body
    last): those before it stay imported."""
    done: list[Imported | dict[str, Any]] = []
    with ledger(db) as refit:
        for file in files:
            try:
                done.append(_import_file(refit, file, as_json, several))
            except REFUSALS as error:
                return [*done, error_body(error)]
    return done


def _import_file(refit: Refit, file: Path, as_json: bool, several: bool) -> Imported:
    """One file imported (verified in full first), said as soon as it is done."""
    # Among several, a refusal names its file.
    try:
        done = refit.import_export(lambda: _read_lines(file))
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


@app.command()
def undo(campaign: Id, reason: Reason,
         to_version: Annotated[int | None, typer.Option(help="Undo every event after it.")]
         = None,
         to_step: Annotated[str | None, typer.Option(
             help="Undo a step and all after it: CGDATE/STEP, e.g. 19PM/9.616.")] = None,
         by: By = "director", db: Db = None, as_json: Json = False) -> None:
    """Undo by replay: the undone events stay in the log; a redo rolls the same dice."""
    answer(as_json, query(db, as_json, lambda refit: refit.undo(
        campaign_id(campaign), reason, by, to_version, to_step)))


@app.command()
def reroll(campaign: Id, key: Annotated[str, typer.Option(help="The roll's key.")],
           reason: Reason, by: By = "director", db: Db = None, as_json: Json = False) -> None:
    """A director's re-roll: the roll is undone and its slot gets new dice."""
    answer(as_json, query(db, as_json, lambda refit: refit.reroll(
        campaign_id(campaign), key, reason, by)))


@app.command()
def ruling(campaign: Id, key: Annotated[str, typer.Option(help="The roll's key.")],
           verdict: Annotated[str, typer.Option(help="upheld or corrected.")],
           reason: Reason,
           final: Annotated[int | None, typer.Option(help="The corrected Final roll.")] = None,
           result: Annotated[str | None, typer.Option(help="The corrected result.")] = None,
           by: By = "director", db: Db = None, as_json: Json = False) -> None:
    """Record a ruling on a disputed roll; it shows beside the roll everywhere."""
    answer(as_json, query(db, as_json, lambda refit: refit.record_ruling(
        campaign_id(campaign), key, verdict, reason, by, final, result)))


@app.command()
def audit(campaign: Id, key: Annotated[str, typer.Option(help="The roll's key.")],
          viewer: Viewer = None, db: Db = None, as_json: Json = False) -> None:
    """Everything about one roll: who asked and when, dice, DRM, result, secrecy, the
    seed's recheck, rulings, re-rolls and undos."""
    found = query(db, as_json, lambda refit: refit.roll_audit(campaign_id(campaign), key,
                                                               viewer))

    def human() -> None:
        for made in found.rolls:
            drm = " ".join(f"{d['value']:+d} {d['reason']}" for d in made.drm) or "no DRM"
            seed = made.seed_check
            check = "" if seed is None else \
                f"; seed recheck {seed.dice} {'OK' if seed.matches else 'BAD'}"
            state = "standing" if made.standing else f"undone by v{made.undone_by}"
            typer.echo(f"v{made.version} {made.timestamp} asked by {made.asked_by}: "
                       f"{made.side} {made.kind} {made.rule} {made.title}: dice {made.dice} "
                       f"{drm} = Final {made.final}: {made.result} ({state}{check})")
        for item in found.rulings:
            typer.echo(f"ruling v{item['version']}: {item['verdict']}: {item['reason']}")
        for item in found.rerolls:
            typer.echo(f"re-roll v{item['version']} (epoch {item['epoch']}): {item['reason']}")
    emit(as_json, found, human)


@app.command()
def diff(campaign: Id,
         start: Annotated[str, typer.Option("--from", help="A version or CGDATE/STEP.")],
         end: Annotated[str | None, typer.Option("--to", help="A version or CGDATE/STEP "
                                                              "(default: now).")] = None,
         viewer: Viewer = None, db: Db = None, as_json: Json = False) -> None:
    """What changed in the roster, purchase record, CVP and ELR between two points."""
    changes = query(db, as_json, lambda refit: refit.diff(campaign_id(campaign), start, end,
                                                           viewer))
    emit(as_json, changes, lambda: print_table(
        ["form", "line", "field", "change", "before", "after"],
        [[c.form, c.line, c.field or "", c.change, _short(c.before), _short(c.after)]
         for c in changes]))


def _short(value: Any) -> str:
    text = "" if value is None else json.dumps(value) if isinstance(value, dict) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


@app.command()
def forms(campaign: Id, form: Annotated[str, typer.Option(
              help="roster, purchases, cvp, elr (CSV) or html (all four, printable).")]
          = "html", as_of: AsOf = None, viewer: Viewer = None, db: Db = None,
          as_json: Json = False) -> None:
    """The paper forms: the CG Roster, RG Purchase Record, CVP and ELR history."""
    text = guarded(as_json, lambda: _form(db, campaign, form, as_of, viewer))
    _write(text, as_json, {"campaign": campaign, "form": form, "as_of": as_of})


def _form(db: str | None, campaign: str, form: str, as_of: str | None,
          viewer: str | None) -> str:
    with ledger(db) as refit:
        return render_form(refit, campaign_id(campaign), form, as_of, viewer)


@app.command()
def report(campaign: Id, fmt: Annotated[str, typer.Option(
               "--format", help="text or html.")] = "text",
           viewer: Viewer = None, db: Db = None, as_json: Json = False) -> None:
    """The campaign's full history, CG Date by CG Date and step by step, for a person."""
    text = guarded(as_json, lambda: _report(db, campaign, fmt, viewer))
    _write(text, as_json, {"campaign": campaign, "format": fmt})


def _write(text: str, as_json: bool, about: dict[str, str | None]) -> None:
    """A document as it is, or with --json as JSON: what it is, and its text."""
    sys.stdout.write(json.dumps(about | {"text": text}) + "\n" if as_json else text)


def _report(db: str | None, campaign: str, fmt: str, viewer: str | None) -> str:
    if fmt not in ("text", "html"):
        raise ValueError(f"format is text or html, not {fmt!r}")
    with ledger(db) as refit:
        ident = campaign_id(campaign)
        return history_report(refit.history(ident, viewer), "html" if fmt == "html" else "text",
                              refit.undone_versions(ident))
