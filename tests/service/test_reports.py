"""Each side acts for itself (3.6): a side reports its own casualties and the Locations it
Controls, the other side confirms or disputes, and only a confirmed report changes the
record (CVP, control); the director records directly and settles a dispute."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.errors import Forbidden, InvalidCommand, RefitError, RuleViolation
from infra.application import Refit
from tests.helpers.paths import FIXTURE_KGP
from tests.helpers.story import advance_to, do, load_fixture_chart, to_reph_step

AXIS, BRITISH = "Axis", "British"
LOST = {"type": "record_casualty", "side": AXIS, "unit": "4-6-8", "cvp": 2}


def refused_as(refit: Refit, campaign: UUID, body: dict[str, Any], actor: str) -> RefitError:
    """A command a role sends that is refused, appending nothing."""
    before = refit.store.campaign(campaign).version
    with pytest.raises(RefitError) as error:
        do(refit, campaign, body, actor)
    assert refit.store.campaign(campaign).version == before
    return error.value


def in_play(refit: Refit) -> UUID:
    """PBr CG I: the Axis bought an I5 (line 1); the 14AM Initial Scenario is in play."""
    campaign = refit.commands.create_campaign("pbr", "I", "Ranville", "entered").id
    do(refit, campaign, {"type": "credit_cpp", "side": AXIS, "amount": 39, "reason": "3.6161"})
    do(refit, campaign, {"type": "purchase_rg", "side": AXIS, "rg": "I5"}, AXIS)
    advance_to(refit, campaign, None)
    return campaign


def cvp(refit: Refit, campaign: UUID) -> dict[str, int]:
    return refit.reads.cvp(campaign).totals


def test_a_side_reports_its_own_loss_and_the_cvp_count_once_the_other_side_confirms(
        refit: Refit) -> None:
    campaign = in_play(refit)
    reported, line = do(refit, campaign, LOST, AXIS).events
    assert reported["type"] == "CasualtyReported" and reported["data"]["report"] == 1
    # of no RG line, and sealed all the same: as a line's casualty is (3.6172)
    assert line["type"] == "CasualtyLineReported" and line["data"]["secret_for"] == AXIS
    assert line["data"]["purchase"] is None
    assert cvp(refit, campaign) == {AXIS: 0, BRITISH: 0}  # not counted yet

    british = refit.reads.guide(campaign, viewer=BRITISH)
    (item,) = british["sides"][BRITISH]["due"]
    assert (item["report"], item["what"], item["awaiting"]) == (
        1, "the Axis lost 4-6-8 (2 CVP)", [BRITISH])
    assert refit.reads.guide(campaign, viewer=AXIS)["sides"][AXIS]["due"] == []
    assert refit.reads.status(campaign, viewer=AXIS).reports[0]["awaiting"] == [BRITISH]

    confirmed = do(refit, campaign, {"type": "confirm_report", "report": 1, "side": BRITISH},
                   BRITISH).events
    assert [e["type"] for e in confirmed] == ["ReportConfirmed", "CasualtyRecorded",
                                              "RGCasualty"]
    assert cvp(refit, campaign) == {AXIS: 2, BRITISH: 0}
    assert refit.reads.guide(campaign)["reports"] == []
    again = refused_as(refit, campaign, {"type": "confirm_report", "report": 1,
                                         "side": BRITISH}, BRITISH)
    assert isinstance(again, InvalidCommand) and again.field == "report"


def test_a_disputed_report_leaves_the_record_and_waits_for_the_director(
        refit: Refit) -> None:
    campaign = in_play(refit)
    do(refit, campaign, LOST | {"cvp": 4, "unit": "PzIVH"}, AXIS)
    do(refit, campaign, {"type": "dispute_report", "report": 1, "side": BRITISH,
                         "reason": "the PzIVH was Recalled, not Eliminated"}, BRITISH)
    assert cvp(refit, campaign) == {AXIS: 0, BRITISH: 0}
    (shown,) = refit.reads.guide(campaign)["reports"]
    assert (shown["status"], shown["awaiting"], shown["commands"]) == (
        "disputed", ["director"], ["confirm_report", "withdraw_report"])
    assert shown["reason"] == "the PzIVH was Recalled, not Eliminated"
    assert refit.reads.guide(campaign, viewer=BRITISH)["sides"][BRITISH]["due"] == []

    ending = refused_as(refit, campaign, {"type": "end_scenario"}, "director")
    assert isinstance(ending, RuleViolation) and "report 1" in ending.message
    twice = refused_as(refit, campaign, {"type": "dispute_report", "report": 1,
                                         "side": BRITISH, "reason": "still"}, BRITISH)
    assert isinstance(twice, RuleViolation) and "director settles" in twice.message

    do(refit, campaign, {"type": "withdraw_report", "report": 1,
                         "reason": "9.6141c: Recalled AFV that exited give no CVP"})
    assert cvp(refit, campaign) == {AXIS: 0, BRITISH: 0}
    assert refit.reads.guide(campaign)["reports"] == []
    do(refit, campaign, {"type": "end_scenario"})


def test_the_director_settles_a_dispute_by_confirming_the_report(refit: Refit) -> None:
    campaign = in_play(refit)
    do(refit, campaign, LOST, AXIS)
    do(refit, campaign, {"type": "dispute_report", "report": 1, "side": BRITISH,
                         "reason": "it was a 4-4-7"}, BRITISH)
    settled = do(refit, campaign, {"type": "confirm_report", "report": 1}).events
    assert settled[0]["data"]["side"] is None  # the director's answer
    assert cvp(refit, campaign) == {AXIS: 2, BRITISH: 0}


def test_a_side_answers_neither_its_own_report_nor_for_the_other_side(refit: Refit) -> None:
    campaign = in_play(refit)
    for_the_other = refused_as(refit, campaign, LOST, BRITISH)  # claiming the Axis lost it
    assert isinstance(for_the_other, Forbidden) and for_the_other.field == "side"
    do(refit, campaign, LOST, AXIS)
    for body in ({"type": "confirm_report", "report": 1, "side": AXIS},
                 {"type": "dispute_report", "report": 1, "side": AXIS, "reason": "x"}):
        own = refused_as(refit, campaign, body, AXIS)
        assert isinstance(own, Forbidden) and "the other side" in own.message
    posing = refused_as(refit, campaign, {"type": "confirm_report", "report": 1,
                                          "side": BRITISH}, AXIS)
    assert isinstance(posing, Forbidden)
    not_its = refused_as(refit, campaign, {"type": "withdraw_report", "report": 1,
                                           "side": BRITISH, "reason": "x"}, BRITISH)
    assert isinstance(not_its, Forbidden) and "dispute_report" in not_its.message
    do(refit, campaign, {"type": "withdraw_report", "report": 1, "side": AXIS,
                         "reason": "counted twice"}, AXIS)
    assert refit.reads.guide(campaign)["reports"] == []


def test_the_directors_record_counts_at_once(refit: Refit) -> None:
    campaign = in_play(refit)
    events = do(refit, campaign, LOST).events
    assert [e["type"] for e in events] == ["CasualtyRecorded", "RGCasualty"]
    assert cvp(refit, campaign) == {AXIS: 2, BRITISH: 0}
    assert refit.reads.guide(campaign)["reports"] == []


def test_a_casualty_of_an_rg_line_keeps_the_line_to_its_side(refit: Refit) -> None:
    campaign = in_play(refit)
    do(refit, campaign, LOST | {"purchase": 1}, AXIS)
    events = refit.reads.events(campaign, viewer=BRITISH)
    line = events[-1]  # reported with its RG line: a sealed fact of no type to the British
    assert line["type"] == "Sealed" and line["data"] == {"secret_for": AXIS}
    assert "purchase" not in str(refit.reads.guide(campaign, viewer=BRITISH))
    do(refit, campaign, {"type": "confirm_report", "report": 1, "side": BRITISH}, BRITISH)
    casualty = refit.reads.events(campaign, viewer=BRITISH)[-1]
    assert casualty["type"] == "Sealed" and casualty["data"] == {"secret_for": AXIS}
    (row,) = [r for r in refit.reads.purchase_record(campaign, viewer=AXIS) if r.purchase == 1]
    assert "4-6-8" in str(row.casualties)


def test_the_opponent_cannot_tell_a_casualty_of_an_rg_line_from_one_of_the_ob(
        refit: Refit) -> None:
    campaign = in_play(refit)
    seen = []
    for lost in (LOST | {"purchase": 1}, LOST | {"unit": "8-3-8"}):
        before = len(refit.reads.events(campaign, viewer=BRITISH))
        do(refit, campaign, lost, AXIS)
        report = refit.store.campaign(campaign).reports.made
        do(refit, campaign, {"type": "confirm_report", "report": report, "side": BRITISH},
           BRITISH)
        seen.append([e["type"] for e in refit.reads.events(campaign, viewer=BRITISH)[before:]])
    assert seen[0] == seen[1] == ["CasualtyReported", "Sealed", "ReportConfirmed",
                                  "CasualtyRecorded", "Sealed"]
    (row,) = [r for r in refit.reads.purchase_record(campaign, viewer=AXIS) if r.purchase == 1]
    assert "8-3-8" not in str(row.casualties) and "4-6-8" in str(row.casualties)


def test_a_step_is_not_left_while_a_report_awaits_its_answer(refit: Refit) -> None:
    campaign = in_play(refit)
    to_reph_step(refit, campaign, "3.605")
    body = {"type": "change_control", "location": "Bénouville Bridge", "side": BRITISH,
            "kind": "Strategic Location", "rule": "3.605"}
    do(refit, campaign, body, BRITISH)
    assert refit.reads.control(campaign) == []  # not on the record yet
    axis_done = refused_as(refit, campaign, {"type": "advance", "side": AXIS}, AXIS)
    assert isinstance(axis_done, RuleViolation) and "awaits the Axis" in axis_done.message
    do(refit, campaign, {"type": "advance", "side": BRITISH}, BRITISH)
    leave = refused_as(refit, campaign, {"type": "advance"}, "director")
    assert isinstance(leave, RuleViolation) and leave.rule == "3.605"
    do(refit, campaign, {"type": "confirm_report", "report": 1, "side": AXIS}, AXIS)
    (held,) = refit.reads.control(campaign)
    assert (held["location"], held["side"]) == ("Bénouville Bridge", BRITISH)
    do(refit, campaign, {"type": "advance", "side": AXIS}, AXIS)  # both done: 3.605 left
    assert refit.store.campaign(campaign).reph.step != "3.605"


def test_a_side_that_has_done_its_part_still_answers_the_others_report(
        refit: Refit) -> None:
    campaign = in_play(refit)
    to_reph_step(refit, campaign, "3.605")
    do(refit, campaign, {"type": "advance", "side": AXIS}, AXIS)
    do(refit, campaign, {"type": "change_control", "location": "Q16", "side": BRITISH,
                         "kind": "Strategic Location"}, BRITISH)
    more = refused_as(refit, campaign, {"type": "change_control", "location": "Q17",
                                        "side": AXIS}, AXIS)
    assert isinstance(more, RuleViolation) and "sends nothing more" in more.message
    do(refit, campaign, {"type": "confirm_report", "report": 1, "side": AXIS}, AXIS)
    do(refit, campaign, {"type": "advance", "side": BRITISH}, BRITISH)
    assert refit.store.campaign(campaign).reph.step != "3.605"


def test_a_side_reports_only_a_location_it_controls_itself(refit: Refit) -> None:
    campaign = in_play(refit)
    nobody = refused_as(refit, campaign, {"type": "change_control", "location": "Q16",
                                          "side": None}, AXIS)
    assert isinstance(nobody, Forbidden)
    given = refused_as(refit, campaign, {"type": "change_control", "location": "Q16",
                                         "side": BRITISH}, AXIS)
    assert isinstance(given, Forbidden)


def test_kgp_8_2_infantry_control_reveals_an_objective_hex_once_confirmed(
        refit: Refit) -> None:
    load_fixture_chart(refit, FIXTURE_KGP)
    campaign = refit.commands.create_campaign("kgp", "I", "Peiper", "entered").id
    do(refit, campaign, {"type": "receive_rg", "side": "German", "rg": "I1",
                         "group_type": "I", "reason": "Initial Scenario OB"})
    do(refit, campaign, {"type": "designate_objective", "side": "German", "purchase": 1,
                         "hex": "StQ10"}, "German")
    do(refit, campaign, {"type": "change_control", "location": "StQ10", "side": "German",
                         "kind": "Strategic Location", "infantry": True, "lvp": 2,
                         "map_group": "St"}, "German")
    assert refit.reads.objectives(campaign, viewer="US") == []  # not yet revealed
    # what the US confirms, whole: the LVP, the Map Group and Infantry Control (8.2)
    assert [r["what"] for r in refit.reads.status(campaign, viewer="US").reports] == [
        "the German Controls StQ10 (Strategic Location; 2 LVP, Map Group St; by Infantry)"]
    do(refit, campaign, {"type": "confirm_report", "report": 1, "side": "US"}, "US")
    (revealed,) = refit.reads.objectives(campaign, viewer="US")
    assert (revealed.hex, revealed.revealed) == ("StQ10", True)
    do(refit, campaign, {"type": "end_scenario"})
    assert refit.reads.lvp(campaign)[0].current == {"German": 2, "US": 0}


def test_an_undone_confirmation_opens_the_report_again(refit: Refit) -> None:
    campaign = in_play(refit)
    reported = do(refit, campaign, LOST, AXIS).version
    do(refit, campaign, {"type": "confirm_report", "report": 1, "side": BRITISH}, BRITISH)
    refit.audit.undo(campaign, "confirmed the wrong report", "director", to_version=reported)
    assert cvp(refit, campaign) == {AXIS: 0, BRITISH: 0}
    (again,) = refit.reads.guide(campaign, viewer=BRITISH)["sides"][BRITISH]["due"]
    assert (again["report"], again["status"]) == (1, "pending")
