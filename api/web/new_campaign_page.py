"""The admin starts a campaign from a page (POST /campaigns's use case): a module's CG, a
name and the dice, answered with each role's join link, shown this once (a token is kept
only as its hash). A tournament director hands each player the link of its side, and
replaces a lost one from the dashboard (POST /campaigns/ID/tokens/ROLE's use case). The
admin's session only. Each form shown draws its campaign's id (`once`): sent again (a
browser's resend, a second click), it starts nothing more and says so."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast
from uuid import UUID, uuid4

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool

from api.guard import NEW_CAMPAIGN_PAGE, TOKENS_PAGE
from api.session import Session, Sessions
from api.web.director_form import check_form
from api.web.login import admin_visitor
from api.web.respond import form_text, page, refusal
from domain.campaign import campaign_id
from domain.errors import CampaignExists, InvalidCommand, RefitError
from infra.application import Refit

DICE = {"server": "Server dice (the ledger rolls, from its committed seed)",
        "entered": "Entered dice (players roll physical dice and type them in)"}
MAX_NAME = 200
TEMPLATE = "new_campaign.html"


def new_campaign_pages(routes: APIRouter, refit: Refit, admin_token: str | None) -> None:
    """Add the new campaign's page and its form's target."""
    @routes.get(NEW_CAMPAIGN_PAGE)
    def new_page(request: Request) -> Response:
        """The form."""
        session = admin_visitor(request, refit, admin_token)
        return page(request, TEMPLATE, **_context(refit, session))

    @routes.post(NEW_CAMPAIGN_PAGE)
    async def new_campaign(request: Request) -> Response:
        """A campaign started, with its join links; or the refusal, the form as typed."""
        def start(form: dict[str, str]) -> dict[str, Any]:
            module, cg, name, dice = _fields(refit, form)
            ident = _once(form)
            try:
                campaign, tokens = refit.commands.open_campaign(module, cg, name, dice,
                                                                "admin", ident=ident)
            except CampaignExists:
                raise _sent_before(refit, cast(UUID, ident)) from None
            links = {role: _link(request, campaign.id, token)
                     for role, token in tokens.by_role().items()}
            return {"made": {"id": str(campaign.id), "name": name, "module": module,
                             "cg": cg, "dice": dice, "links": links,
                             "commitment": campaign.dice.seed_commitment}}
        return await _answered(request, refit, admin_token, start, _typed)

    @routes.post(TOKENS_PAGE)
    async def replace_token(request: Request) -> Response:
        """A role's token replaced (the old one dies at once): its new join link, once."""
        def replace(form: dict[str, str]) -> dict[str, Any]:
            ident, role = campaign_id(form.get("campaign", "")[:100]), form.get("role", "")
            token = refit.commands.replace_token(ident, role, "admin")
            name = refit.reads.status(ident, None, None).name
            return {"replaced": {"id": str(ident), "name": name, "role": role,
                                 "link": _link(request, ident, token)}}
        return await _answered(request, refit, admin_token, replace,
                               lambda _, __: {"replacing": True})


async def _answered(request: Request, refit: Refit, admin_token: str | None,
                    act: Callable[[dict[str, str]], dict[str, Any]],
                    refused: Callable[[dict[str, str], RefitError], dict[str, Any]]
                    ) -> Response:
    """The admin's form done (`act`, on a thread: what the page then shows, 201), or its
    refusal (what `refused` adds to the page beside it)."""
    session = await run_in_threadpool(admin_visitor, request, refit, admin_token)
    form, context = form_text(await request.form()), _context(refit, session)
    try:
        check_form(request, refit, session, form)
        shown = await run_in_threadpool(act, form)
    except RefitError as error:
        status, said = refusal(error)
        return page(request, TEMPLATE, status, error=said, **refused(form, error), **context)
    return page(request, TEMPLATE, 201, **shown, **context)


def _once(form: dict[str, str]) -> UUID | None:
    """The id the form drew for its campaign when it was shown (None from a form without
    one: a script's post, which starts a campaign each time)."""
    once = form.get("once", "")
    if not once:
        return None
    drawn = _drawn(once)
    if drawn is None:
        raise InvalidCommand("this form was not one this page gave: load the page again",
                             field="once")
    return drawn


def _drawn(text: str) -> UUID | None:
    """The id a form's `once` names, if it names one."""
    try:
        return UUID(text[:100])
    except ValueError:
        return None


class SentBefore(CampaignExists):
    """A new-campaign form sent again: the campaign it started the first time."""

    def __init__(self, message: str, ident: UUID) -> None:
        super().__init__(message)
        self.ident = ident


def _sent_before(refit: Refit, ident: UUID) -> SentBefore:
    """The refusal of a form sent again: which campaign it started the first time."""
    name = refit.reads.status(ident, None, None).name
    return SentBefore(
        f"this form was sent before, and started the campaign \u201c{name}\u201d "
        f"({ident}); its join links were shown in the answer to that first sending. If "
        "that answer was lost, replace each role's token from the campaign's line among "
        "the campaigns", ident)


def _typed(form: dict[str, str], error: RefitError) -> dict[str, Any]:
    """What a refused form shows again: the fields as typed, its id only if it is one this
    page could have drawn (else a fresh one); after a form sent again, a new blank form
    and the campaign the first sending started."""
    if isinstance(error, SentBefore):
        return {"sent_before": str(error.ident)}
    typed = dict(form)
    if _drawn(typed.get("once", "")) is None:
        typed.pop("once", None)
    return {"typed": typed}


def _link(request: Request, campaign: UUID, token: str) -> str:
    """A role's join link: the token in the fragment, never sent to a server (/join)."""
    return f"{str(request.base_url).rstrip('/')}/join#campaign={campaign}&token={token}"


def _fields(refit: Refit, form: dict[str, str]) -> tuple[str, str, str, str]:
    """The module, CG, name and dice the form asks for, each checked against the lists."""
    module, _, cg = form.get("cg", "").partition("/")
    found = refit.store.modules.get(module)
    if found is None or cg not in found.cgs:
        raise InvalidCommand("choose a module's CG from the list", field="cg")
    name = " ".join(form.get("name", "").split())
    if not name or len(name) > MAX_NAME:
        raise InvalidCommand(f"give the campaign a name of 1 to {MAX_NAME} characters",
                             field="name")
    dice = form.get("dice_mode", "")
    if dice not in DICE:
        raise InvalidCommand("choose server or entered dice", field="dice_mode")
    return module, cg, name, dice


def _context(refit: Refit, session: Session) -> dict[str, Any]:
    """What the page shows whatever the answer: the CGs to choose from."""
    cgs = [(f"{m.id}/{cg}", f"{m.short_name} CG {cg}: {m.name}")
           for m in refit.store.modules.values() for cg in m.cgs]
    return {"role": "admin", "csrf": Sessions(refit.keys).csrf(session), "cgs": cgs,
            "dice_modes": DICE, "once": str(uuid4())}
