"""`refit module`: the rules modules, and installing an owner's table file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from api.cli.core import Db, Json, emit, guarded, print_table, settings
from infra.modules import install_file, load_modules

app = typer.Typer(name="module", help="Rules modules and owners' table files.",
                  no_args_is_help=True)


@app.command("list")
def module_list(db: Db = None, as_json: Json = False) -> None:
    """The registered modules with their sides, CGs and tables."""
    modules = guarded(as_json, lambda: load_modules(settings(db).module_dir))
    rows = [{"id": m.id, "name": m.name, "sides": m.sides, "cgs": sorted(m.cgs),
             "calendar": [d.date for d in m.calendar], "tables": [t.id for t in m.tables],
             "missing": m.missing_tables(), "missing_cg_parameters": m.missing_cg_parameters()}
            for m in modules.values()]
    emit(as_json, rows, lambda: print_table(
        ["id", "name", "sides", "CG Dates", "tables"],
        [[r["id"], r["name"], "/".join(r["sides"]),
          f"{r['calendar'][0]}..{r['calendar'][-1]}", ", ".join(r["tables"])] for r in rows]))


@app.command("load")
def module_load(
    file: Annotated[Path, typer.Argument(help="A module or table file (README, 'Module files').")],
    db: Db = None, as_json: Json = False,
) -> None:
    """Validate an owner's table file and install it in REFIT_MODULE_DIR."""
    conf = settings(db)
    target = guarded(as_json, lambda: install_file(file, conf.module_dir))
    emit(as_json, {"installed": str(target)}, lambda: typer.echo(f"installed {target}"))
