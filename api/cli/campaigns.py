"""`refit campaign`: create and list campaigns."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

import typer

from api.cli.core import Db, Json, emit, guarded, ledger, print_fields, print_table, query

app = typer.Typer(name="campaign", help="Create and list campaigns.", no_args_is_help=True)


@app.command("new")
def campaign_new(
    module: Annotated[str, typer.Option(help="Module id: abtf, pbr or kgp.")],
    cg: Annotated[str, typer.Option(help="CG: I, II or III.")],
    name: Annotated[str, typer.Option(help="A name for the campaign.")],
    dice: Annotated[str, typer.Option(help="server (provably fair) or entered.")] = "server",
    start: Annotated[str | None, typer.Option(help="First CG Date, if not the CG's.")] = None,
    balance: Annotated[str | None, typer.Option(
        help="KGP 8.31: the side given the CG Balance.")] = None,
    db: Db = None, as_json: Json = False,
) -> None:
    """Create a campaign; print its id, seed commitment and role tokens (shown this once)."""
    def act() -> dict[str, Any]:
        with ledger(db) as refit:
            created, tokens = refit.commands.open_campaign(module, cg, name, dice, "director",
                                                           start, balance)
            return {"id": str(created.id), "seed_commitment": created.dice.seed_commitment,
                    "cg_date": created.reph.cg_date, "step": created.reph.step,
                    "version": created.version, "tokens": asdict(tokens)}
    body = guarded(as_json, act)
    emit(as_json, body, lambda: print_fields(body))


@app.command("list")
def campaign_list(db: Db = None, as_json: Json = False) -> None:
    """The campaigns, one line each."""
    rows = query(db, as_json, lambda refit: refit.reads.campaigns())
    emit(as_json, rows, lambda: print_table(
        ["id", "module", "CG", "name", "CG Date", "phase", "step", "version"],
        [[r.id, r.module, r.cg, r.name, r.cg_date, r.phase, r.step or "", r.version]
         for r in rows]))
