"""The paper forms, printed from the PBr demo campaign: CSV for each form, one HTML page."""

from __future__ import annotations

import csv
import io

import pytest
from pydantic import ValidationError

from api.forms import (
    SECRET,
    cvp_csv,
    elr_csv,
    forms_html,
    purchases_csv,
    render_form,
    roster_csv,
)
from tests.helpers.demo import ELR_CAUSE, Played

AXIS_ONLY_RGS = ("I5", "I7", "G3")  # the demo's Axis buys these; the British never do


def lines(text: str) -> list[dict[str, str]]:
    """A CSV form's lines, by column name."""
    return list(csv.DictReader(io.StringIO(text)))


def test_the_roster_csv_has_one_line_per_cg_date_with_the_read_models_numbers(
        played: Played) -> None:
    roster = played.refit.reads.roster(played.campaign)
    printed = lines(roster_csv(roster))
    assert [line["CG Date"] for line in printed] == ["14AM", "14PM", "14N", "15AM", "15PM"]
    for line, row in zip(printed, roster, strict=True):
        for side, cell in row.sides.items():
            assert line[f"{side} CPP start"] == str(cell.cpp_start)
            assert line[f"{side} +CPP"] == str(cell.cpp_credited)
            assert line[f"{side} CPP spent"] == str(cell.cpp_spent)
            assert line[f"{side} CPP left"] == str(cell.cpp_left)
    assert printed[2]["Scenario"] == "Night Dual Attack"
    assert printed[1]["Axis Chit"] == printed[1]["British Chit"] == "idle"
    assert printed[4]["Axis ELR"] == "3"


def test_the_roster_names_each_rg_bought_on_its_cg_date_with_its_cost(played: Played) -> None:
    printed = lines(roster_csv(played.refit.reads.roster(played.campaign)))
    assert printed[0]["Axis RG purchased"] == "I5 14 CPP; I7 12 CPP"
    assert "G3 5 CPP" in printed[3]["Axis RG purchased"]


def test_the_purchase_record_csv_has_one_line_per_rg_as_the_read_model_has_it(
        played: Played) -> None:
    record = played.refit.reads.purchase_record(played.campaign)
    printed = lines(purchases_csv(record))
    assert [line["#"] for line in printed] == [str(p.purchase) for p in record]
    mtr = next(line for line in printed if line["RG"] == "G3")
    assert (mtr["Side"], mtr["CG Date"], mtr["CPP"], mtr["Mode"]) == ("Axis", "15AM", "5",
                                                                      "reserve")
    for line, row in zip(printed, record, strict=True):
        assert (line["F/D"], line["Leader(s)"]) == (row.strength or "", row.leader or "")


def test_a_british_viewers_forms_show_no_axis_cpp_nor_axis_rg(played: Played) -> None:
    roster = played.refit.reads.roster(played.campaign, viewer="British")
    record = played.refit.reads.purchase_record(played.campaign, viewer="British")
    printed = lines(roster_csv(roster))
    for line in printed:
        assert {line[f"Axis {c}"] for c in ("CPP start", "+CPP", "CPP spent", "CPP left",
                                            "RG purchased", "FPP")} == {SECRET}
        assert line["British CPP left"].isdigit()
    axis_lines = [line for line in lines(purchases_csv(record)) if line["Side"] == "Axis"]
    assert axis_lines and all(line["RG"] == line["CPP"] == SECRET for line in axis_lines)
    page = forms_html("Pegasus Bridge", roster, record, played.refit.reads.cvp(played.campaign),
                      played.refit.reads.elr(played.campaign))
    assert "Alert Infantry Coy" not in page
    assert not any(f"<td>{rg}</td>" in page for rg in AXIS_ONLY_RGS)
    assert f'<td class="secret">{SECRET}</td>' in page


@pytest.mark.parametrize("as_of", [None, 9, "14PM/3.621"])
def test_the_forms_render_from_one_read_model_as_each_read_gives_them(
        played: Played, as_of: int | str | None) -> None:
    refit, campaign = played.refit, played.campaign
    forms = refit.reads.paper_forms(campaign, as_of, viewer="British")
    status = refit.reads.status(campaign, as_of, viewer="British")
    assert (forms.name, forms.module, forms.cg, forms.version) == (
        status.name, status.module, status.cg, status.version)
    assert forms.roster == refit.reads.roster(campaign, as_of, viewer="British")
    assert forms.purchases == refit.reads.purchase_record(campaign, as_of, viewer="British")
    assert (forms.cvp, forms.elr) == (refit.reads.cvp(campaign, as_of), refit.reads.elr(campaign,
                                                                                        as_of))
    assert render_form(forms, "purchases") == purchases_csv(forms.purchases)
    assert "<h1>Demo: PBr CG I</h1>" in render_form(forms, "html")
    assert f"PBr CG I, as of version {forms.version}" in render_form(forms, "html")
    with pytest.raises(ValidationError):
        forms.version = 1  # type: ignore[misc]  # one point's forms, never changed after
    with pytest.raises(ValueError, match="not 'tea'"):
        render_form(forms, "tea")


def test_the_cvp_csv_has_a_line_per_scenario_and_the_totals_of_the_read_model(
        played: Played) -> None:
    answer = played.refit.reads.cvp(played.campaign)
    printed = lines(cvp_csv(answer))
    assert [line["Scenario"] for line in printed] == ["14AM", "14N", "15AM", "Total"]
    assert printed[0]["Axis CVP"] == "20" and "Lt. 8-0 (6)" in printed[0]["Axis casualties"]
    assert printed[-1]["Axis CVP"] == str(answer.totals["Axis"]) == "40"
    assert printed[-1]["British CVP"] == str(answer.totals["British"]) == "25"


def test_the_elr_csv_lists_each_change_with_its_cause_and_rule(played: Played) -> None:
    printed = lines(elr_csv(played.refit.reads.elr(played.campaign)))
    assert [(line["Side"], line["From"], line["To"], line["Cause"], line["Rule"])
            for line in printed] == [("Axis", "", "3", ELR_CAUSE, "3.613")]


def test_the_printable_page_holds_every_form_and_every_rg_with_nothing_external(
        played: Played) -> None:
    refit, campaign = played.refit, played.campaign
    record = refit.reads.purchase_record(campaign)
    page = forms_html("Demo: PBr CG I", refit.reads.roster(campaign), record,
                      refit.reads.cvp(campaign), refit.reads.elr(campaign), subtitle="PBr CG I")
    for heading in ("CG Roster", "RG Purchase Record", "CVP", "ELR history"):
        assert f"<h2>{heading}</h2>" in page
    assert all(f"<td>{p.rg}</td>" in page for p in record)
    roster = page.split("<h2>CG Roster</h2>")[1].split("<h2>")[0]
    assert roster.count("<tr><td>") == 5  # one line per CG Date
    assert "@media print" in page and "ELR now: Axis 3, British -" in page
    assert "Heavy losses &lt;in&gt; 15AM &amp; more" in page
    assert not any(tag in page for tag in ("<script", "<link", "src=", "http:", "https:"))


def test_a_campaign_name_with_markup_is_printed_as_text(played: Played) -> None:
    refit = played.refit
    campaign = refit.commands.create_campaign("pbr", "I", "<b>& Sons", actor="director").id
    page = forms_html(refit.store.campaign(campaign).name, refit.reads.roster(campaign),
                      refit.reads.purchase_record(campaign), refit.reads.cvp(campaign),
                      refit.reads.elr(campaign))
    assert "<h1>&lt;b&gt;&amp; Sons</h1>" in page and "<b>" not in page
    assert "(none yet)" in page  # nothing bought, nothing lost: the forms still print


def test_forms_with_nothing_on_them_print_their_headers_only(played: Played) -> None:
    empty = played.refit.reads.cvp(played.campaign).model_copy(update={"scenarios": [],
                                                                 "totals": {}})
    assert roster_csv([]).strip() == "CG Date,Scenario,Weather,Played"
    assert purchases_csv([]).splitlines()[0].startswith("#,Side,CG Date,RG")
    assert lines(cvp_csv(empty)) == [{"Scenario": "Total"}]


def test_each_casualty_is_a_row_of_its_own_beside_its_scenarios_cvp_total(
        played: Played) -> None:
    answer = played.refit.reads.cvp(played.campaign)
    played.refit.views.catch_up()  # the rows folded into the view itself, not only read
    view, campaign = played.refit.views.view, str(played.campaign)
    totals, casualties = view.select_rows(campaign, "cvp"), view.select_rows(campaign, "casualty")
    assert totals and all("casualties" not in row for row in totals)  # no list that grows
    assert [c["version"] for c in casualties] == sorted(c["version"] for c in casualties)
    for scenario in answer.scenarios:  # each total is its casualties', in recorded order
        own = [c for c in casualties
               if (c["scenario"], c["side"]) == (scenario.scenario, scenario.side)]
        assert scenario.cvp == sum(c["cvp"] for c in own) > 0
        assert [c["version"] for c in scenario.casualties] == [c["version"] for c in own]
