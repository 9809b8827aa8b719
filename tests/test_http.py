"""The HTTP app factory: the public module listing (the service proper is a later issue)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from api.app import create_app
from infra.settings import Settings


def test_get_modules_lists_sides_calendars_steps_and_tables(tmp_path: Path) -> None:
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path}/r.db",
                                            module_dir=tmp_path / "modules")))
    answer = client.get("/modules")
    assert answer.status_code == 200
    abtf = next(m for m in answer.json() if m["id"] == "abtf")
    assert abtf["sides"] == ["British", "German"] and abtf["cgs"] == ["I", "II", "III"]
    assert abtf["calendar"][:2] == ["17N", "18AM"] and "9.6101" in abtf["tables"]
    assert abtf["steps"][9]["rule"] == "9.610"
