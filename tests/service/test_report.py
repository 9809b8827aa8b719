"""The history report a tournament director reads, told on the PBr demo campaign."""

from __future__ import annotations

from html import escape
from typing import Any

import pytest

from api.render import dice_text
from api.report import describe, history_report
from tests.helpers.demo import ELR_CAUSE, Played

DATES = ["14AM", "14PM", "14N", "15AM", "15PM"]


@pytest.fixture(scope="module")
def text(played: Played) -> str:
    """The director's report as plain text."""
    return history_report(played.refit.store.records(played.campaign))


def line_of(report: str, needle: str) -> str:
    """The one line of the report that holds `needle`."""
    found = [line for line in report.splitlines() if needle in line]
    assert len(found) == 1, found
    return found[0]


def section(report: str, cg_date: str) -> str:
    """The part of the text report under one CG Date's heading."""
    return report.split(f"\nCG Date {cg_date}\n")[1].split("\nCG Date ")[0]


def test_the_report_lists_each_cg_date_in_order(text: str) -> None:
    headings = [line for line in text.splitlines() if line.startswith("CG Date ")]
    assert headings == [f"CG Date {date}" for date in DATES]
    assert text.splitlines()[0] == "Demo: PBr CG I"


def test_each_cg_date_goes_step_by_step_through_its_reph(text: str) -> None:
    night = section(text, "14N")
    steps = [line.strip() for line in night.splitlines() if line.startswith("  RePh step")]
    assert steps[:3] == ["RePh step 3.613", "RePh step 3.614", "RePh step 3.615"]
    assert night.index("RePh step 3.617") < night.index("Axis purchased RG #7: I1")
    assert night.index("Axis purchased RG #7: I1") < night.index("RePh step 3.618")
    assert "Initiative chits: Axis attack, British attack = Night Dual Attack" in night
    assert section(text, "14AM").count("(before the Initial Scenario)") == 7


def test_a_known_roll_prints_its_table_dice_each_drm_with_its_reason_and_final(
        played: Played, text: str) -> None:
    roll = next(r for r in played.refit.reads.rolls(played.campaign)
                if r.drm and any(d["reason"] == "Italian RG" for d in r.drm))
    printed = line_of(text, f"key {roll.key}")
    assert printed.startswith(f"    v{roll.version} ")
    assert f"Axis DR on {roll.table} {roll.title} (rule {roll.rule})" in printed
    assert f"dice {dice_text(roll.dice or [])} = Original {roll.original}" in printed
    assert "+2 Italian RG (3.6183)" in printed
    assert f"Final {roll.final} -> {roll.result}" in printed


def test_purchases_casualties_recon_control_and_elr_read_as_sentences(
        played: Played, text: str) -> None:
    recon = played.refit.reads.roster(played.campaign)[2].sides["British"].recon
    assert "Axis purchased RG #11: G3 MTR Section for 5 CPP, in reserve" in section(text, "15AM")
    assert "Axis lost Lt. 8-0: 6 CVP (scenario 14AM)" in section(text, "14AM")
    assert "Bénouville Bridge (Location) now controlled by British (was nobody)" in text
    assert f"Axis ELR set to 3: {ELR_CAUSE} (3.613)" in section(text, "15PM")
    assert f"British reconnoitre {recon} Locations (3.620)" in section(text, "14N")


def test_a_sides_report_shows_the_other_sides_secrets_only_as_secret_acts(
        played: Played) -> None:
    records = list(played.refit.reads.history(played.campaign, "British"))
    report = history_report(records)
    hidden = next(r for r in records if r.get("redacted"))
    assert line_of(report, f"v{hidden['version']} ").endswith(
        "  sealed fact, secret to Axis")  # who acted is sealed with it
    assert "Alert Infantry Coy" not in report and "Axis purchased" not in report
    assert "Axis credited" not in report and "Italian RG" not in report
    assert "British purchased RG #3: I2 Airborne Pltn for 7 CPP" in report


def test_a_sealed_fact_from_before_neutral_seals_names_no_actor_in_the_report() -> None:
    older = {"campaign": "c", "version": 7, "type": "RGPurchased", "redacted": True,
             "timestamp": "2026-01-01T10:00:00+00:00", "prev_hash": "", "sealed": "s",
             "salt": None, "data": {"side": "Axis", "actor": "director",
                                    "secret_for": "Axis"}}
    printed = line_of(history_report([older]), "v7 ")
    assert printed.endswith("  sealed fact, secret to Axis") and "director" not in printed


def test_undone_versions_are_marked_in_text_and_struck_through_in_html(
        played: Played) -> None:
    records = list(played.refit.store.records(played.campaign))
    elr = next(r["version"] for r in records if r["type"] == "ELRChanged")
    undo = {"campaign": records[0]["campaign"], "version": len(records) + 1, "type": "Undone",
            "timestamp": "2026-01-01T10:00:00+00:00", "prev_hash": "", "sealed": None,
            "salt": None, "data": {"to_version": elr - 1, "reason": "wrong side",
                                   "actor": "director"}}
    report = history_report([*records, undo], undone={elr})
    assert "[undone] Axis ELR set to 3" in line_of(report, f"v{elr} ")
    assert f"UNDO back to version {elr - 1}: wrong side" in report
    assert report.count("[undone]") == 1 and report.endswith("events, 1 undone\n")
    page = history_report(records, "html", undone={elr})
    assert f"<del>Axis ELR set to 3: {escape(ELR_CAUSE)} (3.613)</del>" in page
    assert page.count("<del>") == 1 and 'class="ev undone"' in page


def test_rulings_rerolls_and_unknown_records_print_generically_without_crashing() -> None:
    odd: list[dict[str, Any]] = [
        {"type": "RulingRecorded", "version": 1,
         "data": {"key": "14AM/3.618/3.6181/Axis/1/0", "reason": "cocked die",
                  "verdict": "reroll"}},
        {"type": "RerollAuthorized", "version": 2, "data": {"key": "k1", "reason": "r"}},
        {"type": "FogOfWar", "version": 3, "data": {"hexes": ["A1", "B2"], "by": {"x": 1}}},
        {"type": "DiceRolled", "version": 4, "data": {"side": "Axis"}},
        {"type": "CasualtyRecorded", "version": "five", "data": None},
        {"format": "refit-export/1", "name": "Arnhem"},
        {"type": "Created", "version": 7,
         "data": {"name": "N", "module": "pbr", "cg": "I", "sides": 5, "dice": "server"}},
    ]
    report = history_report(odd)
    assert "ruling on roll 14AM/3.618/3.6181/Axis/1/0: reroll: cocked die" in report
    assert "re-roll of k1 authorized: r" in report
    assert "Fog of war: hexes A1, B2; by x 1" in report
    assert "Dice rolled: side Axis" in report
    assert "Record: format refit-export/1; name Arnhem" in report
    assert "Created: name N; module pbr; cg I; sides 5; dice server" in report
    assert report.endswith("7 events\n")
    assert "<h1>Campaign history</h1>" in history_report(odd, "html")


def test_a_sealed_ruling_says_the_roll_stands_or_what_it_was_corrected_to() -> None:
    upheld = {"side": "Axis", "ruling": 218, "roll_version": 41, "final": None,
              "result": None, "drm": None, "key": "14AM/3.6183-personnel/Axis/rg:3/leader:1/0"}
    said = describe("RulingSealed", upheld)
    assert said == ("ruling v218 on roll 14AM/3.6183-personnel/Axis/rg:3/leader:1/0: the roll "
                    "stands") and "None" not in said
    corrected = describe("RulingSealed", upheld | {"final": 7, "result": "8-1"})
    assert corrected.endswith(": corrected to final 7, result 8-1")


def test_the_report_reads_its_records_once_as_they_stream(played: Played) -> None:
    stream = played.refit.store.records(played.campaign)  # a generator: one pass only
    report = history_report(stream)
    head = played.refit.store.campaign(played.campaign).version
    assert report.endswith(f"{head} events\n")
    assert f"    v{head} " in report and "    v1 " in report


def test_the_html_report_is_one_printable_page_with_the_campaign_name_escaped(
        played: Played) -> None:
    refit = played.refit
    campaign = refit.commands.create_campaign("pbr", "I", "<b>& Sons", actor="director").id
    page = history_report(refit.store.records(campaign), "html")
    assert "<title>&lt;b&gt;&amp; Sons</title>" in page and "<b>&" not in page
    assert "<h2>CG Date 14AM</h2>" in page and "@media print" in page
    assert not any(tag in page for tag in ("<script", "<link", "src=", "http:", "https:"))


def test_a_report_in_another_format_is_refused() -> None:
    with pytest.raises(ValueError, match="text or html"):
        history_report([], "pdf")  # type: ignore[arg-type]


def test_after_an_undo_the_report_says_which_step_the_campaign_is_back_at(
        played: Played) -> None:
    records = list(played.refit.store.records(played.campaign))
    back = [r["version"] for r in records if r["type"] == "StepAdvanced"
            and r["data"]["step"] == "3.617"][-1]  # 15PM's 3.617
    undo = {"version": len(records) + 1, "type": "Undone",
            "data": {"to_version": back, "reason": "bought the wrong coy", "events": 9}}
    report = history_report([*records, undo], undone=set(range(back + 1, len(records) + 1)))
    tail = report.split(f"UNDO back to version {back} (9 events undone)")[1]
    assert tail.startswith(": bought the wrong coy")
    assert f"  RePh step 3.617 (again, after the undo to version {back})" in tail
    assert "[undone] Axis purchased RG #12" in report
    assert "  RePh step 3.618 [undone]" in report



def test_a_side_done_with_its_part_of_a_step_reads_as_a_sentence() -> None:
    said = describe("StepDoneBySide", {"side": "British", "step": "3.617", "cg_date": "15PM"})
    assert said == "the British done with step 3.617 (15PM)"  # not "side British; step ..."


@pytest.mark.parametrize("kind,data,said", [
    ("PFChanged", {"side": "German", "reason": "used", "count": 2, "halves": 11,
                   "rule": "CG13", "cg_date": "18AM"}, "German PF: 2 PF used, 5½ PF now (CG13)"),
    ("HoldingBoxChanged", {"side": "US", "entry_area": "ChA10", "units": "2x 7-4-7",
                           "held": False, "cg_date": "18AM"},
     "US Holding Box ChA10: 2x 7-4-7 left the box"),
    ("FanaticismDeclared", {"side": "German", "scenario": "18AM", "rule": "CG14"},
     "German declared Fanaticism for the 18AM CG Scenario (CG14)"),
    ("PFChanged", {"side": "German", "reason": "released", "count": 1, "halves": 3,
                   "rule": "CG13", "cg_date": "18AM"},
     "German PF: 1 squad released from Reserve, 1½ PF now (CG13)"),
    ("ControlReported", {"report": 1, "side": "German", "location": "StQ10",
                         "kind": "Strategic Location", "lvp": 2, "map_group": "St",
                         "infantry": True, "rule": None},
     "report 1: the German Controls StQ10 (Strategic Location; 2 LVP, Map Group St; by "
     "Infantry), to confirm"),
    ("LVPTotalled", {"current": {"German": 18, "US": 7}, "by_map_group": {},
                     "cg_total": {"German": 40, "US": 10}, "rule": "8.2", "cg_date": "18PM"},
     "LVP totalled: Current-LVP German 18, US 7; CG-LVP German 40, US 10 (8.2)"),
])
def test_kgps_records_read_as_sentences_not_raw_fields(kind: str, data: dict[str, Any],
                                                       said: str) -> None:
    assert describe(kind, data) == said  # a helper read "halves 24", "held True"
