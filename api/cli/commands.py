"""`refit` commands that change a campaign: roll, purchase, advance, or any command as JSON."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from api.cli.core import By, Db, Id, Json, guarded, run

if TYPE_CHECKING:
    from domain import commands as cmd

app = typer.Typer()


def parse_drm(items: list[str]) -> list[dict[str, Any]]:
    """`3.610-heroic` -> {"id": "3.610-heroic"}; `3.613-hexes:7` -> {"id": ..., "count": 7}."""
    parsed: list[dict[str, Any]] = []
    for item in items:
        drm_id, colon, count = item.partition(":")
        try:
            parsed.append({"id": drm_id} | ({"count": int(count)} if colon else {}))
        except ValueError:
            raise typer.BadParameter(f"{item!r}: claim a DRM by its id (refit module list), "
                                     "with :COUNT where the rules compute it, e.g. "
                                     "3.613-hexes:7", param_hint="--drm") from None
    return parsed


@app.command()
def roll(
    campaign: Id,
    table: Annotated[str, typer.Option(help="The table's rule number, e.g. 9.6101.")],
    side: Annotated[str, typer.Option(help="The rolling side.")],
    drm: Annotated[list[str] | None, typer.Option(
        help="An optional DRM claimed by id (ID, or ID:COUNT); the ledger derives the rest.")]
    = None,
    dice: Annotated[list[int] | None, typer.Option(help="Entered mode: each die.")] = None,
    subject: Annotated[str, typer.Option(
        help="What is rolled for, as `refit guide` names it: step, rg:N, rg:N/sw:K, "
             "rg:N/leader:K or unit:LABEL.")] = "step",
    target: Annotated[int | None, typer.Option(help="Target number, if the table has one.")]
    = None,
    secret: Annotated[bool, typer.Option(help="Keep the roll secret from the other side.")]
    = False,
    by: By = "director", db: Db = None, as_json: Json = False,
) -> None:
    """Roll dr/DR on a module table; the ledger adds the DRM it derives."""
    from domain import commands as cmd

    body = {"type": "roll", "table": table, "side": side, "drm": parse_drm(drm or []),
            "subject": subject, "dice": dice, "target": target, "secret": secret}
    run(db, as_json, campaign, guarded(as_json, lambda: cmd.parse_command(body)), by)


@app.command()
def purchase(
    campaign: Id,
    side: Annotated[str, typer.Option(help="The purchasing side.")],
    rg: Annotated[str, typer.Option(help="The RG id on the side's RG chart.")],
    kg: Annotated[str | None, typer.Option(help="Kampfgruppe, where the module has them.")]
    = None,
    by: By = "director", db: Db = None, as_json: Json = False,
) -> None:
    """Purchase an RG with CPP."""
    from domain import commands as cmd

    run(db, as_json, campaign, cmd.PurchaseRG(side=side, rg=rg, kg=kg), by)


@app.command()
def advance(
    campaign: Id,
    side: Annotated[str | None, typer.Option(
        help="The side whose part of the step is done (none: the step, for all).")] = None,
    by: By = "director", db: Db = None, as_json: Json = False,
) -> None:
    """A side's part of the RePh step done, or (without --side) the step complete for all."""
    from domain import commands as cmd

    run(db, as_json, campaign, cmd.Advance(side=side), by)


@app.command("command")
def any_command(
    campaign: Id,
    body: Annotated[str, typer.Argument(help='A command as JSON, e.g. \'{"type": "advance"}\'.')],
    by: By = "director", db: Db = None, as_json: Json = False,
) -> None:
    """Run any command given as JSON (see README, 'Commands')."""
    from domain import commands as cmd

    def parse() -> cmd.Command:
        try:
            data = json.loads(body)
        except json.JSONDecodeError as error:
            raise ValueError(f"the command is not JSON: {error}") from None
        return cmd.parse_command(data)
    run(db, as_json, campaign, guarded(as_json, parse), by)
