"""`refit module load` of the test fixture under a running campaign (issue 14: in the play
test it replaced the whole PBr chart under it, and verify did not notice)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from api.cli import app
from tests.helpers.paths import FIXTURE_CHART

runner = CliRunner()


@pytest.fixture
def db(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The test's own database and module dir, with no owner file yet."""
    monkeypatch.setenv("REFIT_MODULE_DIR", str(tmp_path / "modules"))
    return database_url


def refit(*args: str) -> Any:
    """`refit ... --json`, answered."""
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def what_the_players_read(campaign: str, db: str) -> list[Any]:
    """The forms, the rolls, the guide and verify, as the director reads them."""
    return [refit(read, campaign, "--db", db)
            for read in ("roster", "purchases", "rolls", "guide", "verify", "status")]


def test_loading_the_test_chart_leaves_the_running_demo_as_it_read(db: str) -> None:
    running = refit("demo", "--db", db)["id"]
    before = what_the_players_read(running, db)
    refit("module", "load", str(FIXTURE_CHART), "--db", db)  # X1, X2: fictitious RG
    assert what_the_players_read(running, db) == before
    assert refit("verify", running, "--db", db)["ok"]
    newer = refit("campaign", "new", "--module", "pbr", "--cg", "I", "--name", "After",
                  "--db", db)["id"]
    refit("command", newer, '{"type": "credit_cpp", "side": "Axis", "amount": 8, '
          '"reason": "CPP"}', "--db", db)
    offered = refit("guide", newer, "--side", "Axis", "--db", db)["sides"]["Axis"]["optional"]
    assert [work["rg"] for work in offered] == ["X1", "X2"]  # only a campaign made after
