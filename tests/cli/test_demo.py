"""`refit demo`: a scripted PBr campaign, played through the CLI on the test's database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.cli import app

runner = CliRunner()


@pytest.fixture
def db(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The test's own database, with no owner files: the demo needs only what PBr ships."""
    monkeypatch.setenv("REFIT_MODULE_DIR", str(tmp_path / "modules"))
    return database_url


def test_the_demo_plays_pbr_through_an_idle_date_a_night_date_and_three_rephs(
        db: str) -> None:
    result = runner.invoke(app, ["demo", "--db", db, "--json"])
    assert result.exit_code == 0, result.output
    played = json.loads(result.stdout)
    roster = {row["cg_date"]: row for row in played["roster"]}
    assert list(roster) == ["14AM", "14PM", "14N", "15AM", "15PM"]
    assert roster["14PM"]["scenario_type"] == "Idle CG Date"
    assert roster["14N"]["scenario_type"] == "Night Dual Attack"
    assert [row["scenario_played"] for row in roster.values()] == [True, False, True, True,
                                                                    True]
    assert roster["14N"]["sides"]["British"]["recon"] is not None
    bought = [(p["side"], p["cg_date"], p["rg"], p["cpp"]) for p in played["purchases"]]
    assert bought[:2] == [("Axis", "14AM", "I5", 14), ("Axis", "14AM", "I7", 12)]
    assert ("Axis", "15AM", "G3", 5) in bought  # a Reserve MTR Section: 7 x 0.8, FRD
    assert all(p["strength"] in ("F", "D") for p in played["purchases"] if p["rg"][0] in "IGV")
    verified = runner.invoke(app, ["verify", played["id"], "--db", db, "--json"])
    assert verified.exit_code == 0 and json.loads(verified.stdout)["ok"]


def test_the_demo_prints_the_forms_for_people(db: str) -> None:
    result = runner.invoke(app, ["demo", "--db", db])
    assert result.exit_code == 0, result.output
    assert "CG Roster" in result.stdout and "RG Purchase Record" in result.stdout
    assert "Night Dual Attack" in result.stdout and "{" not in result.stdout
    header = result.stdout.splitlines()[3]  # 14PM's lost CPP (3.617), 14N's Recon (3.620)
    assert "forfeited" in header and "recon CPP" in header and "WW" not in header
