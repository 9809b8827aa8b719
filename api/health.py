"""`GET /healthz` and `GET /readyz` (CONTRACT "Health"), open to anyone: no token."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from infra.application import Refit
from infra.health import Health

RETRY_AFTER = "5"  # seconds: a restarting runner's longest wait is 10, a probe's period less


class Alive(BaseModel):
    """The process runs."""

    ok: bool


class Ready(BaseModel):
    """The database answers and the runner (if on) is alive; how far the view is behind."""

    ok: bool
    runner_lag: int


class NotReady(BaseModel):
    """Why the service is not ready: the database's state, the runner's, and an error."""

    ok: bool
    runner_lag: int | None
    database: str
    runner: str
    error: dict[str, str | None]  # the contract's error: code not_ready, message why


def health_routes(refit: Refit) -> APIRouter:
    """The liveness and readiness routes."""
    routes = APIRouter(tags=["health"])
    health = Health(refit)

    @routes.get("/healthz")
    def healthz() -> Alive:
        """200 while the process runs (liveness)."""
        return Alive(ok=True)

    @routes.get("/readyz", response_model=Ready,
                responses={503: {"model": NotReady, "description": "the database does not "
                                 "answer, or the projection runner is not running (it is "
                                 "restarted with backoff); Retry-After says when to ask again"}})
    def readyz() -> Any:
        """200 `{"ok": true, "runner_lag": EVENTS}` while the database answers and the
        projection runner (when on) is alive; else 503 saying why (readiness)."""
        found = health.readiness()
        if found.ok:
            return Ready(ok=True, runner_lag=found.runner_lag or 0)
        why = found.runner if found.database == "answers" else f"the database {found.database}"
        error = {"code": "not_ready", "message": why, "rule": None, "field": None}
        return JSONResponse(asdict(found) | {"error": error}, status_code=503,
                            headers={"Retry-After": RETRY_AFTER})

    return routes
