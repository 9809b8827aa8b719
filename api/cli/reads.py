"""`refit` reads: a command for each read the service declares with one (infra/queries.py,
READS), each printing its answer as JSON or as the table `api/render.py` lays out; and
verifying a campaign's history or an export file."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from typer.core import TyperCommand

from api.cli.core import (
    AsOf,
    Db,
    Id,
    Json,
    campaign_key,
    emit,
    guarded,
    print_receipt,
    query,
    starting,
    viewer_of,
)

if TYPE_CHECKING:
    from domain.verify import VerifyReport
    from infra.queries import Read

app = typer.Typer()
T = TypeVar("T")
Side = Annotated[str | None, typer.Option(
    "--side", "--as", help="Read as this side (or observer) reads it (the other side's "
                           "secrets kept).")]
# Each read's command with its read's summary, as infra/queries.py declares them (READS):
# `refit --help` lists them from here without importing the domain that answers them
# (issue 17, item 6); tests/structure/test_reads_declared.py checks that the two agree.
READ_COMMANDS = {
    "status": "Where the campaign stands",
    "guide": "What each side must and may do now",
    "roster": "The CG Roster",
    "purchases": "The RG Purchase Record",
    "cvp": "CVP per scenario and side",
    "elr": "ELR now, and each change",
    "san": "Each SAN change",
    "retained": "Retained units per CG Date",
    "control": "Control of Locations",
    "lvp": "KGP LVP totals",
    "objectives": "KGP Objective Hexes",
    "holding": "KGP Holding Box entries (each side its own)",
    "rolls": "Every roll",
    "reports": "Every report between the sides, and how each was answered",
}


def declared(command: str) -> Read:
    """The read that a command answers (infra/queries.py, READS)."""
    from infra.queries import READS

    return next(which for which in READS if which.command == command)


class ReadCommand(TyperCommand):
    """A read's command: listed by its summary; its full help, the read's docstring, is
    looked up only when `refit COMMAND --help` shows it."""

    _help: str | None = None

    @property  # type: ignore[override]
    def help(self) -> str | None:
        """The read's docstring, on one line."""
        if self._help is None and self.name is not None:
            which = declared(self.name)
            doc: str = which.answer.__doc__ or which.summary
            self._help = " ".join(doc.split())
        return self._help

    @help.setter
    def help(self, text: str | None) -> None:
        self._help = text


def _command(command: str, summary: str) -> None:
    """`refit COMMAND ID [--as-of POINT] [--side SIDE]`: the read, as the director (the
    operator) sees it, or as one side does."""
    def read_it(campaign: Id, as_of: AsOf = None, side: Side = None, db: Db = None,
                as_json: Json = False) -> None:
        with starting():  # a read is over before the collector would find anything
            from api.render import TEXT

            which = declared(command)
            answer: Any = query(db, as_json, lambda refit: refit.reads.answer(
                which, campaign_key(campaign), as_of, viewer_of(refit, campaign, side)))
        emit(as_json, answer, lambda: typer.echo(TEXT[which.name](answer)))
    app.command(command, cls=ReadCommand, short_help=summary)(read_it)


for _command_name, _summary in READ_COMMANDS.items():
    _command(_command_name, _summary)


Receipts = Annotated[list[Path] | None, typer.Option(
    "--receipt", help="A receipt kept from a command's answer (repeat for several): fails "
                      "if the history no longer holds what it proves.")]
Key = Annotated[str | None, typer.Option(
    "--key", help="The service's verifier key (GET /keys): checks receipts and an export's "
                  "signed checkpoint with it.")]


@app.command()
def verify(campaign: Annotated[str, typer.Argument(help="Campaign id, or an export file.")],
           receipt: Receipts = None, key: Key = None, db: Db = None,
           as_json: Json = False) -> None:
    """Recompute the hash chain and every server roll whose seed is revealed: of a
    campaign in the database, or of an export file (one line at a time); with --receipt,
    that the history still holds what each receipt proves; with --key, that an export's
    events have the Merkle root its signed checkpoint states."""
    from infra.receipts import export_checkpoint_finding, export_leaves, stored_leaves

    leaves: list[bytes] = []  # read only to check receipts or a signed checkpoint
    tail = None
    if not Path(campaign).is_file() and (campaign.endswith((".jsonl", ".json"))
                                         or "/" in campaign):
        guarded(as_json, lambda: _no_file(campaign))
    if Path(campaign).is_file():
        report = guarded(as_json, lambda: _verify_file(Path(campaign)))
        if receipt or key is not None:
            leaves, tail = guarded(as_json, lambda: _read_file(Path(campaign), export_leaves))
    else:
        # The campaign's own database: its receipts are checked with this service's key.
        report, leaves, key = query(db, as_json, lambda refit: (
            refit.reads.verify(campaign_key(campaign)),
            stored_leaves(refit.store, campaign_key(campaign)) if receipt else [],
            key if key is not None else refit.keys.verifier_keys()[0]))
    body = report.as_dict() | {"receipts": [_receipt(path, key, leaves, as_json)
                                            for path in receipt or []]}
    if key is not None and tail is not None:
        body["checkpoint"] = export_checkpoint_finding(leaves, tail, key)
    _judge(body)
    emit(as_json, body, lambda: _print_verified(body, report))
    if not body["ok"]:
        raise typer.Exit(1)


def _no_file(path: str) -> None:
    """An export file named that is not there: said so, not taken for a campaign id."""
    from domain.errors import InvalidCommand

    raise InvalidCommand(f"{path}: no such file", field="campaign")


def _judge(body: dict[str, Any]) -> None:
    """The verdict over the chain, the receipts and the signed checkpoint: the first bad
    version any of them names."""
    failed = [f for f in [*body["receipts"], body.get("checkpoint", {"ok": True})]
              if not f["ok"]]
    versions = [body["first_bad_version"], *(f.get("version") for f in failed)]
    body |= {"ok": body["ok"] and not failed,
             "first_bad_version": min([v for v in versions if v is not None], default=None)}


def _print_verified(body: dict[str, Any], report: VerifyReport) -> None:
    verdict = "OK" if body["ok"] else "BAD" + (
        f" at version {body['first_bad_version']}" if body["first_bad_version"]
        else " (not at an event version: see below)")
    typer.echo(f"{verdict}: {report.events} events, {report.rolls_verified} rolls "
               f"verified, head {report.head_hash}")
    for line in dict.fromkeys([report.problem, *report.caches]):
        if line:
            typer.echo(line)
    for point in report.cosigned:
        both = " (every side)" if point["all_sides"] else ""
        typer.echo(f"co-signed at size {point['size']} by {', '.join(point['sides'])}"
                   f"{both}: root {point['root']}")
    for found in body["receipts"]:
        print_receipt(found)
    if "checkpoint" in body:
        typer.echo("signed checkpoint: " + (body["checkpoint"]["problem"] or
                                            "OK, the export's Merkle root is the signed one"))


def _receipt(path: Path, key: str | None, leaves: list[bytes],
             as_json: bool) -> dict[str, Any]:
    """A receipt file's finding against the history's leaves."""
    from infra.receipts import load_receipt, receipt_finding

    return receipt_finding(guarded(as_json, lambda: load_receipt(path)), key, leaves, str(path))


def _verify_file(path: Path) -> VerifyReport:
    from domain.cosigned import verify_cosigned_export

    return _read_file(path, lambda lines: verify_cosigned_export(lines)[0])


def _read_file(path: Path, read: Callable[[Iterator[dict[str, Any]]], T]) -> T:
    from infra.transfer import parse_lines

    with path.open(encoding="utf-8") as lines:
        return read(parse_lines(lines))
