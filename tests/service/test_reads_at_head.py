"""A page's reads of one campaign share one read of its rows and state (infra/
queries_at_head.py): they answer what the reads answer one by one, in fewer trips."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from api.access import DIRECTOR, Caller
from api.web.view import home
from infra.application import Refit
from infra.queries_at_head import AtHead
from tests.helpers.story import do


def credited(refit: Refit, name: str, times: int) -> UUID:
    """A PBr campaign with `times` CPP credits to the Axis."""
    campaign = refit.commands.create_campaign("pbr", "I", name, "server").id
    for number in range(1, times + 1):
        do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 1,
                             "reason": f"credit {number}"})
    return campaign


def trips(refit: Refit, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often the campaign's rows and state are read from the store while counting."""
    counted = {"rows": 0, "campaign": 0}
    rows, campaign = refit.views.rows, refit.store.campaign

    def counting_rows(*args: Any, **kwargs: Any) -> Any:
        counted["rows"] += 1
        return rows(*args, **kwargs)

    def counting_campaign(*args: Any, **kwargs: Any) -> Any:
        counted["campaign"] += 1
        return campaign(*args, **kwargs)
    monkeypatch.setattr(refit.views, "rows", counting_rows)
    monkeypatch.setattr(refit.store, "campaign", counting_campaign)
    return counted


def page_reads(reads: Any, campaign: UUID, viewer: str | None) -> list[Any]:
    """What a side's home page reads, in the order it reads them."""
    return [reads.status(campaign, None, viewer), reads.guide(campaign, None, viewer),
            reads.guide(campaign, None, "observer"),
            reads.purchase_record(campaign, None, viewer),
            reads.recent_rolls(campaign, viewer, 8), reads.report_log(campaign)]


def test_a_pages_reads_answer_as_the_reads_one_by_one_with_one_read_of_each(
        refit: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    campaign = credited(refit, "Page", 4)
    alone = page_reads(refit.reads, campaign, "Axis")
    counted = trips(refit, monkeypatch)

    shared = page_reads(AtHead(refit.reads, campaign), campaign, "Axis")

    assert shared == alone
    assert counted == {"rows": 1, "campaign": 1}


def test_another_campaign_and_a_read_as_of_a_version_are_read_as_they_stand(
        refit: Refit) -> None:
    campaign, other = credited(refit, "Page", 4), credited(refit, "Other", 2)
    reads = AtHead(refit.reads, campaign)
    reads.status(campaign, None, None)

    assert reads.status(other, None, None) == refit.reads.status(other, None, None)
    assert reads.status(other, None, None).sides["Axis"]["cpp"] == 2
    assert reads.status(campaign, 3, None).sides["Axis"]["cpp"] == 2  # Created, 2 credits
    assert reads.status(campaign, None, None).sides["Axis"]["cpp"] == 4


def test_a_write_between_the_pages_reads_leaves_them_all_at_the_rows_version(
        refit: Refit) -> None:
    campaign = credited(refit, "Page", 4)
    reads = AtHead(refit.reads, campaign)
    before = reads.purchase_record(campaign, None, "Axis")  # the rows, read now
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 1,
                         "reason": "late"})

    status = reads.status(campaign, None, "Axis")

    assert before == refit.reads.purchase_record(campaign, None, "Axis")
    assert status.sides["Axis"]["cpp"] == 4  # the rows' version, and the state's with it
    assert status.head_hash == refit.reads.status(campaign, status.version, "Axis").head_hash
    assert status.head_hash != refit.reads.status(campaign, None, "Axis").head_hash
    # and the page's other reads of the state (its guide) stand at that version too
    assert reads._campaign(campaign).version == status.version
    assert refit.store.campaign(campaign).version == status.version + 1


def test_each_read_gets_a_copy_of_the_state_it_shares(refit: Refit) -> None:
    campaign = credited(refit, "Page", 2)
    reads = AtHead(refit.reads, campaign)
    first = reads._campaign(campaign)

    first.points.cpp["Axis"] = 999  # one read's slip reaches no other read

    assert reads._campaign(campaign).points.cpp["Axis"] == 2
    assert reads.status(campaign, None, None).sides["Axis"]["cpp"] == 2


def test_the_directors_home_page_reads_the_campaign_once_and_names_the_last_undo(
        refit: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    campaign = credited(refit, "Undone", 3)
    refit.audit.undo(campaign, "credited twice", "director", to_version=3)
    counted = trips(refit, monkeypatch)

    page = home(refit, campaign, Caller(DIRECTOR), None)

    assert page["undo"]["last_undo"]["reason"] == "credited twice"
    assert page["status"].sides["Axis"]["cpp"] == 2
    assert counted == {"rows": 1, "campaign": 1}  # the last undo read with the page's reads
