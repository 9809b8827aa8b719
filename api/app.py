"""The HTTP service (CONTRACT "HTTP"): routes translate requests to use cases of the one
Refit application, and every refusal to the contract's error body in one place."""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict
from typing import Any, cast, get_type_hints

from anyio import to_thread
from eventsourcing.persistence import PersistenceError
from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from swagger_ui_bundle import swagger_ui_path

from api.access import (
    AsOf,
    Credentials,
    admin_gate,
    caller_for,
    is_admin,
    require_admin,
    token_of,
)
from api.command_route import command_route, document_commands
from api.errors import headers_of, http_body, outage, outages, status_of, validation_words
from api.guard import DUPLICATE, IMPORT_PAGE, BodyGuard, HeadAsGet, UTF8Route, gated
from api.health import health_routes
from api.live import end_streams_on_exit, live_route
from api.routes_audit import audit_routes
from api.routes_charts import chart_routes
from api.routes_proofs import proof_routes
from api.routes_webhook import webhook_routes
from api.turns import Turns
from api.uncached import Uncached
from api.web import web_routes
from api.webhook_text import webhook_text
from domain.campaign import campaign_id
from domain.commands import Strict
from domain.errors import RefitError
from infra.application import Refit
from infra.modules import describe
from infra.queries import READS, Read
from infra.settings import Settings

log = logging.getLogger(__name__)


class NewCampaign(Strict):
    """`POST /campaigns`: which module's CG to start (a field it does not know refused)."""

    module: str = Field(max_length=20)
    cg: str = Field(max_length=10)
    name: str = Field(max_length=200)
    dice: str = "server"
    start: str | None = Field(default=None, max_length=10)
    balance: str | None = Field(default=None, max_length=30, description=(
        "KGP 8.31: the side given the CG Balance (its secret DR halved, FRD); refused "
        "for a module without one"))


class CreatedCampaign(BaseModel):
    """The new campaign's id, seed commitment and role tokens (shown this once)."""

    id: str
    seed_commitment: str | None
    tokens: dict[str, Any]


class CampaignLine(BaseModel):
    """One campaign in the admin's list."""

    id: str
    module: str
    cg: str
    name: str
    cg_date: str
    phase: str
    step: str | None
    version: int


class ErrorDetail(BaseModel):
    """What was refused, and the rule broken, if any."""

    code: str
    message: str
    rule: str | None
    field: str | None


class ErrorBody(BaseModel):
    """Every refusal (CONTRACT "Errors")."""

    error: ErrorDetail


def _error(description: str) -> dict[str, Any]:
    """A refusal's OpenAPI response: ErrorBody by reference. (A `model` per route and
    status built eight validators for every route: a third of the service's start-up.
    _error_schemas puts the schema in once.)"""
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": ERROR_REF}}}}


ERROR_REF = "#/components/schemas/ErrorBody"
ERRORS: dict[int | str, dict[str, Any]] = {
    400: _error("the body is not JSON, or not UTF-8"),
    401: _error("no token, or one this campaign does not know"),
    403: _error("the role may not (a side acts for itself only; "
                "an observer reads; admin routes)"),
    404: _error("no such campaign"),
    409: _error("If-Match did not match, or still conflicting; "
                "history_unreadable: a stored event of this "
                "campaign cannot be read (the message names its "
                "version; other campaigns are not affected)"),
    413: _error("the body is over REFIT_MAX_BODY_BYTES "
                "(REFIT_MAX_IMPORT_BYTES for an import)"),
    415: _error("a JSON body sent as another content type"),
    422: _error("a command the rules or the schema refuse "
                "(`rule` names the rule)"),
    503: _error("the database is not answering (unavailable), or "
                "another command has held the campaign for "
                "REFIT_TURN_WAIT seconds (busy), or a live "
                "stream beyond REFIT_LIVE_MAX_STREAMS "
                "(streams_full); Retry-After says when to try "
                "again"),
}


def create_app(settings: Settings | None = None) -> FastAPI:
    """The FastAPI app over one Refit application (closed at shutdown)."""
    conf = settings or Settings()
    if conf.projection_runner is None:  # the service keeps the views folded (README)
        conf = conf.model_copy(update={"projection_runner": True})
    refit = Refit(conf)

    @asynccontextmanager
    async def lifespan(served: FastAPI) -> AsyncIterator[None]:
        # Sync routes run on anyio's threads: a few threads spend less CPU contending
        # for the GIL than anyio's default 40 (see bench/load.py).
        to_thread.current_default_thread_limiter().total_tokens = conf.threads
        # Commands have their own, fewer (api/turns.py): the reads' threads are
        # never taken by commands, and a read waits behind fewer busy threads for the GIL.
        served.state.turns = Turns(conf.turn_wait, conf.command_threads)
        if conf.switch_interval_ms is not None:  # an operator's choice (README, Configuration)
            sys.setswitchinterval(conf.switch_interval_ms / 1000)
        # What start-up made (modules, rule tables, the app) lives as long as the service:
        # frozen, a full collection no longer walks it, which had stalled every request
        # in flight for 30 ms at a time (bench/load.py, closed loop).
        if conf.freeze_heap:
            gc.collect()
            gc.freeze()
        end_streams_on_exit(refit.live)
        # The chat webhooks' posts, in a thread of their own (never a request's).
        await to_thread.run_sync(refit.webhooks.start, webhook_text)
        try:
            yield
        finally:
            if conf.freeze_heap:
                gc.unfreeze()
            refit.close()

    app = FastAPI(title="Refit", version="0.2.0", lifespan=lifespan, docs_url=None,
                 redoc_url=None,
                 description="Event-sourced ledger for ASL Campaign Game Refit Phases. "
                             "Errors are `{\"error\": {code, message, rule, field}}`.")
    app.state.refit = refit  # for an embedding server to end live streams before it stops
    _errors(app)
    app.add_middleware(BodyGuard, limit=conf.max_body_bytes,
                       limits={"/campaigns/import": conf.max_import_bytes,
                               IMPORT_PAGE: conf.max_import_bytes})
    app.add_middleware(Uncached)  # a side's answers stay out of every cache
    app.add_middleware(HeadAsGet)  # last added: the outermost
    _offline_docs(app)
    _error_schemas(app)
    # every route documents the contract's errors, and reads its JSON body as UTF-8 only
    routes = APIRouter(responses=ERRORS, route_class=UTF8Route)
    _campaign_routes(routes, refit, conf)
    _read_routes(routes, refit)
    live_route(routes, refit, conf)
    audit_routes(routes, refit, conf)
    proof_routes(routes, refit)
    chart_routes(routes, refit)
    webhook_routes(routes, refit)
    app.include_router(routes)
    app.include_router(health_routes(refit))
    web_routes(app, refit, conf.admin_token, conf.max_import_bytes)
    document_commands(app)
    return app


def _error_schemas(app: FastAPI) -> None:
    """The OpenAPI schema holds ErrorBody (and what it is made of) once, for ERRORS'
    references to it."""
    plain = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = plain()
            body = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
            parts = body.pop("$defs", {})
            schema.setdefault("components", {}).setdefault("schemas", {}).update(
                {**parts, "ErrorBody": body})
        return cast(dict[str, Any], app.openapi_schema)

    app.openapi = openapi  # type: ignore[method-assign]


def _offline_docs(app: FastAPI) -> None:
    """`/docs` from Swagger UI files shipped with the service: it works with no network."""
    app.mount("/docs-assets", StaticFiles(directory=swagger_ui_path), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/openapi.json", title="Refit",
                                   swagger_js_url="/docs-assets/swagger-ui-bundle.js",
                                   swagger_css_url="/docs-assets/swagger-ui.css",
                                   swagger_favicon_url="/docs-assets/favicon-32x32.png")


def _errors(app: FastAPI) -> None:
    def refused(request: Request, error: Exception) -> JSONResponse:
        if outage(error):
            log.warning("database outage on %s %s: %r", request.method, request.url.path,
                        error)
        return JSONResponse(http_body(error), status_code=status_of(error),
                            headers=headers_of(error))

    # The drivers' outages by class too: an exception only the catch-all handles is
    # answered all the same but raised again to the server, as an unexpected one is.
    for kind in (RefitError, ValidationError, PersistenceError, *outages(every=True)):
        app.add_exception_handler(kind, refused)
    app.add_exception_handler(Exception, refused)  # never a bare 500: the same body

    @app.exception_handler(StarletteHTTPException)
    def http_refused(_: Request, error: StarletteHTTPException) -> Response:
        """Starlette's own refusals (an unreadable body, no such route or method) in the
        contract's body, with their status and headers (405's Allow)."""
        code = HTTP_CODES.get(error.status_code, "invalid")
        body = {"error": {"code": code, "message": _starlette_message(error), "rule": None,
                          "field": None}}
        return JSONResponse(body, status_code=error.status_code, headers=error.headers)

    @app.exception_handler(RequestValidationError)
    def malformed(_: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0]
        said = str(first.get("ctx", {}).get("error", ""))
        if first["type"] == "json_invalid" and said.startswith(DUPLICATE):
            key = said[len(DUPLICATE):].strip().strip("'\"")
            return JSONResponse({"error": {"code": "invalid_body", "message": said,
                                           "rule": None, "field": key}}, status_code=400)
        if first["type"] == "json_invalid":  # not JSON at all: README says 400
            return JSONResponse(NOT_JSON, status_code=400)
        if first["type"] == "missing" and tuple(first["loc"]) == ("body",):
            return JSONResponse(NO_BODY, status_code=400)  # nothing to read as JSON either
        where = ".".join(str(part) for part in first["loc"][1:]) or "body"
        if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
            where = "type"
        body = {"error": {"code": "invalid_command",
                          "message": f"{where}: {validation_words(first)}",
                          "rule": None, "field": where}}
        return JSONResponse(body, status_code=422)


NOT_JSON = {"error": {"code": "invalid_body", "message": "the body cannot be read as JSON "
                      "(UTF-8)", "rule": None, "field": None}}
NO_BODY = {"error": {"code": "invalid_body", "message": "the body is empty: send a JSON "
                     "object", "rule": None, "field": None}}
HTTP_CODES = {400: "invalid_body", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}


def _starlette_message(error: StarletteHTTPException) -> str:
    """What a Starlette refusal means, said for a client."""
    if error.status_code == 404:
        return "no such route (see /docs)"
    if error.status_code == 405:
        allowed = (error.headers or {}).get("Allow")
        return f"this route takes {allowed} only" if allowed else "this route takes no such method"
    if error.status_code == 400:
        return "the body cannot be read as JSON (UTF-8)"
    return str(error.detail)


def _campaign_routes(app: APIRouter, refit: Refit, conf: Settings) -> None:
    @app.get("/modules")
    def modules() -> list[dict[str, Any]]:
        """Modules with their CGs, sides, CG Date calendar, RePh steps, and tables, each with
        the DRM it lists: id, value, reason, rule, kind (automatic: the ledger derives it;
        optional: a roll claims it by id), excludes, qualifies."""
        return [describe(m) for m in refit.store.modules.values()]

    @app.post("/campaigns", status_code=201)
    @gated(admin_gate(conf.admin_token))
    def new_campaign(body: NewCampaign, credentials: Credentials) -> CreatedCampaign:
        """Admin: start a campaign; its director, observer and side tokens come back once."""
        require_admin(token_of(credentials), conf.admin_token)
        campaign, tokens = refit.commands.open_campaign(body.module, body.cg, body.name, body.dice,
                                               "admin", body.start, body.balance)
        return CreatedCampaign(id=str(campaign.id), seed_commitment=campaign.dice.seed_commitment,
                               tokens=asdict(tokens))

    @app.get("/campaigns")
    def campaigns(credentials: Credentials) -> list[CampaignLine]:
        """Admin: every campaign, one line each (no side's secrets)."""
        require_admin(token_of(credentials), conf.admin_token)
        return [CampaignLine.model_validate(line.model_dump()) for line in refit.reads.campaigns()]

    command_route(app, refit)

    @app.post("/campaigns/{campaign}/tokens/{role}")
    def replace_token(campaign: str, role: str, credentials: Credentials) -> dict[str, str]:
        """Director, or the admin (for a lost director token): a new token for a role; the
        old one dies."""
        if is_admin(token_of(credentials), conf.admin_token):
            return {"role": role, "token": refit.commands.replace_token(campaign_id(campaign), role,
                                                               "admin")}
        ident, caller = caller_for(refit, campaign, credentials)
        caller.require_director("replacing a token")
        return {"role": role, "token": refit.commands.replace_token(ident, role, caller.role)}


READERS = ("Who: the campaign's director, each side and the observers (a side sees its own "
           "secrets, the others see that a secret act happened and when). `as_of`: a version, "
           "or CGDATE/STEP.")


def _read_routes(app: APIRouter, refit: Refit) -> None:
    """A route for each read the service declares (infra/queries.py, READS)."""
    for which in READS:
        _read_route(app, refit, which)


def _read_route(app: APIRouter, refit: Refit, which: Read) -> None:
    def read_it(campaign: str, credentials: Credentials, as_of: AsOf = None) -> Any:
        ident, caller = caller_for(refit, campaign, credentials)
        version = refit.views.version_at(ident, as_of)
        return refit.reads.answer(which, ident, version, caller.viewer)
    read_it.__doc__ = f"{which.summary}. {READERS}"
    answer = get_type_hints(which.answer)["return"]
    app.get(f"/campaigns/{{campaign}}{which.path}", summary=which.summary,
            response_model=answer, name=which.name)(read_it)
