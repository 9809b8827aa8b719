"""What a side may keep secret reaches that side and the director only, on every read."""

from __future__ import annotations

from uuid import UUID

from infra.application import Refit
from tests.story import advance_to, do, load_fixture_chart, to_reph_step


def secret_acts(refit: Refit) -> UUID:
    """On 14AM the Axis buys an RG, spends FPP and rolls in secret; on 14PM it picks a chit."""
    load_fixture_chart(refit)
    campaign = refit.create_campaign("pbr", "I", "Secrets", "server").id
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 39,
                         "reason": "CPP Base # 14AM", "rule": "3.6161"})
    do(refit, campaign, {"type": "purchase_rg", "side": "Axis", "rg": "X1"})
    do(refit, campaign, {"type": "credit_fpp", "side": "Axis", "amount": 3, "reason": "FPP"})
    advance_to(refit, campaign, "3.619")
    do(refit, campaign, {"type": "purchase_fortification", "side": "Axis", "amount": 2,
                         "reason": "Foxhole (2-squad)", "rule": "3.619"})
    do(refit, campaign, {"type": "roll", "table": "T1", "side": "Axis", "secret": True,
                         "subject": "Oblt. Secret"})
    to_reph_step(refit, campaign, "3.621")  # 14PM: chits come after the Initial Scenario
    do(refit, campaign, {"type": "select_initiative", "side": "Axis", "chit": "attack"})
    return campaign


def test_the_opponent_sees_a_secret_roll_happened_but_not_what(refit: Refit) -> None:
    campaign = secret_acts(refit)
    (seen,) = refit.rolls(campaign, viewer="British")
    assert seen.hidden and seen.secret and seen.side == "Axis"
    assert (seen.dice, seen.result, seen.subject, seen.table) == (None, None, None, None)
    (own,) = refit.rolls(campaign, viewer="Axis")
    assert own.subject == "Oblt. Secret" and own.dice is not None


def test_the_opponent_cannot_read_rg_purchases(refit: Refit) -> None:
    campaign = secret_acts(refit)
    (seen,) = refit.purchase_record(campaign, viewer="British")
    assert seen.hidden and seen.rg is None and seen.cpp is None
    (own,) = refit.purchase_record(campaign, viewer="Axis")
    assert own.rg == "X1" and own.cpp == 8


def test_the_opponent_cannot_read_cpp_spent_or_left_on_the_roster(refit: Refit) -> None:
    campaign = secret_acts(refit)
    cell = refit.roster(campaign, viewer="British")[0].sides["Axis"]
    assert cell.hidden
    assert (cell.cpp_spent, cell.cpp_left, cell.rg_purchased, cell.fortifications) == (
        None, None, None, None)
    own = refit.roster(campaign, viewer="Axis")[0].sides["Axis"]
    assert (own.cpp_spent, own.cpp_left, own.fpp) == (8, 31, 0)  # FPP unspent: forfeit (3.619)


def test_a_chit_stays_secret_until_both_are_chosen(refit: Refit) -> None:
    campaign = secret_acts(refit)
    assert refit.roster(campaign, viewer="British")[1].sides["Axis"].chit is None
    result = do(refit, campaign, {"type": "select_initiative", "side": "British",
                                  "chit": "idle"})
    assert result.events[-1]["type"] == "ChitsRevealed"
    row = refit.roster(campaign, viewer="British")[1]
    assert (row.sides["Axis"].chit, row.sides["British"].chit) == ("attack", "idle")


def test_the_opponent_cannot_read_cpp_in_the_status(refit: Refit) -> None:
    campaign = secret_acts(refit)
    assert refit.status(campaign, viewer="British").sides["Axis"]["cpp"] is None
    assert refit.status(campaign, viewer="Axis").sides["Axis"]["cpp"] == 0  # lost on 14PM


def test_an_observer_sees_neither_sides_secrets(refit: Refit) -> None:
    campaign = secret_acts(refit)
    assert refit.rolls(campaign, viewer="observer")[0].hidden
    assert refit.purchase_record(campaign, viewer="observer")[0].hidden


def test_as_of_reads_keep_secrets_too(refit: Refit) -> None:
    campaign = secret_acts(refit)
    version = refit.campaign(campaign).version
    assert refit.purchase_record(campaign, as_of=version, viewer="British")[0].hidden
    assert refit.rolls(campaign, as_of=version, viewer="British")[0].hidden


def test_everything_is_revealed_at_cg_end(refit: Refit) -> None:
    load_fixture_chart(refit)
    campaign = refit.create_campaign("pbr", "I", "Last day", "server", start_date="17PM").id
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 12, "reason": "Base"})
    do(refit, campaign, {"type": "purchase_rg", "side": "Axis", "rg": "X1"})
    assert refit.purchase_record(campaign, viewer="British")[0].hidden
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})
    assert refit.purchase_record(campaign, viewer="British")[0].rg == "X1"


def test_no_projection_row_holds_the_unrevealed_seed(refit: Refit) -> None:
    campaign = secret_acts(refit)
    seed = refit.campaign(campaign).seed
    assert seed is not None
    refit.catch_up()
    for kind in ("meta", "roster", "purchase", "roll"):
        for row in refit.view.select_all(kind):
            assert seed not in str(row)


def test_cpp_stays_hidden_on_every_later_cg_date_and_in_the_history(refit: Refit) -> None:
    campaign = secret_acts(refit)
    do(refit, campaign, {"type": "select_initiative", "side": "British", "chit": "idle"})
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})
    advance_to(refit, campaign, "3.616")
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 42,
                         "reason": "CPP Base # 14N", "rule": "3.6161"})
    later = refit.roster(campaign, viewer="British")[2]
    axis = later.sides["Axis"]
    assert later.cg_date == "14N" and axis.hidden
    assert (axis.cpp_start, axis.cpp_credited, axis.cpp_left) == (None, None, None)
    assert refit.roster(campaign, viewer="Axis")[2].sides["Axis"].cpp_credited == 42
    assert refit.roster(campaign, viewer="British")[1].sides["Axis"].cpp_start is None
    started = next(r for r in refit.records(campaign) if r["type"] == "CGDateStarted")
    assert "cpp" not in started["data"]
