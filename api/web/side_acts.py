"""A side's act from a roll's audit page: it disputes the roll (POST
/campaigns/{id}/disputes as a form), with its reason, for the director to rule on. The
refusal is the JSON API's, in its words, on the same page."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse

from api.session import Sessions
from api.web.audit_view import page_version, roll_page
from api.web.director_form import check_form, form_posted
from api.web.login import Visitor
from api.web.respond import page, refusal
from domain.errors import InvalidCommand, RefitError
from infra.application import Refit


def side_acts(routes: APIRouter, refit: Refit) -> None:
    """Add the dispute form's target."""
    @routes.post("/play/{campaign}/rolls/{version}/dispute")
    async def dispute(request: Request, campaign: str, version: str) -> Response:
        """The side's dispute of the roll at `version`."""
        ident, who, form = await form_posted(request, refit, campaign)
        try:
            check_form(request, refit, who.session, form)
            await run_in_threadpool(_dispute, refit, ident, who, version, form)
        except RefitError as error:
            return await run_in_threadpool(_refused, request, refit, ident, who, version,
                                           form, error)
        return RedirectResponse(f"/play/{ident}/rolls/{version}#disputes", status_code=303)


def _dispute(refit: Refit, ident: UUID, who: Visitor, version: str,
             form: dict[str, str]) -> None:
    """Record the session's side's dispute of the roll the page names."""
    role = who.caller.role  # the domain refuses any but a side (disputes.py)
    number = page_version(version)
    if number is None:
        raise InvalidCommand("a dispute names its roll by the version it was made at",
                             field="version")
    refit.audit.dispute_roll(ident, number, role, form.get("reason", ""), role)


def _refused(request: Request, refit: Refit, ident: UUID, who: Visitor, version: str,
             form: dict[str, str], error: RefitError) -> Response:
    """The audit page again, with the refusal beside the form as it was filled in."""
    status, said = refusal(error, {"version": "the roll's version (in the address)"})
    number = page_version(version)
    # The address shown is built from the version read, never from the text given.
    context: dict[str, Any] = {"role": who.caller.role, "campaign": ident,
                               "version": version, "asked": form,
                               "csrf": Sessions(refit.keys).csrf(who.session),
                               "shown_at": f"/play/{ident}/rolls/{number}" if number else None}
    try:
        found = roll_page(refit, ident, who.caller, number) if number else {}
    except RefitError:
        found = {}
    if not found.get("may_dispute"):
        return page(request, "audit.html", status, error=said, **context, **found)
    return page(request, "audit.html", status, dispute_error=said, **context, **found)
