"""A read of one campaign waits at most for that campaign's own events: it folds none of
another's, never answers 503 because the runner is behind on someone else, and shows the
reader's own command at once (issue 17, item 4)."""

from __future__ import annotations

from uuid import UUID

import pytest

from infra.application import Refit
from infra.settings import Settings, backend_of
from projections.campaign_catchup import FOLDED
from tests.helpers.processes import until
from tests.helpers.story import do


def credit(refit: Refit, campaign: UUID, amount: int) -> None:
    """A command of the campaign: Axis credited `amount` CPP."""
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": amount,
                         "reason": "x"})


def two_campaigns(refit: Refit) -> tuple[UUID, UUID]:
    """Campaigns A and B, both folded into the view."""
    first = refit.commands.create_campaign("pbr", "I", "A", "server").id
    second = refit.commands.create_campaign("pbr", "I", "B", "server").id
    refit.views.catch_up()
    return first, second


def view_version(refit: Refit, campaign: UUID) -> int:
    """The version the view's own rows of a campaign are folded to."""
    return int(refit.views.view.select_rows(str(campaign), "meta")[0]["version"])


def test_a_read_of_one_campaign_folds_none_of_anothers_events(refit: Refit) -> None:
    first, second = two_campaigns(refit)
    for amount in (1, 2, 4):
        credit(refit, second, amount)
    credit(refit, first, 5)
    tracked = refit.views.view.max_tracking_id("refit")
    second_folded = view_version(refit, second)
    FOLDED.clear()
    assert refit.reads.status(first).sides["Axis"]["cpp"] == 5
    assert refit.reads.roster(first)[0].sides["Axis"].cpp_credited == 5
    assert set(FOLDED) == {str(first)}  # B's three events: not folded by A's reads
    assert refit.views.view.max_tracking_id("refit") == tracked
    assert view_version(refit, second) == second_folded < refit.views.head(second)


def test_a_read_after_a_command_shows_it_at_once(refit: Refit) -> None:
    first, second = two_campaigns(refit)
    credited = 0
    for amount in (3, 4, 2, 8):
        credit(refit, second, amount)  # another campaign's events pile up unfolded
        credit(refit, first, amount)
        credited += amount
        assert refit.reads.status(first).sides["Axis"]["cpp"] == credited
        assert refit.reads.purchase_record(first) == refit.reads.purchase_record(
            first, as_of=refit.views.head(first))


def test_the_view_folds_each_event_once_after_reads_folded_them_in_memory(
        refit: Refit) -> None:
    first, second = two_campaigns(refit)
    for amount in (1, 2):
        credit(refit, first, amount)
        assert refit.reads.status(first).sides["Axis"]["cpp"] == sum(range(1, amount + 1))
    credit(refit, second, 7)
    refit.views.catch_up()
    assert view_version(refit, first) == refit.views.head(first)
    assert refit.reads.status(first).sides["Axis"]["cpp"] == 3  # not 1 + 1 + 2
    assert refit.reads.status(second).sides["Axis"]["cpp"] == 7


def test_a_campaign_the_view_has_not_met_yet_reads_from_its_events(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("kgp", "I", "New", "server").id
    do(refit, campaign, {"type": "record_casualty", "side": "US", "unit": "7-4-7", "cvp": 2})
    assert refit.views.view.select_rows(str(campaign), "meta") == []
    assert refit.reads.cvp(campaign).totals["US"] == 2


def test_an_undo_unfolded_in_the_view_reads_as_its_target(refit: Refit) -> None:
    first, _ = two_campaigns(refit)
    credit(refit, first, 5)
    refit.views.catch_up()
    target = refit.views.head(first)
    credit(refit, first, 7)
    refit.audit.undo(first, "credited twice", "director", to_version=target)
    assert refit.views.view.max_tracking_id("refit") is not None
    assert refit.reads.status(first).sides["Axis"]["cpp"] == 5
    assert refit.reads.roster(first) == refit.reads.roster(first, as_of=target)


def test_a_stopped_runner_leaves_reads_answering_from_each_campaigns_own_events(
        settings: Settings) -> None:
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("the projection runner is PostgreSQL's (LISTEN/NOTIFY)")
    refit = Refit(settings.model_copy(update={"projection_runner": True, "read_wait": 0.2}))
    try:
        first = refit.commands.create_campaign("pbr", "I", "A", "server").id
        second = refit.commands.create_campaign("pbr", "I", "B", "server").id
        assert refit.views.runner is not None
        head = refit.store.recorder.max_notification_id()
        assert until(lambda: refit.views.view.max_tracking_id("refit") == head)
        refit.views.runner.stop()  # nothing folds the views any more
        for amount in (1, 2, 4):
            credit(refit, second, amount)
        credit(refit, first, 5)
        FOLDED.clear()
        assert refit.reads.status(first).sides["Axis"]["cpp"] == 5  # no 503 view_behind
        assert set(FOLDED) == {str(first)}
        assert refit.reads.status(second).sides["Axis"]["cpp"] == 7
    finally:
        refit.close()


def test_a_read_at_the_head_reads_the_campaigns_meta_row_once(
        refit: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    first, _ = two_campaigns(refit)
    credit(refit, first, 3)
    refit.views.catch_up()
    view, asked = refit.views.view, []
    select_rows, at_head, head = view.select_rows, view.select_meta_at_head, refit.views.head

    def counted(campaign: str, kind: str) -> object:
        asked.append(kind)
        return select_rows(campaign, kind)

    def counted_at_head(campaign: str) -> object:
        asked.append("meta and head")
        return at_head(campaign)

    def counted_head(campaign_id: object) -> object:
        asked.append("head")
        return head(campaign_id)
    monkeypatch.setattr(view, "select_rows", counted)
    monkeypatch.setattr(view, "select_meta_at_head", counted_at_head)
    monkeypatch.setattr(refit.views, "head", counted_head)
    assert refit.reads.status(first).sides["Axis"]["cpp"] == 3
    # the one statement that says the view is at the head; the meta row not read again
    assert asked.count("meta and head") == 1
    assert "meta" not in asked and "head" not in asked


def test_the_view_reads_a_campaigns_head_and_meta_row_in_one_statement(refit: Refit) -> None:
    first, _ = two_campaigns(refit)
    credit(refit, first, 2)
    view, head = refit.views.view, refit.store.campaign(first).version

    assert view.select_meta_at_head(str(UUID(int=7))) == (None, [])  # no such campaign
    behind, meta = view.select_meta_at_head(str(first))  # the credit is not folded yet
    assert (behind, [row["version"] for row in meta]) == (head, [head - 1])
    new = refit.commands.create_campaign("pbr", "I", "C", "server").id
    assert view.select_meta_at_head(str(new)) == (1, [])  # in the log, not in the view
    refit.views.catch_up()
    found, meta = view.select_meta_at_head(str(first))
    assert found == head and [row["version"] for row in meta] == [head]
