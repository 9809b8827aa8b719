"""What imports what: the HTTP service without the command line, the documents without the
application, and each of the command line's sub-apps with its core alone."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

CLI = ROOT / "api" / "cli"


def imported_by(module: str) -> list[str]:
    """Every module a fresh interpreter holds once it has imported `module`."""
    done = subprocess.run(
        [sys.executable, "-c", f"import json, sys, {module}; print(json.dumps(list(sys.modules)))"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_http_service_never_imports_typer_or_the_command_line() -> None:
    loaded = imported_by("api.app")
    assert [m for m in loaded if m.split(".")[0] == "typer" or m.startswith("api.cli")] == []


@pytest.mark.parametrize("module", ["api.forms", "api.report", "api.render"])
def test_the_documents_render_without_the_application_or_typer(module: str) -> None:
    loaded = imported_by(module)
    assert [m for m in loaded if m.split(".")[0] in ("infra", "typer")] == []


def cli_imports(path: Path) -> set[str]:
    """The api.cli modules a file of the command line imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found |= {n for n in names if n.startswith("api.cli.") and (CLI / f"{n[8:]}.py").exists()}
    return found


def test_each_sub_app_imports_the_core_alone_and_root_puts_them_together() -> None:
    parts = {p.stem for p in CLI.glob("*.py")} - {"__init__", "__main__", "root", "core"}
    assert {"reads", "commands", "audit", "transfer"} <= parts
    assert cli_imports(CLI / "core.py") == set()
    for part in parts:
        assert cli_imports(CLI / f"{part}.py") == {"api.cli.core"}, part
    # root also tells the core that its process runs one command (api/cli/root.py, main)
    assert cli_imports(CLI / "root.py") == {f"api.cli.{part}" for part in parts} | {
        "api.cli.core"}
