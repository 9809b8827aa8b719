"""`GET /healthz` and `GET /readyz` (CONTRACT "Health")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from eventsourcing.persistence import OperationalError
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.health import health_routes
from infra.application import Refit
from infra.settings import Settings, backend_of
from tests.helpers.http import auth, new_campaign, send
from tests.helpers.processes import until


@pytest.fixture
def alone(refit: Refit) -> Iterator[TestClient]:
    """The health routes alone over a Refit the test holds (to stop its parts)."""
    app = FastAPI()
    app.include_router(health_routes(refit))
    with TestClient(app) as client:
        yield client


def test_healthz_answers_200_while_the_process_runs(client: TestClient) -> None:
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.json() == {"ok": True}


def test_readyz_answers_ok_and_no_lag_once_the_runner_has_folded_every_event(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    credit = {"type": "credit_cpp", "side": "Axis", "amount": 5, "reason": "Base"}
    assert send(client, campaign, director, credit).status_code == 200
    assert client.get(f"/campaigns/{campaign['id']}", headers=auth(director)).status_code == 200
    # The service's runner (on by default) folds them: a read folds only in memory.
    assert until(lambda: client.get("/readyz").json() == {"ok": True, "runner_lag": 0})
    assert client.get("/readyz").status_code == 200


def test_readyz_counts_the_events_the_view_has_not_folded_yet(refit: Refit,
                                                             alone: TestClient) -> None:
    refit.commands.create_campaign("pbr", "I", "Lagging", "server")  # no read folds it
    head = refit.store.recorder.max_notification_id() or 0
    folded = refit.views.view.max_tracking_id("refit") or 0
    assert head > folded
    assert alone.get("/readyz").json() == {"ok": True, "runner_lag": head - folded}


def test_readyz_answers_503_naming_a_database_that_does_not_answer(
        refit: Refit, alone: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    def away() -> int:
        raise OperationalError("connection to server at db.internal failed: user secret")

    monkeypatch.setattr(refit.store.recorder, "max_notification_id", away)
    answer = alone.get("/readyz")
    assert answer.status_code == 503 and answer.headers["Retry-After"].isdigit()
    body = answer.json()
    assert body["ok"] is False and body["error"]["code"] == "not_ready"
    assert body["database"] == "does not answer (OperationalError)"
    assert "db.internal" not in answer.text and "secret" not in answer.text


def test_readyz_answers_503_while_the_projection_runner_is_not_running(
        settings: Settings) -> None:
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("the projection runner needs PostgreSQL's LISTEN/NOTIFY")
    refit = Refit(settings.model_copy(update={"projection_runner": True}))
    try:
        app = FastAPI()
        app.include_router(health_routes(refit))
        with TestClient(app) as client:
            assert client.get("/readyz").json() == {"ok": True, "runner_lag": 0}
            assert refit.views.runner is not None
            refit.views.runner.stop()
            answer = client.get("/readyz")
        assert answer.status_code == 503 and "Retry-After" in answer.headers
        assert answer.json()["database"] == "answers"
        assert "runner" in answer.json()["error"]["message"]
    finally:
        refit.close()


def test_the_openapi_schema_documents_both_health_routes(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert set(paths["/healthz"]["get"]["responses"]) == {"200"}
    assert {"200", "503"} <= set(paths["/readyz"]["get"]["responses"])
