"""Dice bound to their subject, every due roll required, and each side acting for itself:
a PBr CG I at its Initial Scenario's 3.618, told as the players would play it."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.dice import dice_from_seed
from domain.errors import InvalidCommand, RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import advance_to, do, due

AXIS, BRITISH = "Axis", "British"


@pytest.fixture
def at_3618(refit: Refit) -> UUID:
    """14AM: the Axis bought an I5 Alert Infantry Coy (line 1) and an I7 Italian Infantry
    Coy (line 2), the British an I2 Airborne Pltn (line 3); the RePh is at 3.618."""
    campaign = refit.commands.create_campaign("pbr", "I", "Subjects", "server").id
    for side, amount in ((AXIS, 39), (BRITISH, 17)):
        do(refit, campaign, {"type": "credit_cpp", "side": side, "amount": amount,
                             "reason": "Initial Scenario: 3.6161 Base #"})
    for side, rg in ((AXIS, "I5"), (AXIS, "I7"), (BRITISH, "I2")):
        do(refit, campaign, {"type": "purchase_rg", "side": side, "rg": rg})
    advance_to(refit, campaign, "3.618", rolls=False)
    return campaign


def roll(refit: Refit, campaign: UUID, side: str, table: str, subject: str,
         actor: str = "director") -> dict[str, Any]:
    """A roll for a subject; its DiceRolled data."""
    data: dict[str, Any] = do(refit, campaign, {"type": "roll", "table": table, "side": side,
                                                "subject": subject}, actor).events[0]["data"]
    return data


def seed_dice(refit: Refit, campaign: UUID, key: str) -> list[int]:
    """The dice a key reads from the campaign's (still private) seed."""
    seed = refit.store.campaign(campaign).dice.seed
    assert seed is not None
    return dice_from_seed(bytes.fromhex(seed), key, 2)


def test_after_an_undo_another_rg_asked_for_first_gets_its_own_dice_not_the_first_rgs(
        refit: Refit, at_3618: UUID) -> None:
    before = refit.store.campaign(at_3618).version
    first = roll(refit, at_3618, AXIS, "3.6181", "rg:1")
    assert first["key"] == "14AM/3.6181/Axis/rg:1/0"
    refit.audit.undo(at_3618, "the Axis saw its I5's DR", "director", to_version=before)
    other = roll(refit, at_3618, AXIS, "3.6181", "rg:2")  # asked for first this time
    assert other["key"] == "14AM/3.6181/Axis/rg:2/0"
    # By the order of asking it would have had line 1's key, so line 1's dice: by its
    # subject it has the dice its own key reads, whenever it is asked for.
    assert other["dice"] == seed_dice(refit, at_3618, "14AM/3.6181/Axis/rg:2/0")
    again = roll(refit, at_3618, AXIS, "3.6181", "rg:1")
    assert (again["key"], again["dice"]) == (first["key"], first["dice"])
    assert refit.reads.verify(at_3618).ok


def test_a_redo_in_another_order_gives_every_subject_the_dice_it_had(
        refit: Refit, at_3618: UUID) -> None:
    before = refit.store.campaign(at_3618).version
    shown = {s: roll(refit, at_3618, AXIS, "3.6181", s)["dice"] for s in ("rg:1", "rg:2")}
    refit.audit.undo(at_3618, "both redone", "director", to_version=before)
    redone = {s: roll(refit, at_3618, AXIS, "3.6181", s)["dice"] for s in ("rg:2", "rg:1")}
    assert redone == shown


@pytest.mark.parametrize("body, kind, words", [
    ({"side": BRITISH, "table": "3.6181", "subject": "rg:1"}, RuleViolation,
     "RG line 1 is not the British's"),
    ({"side": AXIS, "table": "3.6181", "subject": "rg:9"}, InvalidCommand, "no line 9"),
    ({"side": AXIS, "table": "3.6181", "subject": "step"}, InvalidCommand,
     "rolled per RG line (subject `rg:N`)"),
    ({"side": AXIS, "table": "3.6183-personnel", "subject": "rg:1/leader:4"}, RuleViolation,
     "makes 3 Leader Table roll(s) (a coy three): no leader:4"),
    ({"side": BRITISH, "table": "3.6183-personnel", "subject": "rg:3/leader:2"},
     RuleViolation, "makes 1 Leader Table roll(s)"),
    ({"side": AXIS, "table": "3.6182", "subject": "rg:1/sw:1"}, RuleViolation,
     "roll its strength first"),
    ({"side": AXIS, "table": "3.6181", "subject": "unit:a b"}, InvalidCommand,
     "a unit's label is 1 to 24"),
    ({"side": AXIS, "table": "3.6181", "subject": "rg:1/leader:1/round:2"}, InvalidCommand,
     "only a 3.6182 SW dr has a re-roll round"),
])
def test_a_roll_for_a_subject_not_due_or_optional_now_is_refused(
        refit: Refit, at_3618: UUID, body: dict[str, Any], kind: type[Exception],
        words: str) -> None:
    error = refused(refit, at_3618, {"type": "roll"} | body)
    assert isinstance(error, kind) and words in str(error)
    if isinstance(error, RuleViolation):
        assert error.rule in ("3.6181", "3.6182", "3.6183")
    else:
        assert getattr(error, "field", None) == "subject"


def test_a_strength_found_and_a_line_of_another_cg_date_are_not_rolled_again(
        refit: Refit, at_3618: UUID) -> None:
    roll(refit, at_3618, AXIS, "3.6181", "rg:1")
    again = refused(refit, at_3618, {"type": "roll", "table": "3.6181", "side": AXIS,
                                     "subject": "rg:1"})
    assert isinstance(again, RuleViolation) and "already has its strength" in again.message
    advance_to(refit, at_3618, None)
    do(refit, at_3618, {"type": "end_scenario"})
    advance_to(refit, at_3618, "3.618")  # 14PM
    late = refused(refit, at_3618, {"type": "roll", "table": "3.6183-personnel",
                                    "side": AXIS, "subject": "rg:2/leader:3"})
    assert isinstance(late, RuleViolation) and "came on 14AM" in late.message


def test_the_guide_lists_each_due_roll_by_subject_and_advance_names_them(
        refit: Refit, at_3618: UUID) -> None:
    assert due(refit, at_3618, AXIS) == [("3.6181", AXIS, "rg:1"), ("3.6181", AXIS, "rg:2")]
    assert due(refit, at_3618, BRITISH) == [("3.6181", BRITISH, "rg:3")]
    error = refused(refit, at_3618, {"type": "advance"})
    assert isinstance(error, RuleViolation) and error.rule == "3.618"
    assert "the Axis 3.6181 (RG Strength Table) for rg:1" in error.message
    assert "the British 3.6181 (RG Strength Table) for rg:3" in error.message
    own = refused(refit, at_3618, {"type": "advance", "side": BRITISH})
    assert isinstance(own, RuleViolation) and "for rg:3" in own.message
    assert "Axis" not in own.message  # a side's refusal names its own rolls only


def test_every_leader_roll_and_sw_dr_is_due_once_the_strength_is_known(
        refit: Refit, at_3618: UUID) -> None:
    for subject in ("rg:1", "rg:2"):
        do(refit, at_3618, {"type": "determine_rg", "side": AXIS,
                            "purchase": int(subject[3:]), "strength": "D"})
    assert due(refit, at_3618, AXIS) == [
        ("3.6182", AXIS, "rg:1/sw:1"), ("3.6182", AXIS, "rg:2/sw:1"),
        *[("3.6183-personnel", AXIS, f"rg:{n}/leader:{k}") for n in (1, 2) for k in (1, 2, 3)]]
    rolled = roll(refit, at_3618, AXIS, "3.6183-personnel", "rg:2/leader:3")  # any order
    assert rolled["key"] == "14AM/3.6183-personnel/Axis/rg:2/leader:3/0"
    assert ("3.6183-personnel", AXIS, "rg:2/leader:3") not in due(refit, at_3618, AXIS)


def test_each_side_marks_its_part_done_and_the_step_is_left_when_both_have(
        refit: Refit, at_3618: UUID) -> None:
    do(refit, at_3618, {"type": "determine_rg", "side": BRITISH, "purchase": 3,
                        "strength": "F"})  # e.g. a paradrop: no DR (British chart note c)
    roll(refit, at_3618, BRITISH, "3.6182", "rg:3/sw:1", actor=BRITISH)  # a Full I2 rolls
    for k in (2, 3):
        roll(refit, at_3618, BRITISH, "3.6182", f"rg:3/sw:{k}", actor=BRITISH)
    roll(refit, at_3618, BRITISH, "3.6183-personnel", "rg:3/leader:1", actor=BRITISH)
    done = do(refit, at_3618, {"type": "advance", "side": BRITISH}, actor=BRITISH)
    assert [e["type"] for e in done.events] == ["StepDoneBySide"]
    state = refit.store.campaign(at_3618)
    assert state.reph.step == "3.618" and state.reph.done == [BRITISH]
    assert refit.reads.guide(at_3618, viewer=BRITISH)["sides"][BRITISH]["done"] is True
    twice = refused(refit, at_3618, {"type": "advance", "side": BRITISH})
    assert isinstance(twice, RuleViolation)
    assert f"the {BRITISH} side has marked its part" in twice.message
    acting = refit.commands  # a side that marked its part done sends nothing more in it
    with pytest.raises(RuleViolation) as late:
        acting.execute(at_3618, _roll_body(BRITISH), BRITISH)
    assert "has marked its part of step 3.618 done" in late.value.message
    for subject in ("rg:1", "rg:2"):
        do(refit, at_3618, {"type": "determine_rg", "side": AXIS,
                            "purchase": int(subject[3:]), "strength": "F"})
    for n in (1, 2):
        for k in (1, 2, 3):
            roll(refit, at_3618, AXIS, "3.6183-personnel", f"rg:{n}/leader:{k}", actor=AXIS)
    left = do(refit, at_3618, {"type": "advance", "side": AXIS}, actor=AXIS)
    assert [e["type"] for e in left.events][:2] == ["StepDoneBySide", "StepAdvanced"]
    state = refit.store.campaign(at_3618)
    assert state.reph.step == "3.619" and state.reph.done == []


def _roll_body(side: str) -> Any:
    from domain import commands as cmd
    return cmd.Roll(table="3.6183-personnel", side=side, subject="rg:3/leader:1")


def test_the_directors_advance_completes_the_step_for_all_once_nothing_is_due(
        refit: Refit, at_3618: UUID) -> None:
    for number, side in ((1, AXIS), (2, AXIS), (3, BRITISH)):
        do(refit, at_3618, {"type": "determine_rg", "side": side, "purchase": number,
                            "strength": "F"})
    assert due(refit, at_3618)  # the leader rolls, the British I2's SW dr
    error = refused(refit, at_3618, {"type": "advance"})
    assert isinstance(error, RuleViolation) and "rg:3/sw:1" in error.message
    for table, side, subject in due(refit, at_3618):
        roll(refit, at_3618, side, table, subject)
    do(refit, at_3618, {"type": "advance"})
    assert refit.store.campaign(at_3618).reph.step == "3.619"


def test_the_dual_attack_setup_and_first_move_dr_are_due_for_the_british(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Dual", "server").id
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})
    advance_to(refit, campaign, "3.621")  # 14PM
    for side in (AXIS, BRITISH):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "attack"})
    assert due(refit, campaign) == [("3.6213", BRITISH, "step")]
    error = refused(refit, campaign, {"type": "advance"})
    assert isinstance(error, RuleViolation) and "the British 3.6213" in error.message
    roll(refit, campaign, BRITISH, "3.6213", "step")
    again = refused(refit, campaign, {"type": "roll", "table": "3.6213", "side": BRITISH})
    assert isinstance(again, RuleViolation) and "once per CG Date" in again.message
    advance_to(refit, campaign, "3.623", rolls=False)
    assert due(refit, campaign) == [("3.623", BRITISH, "step")]
