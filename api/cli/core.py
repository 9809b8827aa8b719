"""What every `refit` subcommand shares: its options, the application on the configured
database, refusals as clear messages, and printing answers (JSON or for a person)."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer

if TYPE_CHECKING:
    from domain import commands as cmd
    from infra.application import Refit
    from infra.results import CommandResult
    from infra.settings import Settings

# What a subcommand needs it imports when it runs, not here: every `refit` call imports
# this module, and `refit --help` must not pay for the domain, the database drivers or
# the HTTP stack (issue 17, item 6; tests/cli/test_cli_start.py).

Db = Annotated[str | None,
               typer.Option("--db", help="Database URL (overrides REFIT_DATABASE_URL).")]
Json = Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")]
Id = Annotated[str, typer.Argument(help="Campaign id.")]
AsOf = Annotated[str | None, typer.Option(
    "--as-of", help="Answer as of a version, or after a step: CGDATE/STEP, e.g. 14AM/3.617.")]
By = Annotated[str, typer.Option("--by", help="Who is acting (recorded in the event).")]
Viewer = Annotated[str | None, typer.Option(
    "--as", "--side", help="A side (or observer): as it may read it (the other side's "
                           "secrets kept).")]
T = TypeVar("T")


def settings(db: str | None) -> Settings:
    """Settings from the environment, with --db on top."""
    from infra.settings import Settings

    return Settings(database_url=db) if db else Settings()


class Process:
    """What the process a subcommand runs in is: `refit` itself (main) runs one command
    and ends; a test or a script may run many."""

    one_command = False


@contextmanager
def starting() -> Iterator[None]:
    """Imports and start-up made with the cyclic GC paused, and in `refit`'s own process
    then frozen out of its way (gc.freeze): a start makes some 400,000 objects and no
    garbage worth a pass, and the passes over them as they grew, or the first after,
    cost a `refit status` about 100 ms (issue 17, item 6). A process that runs many
    commands is not frozen: what each leaves would never be collected."""
    from projections.collector import collector_paused

    with collector_paused():
        yield
    if Process.one_command:
        gc.freeze()


@contextmanager
def ledger(db: str | None) -> Iterator[Refit]:
    """The application on the configured database, closed afterwards."""
    with starting():
        from infra.application import Refit

        refit = Refit(settings(db))
    try:
        yield refit
    finally:
        refit.close()


def make_tables(conf: Settings) -> None:
    """The tables made once, before several processes each build the application on the
    same database and would otherwise race to make them."""
    from infra.application import Refit

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


def refusals() -> tuple[type[Exception], ...]:
    """What a subcommand answers as a refusal, not a traceback (imported only when asked)."""
    from eventsourcing.persistence import PersistenceError
    from pydantic import ValidationError

    from api.errors import outages
    from domain.errors import ModuleFileError, RefitError

    return (RefitError, ValidationError, ModuleFileError, ValueError, PersistenceError,
            *outages())


def guarded(as_json: bool, action: Callable[[], T]) -> T:
    """Run an action; map every refusal to one clear message, never a traceback."""
    try:
        return action()
    except Exception as error:
        if not isinstance(error, refusals()):
            raise
        fail(refusal_body(error), as_json)


def refusal_body(error: Exception) -> dict[str, Any]:
    """CONTRACT's error body for a refusal."""
    from api.errors import error_body

    return error_body(error)


def campaign_key(text: str) -> Any:
    """A campaign id parsed, naming the field when it is not one (domain.campaign_id)."""
    from domain.campaign import campaign_id

    return campaign_id(text)


def viewer_of(refit: Refit, campaign: str, side: str | None) -> str | None:
    """Whom to read as: a side of the campaign, or its observer (None: the director, who
    sees every side); anything else is refused, naming the sides, never read as a
    stranger who sees neither side's secrets."""
    from domain.errors import InvalidCommand

    sides = refit.store.campaign(campaign_key(campaign)).sides
    if side is not None and side not in [*sides, "observer"]:
        raise InvalidCommand(f"{side!r} is not a side of this campaign: "
                             f"{', '.join(sides)} (or observer)", field="side")
    return side


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
    from api.render import table_text

    typer.echo(table_text(headers, rows))


def print_fields(body: dict[str, Any], prefix: str = "") -> None:
    """One `name: value` line per field; a nested one by its dotted path (`tokens.director`),
    never as Python's repr."""
    for key, value in body.items():
        if isinstance(value, dict) and value:
            print_fields(value, f"{prefix}{key}.")
        else:
            typer.echo(f"{prefix}{key}: {cell(value)}")


def cell(value: Any) -> str:
    """A value as a person reads it: text as it is, none as nothing, a list or object as
    whole JSON."""
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, list | dict) else str(value)


def _plain(data: Any) -> Any:
    from pydantic import BaseModel

    if isinstance(data, BaseModel):
        return data.model_dump(mode="json")
    if isinstance(data, list):
        return [_plain(item) for item in data]
    if isinstance(data, dict):
        return {key: _plain(value) for key, value in data.items()}
    return data


def run(db: str | None, as_json: bool, campaign: str, command: cmd.Command, by: str) -> None:
    """Execute one command on a campaign and print what it appended."""
    answer(as_json, appended(db, as_json, campaign, lambda refit: refit.commands.execute(
        campaign_key(campaign), command, by)))


def appended(db: str | None, as_json: bool, campaign: str,
             act: Callable[[Refit], CommandResult]) -> CommandResult:
    """What an act appended to the campaign, with its receipt."""
    return query(db, as_json,
                 lambda refit: refit.proofs.receipted(campaign_key(campaign), act(refit)))


def answer(as_json: bool, result: CommandResult) -> None:
    """Print what a command appended (its events, version, head hash and receipt)."""
    body = {"version": result.version, "head_hash": result.head_hash, "events": result.events,
            "receipt": result.receipt}
    emit(as_json, body, lambda: _print_appended(body))


def _print_appended(body: dict[str, Any]) -> None:
    for record in body["events"]:
        typer.echo(f"v{record['version']} {record['type']}: {_summary(record)}")
    typer.echo(f"head {body['head_hash']}")
    if body["receipt"] is not None:
        typer.echo(f"receipt: tree size {body['receipt']['tree_size']}, root "
                   f"{body['receipt']['root']} (--json prints it to keep)")


def _summary(record: dict[str, Any]) -> str:
    data = record["data"]
    if record["type"] == "DiceRolled":
        drm = " ".join(f"{d['value']:+d} {d['reason']}" for d in data["drm"]) or "no DRM"
        return (f"{data['side']} {data['kind']} on {data['table']} {data['title']}: "
                f"dice {data['dice']}, {drm}, Final {data['final']} -> {data['result']}")
    shown = {k: v for k, v in data.items() if k not in ("actor", "secret_for")}
    return ", ".join(f"{k}={v}" for k, v in shown.items())


def print_receipt(found: dict[str, Any]) -> None:
    """A receipt's finding, for a person: what it proves, or what failed."""
    if found["ok"]:
        versions = ", ".join(map(str, found["versions"])) or "none"
        plural = "s" if len(found["versions"]) != 1 else ""
        typer.echo(f"{found['receipt']}: OK, version{plural} {versions} in the signed tree "
                   f"of {found['tree_size']} events")
    else:
        where = f" at version {found['version']}" if found["version"] is not None else ""
        typer.echo(f"{found['receipt']}: BAD{where}: {found['problem']}")
    if found["note"]:
        typer.echo(f"  note: {found['note']}")
