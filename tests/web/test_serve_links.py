"""`refit serve` after the README's first command: the address to open, and a join link per
role of the demo campaign that logs a browser in as that role."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.app import create_app
from api.cli import app
from infra.settings import Settings
from tests.helpers.http import started_and_stopped

runner = CliRunner()


def served(monkeypatch: pytest.MonkeyPatch, db: str) -> str:
    """What `refit serve` prints before it would start uvicorn (not started here)."""
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", started_and_stopped())
    result = runner.invoke(app, ["serve", "--port", "8123", "--db", db])
    assert result.exit_code == 0, result.output
    return result.output


def test_serve_prints_the_address_and_each_demo_roles_join_link_which_logs_it_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    db = f"sqlite:///{tmp_path / 'refit.db'}"
    assert "join links" not in served(monkeypatch, db)  # no demo yet: the address only
    demo = runner.invoke(app, ["demo", "--db", db, "--json"])
    assert demo.exit_code == 0, demo.output
    played: dict[str, Any] = json.loads(demo.output)
    output = served(monkeypatch, db)
    assert "open http://127.0.0.1:8123/ in a browser" in output
    links = dict(re.findall(r"^  (\S+)\s+(http://\S+)$", output, re.M))
    tokens = played["tokens"]
    expected = {"director": tokens["director"], **tokens["sides"],
                "observer": tokens["observer"]}
    assert set(links) == set(expected)
    conf = Settings(database_url=db, signing_key_file=tmp_path / "refit-signing-key")
    with TestClient(create_app(conf)) as client:
        for role, link in links.items():
            path, _, fragment = link.removeprefix("http://127.0.0.1:8123").partition("#")
            assert path == "/join" and f"token={expected[role]}" in fragment
            form = dict(part.split("=", 1) for part in fragment.split("&"))
            answer = client.post("/login", data=form, follow_redirects=False)
            assert answer.headers["location"] == f"/play/{played['id']}"
            guide = client.get(f"/campaigns/{played['id']}/guide").json()
            assert list(guide["sides"]) == ([role] if role in tokens["sides"]
                                            else ["Axis", "British"])
