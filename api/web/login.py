"""Who a browser is: logging in with a token (which campaign and role it opens, or the
admin's), the session cookie set and read, and a page's caller from it."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from fastapi import Request, Response

from api.access import Caller, is_admin, known_campaign, session_caller
from api.session import ADMIN, COOKIE, LIFETIME, Session, Sessions
from domain.campaign import campaign_id, token_hash
from domain.errors import RefitError, Unauthorized
from infra.application import Refit

NOT_OPENED = "this token opens nothing here: check it, or ask the director for a new one"


class LoginNeeded(Exception):
    """A page asked for without a session that opens it: the login page answers."""


@dataclass(frozen=True)
class Visitor:
    """A campaign page's caller: the session, and its role in the campaign."""

    session: Session
    caller: Caller


def opened_by(refit: Refit, admin_token: str | None, token: str,
              campaign: str | None) -> tuple[UUID | None, str, str]:
    """What a token opens: (campaign or None for the admin, role, the hash its session
    is bound to). A join link names its campaign; a token typed in alone is looked for
    in every campaign."""
    if is_admin(token, admin_token):
        return None, ADMIN, token_hash(token)
    held = token_hash(token)
    for ident in _candidates(refit, campaign):
        try:  # a damaged campaign tells only a token of its own so, as the API does
            role = known_campaign(refit, ident, lambda access: access.role_of(token)
                                  is not None).access.role_of(token)
        except Unauthorized:
            continue
        if role is not None:
            return ident, role, held
    raise Unauthorized(NOT_OPENED, field="token")


def _candidates(refit: Refit, campaign: str | None) -> list[UUID]:
    """The campaigns a token may open: the one named, else every one."""
    if campaign:
        try:
            return [campaign_id(campaign)]
        except RefitError:
            raise Unauthorized(NOT_OPENED, field="campaign") from None
    return [UUID(line.id) for line in refit.reads.campaigns()]


def home_of(campaign: UUID | None) -> str:
    """A role's home page: its campaign's guide, or the admin's list of campaigns."""
    return "/admin" if campaign is None else f"/play/{campaign}"


def set_session(response: Response, request: Request, value: str) -> None:
    """The session cookie: HttpOnly, SameSite=Lax (README 'The web client' says why),
    Secure when served over HTTPS."""
    response.set_cookie(COOKIE, value, max_age=LIFETIME, path="/", httponly=True,
                        samesite="lax", secure=request.url.scheme == "https")


def end_session(response: Response) -> None:
    """The cookie removed from the browser."""
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")


def visitor(request: Request, refit: Refit, campaign: UUID) -> Visitor:
    """The caller of a campaign's page, by its session cookie; LoginNeeded if it has none
    that opens the campaign."""
    session = Sessions(refit.keys).read(request.cookies.get(COOKIE))
    if session is None:
        raise LoginNeeded
    try:
        return Visitor(session, session_caller(refit, campaign, session))
    except Unauthorized:
        raise LoginNeeded from None


def admin_visitor(request: Request, refit: Refit, admin_token: str | None) -> Session:
    """The admin's session; LoginNeeded for any other."""
    sessions = Sessions(refit.keys)
    session = sessions.read(request.cookies.get(COOKIE))
    if session is None or session.role != ADMIN or admin_token is None or \
            not sessions.holds(session, token_hash(admin_token)):
        raise LoginNeeded
    return session


def home_now(request: Request, refit: Refit, admin_token: str | None) -> str | None:
    """The home page the session cookie opens now, if it opens one."""
    session = Sessions(refit.keys).read(request.cookies.get(COOKIE))
    if session is None:
        return None
    try:
        if session.campaign is None:
            admin_visitor(request, refit, admin_token)
        else:
            visitor(request, refit, session.campaign)
    except LoginNeeded:
        return None
    return home_of(session.campaign)
