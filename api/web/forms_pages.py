"""The forms pages (issue 18): the paper forms as of a point of the campaign, and what
changed between two points, for the session's role. Every refusal is shown in the JSON
API's words and status (api/errors.py); the reads are the JSON routes' own."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Query, Request, Response

from api.web.forms_view import (
    changes,
    chosen_point,
    point_field,
    point_of,
    points,
    sheets,
    version_of,
)
from api.web.login import visitor
from api.web.respond import page, page_campaign, refusal
from domain.errors import RefitError
from infra.application import Refit


def forms_pages(routes: APIRouter, refit: Refit) -> None:
    """Add the forms page and the diff page to the web client."""
    @routes.get("/play/{campaign}/forms")
    def forms_page(request: Request, campaign: str, as_of: str | None = None,
                   version: str | None = None) -> Response:
        """The paper forms as the role's `/forms` and `/san` reads give them: now, after a
        step (`as_of` CGDATE/STEP) or at a version (`version`)."""
        ident = page_campaign(campaign)
        who = visitor(request, refit, ident)
        context: dict[str, Any] = {"role": who.caller.role, "campaign": ident,
                                   "as_of": (as_of or "")[:40], "version": (version or "")[:12]}
        try:
            context["points"] = points(refit, ident)
            at = version_of(refit, ident, chosen_point(as_of, version), point_field(version))
            context |= sheets(refit, ident, at, who.caller.viewer) | {"at": at}
        except RefitError as error:
            status, said = refusal(error)
            return page(request, "forms.html", status, error=said, **context)
        return page(request, "forms.html", **context)

    @routes.get("/play/{campaign}/forms/diff")
    def diff_page(request: Request, campaign: str,
                  start: Annotated[str | None, Query(alias="from")] = None,
                  end: Annotated[str | None, Query(alias="to")] = None) -> Response:
        """What changed in the forms from one point to another, as the role's `/diff`
        read gives it (`to` blank: now; `from` blank: after the last step done)."""
        ident = page_campaign(campaign)
        who = visitor(request, refit, ident)
        context: dict[str, Any] = {"role": who.caller.role, "campaign": ident}
        try:
            context["points"] = found = points(refit, ident)
            given = point_of(start, "from") or _last_step(refit, ident, found) or "1"
            context |= {"start": given, "end": point_of(end, "to") or ""}
            first = version_of(refit, ident, given, "from") or 1
            last = version_of(refit, ident, context["end"] or None, "to")
            if last is not None and first > last:  # read forwards, as asked the other way
                context |= {"swapped": (first, last), "start": context["end"], "end": given}
                first, last = last, first
            context |= {"first": first, "last": last or refit.views.head(ident),
                        "changes": changes(refit.audit.diff(ident, first, last,
                                                            who.caller.viewer))}
        except RefitError as error:
            status, said = refusal(error)
            return page(request, "forms_diff.html", status, error=said, **context)
        return page(request, "forms_diff.html", **context)


def _last_step(refit: Refit, ident: UUID, found: list[dict[str, Any]]) -> str | None:
    """The last step done that ended before the campaign's head, as a point (None before
    the first): a diff from one that ended at the head would compare now with now."""
    head = refit.views.head(ident)
    for step in reversed([step for group in found for step in group["steps"]]):
        if (refit.views.version_at(ident, step["value"], field="from") or 0) < head:
            return str(step["value"])
    return None
