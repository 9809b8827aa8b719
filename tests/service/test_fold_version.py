"""A view folded by another version of the fold (or before versions were kept) is emptied
when the service starts, and folded again from the events: its rows are never answered
with what an older fold made of them. The webhooks' position in the shared tracking
table is kept."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.persistence import Tracking

from infra.application import Refit
from infra.settings import Settings, backend_of
from infra.webhook_tables import FOLLOWER
from projections.fold import FOLD_VERSION
from projections.rows import SAN
from projections.view_sql import FOLD_TABLE, TABLE
from tests.helpers.story import do


def run_sql(refit: Refit, statement: str, params: tuple[Any, ...] = ()) -> None:
    """A statement on the view's tables, as an older Refit (or an operator) left them."""
    view: Any = refit.views.view
    if backend_of(refit.settings.database_url) == "postgres":
        schema = view.datastore.schema
        statement = statement.replace("{", f'"{schema}".').replace("}", "").replace("?", "%s")
    else:
        statement = statement.replace("{", "").replace("}", "")
    with view.datastore.transaction(commit=True) as cursor:
        cursor.execute(statement, params)


def a_campaign_folded_by_an_older_fold(settings: Settings, version: int | None) -> UUID:
    """A campaign whose SAN changes the view holds; then its SAN rows gone, as an older
    fold that kept none would have left them, and the fold's version `version` (None:
    none kept); the webhooks' position at 7."""
    refit = Refit(settings)
    try:
        campaign = refit.commands.create_campaign("pbr", "I", "Older", "server").id
        do(refit, campaign, {"type": "change_san", "side": "Axis", "value": 3, "cause": "OB"})
        assert len(refit.reads.san(campaign)) == 1
        refit.views.catch_up()  # the view's own rows and tracking at the log's head
        refit.views.view.insert_tracking(Tracking(FOLLOWER, 7))
        run_sql(refit, f"DELETE FROM {{{TABLE}}} WHERE kind=?", (SAN,))
        run_sql(refit, f"DELETE FROM {{{FOLD_TABLE}}}")
        if version is not None:
            run_sql(refit, f"INSERT INTO {{{FOLD_TABLE}}} VALUES (?)", (version,))
        return campaign
    finally:
        refit.close()


def test_a_view_an_older_fold_made_is_folded_again_when_the_service_starts(
        settings: Settings) -> None:
    campaign = a_campaign_folded_by_an_older_fold(settings, FOLD_VERSION - 1)
    refit = Refit(settings)
    try:
        assert [row.after for row in refit.reads.san(campaign)] == [3]
        assert refit.reads.verify(campaign).ok
        assert refit.views.view.max_tracking_id(FOLLOWER) == 7
    finally:
        refit.close()


def test_a_view_from_before_fold_versions_is_folded_again_too(settings: Settings) -> None:
    campaign = a_campaign_folded_by_an_older_fold(settings, None)
    refit = Refit(settings)
    try:
        assert [row.after for row in refit.reads.san(campaign)] == [3]
    finally:
        refit.close()


def test_a_view_this_fold_made_is_kept_as_it_stands(settings: Settings) -> None:
    campaign = a_campaign_folded_by_an_older_fold(settings, FOLD_VERSION)
    refit = Refit(settings)
    try:  # the rows deleted behind its back stay gone: nothing refolds a current view
        assert refit.reads.san(campaign) == []
    finally:
        refit.close()
