"""The HTTP app factory (the full service, roles and secrecy, is a later issue)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from infra.modules import load_modules
from infra.settings import Settings


def create_app(settings: Settings | None = None) -> FastAPI:
    """The FastAPI app: for now the public `GET /modules` and a health check."""
    conf = settings or Settings()
    app = FastAPI(title="Refit", version="0.1.0",
                  description="Event-sourced ledger for ASL Campaign Game Refit Phases.")

    @app.get("/modules")
    def modules() -> list[dict[str, Any]]:
        """Modules with their CGs, sides, CG Date calendar, RePh steps and table ids."""
        return [
            {"id": m.id, "name": m.name, "cgs": sorted(m.cgs), "sides": m.sides,
             "calendar": [d.date for d in m.calendar],
             "steps": [s.model_dump() for s in m.steps], "tables": [t.id for t in m.tables],
             "missing_tables": m.missing_tables()}
            for m in load_modules(conf.module_dir).values()
        ]

    @app.get("/health")
    def health() -> dict[str, str]:
        """Liveness."""
        return {"status": "ok"}

    return app
