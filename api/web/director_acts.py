"""The director's acts from a page: a ruling on a roll from its audit page (POST
/campaigns/{id}/rulings as a form), and the seed revealed early (the `reveal_seed`
command), after a page that says what it does. Only the director's session acts; every
refusal is the JSON API's, in its words."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse
from pydantic import ValidationError

from api.session import Sessions
from api.web.audit_view import page_version, roll_page
from api.web.director_form import check_director_form, form_posted, run_as
from api.web.login import Visitor, visitor
from api.web.respond import page, page_campaign, refusal
from api.web.rulings_view import relocated, ruling_choices, ruling_of
from domain import commands as cmd
from domain.errors import InvalidCommand, RefitError
from infra.application import Refit


def director_acts(routes: APIRouter, refit: Refit) -> None:
    """Add the ruling form's target and the seed's reveal pages."""
    @routes.post("/play/{campaign}/rolls/{version}/ruling")
    async def rule(request: Request, campaign: str, version: str) -> Response:
        """A ruling on the roll at `version`, as the director records it."""
        ident, who, form = await form_posted(request, refit, campaign)
        try:
            check_director_form(request, refit, who, form, "a ruling")
            await run_in_threadpool(_rule, refit, ident, who, version, form)
        except (RefitError, ValidationError) as error:  # a correction's field tampered with
            return await run_in_threadpool(_refused_ruling, request, refit, ident, who,
                                           version, form, error)
        return RedirectResponse(f"/play/{ident}/rolls/{version}#rulings", status_code=303)

    @routes.get("/play/{campaign}/seed")
    def seed_page(request: Request, campaign: str, revealed: str = "") -> Response:
        """What revealing the seed does, and the button that does it; after it, the seed
        revealed at version `revealed`."""
        ident = page_campaign(campaign)
        who = visitor(request, refit, ident)
        context = _seed_context(refit, ident, who)
        try:
            who.caller.require_director("revealing the seed")
        except RefitError as error:
            status, said = refusal(error)
            return page(request, "seed.html", status, error=said, **context)
        return page(request, "seed.html", revealed=_revealed(refit, ident, revealed),
                    **context)

    @routes.post("/play/{campaign}/seed")
    async def reveal(request: Request, campaign: str) -> Response:
        """The `reveal_seed` command, as the director sends it."""
        ident, who, form = await form_posted(request, refit, campaign)
        try:
            check_director_form(request, refit, who, form, "revealing the seed")
            done = await run_in_threadpool(run_as, refit, ident, who.session,
                                           cmd.parse_command({"type": "reveal_seed"}))
        except RefitError as error:
            status, said = refusal(error)
            context = await run_in_threadpool(_seed_context, refit, ident, who)
            return page(request, "seed.html", status, error=said, **context)
        return RedirectResponse(f"/play/{ident}/seed?revealed={done.version}",
                                status_code=303)


def _rule(refit: Refit, ident: UUID, who: Visitor, version: str,
          form: dict[str, str]) -> None:
    """Record the form's ruling on the roll the page names."""
    number = page_version(version)
    if number is None:
        raise InvalidCommand("a ruling names its roll by the version it was made at",
                             field="version")
    found = roll_page(refit, ident, who.caller, number)
    if found["roll"] is None:
        raise InvalidCommand(f"no roll was made at version {number}", field="version")
    asked = ruling_of(form, ruling_choices(refit, ident, found["roll"].table))
    try:
        refit.audit.record_ruling(ident, found["audit"].key, asked.pop("verdict"),
                                  asked.pop("reason"), who.caller.role, **asked)
    except RefitError as error:  # the API's corrections[N], said as the page's fields
        raise relocated(error, form) from None


def _refused_ruling(request: Request, refit: Refit, ident: UUID, who: Visitor, version: str,
                    form: dict[str, str], error: Exception) -> Response:
    """The audit page again, with the refusal and the form as it was filled in."""
    status, said = refusal(error)
    context: dict[str, Any] = {"role": who.caller.role, "campaign": ident,
                               "version": version, "asked": form,
                               "csrf": Sessions(refit.keys).csrf(who.session)}
    number = page_version(version)
    try:
        found = roll_page(refit, ident, who.caller, number) if number else {}
    except RefitError:
        found = {}
    roll = found.get("roll")
    if roll is not None and who.caller.role == "director":
        context["choices"] = ruling_choices(refit, ident, roll.table)
    shown_at = f"/play/{ident}/rolls/{number}" if number else None
    if not found:
        return page(request, "audit.html", status, error=said, shown_at=shown_at, **context)
    return page(request, "audit.html", status, ruling_error=said, shown_at=shown_at, **context,
                **found)


def _seed_context(refit: Refit, ident: UUID, who: Visitor) -> dict[str, Any]:
    """What the seed page shows whoever asks: the campaign and its commitment now."""
    status = refit.reads.status(ident, None, who.caller.viewer)
    # What an early reveal opens to the opponent: the director's page says it, counted
    secret = refit.store.campaign(ident).dice.sealed_rolls_on_seed \
        if who.caller.role == "director" else 0
    return {"role": who.caller.role, "campaign": ident, "status": status,
            "secret_rolls": secret, "csrf": Sessions(refit.keys).csrf(who.session)}


def _revealed(refit: Refit, ident: UUID, text: str) -> dict[str, Any] | None:
    """The SeedRevealed event at version `text`, if that is one."""
    number = page_version(text)
    if number is None or number < 1:
        return None
    try:
        found = next(iter(refit.reads.history(ident, None, lte=number, gt=number - 1)), None)
    except RefitError:  # past the campaign's version
        return None
    return found if found and found["type"] == "SeedRevealed" else None
