"""`refit module`: the rules modules, and installing an owner's table file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from api.cli.core import Db, Json, emit, guarded, print_table, settings

app = typer.Typer(name="module", help="Rules modules and owners' table files.",
                  no_args_is_help=True)


@app.command("list")
def module_list(db: Db = None, as_json: Json = False) -> None:
    """The registered modules with their sides, CGs and tables."""
    from infra.modules import describe, load_modules

    modules = guarded(as_json, lambda: load_modules(settings(db).module_dir))
    rows = [describe(m) for m in modules.values()]
    emit(as_json, rows, lambda: print_table(
        ["id", "name", "sides", "CG Dates", "tables"],
        [[r["id"], r["name"], "/".join(r["sides"]), f"{r['calendar'][0]}..{r['calendar'][-1]}",
          ", ".join(t["id"] for t in r["tables"])] for r in rows]))


@app.command("load")
def module_load(
    file: Annotated[Path, typer.Argument(help="A module or table file (README, 'Module files').")],
    db: Db = None, as_json: Json = False,
) -> None:
    """Validate an owner's table file and install it in REFIT_MODULE_DIR. Campaigns made
    from then on play it; a running campaign keeps the data it is pinned to until its
    director sends `{"type": "upgrade_module"}`."""
    from infra.modules import install_file

    conf = settings(db)
    target = guarded(as_json, lambda: install_file(file, conf.module_dir))
    emit(as_json, {"installed": str(target)}, lambda: typer.echo(
        f"installed {target}: new campaigns play it; running campaigns keep their pinned "
        "data until their director sends upgrade_module"))
