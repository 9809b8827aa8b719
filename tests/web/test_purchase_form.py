"""The purchase form of a side's page (issue 18 item 1): PBr 14AM, step 3.617. Each RG the
side may buy is listed with every way to buy it (3.6175: entry at the printed cost, reserve
at 80% FRD, on map at 120% FRU or the printed price per chart note) and how many the CG has
bought of its maximum; each RG it may not buy now says why, with its rule; a way chosen on
the page is the purchase the JSON API records. The opponent's page shows none of it."""

from __future__ import annotations

import html as markup
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers.http import auth, new_campaign, send
from tests.helpers.web import AXIS, BRITISH, csrf_of, text_of


@pytest.fixture
def campaign(client: TestClient) -> dict[str, Any]:
    """PBr CG I at 14AM/3.617, the Axis with 10 CPP, the British with 7."""
    made = new_campaign(client)
    director = made["tokens"]["director"]
    for side, amount in ((AXIS, 10), (BRITISH, 7)):
        credit = {"type": "credit_cpp", "side": side, "amount": amount, "reason": "3.6161"}
        assert send(client, made, director, credit).status_code == 200
    return made


def page_of(client: TestClient, campaign: dict[str, Any], side: str) -> str:
    """The side's page, logged in with its token."""
    token = campaign["tokens"]["sides"][side]
    login = client.post("/login", data={"token": token, "campaign": campaign["id"]},
                        follow_redirects=False)
    assert login.status_code == 303, login.text
    answer = client.get(f"/play/{campaign['id']}")
    assert answer.status_code == 200, answer.text
    return answer.text


def buy(client: TestClient, campaign: dict[str, Any], rg: str, mode: str,
        option: str = "") -> Any:
    """An RG bought on the Axis page in one way (the answer, not followed)."""
    html = page_of(client, campaign, AXIS)
    bought = client.post(f"/play/{campaign['id']}/act", follow_redirects=False, data={
        "csrf": csrf_of(html), "side": AXIS, "action": "purchase", "rg": rg, "kg": "",
        "mode": mode, "option": option})
    assert bought.status_code == 303, bought.text
    return bought


def row_of(html: str, rg: str, kind: str = "rg") -> str:
    """One RG's row of the page's purchase tables, as text."""
    found = re.search(rf'<tr data-{kind}="{rg}">(.*?)</tr>', html, re.S)
    assert found is not None, f"no {kind} row for {rg}"
    shown = re.sub(r'<span class="sr">[^<]*</span>', "", found.group(1))  # as it looks
    return " ".join(text_of(shown).split())


def test_each_rg_the_axis_may_buy_shows_every_way_to_buy_it_and_its_cg_maximum(
        client: TestClient, campaign: dict[str, Any]) -> None:
    html = page_of(client, campaign, AXIS)
    # I10 costs 8: in reserve 80% FRD is 6, on map 120% FRU is 10; the CG I maximum is 1
    assert row_of(html, "I10").endswith("0 of 1 entry · 8 in reserve · 6 on map · 10")
    # I9 is a printed-price row on map (note g): 6 either way
    assert "entry · 6 in reserve · 4 on map · 6" in row_of(html, "I9")
    # I7 costs 12, more than the Axis has, but 9 in reserve
    assert row_of(html, "I7").endswith("in reserve · 9")
    # F1 has a chart note's option, the Arrival DRM, at its own price
    assert "buy · 1 with note a · 2" in row_of(html, "F1")  # an FB42 enters nowhere


def test_each_rg_the_axis_may_not_buy_says_why_with_its_rule(
        client: TestClient, campaign: dict[str, Any]) -> None:
    html = page_of(client, campaign, AXIS)
    assert row_of(html, "I4", "refused").strip().endswith(
        "I4 costs 15 CPP; the Axis side has 10 3.617")
    assert "may not be purchased until after July 14 PM; not on 14AM 3.6178" in \
        row_of(html, "I1", "refused")
    assert "is bought by rolling table 3.620, in its step" in row_of(html, "M2", "refused")
    assert 'data-rg="I4"' not in html and 'data-refused="I10"' not in html


def test_a_way_chosen_on_the_page_is_the_purchase_the_ledger_records(
        client: TestClient, campaign: dict[str, Any]) -> None:
    bought = buy(client, campaign, "I9", "reserve")
    said = client.get(bought.headers["location"])  # the page confirms what was bought
    assert "Bought I9 (Italian MTR Coy) in reserve for 4 CPP: line #1 of the Axis RG " \
        "Purchase Record, 14AM" in text_of(said.text)
    page_of(client, campaign, BRITISH)  # the opponent, at the same address: nothing
    opponent = client.get(bought.headers["location"])
    assert opponent.status_code == 200 and 'id="bought"' not in opponent.text
    assert "Italian MTR Coy" not in opponent.text
    page_of(client, campaign, AXIS)
    record = client.get(f"/campaigns/{campaign['id']}/purchase-record",
                        headers=auth(campaign["tokens"]["sides"][AXIS])).json()
    line = next(line for line in record if line["rg"] == "I9")
    assert (line["cpp"], line["mode"], line["reserve"]) == (4, "reserve", True)
    html = client.get(f"/play/{campaign['id']}").text
    assert 'data-rg="I9"' not in html  # its CG Date maximum is 1
    assert "CG Date max 1 already purchased on 14AM" in row_of(html, "I9", "refused")
    # 6 CPP left: I10 (8 at entry, 10 on map) only in reserve now
    assert row_of(html, "I10").split()[-4:] == ["in", "reserve", "·", "6"]


def test_the_british_page_shows_none_of_the_axis_purchases_ways_or_refusals(
        client: TestClient, campaign: dict[str, Any]) -> None:
    html = page_of(client, campaign, BRITISH)
    british = client.get(f"/campaigns/{campaign['id']}/guide",
                         headers=auth(campaign["tokens"]["sides"][BRITISH])).json()
    assert list(british["sides"]) == [BRITISH]
    refused = british["sides"][BRITISH]["refused"]
    assert {r["rg"] for r in refused} >= {"I1", "G2"}
    assert all(r["why"] in markup.unescape(html) for r in refused)  # its own, each said
    assert "Axis side has 10" not in html and "Axis" not in " ".join(r["why"] for r in refused)


def test_a_purchase_form_tampered_with_is_refused_on_the_page_naming_its_label(
        client: TestClient, campaign: dict[str, Any]) -> None:
    html = page_of(client, campaign, AXIS)
    for field, value, label in (("mode", "teleport", "Buy it as"),
                                ("option", "x" * 50, "Buy it as (chart note)")):
        form = {"csrf": csrf_of(html), "side": AXIS, "action": "purchase", "rg": "I9",
                "kg": "", "mode": "reserve", "option": ""} | {field: value}
        answer = client.post(f"/play/{campaign['id']}/act", data=form, follow_redirects=False)
        assert answer.status_code == 422 and "text/html" in answer.headers["content-type"]
        said = text_of(answer.text)
        assert f"(field: {label})" in said and f"{label}: " in said  # the page's words
        assert "purchase_rg" not in said
    record = client.get(f"/campaigns/{campaign['id']}/purchase-record",
                        headers=auth(campaign["tokens"]["sides"][AXIS])).json()
    assert record == []


def test_the_advance_button_comes_after_what_the_side_may_still_buy(
        client: TestClient, campaign: dict[str, Any]) -> None:
    html = page_of(client, campaign, AXIS)
    assert html.index("RG you may buy") < html.index("RG you may not buy now") < \
        html.index(f"Advance: the {AXIS} side is done with 3.617")


def test_the_director_buys_for_a_side_with_buttons_that_say_for_which(
        client: TestClient, campaign: dict[str, Any]) -> None:
    director = campaign["tokens"]["director"]
    assert client.post("/login", data={"token": director},
                       follow_redirects=False).status_code == 303
    html = client.get(f"/play/{campaign['id']}").text
    assert "RG the Axis may buy" in html and "RG the British may buy" in html
    assert "RG you may buy" not in html
    axis = re.search(r'<tr data-rg="I9">(.*?)</tr>', html, re.S)
    assert axis is not None and "Buy I9 for the Axis" in axis.group(1)
    assert "Buy for the Axis as (CPP)" in html and "Buy for the British as (CPP)" in html
    bought = client.post(f"/play/{campaign['id']}/act", follow_redirects=False, data={
        "csrf": csrf_of(html), "side": AXIS, "action": "purchase", "rg": "I9", "kg": "",
        "mode": "entry", "option": ""})
    assert bought.status_code == 303, bought.text  # the contract lets the director act
    record = client.get(f"/campaigns/{campaign['id']}/purchase-record",
                        headers=auth(campaign["tokens"]["sides"][AXIS])).json()
    assert [(line["side"], line["rg"]) for line in record] == [(AXIS, "I9")]
    british = client.get(f"/campaigns/{campaign['id']}/purchase-record",
                         headers=auth(campaign["tokens"]["sides"][BRITISH])).json()
    assert all(line["rg"] is None for line in british)  # sealed from the other side


def test_the_side_lists_what_it_bought_this_reph_and_the_opponent_only_that_lines_are_sealed(
        client: TestClient, campaign: dict[str, Any]) -> None:
    html = page_of(client, campaign, AXIS)
    assert "Bought for 14AM" in html and "Nothing bought for 14AM yet." in html
    for rg, mode in (("I9", "reserve"), ("F1", "entry")):
        bought = client.post(f"/play/{campaign['id']}/act", follow_redirects=False, data={
            "csrf": csrf_of(html), "side": AXIS, "action": "purchase", "rg": rg, "kg": "",
            "mode": mode, "option": ""})
        assert bought.status_code == 303, bought.text
    html = client.get(f"/play/{campaign['id']}").text
    listed = re.search(r'<div class="bought-now" data-side="Axis">(.*?)</div>', html, re.S)
    assert listed is not None
    said = " ".join(text_of(listed.group(1)).split())
    assert "I9 (Italian MTR Coy) in reserve · 4 CPP line #1" in said
    assert "F1 (" in said and "line #2" in said and "Nothing bought for" not in said
    record = client.get(f"/campaigns/{campaign['id']}/purchase-record",
                        headers=auth(campaign["tokens"]["sides"][AXIS])).json()
    assert f"{sum(line['cpp'] for line in record)} CPP in all" in said
    british = page_of(client, campaign, BRITISH)
    assert "Italian MTR Coy" not in british and 'data-side="Axis">' in british
    assert 'class="bought-now" data-side="Axis"' not in british
    assert "2 sealed lines in its RG Purchase Record" in text_of(british)
    their = client.get(f"/campaigns/{campaign['id']}/purchase-record",
                       headers=auth(campaign["tokens"]["sides"][BRITISH])).json()
    assert [line["hidden"] for line in their] == [True, True]  # what the JSON read says


def test_an_rg_bought_with_a_chart_notes_option_is_said_by_its_note_not_its_code_name(
        client: TestClient, campaign: dict[str, Any]) -> None:
    bought = buy(client, campaign, "F1", "entry", "arrival_drm")
    said = text_of(markup.unescape(client.get(bought.headers["location"]).text))
    assert "Bought F1 (FB42) with note a (-2 drm to the E7.2 arrival dr) for 2 CPP" \
        in said
    assert "arrival_drm" not in said


def test_leaving_the_purchase_step_with_nothing_bought_is_asked_first_and_says_the_cpp(
        client: TestClient) -> None:
    campaign = new_campaign(client)  # 14AM, 3.617: the director has credited no CPP yet
    page = markup.unescape(page_of(client, campaign, AXIS))
    [advance] = re.findall(r'<form[^>]*class="advance"[^>]*>', page)
    said = "3.617: the Axis side has bought no RG for 14AM (0 CPP)"
    assert f'hx-confirm="Advance: the Axis side is done with 3.617? {said}' in advance
    assert said in text_of(page.split('class="advance"')[0])  # said on the page too
    observer = client.get(f"/campaigns/{campaign['id']}/guide",
                          headers=auth(campaign["tokens"]["observer"])).json()
    assert "bought no RG" not in str(observer)  # what a side bought, or not, is its own
    director = campaign["tokens"]["director"]
    for token, body in ((director, {"type": "credit_cpp", "side": AXIS, "amount": 39,
                                    "reason": "3.6161"}),
                        (campaign["tokens"]["sides"][AXIS], {"type": "purchase_rg",
                                                             "side": AXIS, "rg": "I5"})):
        assert send(client, campaign, token, body).status_code == 200
    page = page_of(client, campaign, AXIS)
    assert "has bought no RG" not in page  # once a line is bought, nothing to ask
