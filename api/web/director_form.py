"""What every director's form on a page checks before it acts (the director's session, the
form posted from this site, the session's CSRF token), and a command run as the session's
role, authorized as the JSON API authorizes it."""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from fastapi import Request
from fastapi.concurrency import run_in_threadpool

from api.access import Caller
from api.session import Session, Sessions
from api.web.login import Visitor, visitor
from api.web.respond import form_text, page_campaign, same_site
from domain import commands as cmd
from domain.campaign import Campaign
from domain.errors import Forbidden, Unauthorized
from infra.application import Refit
from infra.results import CommandResult


async def posted_form(request: Request) -> dict[str, str]:
    """A posted form's fields, as text."""
    return form_text(await request.form())


async def form_posted(request: Request, refit: Refit,
                      campaign: str) -> tuple[UUID, Visitor, dict[str, str]]:
    """What a form posted to a campaign's page brings: the campaign, who posted it (from
    the session) and its fields."""
    ident = page_campaign(campaign)
    who = await run_in_threadpool(visitor, request, refit, ident)
    return ident, who, await posted_form(request)


def check_director_form(request: Request, refit: Refit, who: Visitor, form: dict[str, str],
                        what: str) -> None:
    """Refuse the form unless the director posted it, from this site, with its CSRF token
    (`what`: the act, as the refusal names it)."""
    who.caller.require_director(what)
    check_form(request, refit, who.session, form)


def check_form(request: Request, refit: Refit, session: Session, form: dict[str, str]) -> None:
    """Refuse a form posted from another site, or without the session's CSRF token."""
    same_site(request)
    if not Sessions(refit.keys).csrf_holds(session, form.get("csrf")):
        raise Forbidden("this form is out of date: reload the page", field="csrf")


def run_as(refit: Refit, ident: UUID, session: Session, command: cmd.Command,
           holds: Callable[[Campaign], None] | None = None) -> CommandResult:
    """Run a command as the session's role, while its token is still the role's; `holds`
    checks the state the command would run on, once the role may send it (in the
    campaign's turn: nothing lands between the check and the command)."""
    sessions = Sessions(refit.keys)

    def authorize(state: Campaign) -> str:
        if not sessions.holds(session, state.access.token_hashes.get(session.role)):
            raise Unauthorized("this session opens nothing in this campaign: log in again")
        Caller(session.role).may_command(command.model_dump())
        if holds is not None:
            holds(state)
        return session.role
    return refit.commands.execute(ident, command, "", authorize=authorize)
