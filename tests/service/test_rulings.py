"""Corrective rulings (issue 14): a director's ruling corrects the record from that point
on, as events that cite it, instead of undoing everything after the mistake."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.errors import RefitError, RuleViolation
from infra.application import Refit
from tests.helpers.story import abtf_campaign, advance, do, to_reph_step


def rule(refit: Refit, campaign: UUID, *corrections: dict[str, Any],
         key: str | None = None, reason: str = "a figure found wrong late") -> list[str]:
    """A director's corrective ruling; the types of the events it appended."""
    done = refit.audit.record_ruling(campaign, key, "corrected", reason, "director",
                                     corrections=list(corrections))
    return [e["type"] for e in done.events]


def roll(refit: Refit, campaign: UUID, table: str, side: str,
         subject: str = "step") -> dict[str, Any]:
    """A roll's record."""
    done = do(refit, campaign, {"type": "roll", "table": table, "side": side,
                                "subject": subject})
    return dict(next(e for e in done.events if e["type"] == "DiceRolled")["data"])


def test_a_late_cpp_correction_fixes_the_roster_from_that_point_without_an_undo(
        refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Late CPP")
    to_reph_step(refit, campaign, "9.617")
    wrong = refit.reads.status(campaign).sides["German"]["cpp"]
    before = refit.store.campaign(campaign).version
    appended = rule(refit, campaign, {"kind": "adjust", "side": "German", "pool": "cpp",
                                      "amount": 3, "reason": "the 9.6162 Base # misread",
                                      "rule": "9.6162"})
    assert appended == ["RulingRecorded", "PointsCorrected"]  # no Undone
    assert refit.reads.status(campaign).sides["German"]["cpp"] == wrong + 3
    assert refit.reads.roster(campaign)[-1].sides["German"].cpp_left == wrong + 3
    assert refit.reads.status(campaign, before).sides["German"]["cpp"] == wrong  # history
    assert refit.reads.status(campaign, viewer="British").sides["German"]["cpp"] is None
    assert refit.reads.verify(campaign).ok


def test_an_elr_correction_is_a_change_with_the_ruling_as_its_cause(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Late ELR")
    to_reph_step(refit, campaign, "9.617")
    elr = refit.reads.status(campaign).sides["British"]["elr"]
    rule(refit, campaign, {"kind": "adjust", "side": "British", "pool": "elr", "amount": -1,
                           "reason": "the CG17 ELR loss was missed", "rule": "CG17"})
    last = refit.reads.elr(campaign, viewer="German").changes[-1]
    assert (last.before, last.after, last.rule) == (elr, elr - 1, "CG17")
    assert "ruling v" in last.cause and "CG17 ELR loss" in last.cause


def cpp(refit: Refit, campaign: UUID, side: str) -> int:
    """A side's CPP now."""
    return int(refit.reads.status(campaign).sides[side]["cpp"] or 0)


def test_a_voided_roll_is_re_rolled_after_its_step_with_a_new_epoch(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Void")
    to_reph_step(refit, campaign, "9.616")
    unrolled = cpp(refit, campaign, "British")
    voided = roll(refit, campaign, "9.6162", "British")
    roll(refit, campaign, "9.6162", "German")
    advance(refit, campaign)  # on to 9.617: the 9.6162 step is over
    assert cpp(refit, campaign, "British") > unrolled  # the DR credited CPP
    appended = rule(refit, campaign, {"kind": "void_roll", "reason": "rolled with the "
                                      "wrong side's dice cup"}, key=voided["key"])
    assert appended == ["RulingRecorded", "RulingSealed", "RollVoided"]
    assert cpp(refit, campaign, "British") == unrolled  # what it credited is taken back
    assert refit.reads.roster(campaign)[-1].sides["British"].cpp_left == unrolled
    again = roll(refit, campaign, "9.6162", "British")
    assert again["key"] == voided["key"][:-1] + "1" and again["step"] == "9.616"
    from domain.dice import dice_from_seed  # the new dice are the new key's, not the old
    seed = bytes.fromhex(str(refit.store.campaign(campaign).dice.seed))
    assert again["dice"] == dice_from_seed(seed, again["key"], 2)
    rows = {r.key: r for r in refit.reads.rolls(campaign)}
    assert rows[voided["key"]].voided is not None and rows[again["key"]].voided is None
    with pytest.raises(RuleViolation):  # one re-roll: the authorization is spent
        roll(refit, campaign, "9.6162", "British")
    head = refit.store.campaign(campaign).version
    with pytest.raises(RuleViolation, match="not the latest roll"):  # voided once
        rule(refit, campaign, {"kind": "void_roll", "reason": "again"}, key=voided["key"])
    assert refit.store.campaign(campaign).version == head
    assert refit.reads.verify(campaign).ok
    assert refit.reads.verify(campaign, "German").ok


def test_an_amended_purchase_line_shows_on_the_rg_purchase_record(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Amend")
    to_reph_step(refit, campaign, "9.617")
    do(refit, campaign, {"type": "purchase_rg", "side": "German", "rg": "I1", "kg": "K"})
    line = refit.reads.purchase_record(campaign)[-1]
    cpp = refit.reads.status(campaign).sides["German"]["cpp"]
    assert (line.rg, line.cpp) == ("I1", 5)
    rule(refit, campaign, {"kind": "amend_purchase", "side": "German",
                           "purchase": line.purchase, "rg": "I2", "cost": 7,
                           "strength": "D", "reason": "an I2 was bought, not an I1"})
    amended = refit.reads.purchase_record(campaign)[-1]
    assert (amended.rg, amended.cpp, amended.strength) == ("I2", 7, "D")
    assert amended.amended[0]["changes"]["rg"] == ["I1", "I2"]
    assert refit.reads.status(campaign).sides["German"]["cpp"] == cpp - 2  # the difference
    assert refit.store.campaign(campaign).purchases.rg_total["German"]["I2"] == 1
    assert refit.reads.purchase_record(campaign, viewer="British")[-1].hidden
    assert refit.reads.verify(campaign).ok


def test_a_missed_roll_is_added_after_its_step(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Missed")
    to_reph_step(refit, campaign, "9.612")  # 9.610's wounded leader dr is behind us
    wounded = {"type": "roll", "table": "9.6101", "side": "German", "subject": "unit:8-1"}
    with pytest.raises(RuleViolation):
        do(refit, campaign, wounded)
    appended = rule(refit, campaign, {"kind": "missed_roll", "table": "9.6101",
                                      "side": "German", "subject": "unit:8-1",
                                      "reason": "the 8-1 was wounded in the scenario"})
    assert appended == ["RulingRecorded", "RollAuthorized"]
    made = roll(refit, campaign, "9.6101", "German", "unit:8-1")
    assert made["table"] == "9.6101" and made["subject"] == "unit:8-1"
    with pytest.raises(RuleViolation):  # authorized once
        do(refit, campaign, wounded)
    assert refit.reads.verify(campaign).ok


ADJUST = {"kind": "adjust", "side": "German", "pool": "elr", "amount": 1, "reason": "x"}


@pytest.mark.parametrize(("correction", "field"), [
    ({"kind": "recount", "reason": "x"}, "corrections[0].kind"),
    ({"reason": "x"}, "corrections[0].kind"),
    (ADJUST | {"amount": 5}, "corrections[0].amount"),  # ELR 0-5
    (ADJUST | {"pool": "san", "amount": -9}, "corrections[0].amount"),  # SAN 0-7
    (ADJUST | {"pool": "cpp", "amount": -999}, "corrections[0].amount"),  # no CPP below 0
    (ADJUST | {"amount": 0}, "corrections[0].amount"),
    (ADJUST | {"pool": "morale"}, "corrections[0].pool"),
    (ADJUST | {"side": "Soviet"}, "corrections[0].side"),
    ({"kind": "amend_purchase", "side": "German", "purchase": 99, "strength": "D",
      "reason": "x"}, "corrections[0].purchase"),
    ({"kind": "missed_roll", "table": "9.6162", "side": "German", "reason": "x"},
     "corrections[0].table"),  # its step, 9.616, is not over
    ({"kind": "missed_roll", "table": "9.9999", "side": "German", "reason": "x"},
     "corrections[0].table"),
    ({"kind": "void_roll", "reason": "x"}, "key"),  # a void names the roll it voids
])
def test_each_invalid_correction_is_refused_naming_its_field_and_appends_nothing(
        refit: Refit, correction: dict[str, Any], field: str) -> None:
    campaign = abtf_campaign(refit, "Refused")
    to_reph_step(refit, campaign, "9.616")
    head = refit.store.campaign(campaign).version
    with pytest.raises(RefitError) as refused:
        rule(refit, campaign, correction)
    assert refused.value.field == field, refused.value.message
    assert refit.store.campaign(campaign).version == head


def test_a_bad_second_correction_refuses_the_first_too(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "All or nothing")
    to_reph_step(refit, campaign, "9.617")
    head = refit.store.campaign(campaign).version
    with pytest.raises(RefitError) as refused:
        rule(refit, campaign, ADJUST | {"amount": -1}, ADJUST | {"amount": 9})
    assert refused.value.field == "corrections[1].amount"
    assert refit.store.campaign(campaign).version == head


def test_an_upheld_roll_carries_no_corrections(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Upheld")
    to_reph_step(refit, campaign, "9.616")
    key = roll(refit, campaign, "9.6162", "German")["key"]
    with pytest.raises(RefitError) as refused:
        refit.audit.record_ruling(campaign, key, "upheld", "fine", "director",
                                  corrections=[ADJUST])
    assert refused.value.field == "verdict"


def test_a_voided_rg_strength_dr_takes_back_the_strength_and_is_rolled_again(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Void strength", "server").id
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 39,
                         "reason": "Initial Scenario: 3.6161 Base #"})
    do(refit, campaign, {"type": "purchase_rg", "side": "Axis", "rg": "I5"})
    while refit.store.campaign(campaign).reph.step != "3.618":
        do(refit, campaign, {"type": "advance"})
    strength = {"type": "roll", "table": "3.6181", "side": "Axis", "subject": "rg:1"}
    first = do(refit, campaign, strength).events[0]["data"]
    assert refit.reads.purchase_record(campaign)[0].strength is not None
    rule(refit, campaign, {"kind": "void_roll", "reason": "rolled for the wrong RG"},
         key=first["key"])
    assert refit.reads.purchase_record(campaign)[0].strength is None
    assert refit.store.campaign(campaign).purchases.lines[0]["strength"] is None
    again = do(refit, campaign, strength).events[0]["data"]
    assert again["key"] == first["key"][:-1] + "1"
    assert refit.reads.purchase_record(campaign)[0].strength is not None
    assert refit.reads.verify(campaign).ok and refit.reads.verify(campaign, "British").ok
