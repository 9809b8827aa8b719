"""The `refit` command line: it builds commands, calls the application, prints answers."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar, cast

import typer
from eventsourcing.persistence import PersistenceError
from pydantic import BaseModel, ValidationError

from api.errors import error_body
from api.render import (
    control_rows,
    format_table,
    lvp_rows,
    objective_rows,
    purchase_rows,
    rating_rows,
    roll_rows,
    roster_rows,
)
from domain import commands as cmd
from domain.campaign import campaign_id
from domain.errors import RefitError
from domain.verify import VerifyReport, verify_export
from infra.application import CommandResult, Refit, new_token
from infra.modules import ModuleFileError, install_file, load_modules
from infra.settings import Settings
from infra.transfer import parse_lines
from projections.read import PurchaseRow, RosterRow

app = typer.Typer(help="Refit: the ASL Campaign Game ledger.", no_args_is_help=True,
                  add_completion=False)
campaign_app = typer.Typer(help="Create and list campaigns.", no_args_is_help=True)
module_app = typer.Typer(help="Rules modules and owners' table files.", no_args_is_help=True)
app.add_typer(campaign_app, name="campaign")
app.add_typer(module_app, name="module")

Db = Annotated[str | None,
               typer.Option("--db", help="Database URL (overrides REFIT_DATABASE_URL).")]
Json = Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")]
Id = Annotated[str, typer.Argument(help="Campaign id.")]
AsOf = Annotated[str | None, typer.Option(
    "--as-of", help="Answer as of a version, or after a step: CGDATE/STEP, e.g. 19PM/9.616.")]
By = Annotated[str, typer.Option("--by", help="Who is acting (recorded in the event).")]
T = TypeVar("T")


def settings(db: str | None) -> Settings:
    """Settings from the environment, with --db on top."""
    return Settings(database_url=db) if db else Settings()


@contextmanager
def ledger(db: str | None) -> Iterator[Refit]:
    """The application on the configured database, closed afterwards."""
    refit = Refit(settings(db))
    try:
        yield refit
    finally:
        refit.close()


def make_tables(conf: Settings) -> None:
    """The tables made once, before several processes each build the application on the
    same database and would otherwise race to make them."""
    Refit(conf.model_copy(update={"projection_runner": False})).close()  # no runner to start


def fail(body: dict[str, Any], as_json: bool) -> NoReturn:
    """Print a refusal (JSON on stdout with --json, a line on stderr otherwise) and exit 2."""
    if as_json:
        typer.echo(json.dumps(body))
    error = body["error"]
    rule = f" (rule {error['rule']})" if error.get("rule") else ""
    label = "error" if error["code"] == "storage" else "refused"
    typer.echo(f"{label}: {error['message']}{rule}", err=True)
    raise typer.Exit(2)


REFUSALS = (RefitError, ValidationError, ModuleFileError, ValueError, PersistenceError)


def guarded(as_json: bool, action: Callable[[], T]) -> T:
    """Run an action; map every refusal to one clear message, never a traceback."""
    try:
        return action()
    except REFUSALS as error:
        fail(error_body(error), as_json)


def query(db: str | None, as_json: bool, ask: Callable[[Refit], T]) -> T:
    """Ask the application one thing, guarded, on the configured database."""
    def act() -> T:
        with ledger(db) as refit:
            return ask(refit)
    return guarded(as_json, act)


def emit(as_json: bool, data: Any, human: Callable[[], None]) -> None:
    """JSON with --json, else the human form."""
    if as_json:
        typer.echo(json.dumps(_plain(data), indent=1, ensure_ascii=False))
    else:
        human()


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Print a table, or say there is nothing yet."""
    typer.echo(format_table(headers, rows) if rows else "(none yet)")


def _plain(data: Any) -> Any:
    if isinstance(data, BaseModel):
        return data.model_dump(mode="json")
    if isinstance(data, list):
        return [_plain(item) for item in data]
    if isinstance(data, dict):
        return {key: _plain(value) for key, value in data.items()}
    return data


def run(db: str | None, as_json: bool, campaign: str, command: cmd.Command, by: str) -> None:
    """Execute one command on a campaign and print what it appended."""
    answer(as_json, query(db, as_json,
                          lambda refit: refit.execute(campaign_id(campaign), command, by)))


def answer(as_json: bool, result: CommandResult) -> None:
    """Print what a command appended (its events, version and head hash)."""
    body = {"version": result.version, "head_hash": result.head_hash, "events": result.events}
    emit(as_json, body, lambda: _print_appended(body))


def _print_appended(body: dict[str, Any]) -> None:
    for record in body["events"]:
        typer.echo(f"v{record['version']} {record['type']}: {_summary(record)}")
    typer.echo(f"head {body['head_hash']}")


def _summary(record: dict[str, Any]) -> str:
    data = record["data"]
    if record["type"] == "DiceRolled":
        drm = " ".join(f"{d['value']:+d} {d['reason']}" for d in data["drm"]) or "no DRM"
        return (f"{data['side']} {data['kind']} on {data['table']} {data['title']}: "
                f"dice {data['dice']}, {drm}, Final {data['final']} -> {data['result']}")
    shown = {k: v for k, v in data.items() if k not in ("actor", "secret_for")}
    return ", ".join(f"{k}={v}" for k, v in shown.items())


# -- campaigns --------------------------------------------------------------


@campaign_app.command("new")
def campaign_new(
    module: Annotated[str, typer.Option(help="Module id: abtf, pbr or kgp.")],
    cg: Annotated[str, typer.Option(help="CG: I, II or III.")],
    name: Annotated[str, typer.Option(help="A name for the campaign.")],
    dice: Annotated[str, typer.Option(help="server (provably fair) or entered.")] = "server",
    start: Annotated[str | None, typer.Option(help="First CG Date, if not the CG's.")] = None,
    db: Db = None, as_json: Json = False,
) -> None:
    """Create a campaign; print its id, seed commitment and role tokens (shown this once)."""
    def act() -> dict[str, Any]:
        with ledger(db) as refit:
            created, tokens = refit.open_campaign(module, cg, name, dice, "director", start)
            return {"id": str(created.id), "seed_commitment": created.seed_commitment,
                    "cg_date": created.cg_date, "step": created.step,
                    "version": created.version, "tokens": asdict(tokens)}
    body = guarded(as_json, act)
    emit(as_json, body, lambda: print_fields(body))


def print_fields(body: dict[str, Any]) -> None:
    """One `name: value` line per field."""
    for key, value in body.items():
        typer.echo(f"{key}: {value}")


@campaign_app.command("list")
def campaign_list(db: Db = None, as_json: Json = False) -> None:
    """The campaigns, one line each."""
    rows = query(db, as_json, lambda refit: refit.campaigns())
    emit(as_json, rows, lambda: print_table(
        ["id", "module", "CG", "name", "CG Date", "phase", "step", "version"],
        [[r.id, r.module, r.cg, r.name, r.cg_date, r.phase, r.step or "", r.version]
         for r in rows]))


@app.command()
def status(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """Where the campaign stands: CG Date, RePh step, CPP, FPP, ELR, SAN per side."""
    answer = query(db, as_json, lambda refit: refit.status(campaign_id(campaign), as_of))

    def human() -> None:
        typer.echo(f"{answer.name} ({answer.module} CG {answer.cg}), version {answer.version}")
        typer.echo(f"CG Date {answer.cg_date}, {answer.phase} {answer.step or ''}".rstrip())
        print_table(["side", "CPP", "FPP", "ELR", "SAN"],
                    [[s, v["cpp"], v["fpp"], v["elr"], v["san"]]
                     for s, v in answer.sides.items()])
        if answer.to_roll:
            typer.echo(f"{answer.step} waits for: {', '.join(answer.to_roll)}")
    emit(as_json, answer, human)


# -- projections ------------------------------------------------------------


@app.command()
def roster(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """The CG Roster, one row per CG Date."""
    rows = query(db, as_json, lambda refit: refit.roster(campaign_id(campaign), as_of))
    emit(as_json, rows, lambda: print_table(*roster_rows(rows)))


@app.command()
def purchases(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """The RG Purchase Record, one row per RG."""
    rows = query(db, as_json, lambda refit: refit.purchase_record(campaign_id(campaign), as_of))
    emit(as_json, rows, lambda: print_table(*purchase_rows(rows)))


@app.command()
def cvp(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """CVP lost per scenario and side, and totals."""
    answer = query(db, as_json, lambda refit: refit.cvp(campaign_id(campaign), as_of))

    def human() -> None:
        print_table(["scenario", "side (lost)", "CVP", "casualties"],
                    [[r.scenario, r.side, r.cvp, ", ".join(c["unit"] for c in r.casualties)]
                     for r in answer.scenarios])
        print_table(["side", "total CVP lost"], [[s, t] for s, t in answer.totals.items()])
    emit(as_json, answer, human)


@app.command()
def elr(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """ELR per side now, and each change with its cause."""
    answer = query(db, as_json, lambda refit: refit.elr(campaign_id(campaign), as_of))

    def human() -> None:
        print_table(["side", "ELR"], [[s, v] for s, v in answer.current.items()])
        print_table(*rating_rows(answer.changes))
    emit(as_json, answer, human)


@app.command()
def san(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """Each SAN change with its cause."""
    changes = query(db, as_json, lambda refit: refit.san(campaign_id(campaign), as_of))
    emit(as_json, changes, lambda: print_table(*rating_rows(changes)))


@app.command()
def control(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """Who controls each Location, Block or Strategic Location whose control was recorded."""
    rows = query(db, as_json, lambda refit: refit.control(campaign_id(campaign), as_of))
    emit(as_json, rows, lambda: print_table(*control_rows(rows)))


@app.command()
def lvp(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """LVP totals at each CG-Scenario End, per side and Map Group (KGP 8.2)."""
    rows = query(db, as_json, lambda refit: refit.lvp(campaign_id(campaign), as_of))
    emit(as_json, rows, lambda: print_table(*lvp_rows(rows)))


@app.command()
def objectives(campaign: Id, as_of: AsOf = None, db: Db = None,
               as_json: Json = False) -> None:
    """Objective Hexes (KGP 8.6198), with where each is once revealed."""
    rows = query(db, as_json, lambda refit: refit.objectives(campaign_id(campaign), as_of))
    emit(as_json, rows, lambda: print_table(*objective_rows(rows)))


@app.command()
def rolls(campaign: Id, as_of: AsOf = None, db: Db = None, as_json: Json = False) -> None:
    """Every roll: key, rule, side, dice, itemized DRM, Final roll, result."""
    rows = query(db, as_json, lambda refit: refit.rolls(campaign_id(campaign), as_of))
    emit(as_json, rows, lambda: print_table(*roll_rows(rows)))


@app.command()
def verify(campaign: Annotated[str, typer.Argument(help="Campaign id, or an export file.")],
           db: Db = None, as_json: Json = False) -> None:
    """Recompute the hash chain and every server roll whose seed is revealed: of a
    campaign in the database, or of an export file (one line at a time)."""
    if Path(campaign).is_file():
        report = guarded(as_json, lambda: _verify_file(Path(campaign)))
    else:
        report = query(db, as_json, lambda refit: refit.verify(campaign_id(campaign)))

    def human() -> None:
        verdict = "OK" if report.ok else f"BAD at version {report.first_bad_version}"
        typer.echo(f"{verdict}: {report.events} events, {report.rolls_verified} rolls "
                   f"verified, head {report.head_hash}")
        if report.problem:
            typer.echo(report.problem)
    emit(as_json, report.as_dict(), human)
    if not report.ok:
        raise typer.Exit(1)


# -- commands ---------------------------------------------------------------


def _verify_file(path: Path) -> VerifyReport:
    with path.open(encoding="utf-8") as lines:
        return verify_export(parse_lines(lines))


def parse_drm(items: list[str]) -> list[dict[str, Any]]:
    """`-1:Heroic` -> {"value": -1, "reason": "Heroic"}."""
    parsed = []
    for item in items:
        value, _, reason = item.partition(":")
        try:
            parsed.append({"value": int(value), "reason": reason})
        except ValueError:
            raise typer.BadParameter(f"{item!r}: write a DRM as VALUE:REASON, e.g. -1:Heroic",
                                     param_hint="--drm") from None
    return parsed


@app.command()
def roll(
    campaign: Id,
    table: Annotated[str, typer.Option(help="The table's rule number, e.g. 9.6101.")],
    side: Annotated[str, typer.Option(help="The rolling side.")],
    drm: Annotated[list[str] | None, typer.Option(help="Situational DRM VALUE:REASON.")] = None,
    dice: Annotated[list[int] | None, typer.Option(help="Entered mode: each die.")] = None,
    subject: Annotated[str, typer.Option(help="What is rolled for.")] = "",
    target: Annotated[int | None, typer.Option(help="Target number, if the table has one.")]
    = None,
    secret: Annotated[bool, typer.Option(help="Keep the roll secret from the other side.")]
    = False,
    purchase: Annotated[int | None, typer.Option(
        help="The RG Purchase Record line the roll is for (strength, SW, leader, ...).")]
    = None,
    by: By = "director", db: Db = None, as_json: Json = False,
) -> None:
    """Roll dr/DR on a module table; the ledger adds the DRM it derives."""
    body = {"type": "roll", "table": table, "side": side, "drm": parse_drm(drm or []),
            "subject": subject, "dice": dice, "target": target, "secret": secret,
            "purchase": purchase}
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
    run(db, as_json, campaign, cmd.PurchaseRG(side=side, rg=rg, kg=kg), by)


@app.command()
def advance(campaign: Id, by: By = "director", db: Db = None, as_json: Json = False) -> None:
    """Complete the current RePh step and go to the next."""
    run(db, as_json, campaign, cmd.Advance(), by)


@app.command("command")
def any_command(
    campaign: Id,
    body: Annotated[str, typer.Argument(help='A command as JSON, e.g. \'{"type": "advance"}\'.')],
    by: By = "director", db: Db = None, as_json: Json = False,
) -> None:
    """Run any command given as JSON (see README, 'Commands')."""
    def parse() -> cmd.Command:
        try:
            data = json.loads(body)
        except json.JSONDecodeError as error:
            raise ValueError(f"the command is not JSON: {error}") from None
        return cmd.parse_command(data)
    run(db, as_json, campaign, guarded(as_json, parse), by)


# -- modules ----------------------------------------------------------------


@module_app.command("list")
def module_list(db: Db = None, as_json: Json = False) -> None:
    """The registered modules with their sides, CGs and tables."""
    modules = guarded(as_json, lambda: load_modules(settings(db).module_dir))
    rows = [{"id": m.id, "name": m.name, "sides": m.sides, "cgs": sorted(m.cgs),
             "calendar": [d.date for d in m.calendar], "tables": [t.id for t in m.tables],
             "missing": m.missing_tables()} for m in modules.values()]
    emit(as_json, rows, lambda: print_table(
        ["id", "name", "sides", "CG Dates", "tables"],
        [[r["id"], r["name"], "/".join(r["sides"]),
          f"{r['calendar'][0]}..{r['calendar'][-1]}", ", ".join(r["tables"])] for r in rows]))


@module_app.command("load")
def module_load(
    file: Annotated[Path, typer.Argument(help="A module or table file (README, 'Module files').")],
    db: Db = None, as_json: Json = False,
) -> None:
    """Validate an owner's table file and install it in REFIT_MODULE_DIR."""
    conf = settings(db)
    target = guarded(as_json, lambda: install_file(file, conf.module_dir))
    emit(as_json, {"installed": str(target)}, lambda: typer.echo(f"installed {target}"))


@app.command()
def demo(db: Db = None, as_json: Json = False) -> None:
    """Play a scripted PBr CG I (an Initial Scenario, an Idle date, a Night Dual Attack and
    two more RePhs) on the database, then print its CG Roster and RG Purchase Record."""
    from infra.demo import play_demo

    def act() -> tuple[str, list[RosterRow], list[PurchaseRow], dict[str, Any]]:
        with ledger(db) as refit:
            campaign, tokens = play_demo(refit)
            return (str(campaign), refit.roster(campaign), refit.purchase_record(campaign),
                    asdict(tokens))
    campaign, roster, record, tokens = guarded(as_json, act)
    body = {"id": campaign, "roster": roster, "purchases": record, "tokens": tokens}

    def human() -> None:
        typer.echo(f"Demo campaign {campaign} (PBr CG I)\n\nCG Roster")
        print_table(*roster_rows(roster))
        typer.echo("\nRG Purchase Record")
        print_table(*purchase_rows(record))
        typer.echo(f"\nMore: refit rolls {campaign}; refit cvp {campaign}; "
                   f"refit verify {campaign}")
        typer.echo(f"Over HTTP (refit serve): Authorization: Bearer {tokens['director']} "
                   f"(director; observer {tokens['observer']})")
    emit(as_json, body, human)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option(help="Service processes (one database).")] = 1,
    db: Db = None,
    as_json: Json = False,
) -> None:
    """Start the HTTP service (an admin token is made and kept beside the database if
    REFIT_ADMIN_TOKEN is unset)."""
    import uvicorn

    from api.app import create_app

    conf = settings(db)
    if conf.admin_token is None:
        token, where, made = admin_token_file(conf)
        said = {"admin_token": token} if made else {"admin_token_file": str(where)}
        typer.echo(json.dumps(said) if as_json else
                   f"admin token: {token}" if made else f"admin token: in {where}")
        conf = conf.model_copy(update={"admin_token": token})
    if workers == 1:
        uvicorn.run(create_app(conf), host=host, port=port, access_log=conf.access_log)
        return
    make_tables(conf)
    os.environ |= {"REFIT_DATABASE_URL": conf.database_url, "REFIT_SHARED_DATABASE": "true",
                   "REFIT_ADMIN_TOKEN": cast(str, conf.admin_token),
                   "REFIT_MODULE_DIR": str(conf.module_dir)}
    uvicorn.run("api.app:create_app", factory=True, host=host, port=port, workers=workers,
                access_log=conf.access_log)


def admin_token_file(conf: Settings) -> tuple[str, Path, bool]:
    """The admin token kept beside the database: (token, its file, made just now)."""
    database = conf.eventsourcing_env().get("SQLITE_DBNAME")
    where = (Path(database).parent if database else Path.cwd()) / "refit-admin-token"
    if where.exists():
        return where.read_text().strip(), where, False
    token = new_token()
    where.write_text(token + "\n")
    where.chmod(0o600)
    return token, where, True


def main() -> None:
    """Console entry point."""
    app(prog_name="refit")


from api import cli_audit  # noqa: E402,F401  (registers its commands on `app`)

if __name__ == "__main__":  # pragma: no cover
    main()

