"""The admin's import from a page: an export file (the director's, or the admin's with its
seed) uploaded as a form (POST /campaigns/import's use case), answered with the campaign
rebuilt or the refusal naming the version that does not verify. static/upload.js shows the
upload's progress; without it, the form posts as any other. The admin's session only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any
from uuid import UUID

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from api.session import Session, Sessions
from api.web.director_form import check_form
from api.web.login import admin_visitor
from api.web.respond import page, refusal
from domain.errors import InvalidCommand, RefitError
from infra.application import Refit
from infra.results import Imported
from infra.transfer import parse_lines


def import_pages(routes: APIRouter, refit: Refit, admin_token: str | None,
                 limit: int) -> None:
    """Add the import's page and its form's target."""
    @routes.get("/admin/import")
    def import_page(request: Request) -> Response:
        """The import form."""
        session = admin_visitor(request, refit, admin_token)
        return page(request, "import.html", **_context(refit, session, limit))

    @routes.post("/admin/import")
    async def import_upload(request: Request) -> Response:
        """An export file rebuilt as a campaign, or refused saying where."""
        session = await run_in_threadpool(admin_visitor, request, refit, admin_token)
        context = _context(refit, session, limit)
        form = await request.form()
        fields = {k: str(v) for k, v in form.items() if not isinstance(v, UploadFile)}
        upload = form.get("export")
        try:
            check_form(request, refit, session, fields)
            if not isinstance(upload, UploadFile) or not upload.filename:
                raise InvalidCommand("choose an export file (JSON lines)", field="export")
            done: Imported = await run_in_threadpool(
                refit.transfer.import_export, lambda: _lines(upload.file))
        except RefitError as error:
            status, said = refusal(error)
            return page(request, "import.html", status, error=said,
                        file=_name(upload), **context)
        name = await run_in_threadpool(lambda: refit.reads.status(UUID(done.id), None,
                                                                   None).name)
        return page(request, "import.html", 201, done=done, title=name, file=_name(upload),
                    **context)


def _context(refit: Refit, session: Session, limit: int) -> dict[str, Any]:
    """What the import page shows whatever the answer."""
    return {"role": "admin", "csrf": Sessions(refit.keys).csrf(session), "limit": limit,
            "limit_mb": f"{limit / 1024 / 1024:g}"}


def _lines(body: IO[bytes]) -> Iterator[dict[str, Any]]:
    """The export's lines, read from the start of the uploaded file."""
    body.seek(0)
    yield from parse_lines(body)


def _name(upload: Any) -> str:
    """The uploaded file's name, as the page names it."""
    return upload.filename[:100] if isinstance(upload, UploadFile) and upload.filename else ""
