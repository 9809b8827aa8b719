"""`refit` reads: a command for each read the service declares with one (infra/queries.py,
READS), each printing its answer as JSON or as the table `api/render.py` lays out; and
verifying a campaign's history or an export file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from api.cli.core import AsOf, Db, Id, Json, emit, guarded, query
from api.render import TEXT
from domain.campaign import campaign_id
from domain.cosigned import verify_cosigned_export
from domain.errors import InvalidCommand
from domain.verify import VerifyReport
from infra.application import Refit
from infra.queries import READS, Read
from infra.transfer import parse_lines

app = typer.Typer()
Side = Annotated[str | None, typer.Option(
    "--side", help="Read as this side reads it (the other side's secrets kept).")]


def _command(which: Read) -> None:
    """`refit COMMAND ID [--as-of POINT] [--side SIDE]`: the read, as the director (the
    operator) sees it, or as one side does."""
    def read_it(campaign: Id, as_of: AsOf = None, side: Side = None, db: Db = None,
                as_json: Json = False) -> None:
        answer: Any = query(db, as_json, lambda refit: refit.reads.answer(
            which, campaign_id(campaign), as_of, viewer_side(refit, campaign, side)))
        emit(as_json, answer, lambda: typer.echo(TEXT[which.name](answer)))
    read_it.__doc__ = " ".join((which.answer.__doc__ or which.summary).split())
    app.command(which.command)(read_it)


def viewer_side(refit: Refit, campaign: str, side: str | None) -> str | None:
    """A side of the campaign to read as (None: the director, who sees every side)."""
    if side is not None and side not in refit.store.campaign(campaign_id(campaign)).sides:
        raise InvalidCommand(f"{side!r} is not a side of this campaign", field="side")
    return side


for _read in READS:
    if _read.command is not None:
        _command(_read)


@app.command()
def verify(campaign: Annotated[str, typer.Argument(help="Campaign id, or an export file.")],
           db: Db = None, as_json: Json = False) -> None:
    """Recompute the hash chain and every server roll whose seed is revealed: of a
    campaign in the database, or of an export file (one line at a time)."""
    if Path(campaign).is_file():
        report = guarded(as_json, lambda: _verify_file(Path(campaign)))
    else:
        report = query(db, as_json, lambda refit: refit.reads.verify(campaign_id(campaign)))

    def human() -> None:
        verdict = "OK" if report.ok else f"BAD at version {report.first_bad_version}" \
            if report.first_bad_version is not None else "BAD (a cache, not an event)"
        typer.echo(f"{verdict}: {report.events} events, {report.rolls_verified} rolls "
                   f"verified, head {report.head_hash}")
        for line in dict.fromkeys([report.problem, *report.caches]):
            if line:
                typer.echo(line)
        for point in report.cosigned:
            both = " (every side)" if point["all_sides"] else ""
            typer.echo(f"co-signed at size {point['size']} by {', '.join(point['sides'])}"
                       f"{both}: root {point['root']}")
    emit(as_json, report.as_dict(), human)
    if not report.ok:
        raise typer.Exit(1)


def _verify_file(path: Path) -> VerifyReport:
    with path.open(encoding="utf-8") as lines:
        return verify_cosigned_export(parse_lines(lines))[0]
