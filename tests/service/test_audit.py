"""The roll audit, a director's re-roll and rulings (issue 6): settling a disputed roll."""

from __future__ import annotations

from uuid import UUID

import pytest

from domain.dice import dice_from_seed
from domain.errors import InvalidCommand, RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import abtf_campaign, do, to_reph_step


def at_9_616(refit: Refit, dice: str = "server") -> UUID:
    """An ABtF CG I at 18AM's 9.616, where each side makes its secret 9.6162 DR."""
    campaign = abtf_campaign(refit, "Dispute", dice)
    to_reph_step(refit, campaign, "9.616")
    return campaign


def roll(refit: Refit, campaign: UUID, side: str = "British") -> str:
    """Make a 9.6162 DR; its key."""
    done = do(refit, campaign, {"type": "roll", "table": "9.6162", "side": side})
    return str(next(e for e in done.events if e["type"] == "DiceRolled")["data"]["key"])


def test_the_audit_shows_who_asked_the_dice_each_drm_and_the_result(refit: Refit) -> None:
    campaign = at_9_616(refit)
    key = roll(refit, campaign)
    audit = refit.audit.roll_audit(campaign, key, None)
    (made,) = audit.rolls
    assert made.asked_by == "director" and made.rule == "9.6162" and made.side == "British"
    assert made.final == made.original + sum(item["value"] for item in made.drm)
    assert made.secret and made.revealed_at is None and made.standing
    assert made.seed_check is None  # the seed is not out yet


def test_once_the_seed_is_out_the_audit_recomputes_the_dice(refit: Refit) -> None:
    campaign = at_9_616(refit)
    key = roll(refit, campaign)
    do(refit, campaign, {"type": "end_cg", "reason": "concession", "side": "German"})
    made = refit.audit.roll_audit(campaign, key, None).rolls[0]
    assert made.seed_check is not None and made.seed_check.matches
    assert made.seed_check.dice == dice_from_seed(bytes.fromhex(made.seed_check.seed), key, 2)
    assert made.revealed_at is not None  # CG End opened it


def test_the_other_side_cannot_audit_a_secret_roll(refit: Refit) -> None:
    campaign = at_9_616(refit)
    key = roll(refit, campaign, "British")
    with pytest.raises(InvalidCommand, match="no roll with key"):
        refit.audit.roll_audit(campaign, key, "German")
    assert refit.audit.roll_audit(campaign, key, "British").rolls[0].dice


def test_a_director_re_roll_undoes_the_roll_and_its_slot_rolls_new_dice(
        refit: Refit) -> None:
    campaign = at_9_616(refit)
    key = roll(refit, campaign)
    done = refit.audit.reroll(campaign, key, "the dice cup was tipped", "director")
    assert [e["type"] for e in done.events] == ["Undone", "RerollAuthorized"]
    again = roll(refit, campaign)
    assert again == key[:-1] + "1"  # the same slot, epoch 1
    audit = refit.audit.roll_audit(campaign, key, None)
    assert audit.rerolls[0]["reason"] == "the dice cup was tipped"
    assert not audit.rolls[0].standing and audit.rolls[0].undone_by == done.version - 1
    rows = [r for r in refit.reads.rolls(campaign) if r.key == again]
    assert rows[0].reroll is not None and rows[0].reroll["reason"] == "the dice cup was tipped"
    assert refit.reads.verify(campaign).ok


def test_a_re_roll_cannot_be_fished_again_by_undoing_it(refit: Refit) -> None:
    campaign = at_9_616(refit)
    target = refit.store.campaign(campaign).version
    key = roll(refit, campaign)
    refit.audit.reroll(campaign, key, "tipped", "director")
    new_key = roll(refit, campaign)
    dice = refit.audit.roll_audit(campaign, new_key, None).rolls[0].dice
    refit.audit.undo(campaign, "again", "director", to_version=target)
    assert roll(refit, campaign) == key  # the authorization is undone too: epoch 0 again
    assert refit.audit.roll_audit(campaign, key, None).rolls[-1].dice == \
        refit.audit.roll_audit(campaign, key, None).rolls[0].dice
    refit.audit.reroll(campaign, key, "tipped, once more", "director")
    assert roll(refit, campaign) == new_key
    assert refit.audit.roll_audit(campaign, new_key, None).rolls[-1].dice == dice
    assert refit.reads.verify(campaign).ok


def test_a_ruling_stands_beside_the_roll_it_rules_on(refit: Refit) -> None:
    campaign = at_9_616(refit)
    key = roll(refit, campaign, "German")
    refit.audit.record_ruling(campaign, key, "corrected", "the +1 DRM was missed", "director",
                              final=9)
    (row,) = [r for r in refit.reads.rolls(campaign, viewer="German") if r.key == key]
    assert row.rulings[0]["verdict"] == "corrected" and row.rulings[0]["final"] == 9
    assert refit.audit.roll_audit(campaign, key, None).rulings[0]["reason"] == \
        "the +1 DRM was missed"


def british_roll_disputed_by_the_germans(refit: Refit) -> tuple[UUID, str, int]:
    """The British make their secret 9.6162 DR; the Germans dispute it, and the director
    rules a DRM was missed and takes the CPP it gave too many."""
    campaign = at_9_616(refit)
    key = roll(refit, campaign, "British")
    version = next(r.version for r in refit.reads.rolls(campaign) if r.key == key)
    refit.audit.record_ruling(
        campaign, key, "corrected", "a -1 DRM was left out of the British DR", "director",
        drm=[{"value": -1, "reason": "left out"}], disputed_by="German",
        corrections=[{"kind": "adjust", "side": "British", "pool": "cpp", "amount": -1,
                      "reason": "the DR was one too high", "rule": "9.6162"}])
    return campaign, key, version


def test_a_ruling_on_a_secret_roll_is_open_to_the_side_that_disputed_it(
        refit: Refit) -> None:
    campaign, key, version = british_roll_disputed_by_the_germans(refit)
    (row,) = [r for r in refit.reads.rolls(campaign, viewer="German") if r.version == version]
    assert row.hidden and row.key is None
    (ruling,) = row.rulings
    assert ruling["verdict"] == "corrected" and ruling["corrections"] == ["adjust"]
    assert ruling["reason"] == "a -1 DRM was left out of the British DR"
    assert ruling["disputed_by"] == "German" and "final" not in ruling and "drm" not in ruling
    audit = refit.audit.roll_audit(campaign, None, "German", version=version)
    assert audit.key is None and audit.rolls == [] and audit.sealed[0].side == "British"
    (seen,) = audit.rulings
    assert seen["reason"] == ruling["reason"] and seen["final"] is None
    assert seen["changed"] == [  # its sealed figures, then its sealed correction: no type
        {"kind": "sealed", "version": seen["version"] + n, "side": "British", "sealed": True}
        for n in (1, 2)]
    with pytest.raises(InvalidCommand, match="no roll with key"):
        refit.audit.roll_audit(campaign, key, "German")  # its key stays sealed


def test_a_ruling_s_figures_on_a_secret_roll_stay_with_its_side_and_the_director(
        refit: Refit) -> None:
    campaign, key, _ = british_roll_disputed_by_the_germans(refit)
    for viewer in ("British", None):
        audit = refit.audit.roll_audit(campaign, key, viewer)
        (ruling,) = audit.rulings
        made = audit.rolls[0]
        assert ruling["final"] == made.original - 1 and ruling["drm"][0]["by"] == "ruling"
        (changed,) = ruling["changed"]
        assert (changed["pool"], changed["amount"], changed["rule"]) == ("cpp", -1, "9.6162")
        assert changed["after"] == changed["before"] - 1
        row = next(r for r in refit.reads.rolls(campaign, viewer=viewer) if r.key == key)
        assert row.rulings[0]["final"] == made.original - 1
        by_version = refit.audit.roll_audit(campaign, None, viewer, version=row.version)
        assert by_version.key == key and by_version.rulings == audit.rulings


def test_every_read_path_keeps_a_ruling_s_figures_from_the_opponent(refit: Refit) -> None:
    campaign, _, _ = british_roll_disputed_by_the_germans(refit)
    for viewer in ("German", "observer"):
        assert refit.reads.status(campaign, viewer=viewer).sides["British"]["cpp"] is None
        *_, public, sealed, corrected = refit.reads.history(campaign, viewer)
        assert public["data"]["reason"] == "a -1 DRM was left out of the British DR"
        assert public["data"]["key"] is None and public["data"]["final"] is None
        assert sealed.get("redacted") and corrected.get("redacted")
        assert sealed["type"] == corrected["type"] == "Sealed"  # not RulingSealed, nor
        *_, exported, _ = refit.transfer.export(campaign, viewer)  # PointsCorrected
        assert exported["type"] == "Sealed" and exported["data"] == {"secret_for": "British"}
    british = refit.reads.status(campaign, viewer="British").sides["British"]["cpp"]
    assert british == refit.store.campaign(campaign).points.cpp["British"]
    assert refit.reads.verify(campaign, "German").ok and refit.reads.verify(campaign).ok


@pytest.mark.parametrize(("verdict", "final", "field"), [
    ("overruled", None, "verdict"), ("corrected", None, "final"), ("upheld", 8, "verdict")])
def test_a_ruling_that_says_nothing_is_refused(refit: Refit, verdict: str,
                                               final: int | None, field: str) -> None:
    campaign = at_9_616(refit)
    key = roll(refit, campaign)
    head = refit.store.campaign(campaign).version
    with pytest.raises(InvalidCommand) as refused:
        refit.audit.record_ruling(campaign, key, verdict, "why", "director", final=final)
    assert refused.value.field == field and refit.store.campaign(campaign).version == head


def test_no_ruling_on_a_roll_that_does_not_stand(refit: Refit) -> None:
    campaign = at_9_616(refit)
    target = refit.store.campaign(campaign).version
    key = roll(refit, campaign)
    refit.audit.undo(campaign, "not yet", "director", to_version=target)
    with pytest.raises(InvalidCommand, match="no standing roll"):
        refit.audit.record_ruling(campaign, key, "upheld", "fine", "director")


def test_a_re_roll_of_an_unknown_key_is_refused(refit: Refit) -> None:
    campaign = at_9_616(refit)
    with pytest.raises(InvalidCommand, match="no roll has key"):
        refit.audit.reroll(campaign, "18AM/9.616/9.6162/British/9/0", "x", "director")
    key = roll(refit, campaign)
    refit.audit.reroll(campaign, key, "x", "director")
    with pytest.raises(RuleViolation, match="not the latest roll"):
        refit.audit.reroll(campaign, key, "x", "director")


def test_a_roll_after_an_undo_of_an_undo_verifies(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Undo twice")
    to_reph_step(refit, campaign, "9.610")  # 9.6101: a dr per wounded leader
    target = refit.store.campaign(campaign).version
    wounded = {"type": "roll", "table": "9.6101", "side": "German", "subject": "unit:Hptm.A"}
    do(refit, campaign, wounded)
    undone = refit.audit.undo(campaign, "wrong leader", "director", to_version=target)
    refit.audit.undo(campaign, "it was right", "director", to_version=undone.version - 1)
    stands = refused(refit, campaign, wounded)  # the first roll stands again
    assert isinstance(stands, RuleViolation) and "has been rolled for unit:Hptm.A" in \
        stands.message
    again = do(refit, campaign, wounded | {"subject": "unit:Hptm.B"})
    assert again.events[0]["data"]["key"] == "17N/9.6101/German/unit:Hptm.B/0"
    assert refit.reads.verify(campaign).ok


def test_every_sides_export_verifies_after_a_re_roll_of_a_secret_roll(refit: Refit) -> None:
    from domain.verify import verify_export

    campaign = at_9_616(refit)
    key = roll(refit, campaign, "British")
    refit.audit.reroll(campaign, key, "tipped", "director")
    roll(refit, campaign, "British")
    for viewer in (None, "British", "German", "observer"):
        report = verify_export(refit.transfer.export(campaign, viewer))
        assert report.ok, (viewer, report.problem)
