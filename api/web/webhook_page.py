"""The director's page of a campaign's chat webhook: the URL masked, how its posts go, and
a form that sets, replaces or removes it (CSRF and same-site checked, as the undo's). Only
the director's session opens it; a side or an observer is refused without a word of it."""

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
from domain.errors import InvalidCommand, RefitError
from infra.application import Refit

DONE = {"set": "The webhook is set: the events from now on are posted to it.",
        "removed": "The webhook is removed: nothing more is posted."}


def webhook_pages(routes: APIRouter, refit: Refit) -> None:
    """Add the webhook's page and its form."""
    @routes.get("/play/{campaign}/webhook")
    def webhook_page(request: Request, campaign: str, done: str = "") -> Response:
        """The webhook as the director sees it; `done`: what the form just did."""
        ident = page_campaign(campaign)
        who = visitor(request, refit, ident)
        try:
            who.caller.require_director("the campaign's webhook")
            context = _context(refit, ident, who)
        except RefitError as error:
            status, said = refusal(error)
            return page(request, "webhook.html", status, error=said, campaign=ident,
                        role=who.caller.role)
        return page(request, "webhook.html", done=DONE.get(done), **context)

    @routes.post("/play/{campaign}/webhook")
    async def webhook_form(request: Request, campaign: str) -> Response:
        """Set (or replace) the webhook with the form's `url`, or remove it."""
        ident, who, form = await form_posted(request, refit, campaign)
        try:
            check_director_form(request, refit, who, form, "the campaign's webhook")
            done = await run_in_threadpool(_act, refit, ident, form)
        except RefitError as error:
            status, said = refusal(error)
            if who.caller.role != "director":
                return page(request, "webhook.html", status, error=said, campaign=ident,
                            role=who.caller.role)
            context = await run_in_threadpool(_context, refit, ident, who)
            return page(request, "webhook.html", status, error=said, **context)
        return RedirectResponse(f"/play/{ident}/webhook?done={done}", status_code=303)


def _act(refit: Refit, ident: UUID, form: dict[str, str]) -> str:
    """The form's action, done: `set` or `removed` (any other refused, naming it)."""
    action = form.get("action", "set")
    if action == "remove":
        refit.webhooks.remove(ident)
        return "removed"
    if action != "set":
        raise InvalidCommand("the page sends set or remove", field="action")
    refit.webhooks.set(ident, form.get("url", ""))
    return "set"


def _context(refit: Refit, ident: UUID, who: Visitor) -> dict[str, Any]:
    """What the page shows: the campaign, the webhook masked and its delivery."""
    return {"role": who.caller.role, "campaign": ident,
            "csrf": Sessions(refit.keys).csrf(who.session),
            "campaign_name": refit.reads.status(ident, None, None).name,
            "hook": refit.webhooks.status(ident),
            "linked": refit.settings.public_url is not None}
