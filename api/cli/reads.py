"""`refit` reads: where a campaign stands, its forms and rolls, and verifying its history."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from api.cli.core import AsOf, Db, Id, Json, emit, guarded, print_table, query
from api.render import (
    control_rows,
    lvp_rows,
    objective_rows,
    purchase_rows,
    rating_rows,
    roll_rows,
    roster_rows,
)
from domain.campaign import campaign_id
from domain.verify import VerifyReport, verify_export
from infra.transfer import parse_lines

app = typer.Typer()


@app.command()
def status(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """Where the campaign stands: CG Date, RePh step, CPP, FPP, ELR, SAN per side."""
    answer = query(db, as_json, lambda refit: refit.reads.status(campaign_id(campaign), as_of))

    def human() -> None:
        typer.echo(f"{answer.name} ({answer.module} CG {answer.cg}), version {answer.version}")
        typer.echo(f"CG Date {answer.cg_date}, {answer.phase} {answer.step or ''}".rstrip())
        print_table(["side", "CPP", "FPP", "ELR", "SAN"],
                    [[s, v["cpp"], v["fpp"], v["elr"], v["san"]]
                     for s, v in answer.sides.items()])
        if answer.to_roll:
            typer.echo(f"{answer.step} waits for: {', '.join(answer.to_roll)}")
    emit(as_json, answer, human)


@app.command()
def roster(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """The CG Roster, one row per CG Date."""
    rows = query(db, as_json, lambda refit: refit.reads.roster(campaign_id(campaign), as_of))
    emit(as_json, rows, lambda: print_table(*roster_rows(rows)))


@app.command()
def purchases(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """The RG Purchase Record, one row per RG."""
    rows = query(db, as_json, lambda refit: refit.reads.purchase_record(campaign_id(campaign),
                                                                        as_of))
    emit(as_json, rows, lambda: print_table(*purchase_rows(rows)))


@app.command()
def cvp(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """CVP lost per scenario and side, and totals."""
    answer = query(db, as_json, lambda refit: refit.reads.cvp(campaign_id(campaign), as_of))

    def human() -> None:
        print_table(["scenario", "side (lost)", "CVP", "casualties"],
                    [[r.scenario, r.side, r.cvp, ", ".join(c["unit"] for c in r.casualties)]
                     for r in answer.scenarios])
        print_table(["side", "total CVP lost"], [[s, t] for s, t in answer.totals.items()])
    emit(as_json, answer, human)


@app.command()
def elr(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """ELR per side now, and each change with its cause."""
    answer = query(db, as_json, lambda refit: refit.reads.elr(campaign_id(campaign), as_of))

    def human() -> None:
        print_table(["side", "ELR"], [[s, v] for s, v in answer.current.items()])
        print_table(*rating_rows(answer.changes))
    emit(as_json, answer, human)


@app.command()
def san(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """Each SAN change with its cause."""
    changes = query(db, as_json, lambda refit: refit.reads.san(campaign_id(campaign), as_of))
    emit(as_json, changes, lambda: print_table(*rating_rows(changes)))


@app.command()
def control(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """Who controls each Location, Block or Strategic Location whose control was recorded."""
    rows = query(db, as_json, lambda refit: refit.reads.control(campaign_id(campaign), as_of))
    emit(as_json, rows, lambda: print_table(*control_rows(rows)))


@app.command()
def lvp(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """LVP totals at each CG-Scenario End, per side and Map Group (KGP 8.2)."""
    rows = query(db, as_json, lambda refit: refit.reads.lvp(campaign_id(campaign), as_of))
    emit(as_json, rows, lambda: print_table(*lvp_rows(rows)))


@app.command()
def objectives(campaign: Id, as_of: AsOf = None, db: Db = None,
               as_json: Json = False) -> None:
    """Objective Hexes (KGP 8.6198), with where each is once revealed."""
    rows = query(db, as_json, lambda refit: refit.reads.objectives(campaign_id(campaign), as_of))
    emit(as_json, rows, lambda: print_table(*objective_rows(rows)))


@app.command()
def rolls(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """Every roll: key, rule, side, dice, itemized DRM, Final roll, result."""
    rows = query(db, as_json, lambda refit: refit.reads.rolls(campaign_id(campaign), as_of))
    emit(as_json, rows, lambda: print_table(*roll_rows(rows)))


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
        verdict = "OK" if report.ok else f"BAD at version {report.first_bad_version}"
        typer.echo(f"{verdict}: {report.events} events, {report.rolls_verified} rolls "
                   f"verified, head {report.head_hash}")
        if report.problem:
            typer.echo(report.problem)
    emit(as_json, report.as_dict(), human)
    if not report.ok:
        raise typer.Exit(1)


def _verify_file(path: Path) -> VerifyReport:
    with path.open(encoding="utf-8") as lines:
        return verify_export(parse_lines(lines))
