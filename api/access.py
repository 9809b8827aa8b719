"""Who a bearer token is: the admin, or a campaign's director, a side, or an observer."""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, cast
from uuid import UUID

from fastapi import Depends, Header, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel
from starlette.requests import HTTPConnection

from api.guard import Gate
from api.session import COOKIE, Session, Sessions
from domain import commands as cmd
from domain.campaign import Campaign, campaign_id
from domain.campaign.access import Access
from domain.errors import CampaignNotFound, Forbidden, HistoryUnreadable, Unauthorized
from domain.history import redacted
from infra.application import Refit
from infra.results import CommandResult

DIRECTOR, OBSERVER = "director", "observer"
NOT_OPENED = "this token opens nothing in this campaign (or there is no such campaign)"


@dataclass(frozen=True)
class Caller:
    """A campaign role: director, observer, or a side acting for itself."""

    role: str

    @property
    def viewer(self) -> str | None:
        """Whose secrets this caller may read (None: every side's, as the director)."""
        return None if self.role == DIRECTOR else self.role

    def require_director(self, what: str) -> None:
        """Only the campaign's director may do this."""
        if self.role != DIRECTOR:
            raise Forbidden(f"{what} is the director's to do")

    def may_command(self, body: dict[str, Any]) -> None:
        """A side acts only for itself, with the commands declared a side's (its own
        choices and rolls, domain/commands.py); the rest are the director's."""
        if self.role == DIRECTOR:
            return
        if self.role == OBSERVER:
            raise Forbidden("an observer reads; it sends no commands")
        side = body.get("side")
        if body.get("type") not in cmd.SIDE_COMMANDS or side is None:
            raise Forbidden(f"the {body.get('type')} command is the director's to send")
        if side != self.role:
            raise Forbidden(f"the {self.role} token acts for the {self.role} only, "
                            f"not for the {side}", field="side")


def require_admin(token: str | None, admin_token: str | None) -> None:
    """Only the service's admin token creates, lists and imports campaigns: any other
    token is a bad one here (401), as CONTRACT 'Errors' says."""
    if token is None:
        raise Unauthorized("give the admin token: Authorization: Bearer TOKEN")
    if not is_admin(token, admin_token):
        raise Unauthorized("this needs the admin token")


def is_admin(token: str | None, admin_token: str | None) -> bool:
    """Whether the token is the service's admin token (compared in constant time)."""
    return token is not None and admin_token is not None and \
        hmac.compare_digest(token.encode(), admin_token.encode())


def caller_of(refit: Refit, campaign_id: UUID, token: str | None) -> Caller:
    """The caller's role in this campaign; a token of another campaign opens nothing."""
    require_token(token)
    return caller_on(known_campaign(refit, campaign_id,
                            lambda access: access.role_of(cast(str, token)) is not None), token)


def known_campaign(refit: Refit, campaign_id: UUID, opens: Callable[[Access], bool]) -> Campaign:
    """The campaign; for an unknown id the same 401 as a token it does not know, so a
    caller without a valid token cannot tell which campaign ids exist. A campaign whose
    history cannot be read says so only to a token its readable events open."""
    try:
        return refit.store.campaign(campaign_id)
    except CampaignNotFound:
        raise Unauthorized(NOT_OPENED) from None
    except HistoryUnreadable:
        access = refit.store.readable_access(campaign_id)
        if access is None or not opens(access):
            raise Unauthorized(NOT_OPENED) from None
        raise


def require_token(token: str | None) -> None:
    """A campaign route needs a token before any work is done for it."""
    if token is None:
        raise Unauthorized("give a campaign token: Authorization: Bearer TOKEN")


def caller_on(campaign: Campaign, token: str | None) -> Caller:
    """The caller's role on a campaign's state as loaded."""
    require_token(token)
    role = campaign.access.role_of(cast(str, token))
    if role is None:
        raise Unauthorized(NOT_OPENED)
    return Caller(role)


SESSION_SCHEME = "session"  # credentials read from the web client's cookie, not a token
SAFE = frozenset({"GET", "HEAD"})


class BearerOrSession(HTTPBearer):
    """A bearer token; on a GET or HEAD without one, the web client's session cookie, so a
    browser opens the printable forms and the report (a cookie never authorizes a POST:
    the web pages' own forms check their CSRF token, api/web)."""

    async def __call__(self, request: HTTPConnection) -> HTTPAuthorizationCredentials | None:
        found = await super().__call__(request)
        cookie = request.cookies.get(COOKIE)
        if found is None and cookie and request.scope.get("method") in SAFE:
            return HTTPAuthorizationCredentials(scheme=SESSION_SCHEME, credentials=cookie)
        return found


# Named as FastAPI names HTTPBearer in the OpenAPI schema, as before the cookie was read.
bearer = BearerOrSession(auto_error=False, scheme_name="HTTPBearer",
                         description="A campaign role's token, or the admin's")
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
# The campaign's version a command is meant for: as the answers give it (117), or quoted
# as an entity tag ("117", W/"117") as HTTP clients write If-Match.
IfMatch = Annotated[str | None, Header(
    pattern=r'^([0-9]{1,18}|(W/)?"[0-9]{1,18}")$',
    description='The campaign version the command is for: 117, or "117" (409 if it moved on)')]


# A client's key for a command (200 characters at most): a repeat answers the first answer.
IdempotencyKey = Annotated[str | None, Header(max_length=200)]


def expected_version(if_match: str | None) -> int | None:
    """The version an If-Match names (its pattern already checked)."""
    return None if if_match is None else int(if_match.removeprefix("W/").strip('"'))


# A version, or CGDATE/STEP: the campaign as it stood after that step (e.g. 19PM/9.616).
AsOf = Annotated[str | None, Query(pattern=r"^([1-9][0-9]{0,8}|[^/\s]{1,12}/[^/\s]{1,20})$",
                                   description="A version, or CGDATE/STEP (after that step)")]


class Receipt(BaseModel):
    """The proof of what a command appended, to keep and check offline (CONTRACT 'Proofs',
    docs/audit.md 'Receipts'): the signed checkpoint of the log at `tree_size` (the
    campaign's version after the command), each appended version's leaf hash (hex) and its
    RFC 6962 inclusion proof in that tree (as `GET /proof` gives one), and the verifier
    keys of the service (compare them with `GET /keys`, kept elsewhere)."""

    origin: str
    tree_size: int
    root: str
    versions: list[int]
    leaf_hashes: list[str]
    checkpoint: str
    proofs: list[dict[str, Any]]
    keys: list[str]


class CommandAnswer(BaseModel):
    """What a command appended, and its receipt."""

    version: int
    head_hash: str
    events: list[dict[str, Any]]
    receipt: Receipt | None = None


def command_answer(done: CommandResult, viewer: str | None) -> Response:
    """What a command appended, as the viewer may read it. It is plain JSON already: sent
    as it is, not validated again on the way (the routes declare CommandAnswer)."""
    events = list(redacted(done.events, viewer, done.ended))
    return Response(json.dumps({"version": done.version, "head_hash": done.head_hash,
                                "events": events, "receipt": done.receipt}),
                    media_type="application/json")


def admin_gate(admin_token: str | None) -> Gate:
    """An admin route's check before its body is read."""
    async def gate(request: Request) -> None:
        require_admin(token_of(await bearer(request)), admin_token)
    return gate


def campaign_gate(refit: Refit) -> Gate:
    """A campaign route's check before its body is read: the token opens the campaign."""
    async def gate(request: Request) -> None:
        ident = campaign_id(request.path_params["campaign"])
        token = token_of(await bearer(request))
        require_token(token)
        held = refit.store.cached(ident)  # in memory: no trip to a thread (0.6 ms a command)
        if held is None or held.access.role_of(cast(str, token)) is None:
            await run_in_threadpool(caller_of, refit, ident, token)  # the stored campaign
    return gate


def token_of(credentials: HTTPAuthorizationCredentials | None) -> str | None:
    """The bearer token given (None for none, and for a session cookie)."""
    if credentials is None or credentials.scheme == SESSION_SCHEME:
        return None
    return credentials.credentials


def caller_for(refit: Refit, campaign: str,
            credentials: HTTPAuthorizationCredentials | None) -> tuple[UUID, Caller]:
    """The caller's role in the campaign, by its bearer token or its session cookie."""
    ident = campaign_id(campaign)
    if credentials is not None and credentials.scheme == SESSION_SCHEME:
        return ident, session_caller(refit, ident, Sessions(refit.keys).read(
            credentials.credentials))
    return ident, caller_of(refit, ident, token_of(credentials))


def session_caller(refit: Refit, ident: UUID, session: Session | None) -> Caller:
    """The role a session cookie holds in this campaign, while its token is the role's."""
    if session is None or session.campaign != ident:
        raise Unauthorized("this session opens nothing in this campaign: log in again")
    sessions = Sessions(refit.keys)
    held = known_campaign(refit, ident, lambda access: sessions.holds(
        session, access.token_hashes.get(session.role))).access.token_hashes.get(session.role)
    if not sessions.holds(session, held):
        raise Unauthorized("this session opens nothing in this campaign: log in again")
    return Caller(session.role)
