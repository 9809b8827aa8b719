"""A runner holds the rows it folded from one catch-up to the next: a few events after a
NOTIFY read none of their campaign's rows from the view again, and when another writer
folds the log on meanwhile, what it held is let go, not folded on."""

from __future__ import annotations

from typing import Any

import pytest

from infra.application import Refit
from projections.held import Holding
from projections.runner import catch_up
from tests.service.test_campaign_reads import credit


def held_after_a_credit(refit: Refit, name: str) -> tuple[Any, Any, Holding]:
    """A campaign credited 3 CPP, folded by a catch-up with a holding: the campaign, the
    projection and the holding."""
    campaign = refit.commands.create_campaign("pbr", "I", name, "server").id
    credit(refit, campaign, 3)
    projection = refit.views.projection
    holding = Holding(projection.view, projection.reader)
    catch_up(refit.store, projection, holding=holding)
    return campaign, projection, holding


@pytest.fixture
def reads_of_rows(refit: Refit, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The rows the view is asked for one at a time, as (kind, key)."""
    asked: list[tuple[str, str]] = []
    view = refit.views.projection.view
    select_row = view.select_row

    def counted(campaign: str, kind: str, key: str) -> Any:
        asked.append((kind, key))
        return select_row(campaign, kind, key)
    monkeypatch.setattr(view, "select_row", counted)
    return asked


def test_a_held_campaign_is_folded_on_without_reading_its_rows_again(
        refit: Refit, reads_of_rows: list[tuple[str, str]]) -> None:
    campaign, projection, holding = held_after_a_credit(refit, "Held")
    credit(refit, campaign, 4)
    asked = len(reads_of_rows)
    assert catch_up(refit.store, projection, holding=holding) == 1
    assert len(reads_of_rows) == asked
    assert refit.reads.roster(campaign)[0].sides["Axis"].cpp_credited == 7


def test_without_a_holding_each_catch_up_reads_the_rows_it_folds_on(
        refit: Refit, reads_of_rows: list[tuple[str, str]]) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Not held", "server").id
    credit(refit, campaign, 3)
    catch_up(refit.store, refit.views.projection)
    credit(refit, campaign, 4)
    asked = len(reads_of_rows)
    catch_up(refit.store, refit.views.projection)
    assert len(reads_of_rows) > asked


@pytest.mark.parametrize("follow", [False, True], ids=["to the head", "following"])
def test_when_another_writer_folds_on_the_held_rows_are_let_go(refit: Refit,
                                                               follow: bool) -> None:
    campaign, projection, holding = held_after_a_credit(refit, "Overtaken")
    credit(refit, campaign, 4)
    catch_up(refit.store, projection)  # another writer (a read's catch-up) folds the 4
    credit(refit, campaign, 5)
    # Following, the runner folds from the tracking it wrote last: the view refuses that
    # batch (it has moved on), and the runner folds again from the view's tracking.
    assert catch_up(refit.store, projection, holding=holding, follow=follow) == 1
    # Folded on what it held (3), the roster would say 8; on the view's rows, 12.
    assert refit.reads.roster(campaign)[0].sides["Axis"].cpp_credited == 12


def test_a_catch_up_that_fails_lets_go_of_what_it_held(
        refit: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    campaign, projection, holding = held_after_a_credit(refit, "Failed")
    assert holding.held and holding.position is not None

    def failing(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the view's write failed")
    credit(refit, campaign, 4)
    monkeypatch.setattr(projection.view, "write", failing)
    with pytest.raises(RuntimeError):
        catch_up(refit.store, projection, holding=holding)
    assert not holding.held and holding.position is None


def test_a_following_catch_up_reads_neither_the_head_nor_its_tracking(
        refit: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    campaign, projection, holding = held_after_a_credit(refit, "Following")
    asked: list[str] = []
    for owner, name in ((refit.store.recorder, "max_notification_id"),
                        (projection.view, "max_tracking_id")):
        monkeypatch.setattr(owner, name, lambda *a, name=name: asked.append(name))
    credit(refit, campaign, 4)
    credit(refit, campaign, 5)
    assert catch_up(refit.store, projection, holding=holding, follow=True) == 2
    assert catch_up(refit.store, projection, holding=holding, follow=True) == 0
    assert asked == []
    assert refit.reads.roster(campaign)[0].sides["Axis"].cpp_credited == 12


def test_a_following_catch_up_folds_batch_after_batch_to_the_end_of_the_log(
        refit: Refit) -> None:
    campaign, projection, holding = held_after_a_credit(refit, "Batches")
    for amount in (1, 2, 3, 4, 5):
        credit(refit, campaign, amount)
    assert catch_up(refit.store, projection, batch=2, holding=holding, follow=True) == 5
    assert refit.reads.roster(campaign)[0].sides["Axis"].cpp_credited == 18
