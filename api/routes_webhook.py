"""HTTP routes of a campaign's outgoing webhook (issue 18, item 7): its director sets,
reads (masked) and removes it (infra/webhooks.py)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.access import Credentials, caller_for, campaign_gate
from api.guard import gated
from domain.commands import Strict
from infra.application import Refit

WHO = ("Who: the director only (a side or an observer: 403). The URL carries the chat's "
       "token: it is kept sealed, out of the event log, and only ever shown masked.")

SET = ("Director: set or replace the campaign's outgoing webhook. Each public event after "
       "now (what the observer reads: never a sealed one) is posted to it as `{content, "
       "text, username}` JSON (Discord and Slack read it), with a link to its receipt; "
       "posts are retried with backoff, in the background, never holding up a command. "
       "422 `url`: not https, a private or local address, too long. Records no event. ")
GET = ("Director: the campaign's webhook, masked, with its delivery: the last version "
       "delivered, the last error, the posts pending. ")
DELETE = ("Director: remove the campaign's webhook and its pending posts (none set: the "
          "same answer). ")


class WebhookBody(Strict):
    """The chat's webhook URL (Discord or Slack): https, to a public address."""

    url: str = Field(max_length=2000, examples=["https://discord.com/api/webhooks/ID/TOKEN"])


class WebhookStatus(BaseModel):
    """The webhook, masked, and how its posts go."""

    set: bool
    url: str | None = Field(default=None, description="masked: scheme, host, the path's "
                            "first part")
    since: int | None = Field(default=None, description="only events after this version "
                              "are posted")
    delivered: int | None = Field(default=None, description="the last version delivered")
    error: str | None = Field(default=None, description="the last try's failure, until a "
                              "post is delivered")
    pending: int = Field(default=0, description="posts waiting (retrying, or behind one)")


def webhook_routes(app: APIRouter, refit: Refit) -> None:
    """PUT, GET and DELETE /campaigns/{id}/webhook."""
    gate = campaign_gate(refit)

    def director(campaign: str, credentials: Any, doing: str) -> UUID:
        """The campaign, if the caller is its director (401 and 403 as for any route)."""
        ident, caller = caller_for(refit, campaign, credentials)
        caller.require_director(f"{doing} the campaign's webhook")
        return ident

    @app.put("/campaigns/{campaign}/webhook", response_model=WebhookStatus,
             summary="Set the webhook", description=SET + WHO)
    @gated(gate)
    def set_webhook(campaign: str, body: WebhookBody,
                    credentials: Credentials) -> dict[str, Any]:
        ident = director(campaign, credentials, "setting")
        return refit.webhooks.set(ident, body.url).as_dict()

    @app.get("/campaigns/{campaign}/webhook", response_model=WebhookStatus,
             summary="The webhook", description=GET + WHO)
    def get_webhook(campaign: str, credentials: Credentials) -> dict[str, Any]:
        return refit.webhooks.status(director(campaign, credentials, "reading")).as_dict()

    @app.delete("/campaigns/{campaign}/webhook", response_model=WebhookStatus,
                summary="Remove the webhook", description=DELETE + WHO)
    def remove_webhook(campaign: str, credentials: Credentials) -> dict[str, Any]:
        return refit.webhooks.remove(director(campaign, credentials, "removing")).as_dict()
