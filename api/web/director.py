"""The director's undo in the browser: a preview of what an undo would remove (the JSON
API's dry run, POST /campaigns/{id}/undo with `dry_run`), then the undo itself, confirmed
with its reason and made only if the campaign is still at the version previewed (If-Match).
Only the director's session opens either; every refusal is the JSON API's, in its words."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse

from api.session import Sessions
from api.web.director_form import check_director_form, form_posted
from api.web.login import Visitor, visitor
from api.web.respond import page, page_campaign, refusal
from api.web.undo_view import plan_page, undo_choices
from domain.digits import digits
from domain.errors import InvalidCommand, RefitError, VersionConflict
from infra.application import Refit
from infra.views import STEP_EXAMPLE

REASON = 500  # characters of a reason, as the JSON API's UndoBody takes


def director_pages(routes: APIRouter, refit: Refit) -> None:
    """Add the undo's preview page and its confirming form."""
    @routes.get("/play/{campaign}/undo")
    def undo_preview(request: Request, campaign: str, to: str = "", to_version: str = "",
                     to_step: str = "", reason: str = "") -> Response:
        """What an undo to `to_version` (or the end of step `to_step`; `to`: either, as the
        home page's choice names it) would remove, and the form that confirms it."""
        ident = page_campaign(campaign)
        who = visitor(request, refit, ident)
        point = _point(to, to_version, to_step)
        context = _context(refit, ident, who, point, reason)
        try:
            who.caller.require_director("an undo")
            if not any(point.values()):  # nothing asked yet: where it may return to
                return page(request, "undo.html", choose=True, **context,
                            **_choices(refit, ident))
            version, step = _target(point)
            plan = refit.audit.undo_plan(ident, _reason(reason), version, step,
                                         who.caller.viewer)
        except RefitError as error:
            status, said = refusal(error)
            return page(request, "undo.html", status, error=said, **context)
        return page(request, "undo.html", at=plan.head, **context,
                    **plan_page(refit, ident, plan, who.caller.viewer))

    @routes.post("/play/{campaign}/undo")
    async def undo_confirmed(request: Request, campaign: str) -> Response:
        """The undo previewed, as the director: refused if the campaign moved on since."""
        ident, who, form = await form_posted(request, refit, campaign)
        point = _point("", form.get("to_version", ""), form.get("to_step", ""))
        try:
            check_director_form(request, refit, who, form, "an undo")
            version, step = _target(point)
            await run_in_threadpool(refit.audit.undo, ident, _reason(form.get("reason", "")),
                                    who.caller.role, version, step, _previewed(form))
        except RefitError as error:
            status, said = refusal(error)
            context = await run_in_threadpool(_context, refit, ident, who, point,
                                              form.get("reason", ""))
            return page(request, "undo.html", status, error=said,
                        moved_on=isinstance(error, VersionConflict), **context)
        return RedirectResponse(f"/play/{ident}", status_code=303)


def _choices(refit: Refit, ident: UUID) -> dict[str, Any]:
    """The undo page's choices: recent commands and steps (the CG ended: none)."""
    status = refit.reads.status(ident, None, None)
    return {"undo": undo_choices(refit, ident, status.version),
            "ended": status.phase == "ended"}


def _context(refit: Refit, ident: UUID, who: Visitor, point: dict[str, str],
             reason: str) -> dict[str, Any]:
    """What the undo page shows whatever the answer: who, the campaign, the point asked."""
    return {"role": who.caller.role, "campaign": ident, "point": point,
            "reason": reason[:REASON], "csrf": Sessions(refit.keys).csrf(who.session),
            "campaign_name": refit.reads.status(ident, None, who.caller.viewer).name}


def _point(to: str, to_version: str, to_step: str) -> dict[str, str]:
    """The point asked for: a version typed in wins over the home page's choice (`to`),
    which is a version (digits) or CGDATE/STEP."""
    to_version, to_step, to = to_version.strip(), to_step.strip(), to.strip()
    if not (to_version or to_step) and to:
        return {"to_version": to} if digits(to) else {"to_step": to}
    return {"to_version": to_version, "to_step": "" if to_version else to_step}


def _target(point: dict[str, str]) -> tuple[int | None, str | None]:
    """The undo's to_version and to_step, checked as the JSON API's UndoBody checks them."""
    version, step = point.get("to_version") or None, point.get("to_step") or None
    if version is not None and not (digits(version) and len(version) <= 10):
        raise InvalidCommand("to_version is a version number, e.g. 12", field="to_version")
    if step is not None and len(step) > 40:
        raise InvalidCommand(f"to_step is CGDATE/STEP, {STEP_EXAMPLE}", field="to_step")
    return (None if version is None else int(version)), step


def _reason(reason: str) -> str:
    """The reason, as the JSON API takes one (an empty one the undo itself refuses)."""
    if len(reason) > REASON:
        raise InvalidCommand(f"a reason is at most {REASON} characters", field="reason")
    return reason


def _previewed(form: dict[str, str]) -> int:
    """The version the preview was made at: the undo is made only at that version."""
    at = form.get("at", "")
    if not (digits(at) and len(at) <= 10):
        raise InvalidCommand("this undo names no preview: preview it again", field="at")
    return int(at)
