"""`refit webhook ID [URL] [--remove]`: a campaign's chat webhook, as its director sets it
over HTTP (PUT /campaigns/{id}/webhook): set or replace it, remove it, or (neither) read
it masked with how its posts go. The running service posts; this only stores."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from api.cli.core import Db, Id, Json, campaign_key, emit, print_fields, query

app = typer.Typer()


@app.command("webhook")
def webhook(
        campaign: Id,
        url: Annotated[str | None, typer.Argument(
            help="The chat's webhook URL (https); none: show the one set.")] = None,
        remove: Annotated[bool, typer.Option("--remove", help="Remove the webhook.")] = False,
        db: Db = None, as_json: Json = False) -> None:
    """Set, replace, remove or show a campaign's chat webhook (its URL shown masked)."""
    if url is not None and remove:
        raise typer.BadParameter("give a URL or --remove, not both")

    def act(refit: Any) -> dict[str, Any]:
        ident = campaign_key(campaign)
        refit.store.campaign(ident)  # no such campaign: said as for any command
        if remove:
            return dict(refit.webhooks.remove(ident).as_dict())
        if url is not None:
            return dict(refit.webhooks.set(ident, url).as_dict())
        return dict(refit.webhooks.status(ident).as_dict())
    body = query(db, as_json, act)
    emit(as_json, body, lambda: print_fields(body))
