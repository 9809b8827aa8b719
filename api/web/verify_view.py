"""The director's checks of the stored history from a page: `verify` (what `refit verify
ID` runs: the hash chain, seals, every revealed server roll, the caches against the
events), a receipt checked against the history now (POST /campaigns/{id}/verify's
finding), and the campaign's export downloaded as a file. The director's session only."""

from __future__ import annotations

import json
import re
from typing import Any
from uuid import UUID

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from starlette.datastructures import UploadFile

from api.session import Sessions
from api.web.director_form import check_director_form
from api.web.login import Visitor, visitor
from api.web.respond import page, page_campaign, refusal
from domain.errors import InvalidCommand, RefitError
from infra.application import Refit
from infra.receipts import receipt_finding, stored_leaves

RECEIPT = 256 * 1024  # bytes of a receipt read: one is a few kB (a command's answer too)


def verify_pages(routes: APIRouter, refit: Refit) -> None:
    """Add the verify page, its receipt form and the export download."""
    @routes.get("/play/{campaign}/verify")
    def verify_page(request: Request, campaign: str) -> Response:
        """The stored history's verify, in words."""
        ident = page_campaign(campaign)
        who = visitor(request, refit, ident)
        return _verified(request, refit, ident, who)

    @routes.post("/play/{campaign}/verify")
    async def check_receipt(request: Request, campaign: str) -> Response:
        """A receipt (a file, or pasted JSON) checked against the stored history now."""
        ident = page_campaign(campaign)
        who = await run_in_threadpool(visitor, request, refit, ident)
        form = await request.form()
        fields = {k: str(v) for k, v in form.items() if not isinstance(v, UploadFile)}
        upload = form.get("receipt")
        try:
            check_director_form(request, refit, who, fields, "verify")
            name, text = await _receipt_text(upload, fields.get("pasted", ""))
            finding = await run_in_threadpool(_finding, refit, ident, name, text)
        except RefitError as error:
            return await run_in_threadpool(_verified, request, refit, ident, who, error)
        return await run_in_threadpool(_verified, request, refit, ident, who, None, finding)

    @routes.get("/play/{campaign}/export")
    def download(request: Request, campaign: str) -> Response:
        """The campaign's export (GET /campaigns/{id}/export, the director's) as a file."""
        ident = page_campaign(campaign)
        who = visitor(request, refit, ident)
        try:
            who.caller.require_director("the director's export")
            status = refit.reads.status(ident, None, who.caller.viewer)
            lines = refit.transfer.export_text(ident, who.caller.viewer, False)
        except RefitError as error:
            return _verified(request, refit, ident, who, error)
        name = f"refit-{_slug(status.name)}-v{status.version}.jsonl"
        return StreamingResponse(lines, media_type="application/x-ndjson", headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"})


def _verified(request: Request, refit: Refit, ident: UUID, who: Visitor,
              error: Exception | None = None, finding: dict[str, Any] | None = None
              ) -> Response:
    """The verify page: the history's report for the director, a receipt's finding."""
    status = refit.reads.status(ident, None, who.caller.viewer)
    context: dict[str, Any] = {"role": who.caller.role, "campaign": ident, "status": status,
                               "csrf": Sessions(refit.keys).csrf(who.session),
                               "finding": finding}
    try:
        who.caller.require_director("verify")
    except RefitError as refused:
        code, said = refusal(refused)
        return page(request, "verify.html", code, error=said, **context)
    report = refit.reads.verify(ident)
    if error is None:
        return page(request, "verify.html", report=report, **context)
    code, said = refusal(error)
    return page(request, "verify.html", code, error=said, report=report, **context)


async def _receipt_text(upload: Any, pasted: str) -> tuple[str, str]:
    """The receipt's name and text: the file chosen, else the JSON pasted."""
    if isinstance(upload, UploadFile) and upload.filename:
        data = await upload.read(RECEIPT + 1)
        if len(data) > RECEIPT:
            raise InvalidCommand(f"a receipt file is at most {RECEIPT} bytes", field="receipt")
        try:
            return upload.filename[:100], data.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidCommand("the receipt file is not UTF-8 text (JSON)",
                                 field="receipt") from None
    if not pasted.strip():
        raise InvalidCommand("choose a receipt file, or paste its JSON", field="receipt")
    return "the receipt pasted", pasted


def _finding(refit: Refit, ident: UUID, name: str, text: str) -> dict[str, Any]:
    """What the receipt proves of the stored history now (as POST /campaigns/{id}/verify)."""
    try:
        receipt = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidCommand(f"{name} is not JSON: {error}", field="receipt") from None
    except RecursionError:  # nested deeper than any receipt is
        raise InvalidCommand(f"{name} is not a receipt: nested too deep",
                             field="receipt") from None
    return receipt_finding(receipt, refit.keys.verifier_keys()[0],
                           stored_leaves(refit.store, ident), name)


def _slug(name: str) -> str:
    """A campaign's name as a file name's part."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "campaign"
