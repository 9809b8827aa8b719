"""The web client's routes (CONTRACT 'Web pages'): the login page and join links, the session,
each role's home page and its forms. Pages only translate: the reads and commands are the
JSON API's (infra), and every refusal is shown as api/errors.py words it."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError

from api.access import DIRECTOR, Caller
from api.session import Session, Sessions
from api.web.actions import FORM_FIELDS, command_of
from api.web.audit_view import page_version, roll_page
from api.web.charts_page import charts_pages
from api.web.dashboard import dashboard
from api.web.director import director_pages
from api.web.director_acts import director_acts
from api.web.director_form import check_form, run_as
from api.web.forms_pages import forms_pages
from api.web.import_page import import_pages
from api.web.login import (
    LoginNeeded,
    admin_visitor,
    end_session,
    home_now,
    home_of,
    opened_by,
    set_session,
    visitor,
)
from api.web.new_campaign_page import new_campaign_pages
from api.web.respond import HERE, form_text, page, refusal, same_site
from api.web.respond import page_campaign as _ident
from api.web.retained_form import still_listed
from api.web.rulings_view import ruling_form
from api.web.side_acts import side_acts
from api.web.verify_view import verify_pages
from api.web.view import home
from api.web.webhook_page import webhook_pages
from domain.digits import digits
from domain.errors import RefitError, Unauthorized
from infra.application import Refit

# A field a guide form labels its own way, where the API's name reads as another form's
# (a Fortification's table item is purchase_fortification's `reason`).
FORM_LABELS = {"fortification": {"reason": "Fortification (FPP each)"},
               "withdraw": {"rule": "Under the rule"}}


def web_routes(app: FastAPI, refit: Refit, admin_token: str | None,
               import_limit: int) -> None:
    """Add the web client: its static files, pages and forms."""
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    routes = APIRouter(include_in_schema=False)
    _session_routes(routes, refit, admin_token)
    _campaign_pages(routes, refit)
    forms_pages(routes, refit)
    charts_pages(routes, refit)
    _admin_pages(routes, refit, admin_token)
    director_pages(routes, refit)
    director_acts(routes, refit)
    side_acts(routes, refit)
    verify_pages(routes, refit)
    import_pages(routes, refit, admin_token, import_limit)
    new_campaign_pages(routes, refit, admin_token)
    webhook_pages(routes, refit)
    _form_addresses(routes)
    app.include_router(routes)

    @app.exception_handler(LoginNeeded)
    def to_login(_: Request, __: Exception) -> Response:
        return RedirectResponse("/", status_code=303)


def _form_addresses(routes: APIRouter) -> None:
    """A form's own address asked for as a page (reloaded after a refusal shown without
    htmx, or kept as a bookmark): 303 to the page the form is on, not a 405."""
    @routes.get("/login")
    def login_address() -> Response:
        return RedirectResponse("/", status_code=303)

    @routes.get("/play/{campaign}/act")
    def act_address(campaign: str) -> Response:
        return RedirectResponse(f"/play/{_ident(campaign)}", status_code=303)

    @routes.get("/play/{campaign}/rolls/{version}/ruling")
    def ruling_address(campaign: str, version: str) -> Response:
        number = page_version(version)
        roll = f"/rolls/{number}" if number else ""
        return RedirectResponse(f"/play/{_ident(campaign)}{roll}", status_code=303)


def _session_routes(routes: APIRouter, refit: Refit, admin_token: str | None) -> None:
    @routes.get("/")
    def start(request: Request) -> Response:
        """The login page, or the role's home when the session cookie opens one."""
        home_page = home_now(request, refit, admin_token)
        if home_page is not None:
            return RedirectResponse(home_page, status_code=303)
        return page(request, "login.html")

    @routes.get("/join")
    def join(request: Request) -> Response:
        """A join link's page: its script posts the token in the link's fragment to /login
        (the fragment never reaches the server, nor its log)."""
        return page(request, "join.html")

    @routes.post("/login")
    async def login(request: Request) -> Response:
        """A token (form field `token`; a join link's `campaign` too): the session cookie
        for its role, and 303 to its home page."""
        form = await request.form()
        fields = form_text(form)
        token, campaign = fields.get("token", "").strip(), fields.get("campaign")
        try:
            same_site(request)
            if not token:
                raise Unauthorized("give your token", field="token")
            ident, role, held = await run_in_threadpool(
                opened_by, refit, admin_token, token, str(campaign or "") or None)
        except RefitError as error:
            status, said = refusal(error)
            return page(request, "login.html", status, error=said, shown_at="/")
        answer = RedirectResponse(home_of(ident), status_code=303)
        set_session(answer, request, Sessions(refit.keys).issue(ident, role, held))
        return answer

    @routes.post("/logout")
    def logout(request: Request) -> Response:
        """The session ends: its cookie is removed, and the login page answers."""
        same_site(request)
        answer = RedirectResponse("/", status_code=303)
        end_session(answer)
        return answer


def _campaign_pages(routes: APIRouter, refit: Refit) -> None:
    @routes.get("/play/{campaign}")
    def guide_page(request: Request, campaign: str, rolled: str | None = None,
                   bought: str | None = None, done: str | None = None) -> Response:
        """The role's home: a side's RePh guide, the director's every side's; `rolled`
        FIRST-LAST: the versions a roll just appended, whose roll it shows; `bought` the
        version a purchase was recorded at, which it confirms (to whom may read it);
        `done` FIRST-LAST: what another form just recorded, said in words."""
        ident = _ident(campaign)
        who = visitor(request, refit, ident)
        just = bought if bought and digits(bought) and \
            len(bought) <= 10 else None
        return _guide(request, refit, ident, who.session, who.caller, _versions(rolled),
                      bought=int(just) if just else None, done=_versions(done))

    @routes.get("/play/{campaign}/rolls/{version}")
    def roll_audit_page(request: Request, campaign: str, version: str) -> Response:
        """A roll's audit for the role, as GET /campaigns/{id}/rolls/audit answers it: its
        dice, key, DRM, result, seed commitment, rulings and inclusion proof, and (once the
        seed is revealed) a button that rechecks the dice in the browser."""
        ident = _ident(campaign)
        who = visitor(request, refit, ident)
        context: dict[str, Any] = {"role": who.caller.role, "campaign": ident,
                                   "version": version,
                                   "csrf": Sessions(refit.keys).csrf(who.session)}
        number = page_version(version)
        if number is None:
            said = {"message": f"no roll page is at {version[:20]!r}: a roll is named by the "
                               "version it was made at (a number)", "field": "version"}
            return page(request, "audit.html", 404, error=said, **context)
        try:
            found = roll_page(refit, ident, who.caller, number)
        except RefitError as error:  # the version is the address's, not a form's field
            status, said = refusal(error, {"version": "the roll's version (in the address)"})
            return page(request, "audit.html", status, error=said, **context)
        return page(request, "audit.html", **context, **found, **ruling_form(
            refit, ident, who.caller.role == DIRECTOR, found))

    @routes.post("/play/{campaign}/act")
    async def act(request: Request, campaign: str) -> Response:
        """A guide form: the command it stands for, as the session's role sends it."""
        ident = _ident(campaign)
        who = await run_in_threadpool(visitor, request, refit, ident)
        # a Retained units list of 500 lines sends about 12 fields a line (the body's size
        # is bounded before: api/guard.py)
        form = await request.form(max_fields=FORM_FIELDS)
        fields = form_text(form)
        claims = [value for value in form.getlist("drm") if isinstance(value, str)]
        try:
            check_form(request, refit, who.session, fields)
            first, last = await run_in_threadpool(_send, refit, ident, who.session, fields,
                                                  claims)
        except (RefitError, ValidationError) as error:  # a form's field tampered with too
            status, said = refusal(error, FORM_LABELS.get(fields.get("action") or ""))
            return await run_in_threadpool(_guide, request, refit, ident, who.session,
                                           who.caller, None, status, said,
                                           posted=fields | {"drm": claims},
                                           shown_at=f"/play/{ident}")
        # What was recorded, said back; an Advance's own state line says it already.
        said = {"roll": f"?rolled={first}-{last}", "purchase": f"?bought={first}",
                "advance": ""}
        return RedirectResponse(f"/play/{ident}" + said.get(fields.get("action") or "",
                                                            f"?done={first}-{last}"),
                                status_code=303)


def _versions(text: str | None) -> range | None:
    """The versions FIRST-LAST name (None for none, or for what is not two numbers)."""
    first, _, last = (text or "").partition("-")
    if not (digits(first) and digits(last)) or \
            len(first + last) > 20:  # not ² nor ٣, which int() refuses
        return None
    return range(int(first), int(last) + 1)


def _send(refit: Refit, ident: UUID, session: Session, fields: dict[str, str],
          claims: list[str]) -> tuple[int, int]:
    """Run the form's command as the session's role; the first and last versions it
    appended."""
    command = command_of(fields, claims)
    # A Retained units list only onto the list its page showed (checked once the role may
    # send it: a digest compared for anyone else would answer guesses of a secret list).
    holds = still_listed(fields) if fields.get("action") == "retained" else None
    done = run_as(refit, ident, session, command, holds)
    return min(r["version"] for r in done.events), done.version


def _guide(request: Request, refit: Refit, ident: UUID, session: Session, caller: Caller,
           rolled: range | None, code: int = 200, error: dict[str, Any] | None = None,
           bought: int | None = None, posted: dict[str, Any] | None = None,
           shown_at: str | None = None, done: range | None = None) -> Response:
    """The guide page for the caller, with a refused form's error and fields if one was."""
    context = home(refit, ident, caller, rolled, bought, done)
    return page(request, "guide.html", code, role=caller.role, error=error, posted=posted,
                csrf=Sessions(refit.keys).csrf(session), campaign=ident, shown_at=shown_at,
                **context)


def _admin_pages(routes: APIRouter, refit: Refit, admin_token: str | None) -> None:
    @routes.get("/admin")
    def campaigns(request: Request) -> Response:
        """The admin's home: the tournament dashboard (api/web/dashboard.py)."""
        session = admin_visitor(request, refit, admin_token)
        return page(request, "admin.html", role="admin", csrf=Sessions(refit.keys).csrf(
            session), **dashboard(refit, request.query_params))
