"""Schemathesis against the service's own OpenAPI schema: no input gives a 500."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.app import create_app
from infra.settings import Settings

ADMIN = "admin-token-for-the-fuzz"

# An import's body is JSON lines: random bytes, and lines shaped like an export's.
EXPORT_LINE = st.dictionaries(st.sampled_from(["format", "campaign", "version", "type", "data",
                                               "prev_hash", "events", "head_hash"]),
                              st.one_of(st.integers(), st.text(max_size=20), st.none()))
schemathesis.openapi.media_type("application/x-ndjson", st.one_of(
    st.binary(max_size=300),
    st.lists(EXPORT_LINE, max_size=4).map(
        lambda lines: b"".join(json.dumps(line).encode() + b"\n" for line in lines))))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[object, dict[str, str]]]:
    """The service on its own SQLite database, with one PBr campaign and its tokens."""
    where: Path = tmp_path_factory.mktemp("fuzz")
    app = create_app(Settings(database_url=f"sqlite:///{where / 'r.db'}",
                              module_dir=where / "modules", admin_token=ADMIN))
    with TestClient(app) as client:
        created = client.post("/campaigns", json={"module": "pbr", "cg": "I", "name": "Fuzz"},
                              headers={"Authorization": f"Bearer {ADMIN}"}).json()
        yield app, {"id": created["id"], "director": created["tokens"]["director"]}


def test_no_request_gets_a_server_error(played: tuple[object, dict[str, str]]) -> None:
    app, campaign = played
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    checked = []
    for found in schema.get_all_operations():
        operation = found.ok()
        if operation.path.endswith("/live"):
            # A stream opened with a good token never ends (it waits for the next commit):
            # its refusals (bad Last-Event-ID, token, outage) are tests/http/test_live.py's.
            continue

        @settings(max_examples=25, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def no_server_error(case: schemathesis.Case) -> None:
            if case.path_parameters and "campaign" in case.path_parameters:
                case.path_parameters["campaign"] = campaign["id"]  # past the id check
            token = ADMIN if case.path == "/campaigns/import" else campaign["director"]
            response = case.call(headers={"Authorization": f"Bearer {token}"})
            assert response.status_code < 500, (case.method, case.path, response.text[:500])

        no_server_error()
        checked.append(f"{operation.method.upper()} {operation.path}")
    assert "POST /campaigns/{campaign}/commands" in checked and len(checked) >= 15
