"""HTTP routes for a director's audit (issue 6): undo, re-roll, rulings, the roll audit,
diffs, the paper forms, the history report, export and import."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import IO, Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, StreamingResponse
from pydantic import ConfigDict, Field

from api.access import (
    AsOf,
    CommandAnswer,
    Credentials,
    Forbidden,
    IfMatch,
    caller_for,
    campaign_gate,
    command_answer,
    expected_version,
    is_admin,
    require_admin,
    token_of,
)
from api.forms import render_form
from api.guard import gated
from api.report import history_report
from domain.campaign import campaign_id
from domain.commands import Strict
from infra.application import Refit
from infra.results import Imported
from infra.settings import Settings
from infra.transfer import parse_lines
from projections.audit import RollAudit, UndoPlan
from projections.diff import Change

Text = Annotated[str, Field(min_length=1, max_length=500)]
Key = Annotated[str, Field(min_length=3, max_length=200, pattern=r"^[^\s]+$")]
SPOOL = 8 * 1024 * 1024  # an import body kept in memory up to this, then on disk


class StrictBody(Strict):
    """A director's request body, read as its JSON says it: `true` is no version, "8" no
    number and "false" no `dry_run` (a dry run taken for a real undo would remove events)."""

    model_config = ConfigDict(strict=True)


class UndoBody(StrictBody):
    """Undo every event after `to_version`, or after a step (`to_step`, read as `as_of`
    reads it: the campaign as it stood once that step was complete); `dry_run` lists what
    it would remove and appends nothing."""

    to_version: int | None = Field(default=None, ge=1, le=10**9)
    to_step: str | None = Field(default=None, max_length=40, examples=["19PM/9.616"])
    reason: Text
    dry_run: bool = False


class RerollBody(StrictBody):
    """A director's re-roll of the roll `key`, and why."""

    key: Key
    reason: Text


class RulingBody(StrictBody):
    """A ruling on a disputed roll (`key`), or on the record: upheld, or corrected (a Final
    roll, result or DRM of the ruling's own, and corrections applied from it on)."""

    key: Key | None = None
    verdict: Literal["upheld", "corrected"]
    reason: Text
    final: int | None = Field(default=None, ge=-100, le=100)
    result: str | None = Field(default=None, max_length=200)
    # Checked by the ruling itself (domain/campaign/rulings.py), so a refusal names
    # `corrections[N].FIELD` alike over HTTP, the command line and the service.
    drm: list[dict[str, Any]] | None = Field(default=None, max_length=20, description=(
        'The ruling\'s own DRM for the roll: [{"value": -1, "reason": "..."}]'))
    corrections: list[dict[str, Any]] = Field(default=[], max_length=50, description=(
        "Corrections applied from the ruling on, each with its `kind`: adjust {side, pool "
        "cpp|fpp|elr|san, amount, reason, rule}, void_roll {reason, rule}, amend_purchase "
        "{side, purchase, rg, cost, strength F|D, reason, rule}, missed_roll {table, side, "
        "subject, reason, rule}"))
    disputed_by: str | None = Field(default=None, max_length=200)


class DisputeBody(StrictBody):
    """A side's dispute of the roll made at `version` (as the roll audit names it): why
    it is wrong. The director rules on it."""

    version: int = Field(ge=1, le=10**9)
    reason: Text


def audit_routes(app: APIRouter, refit: Refit, conf: Settings) -> None:
    """Add the audit routes to the service."""
    _director_routes(app, refit)
    _dispute_route(app, refit)
    _reading_routes(app, refit)
    _transfer_routes(app, refit, conf)


def _director_routes(app: APIRouter, refit: Refit) -> None:
    gate = campaign_gate(refit)  # the token opens the campaign before a body is read

    @app.post("/campaigns/{campaign}/undo", response_model=CommandAnswer | UndoPlan)
    @gated(gate)
    def undo(campaign: str, body: UndoBody, credentials: Credentials,
             if_match: IfMatch = None) -> Response:
        """Director: undo by replay, to a version or to just after a step (as `as_of`).
        The undone events stay in the log; a redo rolls the same keys, so the same dice.
        `dry_run: true` answers what it would remove (versions, event types, rolls) and
        appends nothing."""
        ident, caller = caller_for(refit, campaign, credentials)
        caller.require_director("an undo")
        if body.dry_run:
            plan = refit.audit.undo_plan(ident, body.reason, body.to_version, body.to_step,
                                         caller.viewer)
            return JSONResponse(plan.model_dump())
        return command_answer(refit.proofs.receipted(ident, refit.audit.undo(
            ident, body.reason, caller.role, body.to_version, body.to_step,
            expected_version(if_match))), None)

    @app.post("/campaigns/{campaign}/rerolls", response_model=CommandAnswer)
    @gated(gate)
    def reroll(campaign: str, body: RerollBody, credentials: Credentials) -> Response:
        """Director: re-roll a roll (undone if it stands); its slot gets new dice."""
        ident, caller = caller_for(refit, campaign, credentials)
        caller.require_director("a re-roll")
        return command_answer(refit.proofs.receipted(
            ident, refit.audit.reroll(ident, body.key, body.reason, caller.role)), None)

    @app.post("/campaigns/{campaign}/rulings", response_model=CommandAnswer)
    @gated(gate)
    def ruling(campaign: str, body: RulingBody, credentials: Credentials) -> Response:
        """Director: a ruling on a disputed roll, shown beside it everywhere."""
        ident, caller = caller_for(refit, campaign, credentials)
        caller.require_director("a ruling")
        return command_answer(refit.proofs.receipted(ident, refit.audit.record_ruling(
            ident, body.key, body.verdict, body.reason, caller.role, body.final, body.result,
            list(body.corrections), body.drm, body.disputed_by)), None)


def _dispute_route(app: APIRouter, refit: Refit) -> None:
    gate = campaign_gate(refit)

    @app.post("/campaigns/{campaign}/disputes", response_model=CommandAnswer)
    @gated(gate)
    def dispute(campaign: str, body: DisputeBody, credentials: Credentials) -> Response:
        """Dispute a roll the side may read (its own, or the other side's public one),
        with the reason; it awaits the director's ruling, which settles it. Who: a side
        (the director rules, the observer reads: 403)."""
        ident, caller = caller_for(refit, campaign, credentials)
        return command_answer(refit.proofs.receipted(ident, refit.audit.dispute_roll(
            ident, body.version, caller.role, body.reason, caller.role)), caller.viewer)


def _reading_routes(app: APIRouter, refit: Refit) -> None:
    @app.get("/campaigns/{campaign}/rolls/audit")
    def audit(campaign: str, credentials: Credentials,
              key: Annotated[str | None, Query(min_length=3, max_length=200)] = None,
              version: Annotated[int | None, Query(ge=1, le=10**9)] = None) -> RollAudit:
        """One roll's story, by its key or the version it was made at: who asked and when,
        dice, DRM, result, secrecy, the seed's recheck, rulings and what they changed,
        re-rolls and undos. Another side's secret roll is found by version only, as
        `sealed`, with the rulings on it (their figures sealed). Who: the director, each
        side and the observers."""
        ident, caller = caller_for(refit, campaign, credentials)
        return refit.audit.roll_audit(ident, key, caller.viewer, version)

    @app.get("/campaigns/{campaign}/diff")
    def diff(campaign: str, credentials: Credentials,
             start: Annotated[AsOf, Query(alias="from")] = None,
             end: Annotated[AsOf, Query(alias="to")] = None) -> list[Change]:
        """What changed in the roster, purchase record, CVP and ELR from one point to
        another (versions or CGDATE/STEP; `to` defaults to now). Who: the director, each
        side and the observers (a side's diff hides what its forms hide)."""
        ident, caller = caller_for(refit, campaign, credentials)
        return refit.audit.diff(ident, start or 1, end, caller.viewer)

    @app.get("/campaigns/{campaign}/forms", response_model=None,
             responses={200: {"content": {"text/csv": {}, "text/html": {}}}})
    def forms(campaign: str, credentials: Credentials, as_of: AsOf = None,
              form: Literal["html", "roster", "purchases", "cvp", "elr", "retained"] = "html",
              ) -> HTMLResponse | PlainTextResponse:
        """The paper forms: CSV per form, or one printable HTML page of them all. Who: the
        director, each side and the observers (another side's secrets read `(secret)`)."""
        ident, caller = caller_for(refit, campaign, credentials)
        version = refit.views.version_at(ident, as_of)
        text = render_form(refit.reads.paper_forms(ident, version, caller.viewer),
                           form)
        if form == "html":
            return HTMLResponse(text)
        return PlainTextResponse(text, media_type="text/csv")

    @app.get("/campaigns/{campaign}/report", response_model=None,
             responses={200: {"content": {"text/plain": {}, "text/html": {}}}})
    def report(campaign: str, credentials: Credentials,
               format: Literal["text", "html"] = "text",
               ) -> HTMLResponse | PlainTextResponse:
        """The full history, CG Date by CG Date and step by step. Who: the director, each
        side and the observers (another side's secrets redacted)."""
        ident, caller = caller_for(refit, campaign, credentials)
        text = history_report(refit.reads.history(ident, caller.viewer), format,
                              refit.audit.undone_versions(ident))
        return HTMLResponse(text) if format == "html" else PlainTextResponse(text)


def _transfer_routes(app: APIRouter, refit: Refit, conf: Settings) -> None:
    @app.get("/campaigns/{campaign}/export", response_class=StreamingResponse,
             responses={200: {"content": {"application/x-ndjson": {}}}})
    def export(campaign: str, credentials: Credentials,
               with_seed: bool = False) -> StreamingResponse:
        """The history as JSON lines: header, events (redacted for a side), head hash.
        Who: the director, each side and the observers (another side's secrets redacted).
        The admin may add `with_seed=true` to move a campaign with its private seed."""
        token = token_of(credentials)
        if is_admin(token, conf.admin_token):
            ident, viewer = campaign_id(campaign), None
        else:
            ident, caller = caller_for(refit, campaign, credentials)
            if with_seed:
                raise Forbidden("only the admin exports the private seed", field="with_seed")
            viewer = caller.viewer
        lines = refit.transfer.export_text(ident, viewer, with_seed)  # a bad one fails here
        return StreamingResponse(lines, media_type="application/x-ndjson")

    @app.post("/campaigns/import", status_code=201,
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/x-ndjson": {"schema": {"type": "string"}}}}})
    async def import_(request: Request, credentials: Credentials) -> dict[str, Any]:
        """Admin: rebuild a campaign from the director's export (JSON lines), refusing one
        whose chain or rolls do not verify, saying where."""
        require_admin(token_of(credentials), conf.admin_token)
        with tempfile.SpooledTemporaryFile(max_size=SPOOL, mode="w+b") as body:
            async for chunk in request.stream():
                body.write(chunk)
            done: Imported = await run_in_threadpool(
                refit.transfer.import_export, lambda: _lines(body))
        return done.__dict__


def _lines(body: IO[bytes]) -> Iterator[dict[str, Any]]:
    """The export's lines, read again from the start of the spooled body."""
    body.seek(0)
    yield from parse_lines(body)
