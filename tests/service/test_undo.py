"""Undo by replay (issue 6): a director turns a mistaken RePh step back; the undone events
stay in the log, and a redo rolls the same keys, so the same dice."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.errors import InvalidCommand, RefitError, RuleViolation
from infra.application import Refit
from tests.helpers.story import abtf_campaign, advance, advance_to, do, to_reph_step


def forms(refit: Refit, campaign: UUID, as_of: int | None = None) -> dict[str, Any]:
    """Every projection a director reads, as data (the version fields aside)."""
    status = refit.reads.status(campaign, as_of).model_dump(exclude={"version", "head_hash"})
    return {"status": status,
            "roster": [r.model_dump() for r in refit.reads.roster(campaign, as_of)],
            "purchases": [r.model_dump() for r in refit.reads.purchase_record(campaign, as_of)],
            "cvp": refit.reads.cvp(campaign, as_of).model_dump(),
            "elr": refit.reads.elr(campaign, as_of).model_dump(),
            "san": [r.model_dump() for r in refit.reads.san(campaign, as_of)],
            "rolls": [r.model_dump() for r in refit.reads.rolls(campaign, as_of)],
            "control": refit.reads.control(campaign, as_of)}


def at_9_617(refit: Refit, name: str = "Undo", dice: str = "server") -> UUID:
    """An ABtF CG I at 18AM's 9.617, with the 9.616 rolls made."""
    campaign = abtf_campaign(refit, name, dice)
    to_reph_step(refit, campaign, "9.617")
    return campaign


def mistakes(refit: Refit, campaign: UUID) -> None:
    """A purchase, a casualty, an ELR change and a control change, all to be undone."""
    do(refit, campaign, {"type": "purchase_rg", "side": "German", "rg": "I1", "kg": "K"})
    do(refit, campaign, {"type": "record_casualty", "side": "British", "unit": "4-5-7",
                         "cvp": 2})
    do(refit, campaign, {"type": "change_elr", "side": "German", "value": 2,
                         "cause": "misread"})
    do(refit, campaign, {"type": "change_control", "location": "A1", "side": "German"})


def test_undo_turns_every_projection_back_to_the_as_of_answer(refit: Refit) -> None:
    campaign = at_9_617(refit)
    target = refit.store.campaign(campaign).version
    mistakes(refit, campaign)
    head = refit.store.campaign(campaign).version
    done = refit.audit.undo(campaign, "the purchase was meant for 18PM", "director",
                      to_version=target)
    assert done.version == head + 1
    assert [e["type"] for e in done.events] == ["Undone"]
    assert done.events[0]["data"]["to_version"] == target
    assert forms(refit, campaign) == forms(refit, campaign, as_of=target)
    assert refit.store.campaign(campaign).points.cpp == \
        refit.store.campaign(campaign, version=target).points.cpp
    assert len(list(refit.store.records(campaign))) == head + 1  # the undone stay in the log
    assert refit.reads.verify(campaign).ok


def test_a_redo_rolls_the_same_key_and_gets_the_same_dice(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Redo")
    to_reph_step(refit, campaign, "9.616")
    target = refit.store.campaign(campaign).version
    first = do(refit, campaign, {"type": "roll", "table": "9.6162", "side": "British"})
    refit.audit.undo(campaign, "rolled before the casualties were in", "director",
               to_version=target)
    again = do(refit, campaign, {"type": "roll", "table": "9.6162", "side": "British"})
    rolled = [e["data"] for e in (*first.events, *again.events) if e["type"] == "DiceRolled"]
    assert rolled[0]["key"] == rolled[1]["key"]
    assert rolled[0]["dice"] == rolled[1]["dice"]
    assert refit.reads.verify(campaign).ok


def test_entered_dice_cannot_be_changed_by_undoing_the_roll(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Physical dice", dice="entered")
    to_reph_step(refit, campaign, "9.616")
    target = refit.store.campaign(campaign).version
    do(refit, campaign, {"type": "roll", "table": "9.6162", "side": "German", "dice": [1, 2]})
    refit.audit.undo(campaign, "wrong table", "director", to_version=target)
    head = refit.store.campaign(campaign).version
    with pytest.raises(RuleViolation, match=r"showed \[1, 2\] before it was undone"):
        do(refit, campaign, {"type": "roll", "table": "9.6162", "side": "German",
                             "dice": [6, 6]})
    assert refit.store.campaign(campaign).version == head  # appended nothing
    redone = do(refit, campaign, {"type": "roll", "table": "9.6162", "side": "German",
                                  "dice": [1, 2]})
    assert redone.events[0]["data"]["dice"] == [1, 2]
    assert refit.reads.verify(campaign).ok


def test_undoing_an_undo_brings_the_undone_events_back(refit: Refit) -> None:
    campaign = at_9_617(refit)
    target = refit.store.campaign(campaign).version
    mistakes(refit, campaign)
    before_undo = refit.store.campaign(campaign).version
    wanted = forms(refit, campaign)
    refit.audit.undo(campaign, "wrong campaign", "director", to_version=target)
    refit.audit.undo(campaign, "it was the right one after all", "director",
               to_version=before_undo)
    assert forms(refit, campaign) == wanted
    assert refit.reads.cvp(campaign).totals == refit.reads.cvp(campaign, before_undo).totals
    assert refit.reads.verify(campaign).ok


def test_an_undo_across_a_cg_date_goes_back_to_the_earlier_date(refit: Refit) -> None:
    campaign = at_9_617(refit)
    do(refit, campaign, {"type": "purchase_rg", "side": "German", "rg": "I1", "kg": "K"})
    target = refit.store.campaign(campaign).version
    assert refit.store.campaign(campaign).reph.cg_date == "18AM"
    advance_to(refit, campaign, "9.621")  # on through 9.618-9.620
    for side in ("British", "German"):
        do(refit, campaign, {"type": "select_initiative", "side": side, "chit": "attack"},
           actor=side)
    advance_to(refit, campaign, None)  # the 18AM scenario
    to_reph_step(refit, campaign, "9.612")  # its RePh, on to 18PM's New CG Date
    assert refit.store.campaign(campaign).reph.cg_date == "18PM"
    refit.audit.undo(campaign, "18AM's RePh was not finished", "director", to_version=target)
    state = refit.store.campaign(campaign)
    assert (state.reph.cg_date, state.reph.step) == ("18AM", "9.617")
    assert [row.cg_date for row in refit.reads.roster(campaign)] == \
        [row.cg_date for row in refit.reads.roster(campaign, as_of=target)]
    assert refit.reads.verify(campaign).ok


def test_an_undo_to_a_step_reads_it_as_as_of_does_after_that_step(refit: Refit) -> None:
    campaign = at_9_617(refit)
    after_9_616 = refit.views.version_at(campaign, "18AM/9.616")
    mistakes(refit, campaign)
    done = refit.audit.undo(campaign, "redo 9.617", "director", to_step="18AM/9.616")
    assert done.events[0]["data"]["to_version"] == after_9_616
    assert forms(refit, campaign) == forms(refit, campaign, as_of="18AM/9.616")
    assert refit.store.campaign(campaign).reph.step == "9.617"  # 9.616 stays complete


def test_an_undo_to_the_version_the_campaign_is_at_has_nothing_to_undo(refit: Refit) -> None:
    campaign = at_9_617(refit)
    head = refit.store.campaign(campaign).version
    with pytest.raises(InvalidCommand, match=f"at version {head}: there is nothing to undo"):
        refit.audit.undo(campaign, "x", "director", to_version=head)
    with pytest.raises(InvalidCommand, match="nothing to undo") as refused:
        refit.audit.undo(campaign, "x", "director", to_step="18AM/9.616")
    assert refused.value.field == "to_step"
    assert refit.store.campaign(campaign).version == head


def test_a_dry_run_lists_what_an_undo_would_remove_and_appends_nothing(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Dry run")
    to_reph_step(refit, campaign, "9.616")
    target = refit.store.campaign(campaign).version
    rolled = do(refit, campaign, {"type": "roll", "table": "9.6162", "side": "British"})
    mistakes_after = do(refit, campaign, {"type": "change_control", "location": "A1",
                                          "side": "German"})
    head = refit.store.campaign(campaign).version
    plan = refit.audit.undo_plan(campaign, "rolled too soon", to_version=target)
    assert (plan.to_version, plan.head, plan.events) == (target, head, head - target)
    assert plan.versions == list(range(target + 1, head + 1))
    assert plan.event_types["DiceRolled"] == 1 and plan.event_types["ControlChanged"] == 1
    (roll,) = plan.rolls
    assert roll["key"] == rolled.events[0]["data"]["key"] and roll["rule"] == "9.6162"
    assert "subject" in roll and mistakes_after.version == head
    assert refit.store.campaign(campaign).version == head  # nothing appended
    german = refit.audit.undo_plan(campaign, "x", to_version=target, viewer="German")
    assert german.rolls == []  # the secret DR is one sealed fact of no type to the Germans
    assert set(german.event_types) == {"Sealed", "ControlChanged"}
    assert sum(german.event_types.values()) == plan.events
    with pytest.raises(InvalidCommand) as refused:
        refit.audit.undo_plan(campaign, "x", to_version=head)
    assert refused.value.field == "to_version"


def test_as_of_a_step_answers_as_the_campaign_stood_after_it(refit: Refit) -> None:
    campaign = at_9_617(refit)
    left = next(r for r in refit.store.records(campaign)
                if r["type"] == "StepAdvanced" and r["data"]["previous"] == "9.616")["version"]
    assert refit.views.version_at(campaign, "18AM/9.616") == left
    with pytest.raises(InvalidCommand, match="not over yet"):
        refit.views.version_at(campaign, "18AM/9.617")
    with pytest.raises(InvalidCommand, match=r"has not done step 9\.699 of 18AM"):
        refit.views.version_at(campaign, "18AM/9.699")
    with pytest.raises(InvalidCommand, match=r"has not reached CG Date 19AM \(its CG Dates "
                                             r"so far: 17N, 18AM\)"):
        refit.views.version_at(campaign, "19AM/9.616")


@pytest.mark.parametrize(("to_version", "reason", "field"), [
    (0, "x", "to_version"), (10_000, "x", "to_version"), (3, "  ", "reason")])
def test_a_bad_undo_names_its_field_and_appends_nothing(
        refit: Refit, to_version: int, reason: str, field: str) -> None:
    campaign = at_9_617(refit)
    head = refit.store.campaign(campaign).version
    with pytest.raises(RefitError) as refused:
        refit.audit.undo(campaign, reason, "director", to_version=to_version)
    assert refused.value.field == field
    assert refit.store.campaign(campaign).version == head


def test_nothing_is_undone_after_cg_end(refit: Refit) -> None:
    campaign = at_9_617(refit)
    do(refit, campaign, {"type": "end_cg", "reason": "concession", "side": "German"})
    with pytest.raises(RuleViolation, match="CG has ended"):
        refit.audit.undo(campaign, "regret", "director", to_version=2)


def test_an_undo_never_brings_back_a_replaced_token(refit: Refit) -> None:
    campaign_id = at_9_617(refit)
    target = refit.store.campaign(campaign_id).version
    old_hash = refit.store.campaign(campaign_id).access.token_hashes["German"]
    refit.commands.replace_token(campaign_id, "German", "director")
    refit.audit.undo(campaign_id, "back to 9.617", "director", to_version=target)
    assert refit.store.campaign(campaign_id).access.token_hashes["German"] != old_hash


def test_the_materialized_view_equals_a_fresh_fold_after_undo_and_redo(
        refit: Refit) -> None:
    campaign = at_9_617(refit)
    target = refit.store.campaign(campaign).version
    mistakes(refit, campaign)
    refit.audit.undo(campaign, "again", "director", to_version=target)
    do(refit, campaign, {"type": "purchase_rg", "side": "German", "rg": "I1", "kg": "K"})
    head = refit.store.campaign(campaign).version
    assert forms(refit, campaign) == forms(refit, campaign, as_of=head)


def test_a_diff_lists_what_a_step_changed_in_each_form(refit: Refit) -> None:
    campaign = at_9_617(refit)
    start = refit.store.campaign(campaign).version
    mistakes(refit, campaign)
    changes = refit.audit.diff(campaign, start, None, None)
    found = {(c.form, c.line, c.field, c.change) for c in changes}
    assert ("purchase_record", "#1", None, "added") not in found  # 9.6152 gave #1 and #2
    assert any(c.form == "purchase_record" and c.change == "added" and
               c.after["rg"] == "I1" for c in changes)
    assert ("roster", "18AM", "sides.German.elr", "changed") in found
    assert ("elr", "current", "German", "changed") in found
    assert refit.audit.diff(campaign, start, start, None) == []
    british = refit.audit.diff(campaign, start, None, "British")
    assert all(c.after.get("hidden") for c in british
               if c.form == "purchase_record" and c.change == "added")


def test_as_of_reads_from_checkpoints_answer_as_a_fold_from_the_start(
        refit: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    from projections import runner

    monkeypatch.setattr(runner, "CHECKPOINT_EVERY", 7)
    campaign = at_9_617(refit)
    target = refit.store.campaign(campaign).version
    mistakes(refit, campaign)
    refit.audit.undo(campaign, "again", "director", to_version=target)
    mistakes(refit, campaign)
    head = refit.store.campaign(campaign).version
    for version in (head, target + 3, head - 1, 8, target):  # later reads find checkpoints
        fresh = runner.fold_records(refit.store.records(campaign, lte=version))
        read = refit.views.rows(campaign, version)
        assert isinstance(read, runner.MemoryRows) and read.rows == fresh.rows, version
    assert refit.views.view.select_checkpoint(str(campaign), head) is not None


def test_a_to_step_of_odd_digits_is_a_clear_refusal(refit: Refit) -> None:
    campaign = at_9_617(refit)
    for odd in ("²", "1²/9.617"):
        with pytest.raises(InvalidCommand):
            refit.audit.undo(campaign, "x", "director", to_step=odd)


def test_no_re_roll_after_cg_end(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Ended")
    to_reph_step(refit, campaign, "9.616")
    target = refit.store.campaign(campaign).version
    key = do(refit, campaign, {"type": "roll", "table": "9.6162", "side": "British"}
             ).events[0]["data"]["key"]
    refit.audit.undo(campaign, "not yet", "director", to_version=target)
    do(refit, campaign, {"type": "end_cg", "reason": "concession", "side": "German"})
    with pytest.raises(RuleViolation, match="CG has ended"):
        refit.audit.reroll(campaign, key, "too late", "director")


def test_steps_are_found_even_in_a_view_folded_before_it_kept_them(refit: Refit) -> None:
    campaign = at_9_617(refit)
    left = refit.views.version_at(campaign, "18AM/9.616")
    datastore = refit.views.view.datastore  # type: ignore[attr-defined]
    table = f"{datastore.schema}.refit_projection_rows" if getattr(
        datastore, "schema", None) else "refit_projection_rows"
    with datastore.transaction(commit=True) as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE kind = 'step'")
    assert refit.views.version_at(campaign, "18AM/9.616") == left
    mistakes(refit, campaign)
    refit.audit.undo(campaign, "again", "director", to_step="18AM/9.616")
    assert refit.store.campaign(campaign).reph.step == "9.617"


def test_the_view_keeps_checkpoints_that_answer_as_a_fold_from_the_start(
        refit: Refit, monkeypatch: pytest.MonkeyPatch) -> None:
    from projections import runner

    monkeypatch.setattr(runner, "CHECKPOINT_EVERY", 3)
    campaign = at_9_617(refit)
    refit.views.catch_up()
    target = refit.store.campaign(campaign).version
    for n in range(6):
        do(refit, campaign, {"type": "record_casualty", "side": "British", "unit": "4-5-7",
                             "cvp": 2})
        do(refit, campaign, {"type": "change_control", "location": f"B{n}", "side": "German"})
        refit.views.catch_up()  # the view folds as a service's reads would, a few events at a time
    refit.audit.undo(campaign, "back past the checkpoints", "director", to_version=target)
    mistakes(refit, campaign)
    refit.views.catch_up()
    kept, at = [], refit.store.campaign(campaign).version
    while (found := refit.views.view.select_checkpoint(str(campaign), at)) is not None:
        kept.append(found[0])
        fresh = runner.fold_records(refit.store.records(campaign, lte=found[0]))
        assert runner.MemoryRows.load(found[1]).rows == fresh.rows, found[0]
        at = found[0] - 1
    assert len(kept) >= 4 and max(kept) > target + 9
    head = refit.store.campaign(campaign).version
    for version in (head, head - 1, target + 2):  # each folds over the undo from a checkpoint
        fresh = runner.fold_records(refit.store.records(campaign, lte=version))
        read = refit.views.rows(campaign, version)
        assert isinstance(read, runner.MemoryRows) and read.rows == fresh.rows, version


def test_an_undo_to_a_step_turns_back_the_whole_advance_that_entered_it(refit: Refit) -> None:
    campaign = at_9_617(refit, "Halved once")
    unspent = refit.reads.status(campaign).sides["German"]["cpp"]
    do(refit, campaign, {"type": "advance"})  # leaving 9.617 halves unspent CPP FRU
    halved = refit.reads.status(campaign).sides["German"]["cpp"]
    assert halved == (unspent + 1) // 2
    refit.audit.undo(campaign, "9.617 not done", "director", to_step="18AM/9.616")
    assert refit.store.campaign(campaign).reph.step == "9.617"
    assert refit.reads.status(campaign).sides["German"]["cpp"] == unspent
    do(refit, campaign, {"type": "advance"})
    assert refit.reads.status(campaign).sides["German"]["cpp"] == halved  # halved once, not twice


def test_an_undo_to_a_version_inside_one_command_is_refused_naming_its_versions(
        refit: Refit) -> None:
    campaign = at_9_617(refit, "Half a command")
    before = refit.store.campaign(campaign).version
    do(refit, campaign, {"type": "advance"})
    head = refit.store.campaign(campaign).version
    assert head - before >= 2  # the halving of each side's CPP, then the step
    with pytest.raises(InvalidCommand) as refused:
        refit.audit.undo(campaign, "x", "director", to_version=before + 1)
    assert refused.value.field == "to_version"
    assert f"versions {before + 1}-{head}" in refused.value.message
    assert f"undo to version {before} or {head}" in refused.value.message
    assert refit.store.campaign(campaign).version == head
    refit.audit.undo(campaign, "x", "director", to_version=before)
    assert refit.store.campaign(campaign).reph.step == "9.617"


def test_the_events_of_one_command_share_its_instant_and_the_next_command_has_its_own(
        refit: Refit) -> None:
    campaign = at_9_617(refit, "Instants")
    before = refit.store.campaign(campaign).version
    do(refit, campaign, {"type": "advance"})
    do(refit, campaign, {"type": "change_elr", "side": "German", "value": 2, "cause": "x"})
    stamps = [r["timestamp"] for r in refit.store.records(campaign, gt=before)]
    assert len(set(stamps[:-1])) == 1 and stamps[-1] != stamps[0]


def test_a_command_of_hundreds_of_events_is_found_whole(refit: Refit) -> None:
    from domain import commands as cmd
    campaign = at_9_617(refit, "Long command")
    before = refit.store.campaign(campaign).version
    state = refit.store.campaign(campaign)
    for _ in range(600):  # one save, one instant: as a bulk load records them
        state.change_points(cmd.CreditCPP(side="German", amount=1, reason="x"), "director")
    refit.store.save(state)
    head = refit.store.campaign(campaign).version
    with pytest.raises(InvalidCommand) as refused:
        refit.audit.undo(campaign, "x", "director", to_version=before + 300)
    assert f"versions {before + 1}-{head}" in refused.value.message
    refit.audit.undo(campaign, "x", "director", to_version=before)
    assert refit.store.campaign(campaign).version == head + 1


def test_an_undo_says_which_of_its_fields_is_wrong(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Fields")
    start = refit.store.campaign(campaign)
    first_step = f"{start.reph.cg_date}/{start.reph.step}"
    advance(refit, campaign)
    cases = [({}, "to_version", "not neither"),
             ({"to_version": 1, "to_step": first_step}, "to_version",
              "not both to_version and to_step"),
             ({"to_step": "garbage"}, "to_step", "CGDATE/STEP"),
             ({"to_step": first_step}, "to_step", "nothing to undo")]
    for given, field, said in cases:
        with pytest.raises(InvalidCommand) as refused:
            refit.audit.undo(campaign, "x", "director", **given)
        assert (refused.value.field, said in refused.value.message) == (field, True), given
