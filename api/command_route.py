"""The command route, `POST /campaigns/{id}/commands`: an ordinary route of the app that reads
its own body (one JSON-mode validation of the command union) and headers, because FastAPI's
reading of a declared body (json, then the union in Python mode) and its dependency handling
cost the service a quarter more CPU per command (bench/load.py; README). A request it refuses
is read again as FastAPI reads a declared body and headers, so every refusal is the one those
declarations gave."""

from __future__ import annotations

from functools import partial
from typing import Any
from uuid import UUID

from anyio import to_thread
from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.models import OpenAPI
from pydantic import TypeAdapter, ValidationError
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from api.access import (
    Caller,
    CommandAnswer,
    IdempotencyKey,
    IfMatch,
    bearer,
    caller_on,
    campaign_gate,
    command_answer,
    expected_version,
    require_token,
    token_of,
)
from api.guard import DuplicateKey, gated, is_json, strict_json
from domain import commands as cmd
from domain.campaign import Campaign, campaign_id
from infra.application import Refit

HEADERS: dict[str, TypeAdapter[Any]] = {"if-match": TypeAdapter(IfMatch),
                                        "idempotency-key": TypeAdapter(IdempotencyKey)}
# The command union's own schemas, named as FastAPI names a declared body's models.
SCHEMA = cmd.COMMAND_ADAPTER.json_schema(ref_template="#/components/schemas/{model}")


def _header_doc(name: str, adapter: TypeAdapter[Any]) -> dict[str, Any]:
    """An optional header documented as FastAPI documents a declared one."""
    schema = adapter.json_schema() | {"title": name.title()}
    doc = {"name": name, "in": "header", "required": False, "schema": schema}
    return doc | ({"description": schema["description"]} if "description" in schema else {})


BODY = {key: value for key, value in SCHEMA.items() if key != "$defs"} | {"title": "Body"}
# What the route's signature no longer declares: the body, the headers and the bearer token.
OPENAPI: dict[str, Any] = {
    "requestBody": {"required": True, "content": {"application/json": {"schema": BODY}}},
    "parameters": [_header_doc(name, adapter) for name, adapter in HEADERS.items()],
    "security": [{"HTTPBearer": []}],
}


def command_route(routes: APIRouter, refit: Refit) -> None:
    """Add the command route."""
    @routes.post("/campaigns/{campaign}/commands", response_model=CommandAnswer,
                 openapi_extra=OPENAPI)
    @gated(campaign_gate(refit))  # the token opens the campaign before the body is read
    async def command(campaign: str, request: Request) -> Response:
        """Director or a side acting for itself: one command (a union on `type`)."""
        headers = request.headers
        body = read_command(await _body(request), headers)
        token = token_of(await bearer(request))
        ident = campaign_id(campaign)
        run = partial(execute, refit, ident, token, body,
                      expected_version(headers.get("if-match")), headers.get("idempotency-key"))
        # On the commands' own threads (api/app.py, lifespan), once the campaign's turn
        # has come (api/turns.py): a read never waits for a thread behind commands, nor
        # does one campaign's command behind another campaign's queue (issue 17, item 4).
        state = request.app.state
        if not hasattr(state, "turns"):  # an app served without its lifespan (tests)
            return await to_thread.run_sync(run)
        async with state.turns.turn(ident):
            return await to_thread.run_sync(run, limiter=state.turns.limiter)


def document_commands(app: FastAPI) -> None:
    """Put the command models in the OpenAPI components, where the route's body names them
    (FastAPI lists only the models that routes declare)."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = generate()
            schema["components"]["schemas"].update(SCHEMA["$defs"])
            # Written out as FastAPI writes its own models' schemas (its OpenAPI model's
            # reading, no null fields).
            app.openapi_schema = jsonable_encoder(OpenAPI(**schema), by_alias=True,
                                                  exclude_none=True)
        return app.openapi_schema
    app.openapi = openapi  # type: ignore[method-assign]


def execute(refit: Refit, ident: UUID, token: str | None, body: cmd.Command,
            if_match: int | None, idempotency_key: str | None) -> Response:
    """Run the command for the token's role and answer what it appended."""
    require_token(token)  # before any work, so an anonymous caller costs nothing

    def authorize(state: Campaign) -> str:
        caller = caller_on(state, token)
        caller.may_command(body.model_dump())
        return caller.role
    done = refit.commands.execute(ident, body, "", if_match, idempotency_key, authorize)
    return command_answer(refit.proofs.receipted(ident, done), Caller(done.actor).viewer)


async def _body(request: Request) -> bytes:
    """The whole request body."""
    try:
        return await request.body()
    except ClientDisconnect as gone:  # FastAPI's answer to a body it cannot read
        raise HTTPException(400, "There was an error parsing the body") from gone


def read_command(body: bytes, headers: Headers) -> cmd.Command:
    """The command: an ordinary request's body validated once, in JSON mode."""
    errors = _header_errors(headers)
    if not errors and headers.get("content-type") == "application/json":
        try:
            strict_json(body)  # a key given twice is refused, not read as its last value
            return cmd.COMMAND_ADAPTER.validate_json(body)
        except (ValidationError, ValueError, RecursionError):
            pass  # read again below, so the refusal is FastAPI's own
    return _as_fastapi_reads(body, headers.get("content-type"), errors)


def _header_errors(headers: Headers) -> list[Any]:
    """What is wrong with If-Match and Idempotency-Key, as FastAPI says it."""
    errors: list[Any] = []
    for name, adapter in HEADERS.items():
        if (value := headers.get(name)) is not None:
            try:
                adapter.validate_python(value)
            except ValidationError as error:
                errors += _located(error, ("header", name))
    return errors


def _as_fastapi_reads(body: bytes, content_type: str | None, errors: list[Any]) -> cmd.Command:
    """The command read as FastAPI reads a declared body: an empty one is missing, a JSON
    one is parsed by json.loads, the union is validated in Python mode; the headers'
    errors come before the body's."""
    value, command = _decoded(body, content_type), None
    if value is _EMPTY:
        errors = [*errors, {"type": "missing", "loc": ("body",), "msg": "Field required",
                            "input": None}]
    else:
        try:
            command = cmd.COMMAND_ADAPTER.validate_python(value, from_attributes=True)
        except ValidationError as error:
            errors = [*errors, *_located(error, ("body",))]
    if errors or command is None:
        raise RequestValidationError(errors)
    return command


_EMPTY = object()


def _decoded(body: bytes, content_type: str | None) -> Any:
    """The body as FastAPI hands it to validation: parsed when its content type is JSON's
    (it must be given), else the bytes themselves."""
    if not body:
        return _EMPTY
    if not is_json(content_type):
        return body
    try:
        return strict_json(body)
    except DuplicateKey as error:  # as FastAPI refuses a body json.loads cannot read
        raise RequestValidationError([{"type": "json_invalid", "loc": ("body", error.pos),
                                       "msg": "JSON decode error", "input": {},
                                       "ctx": {"error": error.msg}}]) from error
    except Exception as error:  # not JSON, not UTF-8, too deep to read: 400 (README)
        raise HTTPException(400, "There was an error parsing the body") from error


def _located(error: ValidationError, where: tuple[str, ...]) -> list[Any]:
    """The errors, located in the request as FastAPI locates them."""
    return [{**found, "loc": where + found["loc"]} for found in error.errors(include_url=False)]
