"""The web client's routes (CONTRACT 'Web pages'): the login page and join links, the session,
each role's home page and its forms. Pages only translate: the reads and commands are the
JSON API's (infra), and every refusal is shown as api/errors.py words it."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from uuid import UUID

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from api.access import Caller
from api.errors import error_body, status_of
from api.session import Session, Sessions
from api.web.actions import command_of
from api.web.audit_view import page_version, roll_page
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
from api.web.view import home, signed, subject_label
from domain.campaign import Campaign, campaign_id
from domain.errors import Forbidden, RefitError, Unauthorized
from infra.application import Refit

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=HERE / "templates")
templates.env.filters |= {"subject": subject_label, "signed": signed}
# Pages run no script but the app's own files, and no other site may frame them.
HEADERS = {"Content-Security-Policy": "default-src 'self'; script-src 'self'; "
           "style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; "
           "form-action 'self'",
           "Referrer-Policy": "same-origin", "X-Content-Type-Options": "nosniff",
           "Cache-Control": "no-store"}


def web_routes(app: FastAPI, refit: Refit, admin_token: str | None) -> None:
    """Add the web client: its static files, pages and forms."""
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    routes = APIRouter(include_in_schema=False)
    _session_routes(routes, refit, admin_token)
    _campaign_pages(routes, refit)
    _admin_pages(routes, refit, admin_token)
    app.include_router(routes)

    @app.exception_handler(LoginNeeded)
    def to_login(_: Request, __: Exception) -> Response:
        return RedirectResponse("/", status_code=303)


def page(request: Request, name: str, code: int = 200, **context: Any) -> HTMLResponse:
    """A template rendered with the page's security headers."""
    return templates.TemplateResponse(request, name, context, status_code=code,
                                       headers=HEADERS)


def refusal(error: Exception) -> tuple[int, dict[str, Any]]:
    """A refused form's status and words, as the JSON API gives them (api/errors.py)."""
    return status_of(error), error_body(error)["error"]


def same_site(request: Request) -> None:
    """A form posted from another site (or a sibling one) is refused: with SameSite=Lax and
    the CSRF token, a login from another site too. Browsers say where a request comes from
    (Sec-Fetch-Site); without it, the Origin header is compared."""
    fetched = request.headers.get("sec-fetch-site")
    origin = request.headers.get("origin")
    if fetched is not None:
        refused = fetched not in ("same-origin", "none")
    else:
        refused = bool(origin) and urlparse(origin).netloc != request.url.netloc
    if refused:
        raise Forbidden("this form is posted from another site")


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
        token, campaign = str(form.get("token") or "").strip(), form.get("campaign")
        try:
            same_site(request)
            if not token:
                raise Unauthorized("give your token", field="token")
            ident, role, held = await run_in_threadpool(
                opened_by, refit, admin_token, token, str(campaign or "") or None)
        except RefitError as error:
            status, said = refusal(error)
            return page(request, "login.html", status, error=said)
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
    def guide_page(request: Request, campaign: str, rolled: str | None = None) -> Response:
        """The role's home: a side's RePh guide, the director's every side's; `rolled`
        FIRST-LAST: the versions a roll just appended, whose roll it shows."""
        ident = _ident(campaign)
        who = visitor(request, refit, ident)
        return _guide(request, refit, ident, who.session, who.caller, _versions(rolled))

    @routes.get("/play/{campaign}/rolls/{version}")
    def roll_audit_page(request: Request, campaign: str, version: str) -> Response:
        """A roll's audit for the role, as GET /campaigns/{id}/rolls/audit answers it: its
        dice, key, DRM, result, seed commitment, rulings and inclusion proof, and (once the
        seed is revealed) a button that rechecks the dice in the browser."""
        ident = _ident(campaign)
        who = visitor(request, refit, ident)
        context: dict[str, Any] = {"role": who.caller.role, "campaign": ident,
                                   "version": version}
        number = page_version(version)
        if number is None:
            said = {"message": f"no roll page is at {version[:20]!r}: a roll is named by the "
                               "version it was made at (a number)", "field": "version"}
            return page(request, "audit.html", 404, error=said, **context)
        try:
            found = roll_page(refit, ident, who.caller, number)
        except RefitError as error:
            status, said = refusal(error)
            return page(request, "audit.html", status, error=said, **context)
        return page(request, "audit.html", **context, **found)

    @routes.post("/play/{campaign}/act")
    async def act(request: Request, campaign: str) -> Response:
        """A guide form: the command it stands for, as the session's role sends it."""
        ident = _ident(campaign)
        who = await run_in_threadpool(visitor, request, refit, ident)
        form = await request.form()
        fields = {key: str(value) for key, value in form.items()}
        claims = [str(value) for value in form.getlist("drm")]
        try:
            same_site(request)
            if not Sessions(refit.keys).csrf_holds(who.session, fields.get("csrf")):
                raise Forbidden("this form is out of date: reload the page", field="csrf")
            first, last = await run_in_threadpool(_send, refit, ident, who.session, fields,
                                                  claims)
        except RefitError as error:
            status, said = refusal(error)
            return await run_in_threadpool(_guide, request, refit, ident, who.session,
                                           who.caller, None, status, said)
        rolled = f"?rolled={first}-{last}" if fields.get("action") == "roll" else ""
        return RedirectResponse(f"/play/{ident}{rolled}", status_code=303)


def _ident(campaign: str) -> UUID:
    """A page's campaign id; one that is not an id needs a login like any other."""
    try:
        return campaign_id(campaign)
    except RefitError:
        raise LoginNeeded from None


def _versions(text: str | None) -> range | None:
    """The versions FIRST-LAST name (None for none, or for what is not two numbers)."""
    first, _, last = (text or "").partition("-")
    if not (first.isdigit() and last.isdigit()) or len(first + last) > 20:
        return None
    return range(int(first), int(last) + 1)


def _send(refit: Refit, ident: UUID, session: Session, fields: dict[str, str],
          claims: list[str]) -> tuple[int, int]:
    """Run the form's command as the session's role; the first and last versions it
    appended."""
    command = command_of(fields, claims)
    sessions = Sessions(refit.keys)

    def authorize(state: Campaign) -> str:
        if not sessions.holds(session, state.access.token_hashes.get(session.role)):
            raise Unauthorized("this session opens nothing in this campaign: log in again")
        Caller(session.role).may_command(command.model_dump())
        return session.role
    done = refit.commands.execute(ident, command, "", authorize=authorize)
    return min(r["version"] for r in done.events), done.version


def _guide(request: Request, refit: Refit, ident: UUID, session: Session, caller: Caller,
           rolled: range | None, code: int = 200, error: dict[str, Any] | None = None
           ) -> Response:
    """The guide page for the caller, with a refused form's error if one was."""
    context = home(refit, ident, caller, rolled)
    return page(request, "guide.html", code, role=caller.role, error=error,
                csrf=Sessions(refit.keys).csrf(session), campaign=ident, **context)


def _admin_pages(routes: APIRouter, refit: Refit, admin_token: str | None) -> None:
    @routes.get("/admin")
    def campaigns(request: Request) -> Response:
        """The admin's home: every campaign, one line each."""
        session = admin_visitor(request, refit, admin_token)
        return page(request, "admin.html", role="admin", campaigns=refit.reads.campaigns(),
                    csrf=Sessions(refit.keys).csrf(session))
