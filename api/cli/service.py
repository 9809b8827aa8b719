"""`refit demo` and `refit serve`: a scripted campaign, and the HTTP service."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast
from uuid import UUID

import typer

from api.cli.core import Db, Json, emit, guarded, ledger, make_tables, print_table, settings

if TYPE_CHECKING:
    from infra.settings import Settings
    from projections.read import PurchaseRow, RosterRow

app = typer.Typer()
# uvicorn's HTTP protocol with a bound on a request's headers (431 past 64 KB): a string,
# so neither --help nor another subcommand imports uvicorn for it
HEAD = "api.http_head:BoundedHead"


@app.command()
def demo(db: Db = None, as_json: Json = False) -> None:
    """Play a scripted PBr CG I (an Initial Scenario, an Idle date, a Night Dual Attack and
    two more RePhs) on the database, then print its CG Roster and RG Purchase Record."""
    from api.render import purchase_rows, roster_rows
    from infra.demo import play_demo

    def act() -> tuple[str, list[RosterRow], list[PurchaseRow], dict[str, Any]]:
        with ledger(db) as refit:
            campaign, tokens = play_demo(refit)
            return (str(campaign), refit.reads.roster(campaign),
                    refit.reads.purchase_record(campaign),
                    asdict(tokens))
    campaign, roster, record, tokens = guarded(as_json, act)
    remember_demo(settings(db), campaign, tokens)
    body = {"id": campaign, "roster": roster, "purchases": record, "tokens": tokens}

    def human() -> None:
        typer.echo(f"Demo campaign {campaign} (PBr CG I)\n\nCG Roster")
        print_table(*roster_rows(roster))
        typer.echo("\nRG Purchase Record")
        print_table(*purchase_rows(record))
        typer.echo("\nPBr ships no CG parameters (3.51-3.53 are not in the seeds): the "
                   "Initial Scenario CPP were credited by hand, and ELR and SAN stay blank "
                   "until recorded (change_elr, change_san) or an owner's CG file gives them.")
        typer.echo(f"The 15PM CG Scenario is in play. What each side must and may do: "
                   f"refit guide {campaign} --side Axis (or British)")
        typer.echo(f"More: refit rolls {campaign}; refit cvp {campaign}; "
                   f"refit verify {campaign}")
        sides = ", ".join(f"{side} {token}" for side, token in tokens["sides"].items())
        typer.echo("In a browser: refit serve prints a join link for each role.")
        typer.echo(f"Over HTTP (refit serve): Authorization: Bearer TOKEN, the director's "
                   f"{tokens['director']}; the sides' {sides}; the observer's "
                   f"{tokens['observer']}")
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
    REFIT_ADMIN_TOKEN is unset, and so is the key that signs checkpoints if
    REFIT_SIGNING_KEY and REFIT_SIGNING_KEY_FILE are)."""
    import uvicorn

    from api.app import create_app
    from api.workers import MASTER_PID

    conf = settings(db)
    if conf.admin_token is None:
        token, where, made = admin_token_file(conf)
        said = {"admin_token": token} if made else {"admin_token_file": str(where)}
        typer.echo(json.dumps(said) if as_json else
                   f"admin token: {token}" if made else f"admin token: in {where}")
        conf = conf.model_copy(update={"admin_token": token})
    conf = signing_key_said(conf, as_json)
    links_said(conf, host, port, as_json)
    if conf.public_url is None:  # the webhooks' links (README 'Chat webhooks')
        conf = conf.model_copy(update={"public_url": served_base(host, port)})
    if workers == 1:
        uvicorn.run(create_app(conf), host=host, port=port, access_log=conf.access_log,
                    http=HEAD)
        return
    make_tables(conf)
    os.environ |= {"REFIT_DATABASE_URL": conf.database_url, "REFIT_SHARED_DATABASE": "true",
                   "REFIT_ADMIN_TOKEN": cast(str, conf.admin_token),
                   "REFIT_MODULE_DIR": str(conf.module_dir),
                   "REFIT_PUBLIC_URL": cast(str, conf.public_url)}
    if conf.signing_key_file is not None:
        os.environ["REFIT_SIGNING_KEY_FILE"] = str(conf.signing_key_file)
    # Each worker ends with this process, even one killed outright (api/workers.py).
    os.environ[MASTER_PID] = str(os.getpid())
    uvicorn.run("api.workers:create_worker_app", factory=True, host=host, port=port,
                workers=workers, access_log=conf.access_log, http=HEAD)


def signing_key_said(conf: Settings, as_json: bool) -> Settings:
    """Load (or make, beside the database, 0600) the key that signs checkpoints and say its
    public verifier key; the settings name its file, so every worker signs with it."""
    from infra.keys import load_key

    key, where, made = guarded(as_json, lambda: load_key(conf))  # a malformed key: refused
    said = {"verifier_key": key.verifier_key} | (
        {"signing_key_file": str(where)} if where is not None else {})
    typer.echo(json.dumps(said) if as_json else f"verifier key: {key.verifier_key}" + (
        f" (signing key made in {where})" if made else ""))
    return conf if where is None else conf.model_copy(update={"signing_key_file": where})


def beside_database(conf: Settings, name: str) -> Path:
    """A file kept beside the SQLite database (in the working directory for PostgreSQL)."""
    database = conf.eventsourcing_env().get("SQLITE_DBNAME")
    return (Path(database).parent if database else Path.cwd()) / name


DEMO_TOKENS = "refit-demo-tokens"  # the demo campaign's id and role tokens (0600)


def remember_demo(conf: Settings, campaign: str, tokens: dict[str, Any]) -> None:
    """Keep the demo's tokens beside the database, for `refit serve` to print its join
    links (the last demo played is the one kept)."""
    from infra.keys import write_secret

    where = beside_database(conf, DEMO_TOKENS)
    where.unlink(missing_ok=True)
    write_secret(where, json.dumps({"id": campaign, "tokens": tokens}))


def demo_links(conf: Settings, base: str) -> dict[str, str]:
    """A join link per role of the demo campaign, while it is in the database and its
    tokens still open it (none otherwise)."""
    from domain.errors import RefitError
    from infra.application import Refit

    where = beside_database(conf, DEMO_TOKENS)
    try:
        kept = json.loads(where.read_text())
        roles = {"director": kept["tokens"]["director"], **kept["tokens"]["sides"],
                 "observer": kept["tokens"]["observer"]}
        campaign = UUID(kept["id"])
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    refit = Refit(conf)
    try:
        access = refit.store.campaign(campaign).access
    except RefitError:
        return {}
    finally:
        refit.close()
    return {role: f"{base}/join#campaign={campaign}&token={token}"
            for role, token in roles.items() if access.role_of(token) == role}


def served_base(host: str, port: int) -> str:
    """The address the service is opened at on this machine."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    return f"http://[{shown}]:{port}" if ":" in shown else f"http://{shown}:{port}"


def links_said(conf: Settings, host: str, port: int, as_json: bool) -> None:
    """Say the address to open, and the demo campaign's join links if there is one."""
    base = served_base(host, port)
    links = demo_links(conf, base)
    if as_json:
        typer.echo(json.dumps({"open": f"{base}/", "join": links}))
        return
    typer.echo(f"open {base}/ in a browser, and log in with a token")
    if links:
        typer.echo("the demo campaign's join links (each logs a browser in as one role; "
                   "give a side's to its player only):")
        for role, link in links.items():
            typer.echo(f"  {role:<9} {link}")


def admin_token_file(conf: Settings) -> tuple[str, Path, bool]:
    """The admin token kept beside the database: (token, its file, made just now)."""
    from infra.commands import new_token
    from infra.keys import write_secret

    where = beside_database(conf, "refit-admin-token")
    token = new_token()
    try:
        write_secret(where, token)
    except FileExistsError:
        return where.read_text().strip(), where, False
    return token, where, True
