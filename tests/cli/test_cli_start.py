"""`refit` starts fast (issue 17, item 6): what a subcommand does not need is never
imported. The time itself is measured by bench/cli_start.py, not asserted here."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from api.cli import app
from tests.helpers.demo import play_the_demo
from tests.helpers.paths import ROOT

# Runs `refit ARGS...` in a fresh interpreter, then writes the modules it imported to FILE.
SCRIPT = """
import json, sys
from api.cli import app
out, args = sys.argv[1], sys.argv[2:]
try:
    app(args, prog_name="refit")
except SystemExit as done:
    assert done.code in (0, None), done.code
with open(out, "w") as file:
    json.dump(sorted(sys.modules), file)
"""
HTTP = ("fastapi", "starlette", "uvicorn", "httptools", "uvloop", "httpx", "anyio")
COMMAND_PATH = ("infra.commands", "infra.audit", "infra.transfer", "infra.proofs",
                "api.app", "api.forms", "api.report", "api.routes_audit")


def imported(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> set[str]:
    """The modules `refit ARGS...` imports, run as its own process."""
    out = tmp_path / "modules.json"
    subprocess.run([sys.executable, "-c", SCRIPT, str(out), *args], cwd=ROOT, check=True,
                   capture_output=True, env=os.environ | (env or {}), timeout=120)
    return set(json.loads(out.read_text()))


def tops(modules: set[str]) -> set[str]:
    """The top-level packages among modules (the domain's errors alone, a small module of
    exception classes, do not count as the domain)."""
    return {name.partition(".")[0] for name in modules - {"domain", "domain.errors"}}


def test_help_imports_neither_the_domain_nor_a_driver_nor_the_http_stack(
        tmp_path: Path) -> None:
    loaded = imported(tmp_path, "--help")
    heavy = {"domain", "infra", "projections", "pydantic", "eventsourcing", "psycopg",
             "sqlite3", "cryptography", "rich", *HTTP}
    assert not tops(loaded) & heavy, sorted(tops(loaded) & heavy)
    assert "api.cli.reads" in loaded  # the read commands are listed all the same


def test_a_subcommand_help_imports_no_domain(tmp_path: Path) -> None:
    loaded = imported(tmp_path, "purchase", "--help")
    assert not tops(loaded) & {"domain", "infra", "psycopg", "eventsourcing", *HTTP}


def test_a_read_imports_no_http_stack_nor_the_command_path(tmp_path: Path) -> None:
    played = play_the_demo(tmp_path)
    env = {"REFIT_DATABASE_URL": played.refit.settings.database_url,
           "REFIT_MODULE_DIR": str(tmp_path / "modules")}
    played.refit.close()
    loaded = imported(tmp_path, "status", str(played.campaign), "--json", env=env)
    assert "infra.queries" in loaded  # it did read
    assert not tops(loaded) & set(HTTP), sorted(tops(loaded) & set(HTTP))
    assert not loaded & set(COMMAND_PATH), sorted(loaded & set(COMMAND_PATH))
    # On SQLite, neither PostgreSQL's driver nor eventsourcing's module for it
    assert not tops(loaded) & {"psycopg", "psycopg_pool"}, sorted(tops(loaded))
    assert "eventsourcing.postgres" not in loaded


def test_an_export_on_sqlite_imports_no_postgresql_driver(tmp_path: Path) -> None:
    played = play_the_demo(tmp_path)
    env = {"REFIT_DATABASE_URL": played.refit.settings.database_url,
           "REFIT_MODULE_DIR": str(tmp_path / "modules")}
    played.refit.close()
    loaded = imported(tmp_path, "export", str(played.campaign), "--to", str(tmp_path), env=env)
    assert "infra.rows" in loaded  # it read the rows a page at a time
    assert (tmp_path / f"{played.campaign}.jsonl").stat().st_size > 0
    assert not tops(loaded) & {"psycopg", "psycopg_pool"}, sorted(tops(loaded))
    assert "eventsourcing.postgres" not in loaded


def test_a_refused_read_on_sqlite_imports_no_postgresql_driver(tmp_path: Path) -> None:
    env = {"REFIT_DATABASE_URL": f"sqlite:///{tmp_path / 'refit.db'}",
           "REFIT_MODULE_DIR": str(tmp_path / "modules")}
    out = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", SCRIPT.replace("(0, None)", "(2,)"),
                           str(out), "status", "0" * 32], cwd=ROOT, capture_output=True,
                          text=True, env=os.environ | env, timeout=120, check=True)
    assert "refused: no campaign" in done.stderr
    assert "psycopg" not in tops(set(json.loads(out.read_text())))


def test_a_read_run_in_the_reads_app_alone_answers_as_the_whole_app(tmp_path: Path) -> None:
    whole = "from api.cli.root import app; app(prog_name='refit')"
    env = os.environ | {"COLUMNS": "100", "REFIT_DATABASE_URL": f"sqlite:///{tmp_path}/r.db"}
    for args in (["status", "--help"], ["roster", "not-an-id"], ["rolls"]):
        alone, through_all = (subprocess.run([sys.executable, *how, *args], cwd=ROOT, env=env,
                                             capture_output=True, text=True, timeout=120)
                              for how in (["-m", "api.cli"], ["-c", whole]))
        assert (alone.returncode, alone.stdout, alone.stderr) == (
            through_all.returncode, through_all.stdout, through_all.stderr), args


def test_a_read_in_a_process_that_runs_many_leaves_the_collector_on_and_nothing_frozen(
        tmp_path: Path) -> None:
    played = play_the_demo(tmp_path)
    db = played.refit.settings.database_url
    played.refit.close()
    frozen, runner = gc.get_freeze_count(), CliRunner()
    read = runner.invoke(app, ["status", str(played.campaign), "--db", db])
    assert read.exit_code == 0 and "CG Date" in read.output, read.output
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    refused = runner.invoke(app, ["roster", "0" * 32, "--db", db])
    assert refused.exit_code == 2 and "no campaign" in refused.output, refused.output
    assert gc.isenabled() and gc.get_freeze_count() == frozen
