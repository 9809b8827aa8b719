"""Rule tables are data: validated, cited by rule number, and replaceable by an owner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from domain.commands import DRMClaim
from domain.drm import SubjectFacts, claimed_drm
from domain.errors import InvalidCommand, MissingTable
from domain.rules import Table
from infra.modules import ModuleFileError, install_file, load_modules, packaged_modules

MODULES = packaged_modules()


def test_the_three_seed_modules_are_registered_by_id() -> None:
    assert sorted(MODULES) == ["abtf", "kgp", "pbr"]
    assert MODULES["abtf"].sides == ["British", "German"]
    assert MODULES["pbr"].sides == ["Axis", "British"]
    assert MODULES["kgp"].sides == ["German", "US"]


def test_a_module_lists_the_rg_charts_its_owner_must_still_supply() -> None:
    assert MODULES["abtf"].missing_tables()[-2:] == ["9.617 British RG chart",
                                                      "9.617 German RG chart"]
    assert MODULES["kgp"].missing_tables()[-2:] == ["8.619 German RG chart",
                                                     "8.619 US RG chart"]
    assert MODULES["pbr"].missing_tables() == []  # PBr ships its charts


def test_the_abtf_calendar_runs_17n_to_21eve_with_9_6161_exhaustion() -> None:
    calendar = MODULES["abtf"].calendar
    assert (calendar[0].date, calendar[-1].date, len(calendar)) == ("17N", "21EVE", 16)
    assert MODULES["abtf"].date("21PM").exhaustion_drm == 3
    assert MODULES["abtf"].date("21EVE").exhaustion_drm == 4
    assert MODULES["abtf"].date("18EVE").cpp_base == {"British": 15, "German": 20}
    assert [d.date for d in calendar if d.night] == ["17N", "18N", "19N", "20N"]


def test_the_pbr_calendar_carries_the_3_6161_cpp_base_numbers() -> None:
    assert [d.date for d in MODULES["pbr"].calendar] == [
        "14AM", "14PM", "14N", "15AM", "15PM", "15N", "16AM", "16PM", "16N", "17AM", "17PM"]
    assert MODULES["pbr"].date("15AM").cpp_base == {"Axis": 30, "British": 80}


def test_the_reph_steps_keep_the_rules_order_and_flags() -> None:
    steps = MODULES["abtf"].steps
    assert [s.rule for s in steps][:3] == ["9.601", "9.602", "9.603"]
    assert [s.rule for s in steps if s.initial] == ["9.617", "9.618", "9.619", "9.620", "9.621"]
    assert [s.rule for s in steps if s.scenario_end] == ["9.601", "9.602", "9.603"]
    assert [s.rule for s in steps if s.new_cg_date] == ["9.612"]
    pbr = MODULES["pbr"].steps
    assert next(s.rule for s in pbr if s.initial) == "3.617" and pbr[-1].rule == "3.623"


@pytest.mark.parametrize("final,result", [(-1, "Retained unwounded"), (1, "Retained unwounded"),
                                          (2, "Retained wounded"), (4, "Retained wounded"),
                                          (5, "Eliminated"), (7, "Eliminated")])
def test_the_9_6101_wounded_leader_table(final: int, result: str) -> None:
    assert MODULES["abtf"].table("9.6101").result(final) == result


def test_the_3_610_table_lists_its_drm() -> None:
    table = MODULES["pbr"].table("3.610")
    assert {(d.id, d.value, d.reason, d.kind) for d in table.drm} == {
        ("3.610-isolated", 1, "Isolated", "optional"), ("3.610-heroic", -1, "Heroic", "optional"),
        ("3.610-british-airborne", -1, "part of British Airborne RG", "optional")}
    assert table.result(5) == "Eliminated (evacuated)"


def test_the_kgp_game_end_dr_rolls_against_the_turn_box_number() -> None:
    table = MODULES["kgp"].table("CG23")
    assert table.result(2, target=3) == "Scenario ends"
    assert table.result(3, target=3) == "Play continues"
    with pytest.raises(InvalidCommand) as refused:
        table.result(2)
    assert refused.value.field == "target"


def test_bands_with_a_gap_are_refused() -> None:
    with pytest.raises(ValidationError) as refused:
        Table(id="T", title="t", rule="T", roll="dr",
              bands=[{"max": 1, "result": "a"}, {"min": 3, "result": "b"}])
    assert "contiguous" in str(refused.value)


def test_bands_that_leave_a_final_roll_uncovered_are_refused() -> None:
    with pytest.raises(ValidationError):
        Table(id="T", title="t", rule="T", roll="dr", bands=[{"min": 1, "result": "a"}])


def test_a_step_table_nobody_supplied_names_the_table_and_its_step() -> None:
    module = MODULES["abtf"].model_copy(update={"tables": []})
    with pytest.raises(MissingTable) as refused:
        module.table("9.6101")
    assert refused.value.rule == "9.6101"
    assert "needed by step 9.610 Wounded Leaders" in refused.value.message


def test_an_owner_file_overrides_a_table(tmp_path: Path) -> None:
    patch = {"format": "refit-module-patch/1", "module": "abtf", "tables": [
        {"id": "9.6101", "title": "Wounded Leader Table (house rule)", "rule": "9.6101",
         "roll": "dr", "bands": [{"max": 2, "result": "Retained unwounded"},
                                 {"min": 3, "result": "Eliminated"}]}]}
    source = tmp_path / "house.json"
    source.write_text(json.dumps(patch))
    install_file(source, tmp_path / "modules")
    patched = load_modules(tmp_path / "modules")["abtf"].table("9.6101")
    assert patched.title.endswith("(house rule)") and patched.result(2) == "Retained unwounded"
    assert MODULES["abtf"].table("9.6101").result(2) == "Retained wounded"


def test_a_bad_owner_file_is_refused_naming_the_field_and_installs_nothing(
        tmp_path: Path) -> None:
    source = tmp_path / "bad.json"
    source.write_text(json.dumps({"format": "refit-module-patch/1", "module": "abtf",
                                  "tables": [{"id": "9.6101", "title": "x", "rule": "9.6101",
                                              "roll": "2d6", "bands": []}]}))
    with pytest.raises(ModuleFileError) as refused:
        install_file(source, tmp_path / "modules")
    assert "tables.0.roll" in str(refused.value)
    assert not (tmp_path / "modules").exists()


def test_a_patch_for_an_unknown_module_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "x.json"
    source.write_text(json.dumps({"format": "refit-module-patch/1", "module": "asl"}))
    with pytest.raises(ModuleFileError) as refused:
        install_file(source, tmp_path / "modules")
    assert "no module 'asl'" in str(refused.value)


def test_a_band_whose_min_is_above_its_max_is_refused() -> None:
    with pytest.raises(ValidationError) as refused:
        Table(id="T", title="t", rule="T", roll="dr", bands=[
            {"max": 1, "result": "a"}, {"min": 2, "max": 1, "result": "b"},
            {"min": 2, "result": "c"}])
    assert "min is above its max" in str(refused.value)


@pytest.mark.parametrize("patch,complaint", [
    ({"cgs": {"I": {"start": "16AM", "end": "21EVE"}}}, "is not a CG Date"),
    ({"rg_charts": {"German": {"rule": "9.617", "rows": [
        {"id": "I1", "group_type": "a", "cost": 5}, {"id": "I1", "group_type": "b", "cost": 6}]}}},
     "appears twice"),
    ({"tables": [{"id": "9.6101", "title": "t", "rule": "9.6101", "roll": "dr",
                  "bands": [{"result": "x"}],
                  "drm": [{"id": "m", "kind": "automatic", "value": -1, "reason": "Martian",
                           "qualifies": {"sides": ["Martian"]}}]}]}, "names a side"),
    ({"tables": [{"id": "9.6101", "title": "t", "rule": "9.6101", "roll": "dr",
                  "bands": [{"result": "x"}],
                  "drm": [{"id": "a", "kind": "optional", "value": -1, "reason": "A"},
                          {"id": "a", "kind": "optional", "value": 1, "reason": "B"}]}]},
     "a DRM id appears twice"),
    ({"tables": [{"id": "9.6101", "title": "t", "rule": "9.6101", "roll": "dr",
                  "bands": [{"result": "x"}],
                  "drm": [{"id": "a", "kind": "optional", "value": -1, "reason": "A",
                           "excludes": ["b"]}]}]}, "excludes an id the table does not list"),
    ({"tables": [{"id": "X9", "title": "t", "rule": "X9", "roll": "dr",
                  "bands": [{"result": "x"}],
                  "drm": [{"id": "9.6101-heroic", "kind": "optional", "value": -1,
                           "reason": "Heroic"}]}]}, "is listed by table 9.6101 and table X9"),
    ({"tables": [{"id": "9.6101", "title": "t", "rule": "9.6101", "roll": "dr",
                  "bands": [{"result": "x"}],
                  "drm": [{"id": "a", "kind": "optional", "derive": "night", "value": -1,
                           "reason": "A"}]}]}, "an optional DRM is claimed, not derived"),
])
def test_an_owner_file_that_contradicts_the_module_is_refused(
        tmp_path: Path, patch: dict, complaint: str) -> None:
    source = tmp_path / "patch.json"
    source.write_text(json.dumps({"format": "refit-module-patch/1", "module": "abtf"} | patch))
    with pytest.raises(ModuleFileError) as refused:
        install_file(source, tmp_path / "modules")
    assert complaint in str(refused.value)


def test_a_new_file_is_validated_in_the_order_files_load(tmp_path: Path) -> None:
    modules_dir = tmp_path / "modules"
    later = tmp_path / "z-new-module.json"
    later.write_text(json.dumps(MODULES["pbr"].model_dump() | {"id": "pbr2"}))
    install_file(later, modules_dir)
    patch = tmp_path / "a-patch.json"  # loads before the module it patches exists
    patch.write_text(json.dumps({"format": "refit-module-patch/1", "module": "pbr2"}))
    with pytest.raises(ModuleFileError) as refused:
        install_file(patch, modules_dir)
    assert "no module 'pbr2'" in str(refused.value)
    assert sorted(p.name for p in modules_dir.iterdir()) == ["z-new-module.json"]


def test_a_counted_drm_is_computed_from_the_count_the_side_states() -> None:
    table = MODULES["pbr"].table("3.613")
    subject = SubjectFacts(side="Axis")
    for hexes, drm in ((4, 0), (5, 1), (9, 1), (10, 2)):
        (item,) = claimed_drm(table, subject, [DRMClaim(id="3.613-hexes", count=hexes)], [])
        assert (item["value"], item["count"], item["rule"]) == (drm, hexes, "3.613")
    with pytest.raises(InvalidCommand) as refused:
        claimed_drm(table, subject, [DRMClaim(id="3.613-hexes")], [])
    assert "give `count`" in refused.value.message and refused.value.rule == "3.613"
    with pytest.raises(InvalidCommand) as refused:
        claimed_drm(table, subject, [DRMClaim(id="3.613-road", count=2)], [])
    assert "give no `count`" in refused.value.message




def test_a_result_points_to_the_notes_its_footnote_marks_name() -> None:
    escape = MODULES["pbr"].table("3.606-personnel")
    assert [note[:3] for note in escape.footnotes("Escapes; Replaced(2,3)")] == ["(2)", "(3)"]
    assert escape.footnotes("All units and Equipment Eliminated") == []
    shift = MODULES["pbr"].table("3.613")
    assert [note[0] for note in shift.footnotes("Shifted with Casualties†")] == ["†"]
    assert [note[0] for note in shift.footnotes("No Shift*")] == ["*"]
    abtf = MODULES["abtf"].table("9.613")  # its own (1)-(3), not PBr's
    (note,) = abtf.footnotes("Successful Shift, Casualty Reduction(2)")
    assert note.startswith("(2) Each Personnel unit suffer")


def test_only_the_rgs_that_bring_no_units_to_place_skip_the_setup_area_each_saying_why() -> None:
    unplaced = {(side, row.id): row for side, chart in MODULES["pbr"].rg_charts.items()
                for row in chart.rows if not row.placed}
    assert sorted(unplaced) == [("Axis", "F1"), ("Axis", "M1"), ("Axis", "M2"), ("Axis", "M3"),
                                ("British", "B1"), ("British", "F1"), ("British", "M1"),
                                ("British", "M2"), ("British", "M3")]
    assert all(row.doubt and "3.6179" in row.doubt for row in unplaced.values())
