"""What `refit` prints without --json: text a person reads, never a Python repr nor JSON
cut short (issue 16)."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.cli import app

runner = CliRunner()


@pytest.fixture
def db(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The test's own database, module dir and service key."""
    monkeypatch.setenv("REFIT_MODULE_DIR", str(tmp_path / "modules"))
    monkeypatch.setenv("REFIT_SIGNING_KEY_FILE", str(tmp_path / "refit-signing-key"))
    return database_url


def printed(*args: str) -> str:
    """What `refit ...` prints, succeeding."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_campaign_new_prints_each_token_on_a_line_of_its_own(db: str) -> None:
    text = printed("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "Arnhem",
                   "--db", db)
    fields = dict(line.split(": ", 1) for line in text.splitlines())
    assert "{'" not in text and "tokens" not in fields
    assert {"tokens.director", "tokens.observer", "tokens.sides.British",
            "tokens.sides.German"} <= set(fields)
    assert len(fields["seed_commitment"]) == 64 and len(fields["tokens.director"]) >= 32


def test_diff_prints_whole_values_and_each_field_of_an_added_line(db: str) -> None:
    demo = json.loads(printed("demo", "--db", db, "--json"))
    text = printed("diff", demo["id"], "--from", "5", "--db", db)
    assert "..." not in text and "{'" not in text and "': " not in text
    assert any(line.split()[2:4] == ["scenario_type", "added"] for line in text.splitlines()
               if line.startswith("roster"))
    lists = [re.split(r"\s{2,}", line.strip())[-1] for line in text.splitlines()
             if "rg_purchased" in line and line.rstrip().endswith("}]")]
    assert lists and all(isinstance(json.loads(found), list) for found in lists)


def test_campaign_new_gives_the_cg_balance_to_the_side_named(db: str) -> None:
    created = json.loads(printed("campaign", "new", "--module", "kgp", "--cg", "I", "--name",
                                 "Stoumont", "--balance", "US", "--db", db, "--json"))
    exported = printed("export", created["id"], "--db", db).splitlines()
    assert json.loads(exported[1])["data"]["balance"] == "US"  # Created, as recorded
    refused = runner.invoke(app, ["campaign", "new", "--module", "abtf", "--cg", "I",
                                  "--name", "No balance", "--balance", "British", "--db", db])
    assert refused.exit_code == 2 and "ABtF has no CG Balance" in refused.output


def test_an_export_file_that_carries_the_private_seed_is_made_0600(db: str,
                                                                   tmp_path: Path) -> None:
    created = json.loads(printed("campaign", "new", "--module", "abtf", "--cg", "I", "--name",
                                 "Moved", "--db", db, "--json"))
    (tmp_path / "out").mkdir()
    printed("export", created["id"], "--with-seed", "--to", str(tmp_path / "out"), "--db", db)
    written = tmp_path / "out" / f"{created['id']}.jsonl"
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert "private" in written.read_text().splitlines()[1]  # the seed it protects
