"""A PBr CG starts where its parameters (3.51-3.53) say: CG Date, ELR, SAN, CPP and FPP per
side, the Initial Scenario OB's RGs on the RG Purchase Record (3.6179), public as the OB
is; and its Attack-Chit limits hold (3.6211). 3.51-3.53 are not in the seeds: the values
are an owner's file (tests/data/fixture_pbr_cgs.json, fictitious), loaded as an owner would.
"""

from __future__ import annotations

import json
from pathlib import Path
from uuid import UUID

import pytest

from domain.errors import RuleViolation
from infra.application import Refit
from infra.modules import ModuleFileError, install_file, packaged_modules
from tests.helpers.paths import FIXTURE_PBR_CGS
from tests.helpers.refusals import refused
from tests.helpers.story import advance_to, do, due, load_fixture_chart, to_reph_step

AXIS, BRITISH = "Axis", "British"


def started(refit: Refit, cg: str, dice: str = "server") -> UUID:
    """A PBr campaign of a CG whose parameters the owner has loaded."""
    load_fixture_chart(refit, FIXTURE_PBR_CGS)
    return refit.commands.create_campaign("pbr", cg, f"Primosole {cg}", dice).id


@pytest.mark.parametrize(("cg", "date", "elr", "san", "cpp"), [
    ("I", "14AM", {AXIS: 3, BRITISH: 4}, {AXIS: 3, BRITISH: 2}, {AXIS: 20, BRITISH: 10}),
    ("II", "15AM", {AXIS: 4, BRITISH: 3}, {AXIS: 2, BRITISH: 4}, {AXIS: 30, BRITISH: 45}),
    ("III", "14AM", {AXIS: 3, BRITISH: 5}, {AXIS: 4, BRITISH: 3}, {AXIS: 12, BRITISH: 8}),
])
def test_each_cg_starts_on_its_date_with_each_sides_elr_san_and_cpp(
        refit: Refit, cg: str, date: str, elr: dict[str, int], san: dict[str, int],
        cpp: dict[str, int]) -> None:
    campaign = started(refit, cg)
    status = refit.reads.status(campaign)
    assert (status.cg_date, status.phase, status.step) == (date, "setup", "3.617")
    assert {side: s["elr"] for side, s in status.sides.items()} == elr
    assert {side: s["san"] for side, s in status.sides.items()} == san
    assert {side: s["cpp"] for side, s in status.sides.items()} == cpp
    first = refit.reads.roster(campaign)[0]
    assert first.cg_date == date
    assert {side: (c.cpp_start, c.elr, c.san) for side, c in first.sides.items()} == {
        side: (cpp[side], elr[side], san[side]) for side in (AXIS, BRITISH)}


def test_cg_i_gives_the_axis_fpp_to_spend_in_3_619(refit: Refit) -> None:
    campaign = started(refit, "I")
    assert refit.store.campaign(campaign).points.fpp == {AXIS: 5, BRITISH: 0}
    assert refit.reads.roster(campaign, viewer=AXIS)[0].sides[AXIS].fpp == 5


def test_the_initial_scenario_ob_rgs_are_record_lines_that_count_in_no_maximum(
        refit: Refit) -> None:
    campaign = started(refit, "II")  # the OB gives the Axis an I1 (CG II maximum 2)
    (given_i1, given_v1) = refit.reads.purchase_record(campaign)
    assert (given_i1.side, given_i1.rg, given_i1.group_type) == (
        AXIS, "I1", "Fallschirmjäger Pioneer Coy")
    assert (given_i1.given, given_i1.cpp, given_i1.p, given_i1.mode) == (
        "CG II Initial Scenario OB", None, None, "on_map")
    assert given_i1.setup_area == "north of the river"
    assert (given_v1.side, given_v1.rg, given_v1.mode) == (BRITISH, "V1", "entry")
    received = [r for r in refit.store.records(campaign) if r["type"] == "RGReceived"]
    assert [r["data"]["rule"] for r in received] == ["3.52", "3.52"]
    do(refit, campaign, {"type": "purchase_rg", "side": AXIS, "rg": "I1"})
    bought = refit.reads.purchase_record(campaign)[-1]
    assert (bought.rg, bought.p, bought.r) == ("I1", 1, 1)  # 3.6176-.6177: the OB's is not #P


def test_an_ob_line_given_twice_is_two_lines_and_paradrop_is_not_depleted(
        refit: Refit) -> None:
    campaign = started(refit, "I", "entered")  # British I2 x2 by Paratroop Landing
    lines = [p for p in refit.reads.purchase_record(campaign) if p.side == BRITISH]
    assert [(p.rg, p.mode) for p in lines] == [("I2", "paradrop"), ("I2", "paradrop"),
                                              ("G2", "entry")]
    # Full without a DR (3.6181 EXC), its units on the record; the glider G2 rolls for it.
    assert [(p.strength, p.units) for p in lines] == [("F", "4x 6-4-8"), ("F", "4x 6-4-8"),
                                                      (None, None)]
    advance_to(refit, campaign, "3.618", rolls=False)  # the Initial Scenario's 3.618
    listed = set(due(refit, campaign))
    assert ("3.6181", BRITISH, "rg:2") not in listed  # 3.6181 EXC: no Depletion by Para drop
    assert ("3.6181", BRITISH, "rg:3") not in listed
    assert ("3.6183-personnel", BRITISH, "rg:2/leader:1") in listed  # its leader, as Full
    assert ("3.6182", BRITISH, "rg:2/sw:1") in listed  # a Full I2 rolls its SW on <= 3
    dropped = refused(refit, campaign, {"type": "roll", "table": "3.6181", "side": BRITISH,
                                        "subject": "rg:2", "dice": [6, 6]})
    assert isinstance(dropped, RuleViolation) and "3.6181 EXC" in dropped.message


def test_ob_given_rgs_are_public_but_what_the_sides_rolls_find_is_not(refit: Refit) -> None:
    campaign = started(refit, "II")
    do(refit, campaign, {"type": "determine_rg", "side": AXIS, "purchase": 1,
                         "strength": "D"})
    do(refit, campaign, {"type": "purchase_rg", "side": AXIS, "rg": "G3"})
    given, _, bought = refit.reads.purchase_record(campaign, viewer=BRITISH)
    assert not given.hidden
    assert (given.rg, given.group_type, given.given, given.setup_area) == (
        "I1", "Fallschirmjäger Pioneer Coy", "CG II Initial Scenario OB", "north of the river")
    assert given.strength is None  # 3.6181: a Secret DR
    assert bought.hidden and bought.rg is None  # 3.617: a purchase stays secret
    own = refit.reads.purchase_record(campaign, viewer=AXIS)
    assert (own[0].strength, own[2].rg) == ("D", "G3")
    for viewer in (BRITISH, "observer"):
        received = [e for e in refit.reads.history(campaign, viewer=viewer)
                    if e["type"] == "RGReceived"]
        assert [e["data"]["rg"] for e in received] == ["I1", "V1"]
        assert all(e["sealed"] is None for e in received)
    assert refit.reads.verify(campaign).ok


def chits(refit: Refit, campaign: UUID, axis: str, british: str) -> None:
    """Both sides choose their chits at 3.621 and the CG Scenario is played."""
    to_reph_step(refit, campaign, "3.621")
    do(refit, campaign, {"type": "select_initiative", "side": AXIS, "chit": axis})
    do(refit, campaign, {"type": "select_initiative", "side": BRITISH, "chit": british})
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})


def test_3_6211_a_side_may_not_exceed_its_cg_attack_chits(refit: Refit) -> None:
    campaign = started(refit, "II")  # CG II allows the Axis one Attack chit
    chits(refit, campaign, "attack", "idle")  # 15PM: none counted for the Initial Scenario
    to_reph_step(refit, campaign, "3.621")  # 15N
    error = refused(refit, campaign,
                    {"type": "select_initiative", "side": AXIS, "chit": "attack"})
    assert isinstance(error, RuleViolation) and error.rule == "3.6211"
    assert "player has chosen 1 Attack chits: CG II allows 1" in error.message
    do(refit, campaign, {"type": "select_initiative", "side": AXIS, "chit": "idle"})


def test_cg_iii_ends_after_its_last_cg_date(refit: Refit) -> None:
    campaign = started(refit, "III")  # 14AM to 14N
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})  # the Initial Scenario
    chits(refit, campaign, "idle", "attack")  # 14PM
    chits(refit, campaign, "attack", "idle")  # 14N: its end is CG End
    status = refit.reads.status(campaign)
    assert (status.cg_date, status.phase) == ("14N", "ended")


def test_a_campaign_started_after_the_cg_start_gets_no_initial_scenario_ob(
        refit: Refit) -> None:
    load_fixture_chart(refit, FIXTURE_PBR_CGS)
    campaign = refit.commands.create_campaign("pbr", "I", "Joined late", "server",
                                              start_date="15AM").id
    assert refit.reads.purchase_record(campaign) == []
    assert refit.store.campaign(campaign).points.cpp == {AXIS: 0, BRITISH: 0}
    assert refit.reads.status(campaign).sides[AXIS]["elr"] == 3


def test_without_owner_parameters_a_pbr_cg_starts_on_the_calendars_first_date(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "II", "No parameters", "server").id
    status = refit.reads.status(campaign)
    assert status.cg_date == "14AM"
    assert status.sides[AXIS]["elr"] is None and status.sides[AXIS]["san"] is None
    assert refit.reads.purchase_record(campaign) == []


def test_an_owner_file_whose_ob_names_an_rg_off_the_chart_is_refused(
        tmp_path: Path) -> None:
    text = FIXTURE_PBR_CGS.read_text().replace('"rg": "I1"', '"rg": "Z9"')
    bad = tmp_path / "bad_cgs.json"
    bad.write_text(text)
    with pytest.raises(ModuleFileError, match="CG II OB gives Z9, not on the Axis RG chart"):
        install_file(bad, tmp_path / "modules")


def test_an_owner_file_whose_ob_names_an_unknown_side_is_refused(tmp_path: Path) -> None:
    text = FIXTURE_PBR_CGS.read_text().replace('"side": "Axis", "rg": "I1"',
                                               '"side": "German", "rg": "I1"')
    bad = tmp_path / "bad_side.json"
    bad.write_text(text)
    with pytest.raises(ModuleFileError, match="CG II parameters name an unknown side"):
        install_file(bad, tmp_path / "modules")


def test_the_modules_name_the_cg_parameters_their_owner_must_still_supply() -> None:
    modules = packaged_modules()
    assert modules["pbr"].missing_cg_parameters() == [
        "CG I parameters (3.51-3.53)", "CG II parameters (3.51-3.53)",
        "CG III parameters (3.51-3.53)"]  # seed 003 holds 3.6-3.623, not 3.5x
    assert modules["abtf"].missing_cg_parameters()[0] == "CG I parameters (9.51-9.53)"
    assert modules["kgp"].missing_cg_parameters()[0] == "CG I parameters (8.51-8.53)"


def test_an_owners_cg_file_supplies_them(refit: Refit) -> None:
    load_fixture_chart(refit, FIXTURE_PBR_CGS)
    assert refit.store.module("pbr").missing_cg_parameters() == []


def test_an_owner_may_give_a_calendar_that_starts_before_the_cpp_chart(
        refit: Refit, tmp_path: Path) -> None:
    module = packaged_modules()["pbr"]
    calendar = [{"date": "13N", "night": True}] + [
        d.model_dump(exclude_none=True) for d in module.calendar]
    patch = {"format": "refit-module-patch/1", "module": "pbr", "calendar": calendar,
             "cgs": {"I": {"rule": "3.51", "start": "13N", "end": "17PM",
                           "notes": ["FICTITIOUS: a CG starting before 3.6161's 14AM"]}}}
    path = tmp_path / "pbr_calendar.json"
    path.write_text(json.dumps(patch))
    load_fixture_chart(refit, path)
    campaign = refit.commands.create_campaign("pbr", "I", "Night drop", "server").id
    assert refit.reads.status(campaign).cg_date == "13N"
