"""The CG Scenario from the pages: a side reports its casualty, the other side confirms or
disputes it from its own page, the director records one and ends the scenario, and the
Refit Phase begins; each form is the JSON command's, refused alike."""

from __future__ import annotations

import html as markup
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers.http import ADMIN, auth, new_campaign, send
from tests.helpers.web import AXIS, BRITISH, csrf_of, inputs_of, text_of
from tests.http.test_reports import an_i5_bought
from tests.web.test_director_tools import get, log_in, post


@pytest.fixture
def campaign(client: TestClient) -> dict[str, Any]:
    """A PBr CG I campaign whose Initial Scenario is in play."""
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    while status(client, campaign)["phase"] != "scenario":
        assert send(client, campaign, director, {"type": "advance"}).status_code == 200
    return campaign


def status(client: TestClient, campaign: dict[str, Any], path: str = "") -> Any:
    """A JSON read of the campaign as the director."""
    answer = client.get(f"/campaigns/{campaign['id']}{path}",
                        headers=auth(campaign["tokens"]["director"]))
    assert answer.status_code == 200, answer.text
    return answer.json()


def act(client: TestClient, campaign: dict[str, Any], fields: dict[str, str]) -> Any:
    """A guide form posted from the session's own page."""
    page = get(client, f"/play/{campaign['id']}")
    return post(client, f"/play/{campaign['id']}/act", {"csrf": csrf_of(page)} | fields)


def test_a_side_reports_its_casualty_and_the_other_confirms_it_from_its_page(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["sides"][AXIS])
    page = text_of(get(client, f"/play/{campaign['id']}"))
    assert "Report a casualty of the Axis" in page and "of the British" not in page
    answer = act(client, campaign, {"action": "casualty", "side": AXIS, "unit": "4-6-8",
                                    "cvp": "2"})
    assert answer.status_code == 303, answer.text
    assert status(client, campaign, "/cvp")["totals"] == {AXIS: 0, BRITISH: 0}
    page = text_of(get(client, f"/play/{campaign['id']}"))
    mine, _, others = page.partition("The other side")
    assert "Report 1 awaits the British: the Axis lost 4-6-8 (2 CVP)." in mine
    assert "Still to confirm or dispute: Report 1" in others and "Still to roll" not in others

    log_in(client, campaign["tokens"]["sides"][BRITISH])
    page = text_of(get(client, f"/play/{campaign['id']}"))
    assert "Report 1 awaits the British" in page and "Confirm report 1" in page
    answer = act(client, campaign, {"action": "answer", "side": BRITISH, "report": "1",
                                    "answer": "confirm_report"})
    assert answer.status_code == 303, answer.text
    assert status(client, campaign, "/cvp")["totals"] == {AXIS: 2, BRITISH: 0}


def test_the_rg_line_of_a_casualty_reported_from_the_page_stays_off_the_opponents_pages(
        client: TestClient) -> None:
    campaign = an_i5_bought(client).campaign  # the Axis's secret line 1: an I5
    log_in(client, campaign["tokens"]["sides"][AXIS])
    answer = act(client, campaign, {"action": "casualty", "side": AXIS, "unit": "4-6-8",
                                    "cvp": "2", "purchase": "1"})
    assert answer.status_code == 303, answer.text
    for token in (campaign["tokens"]["sides"][BRITISH], campaign["tokens"]["observer"]):
        log_in(client, token)
        page = get(client, f"/play/{campaign['id']}")
        shown = text_of(page)
        assert "the Axis lost 4-6-8 (2 CVP)" in shown  # a casualty is public (A26.2)
        assert "RGCasualty" not in page and "line #1" not in shown and "RG #1" not in shown
        forms = text_of(get(client, f"/play/{campaign['id']}/forms"))
        assert "4-6-8" not in forms.split("RG Purchase Record", 1)[-1].split("CVP", 1)[0]


def forms_of(page: str) -> list[str]:
    """Each form of a page, as its HTML."""
    return [part.split("</form>", 1)[0] for part in page.split("<form")[1:]]


def test_enter_in_the_dispute_reason_box_disputes_the_report_never_confirms_it(
        client: TestClient, campaign: dict[str, Any]) -> None:
    send(client, campaign, campaign["tokens"]["sides"][AXIS],
         {"type": "record_casualty", "side": AXIS, "unit": "4-6-8", "cvp": 2})
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    forms = forms_of(get(client, f"/play/{campaign['id']}"))
    # A browser submits a form by Enter with its first button: the reason's form has one.
    reason = [form for form in forms if 'name="reason"' in form]
    assert len(reason) == 1 and reason[0].count("<button") == 1
    assert 'value="dispute_report"' in reason[0] and "confirm_report" not in reason[0]
    assert "required" in reason[0].split('name="reason"', 1)[1].split(">", 1)[0]
    confirm = [form for form in forms if "confirm_report" in form]
    assert len(confirm) == 1 and 'name="reason"' not in confirm[0]


def test_a_report_disputed_from_the_page_awaits_the_director_with_its_reason(
        client: TestClient, campaign: dict[str, Any]) -> None:
    send(client, campaign, campaign["tokens"]["sides"][AXIS],
         {"type": "record_casualty", "side": AXIS, "unit": "4-6-8", "cvp": 2})
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    answer = act(client, campaign, {"action": "answer", "side": BRITISH, "report": "1",
                                    "answer": "dispute_report", "reason": "it broke, not died"})
    assert answer.status_code == 303, answer.text
    log_in(client, campaign["tokens"]["director"])
    assert "it broke, not died" in text_of(get(client, f"/play/{campaign['id']}"))
    assert status(client, campaign, "/cvp")["totals"] == {AXIS: 0, BRITISH: 0}


def test_the_director_records_a_casualty_and_ends_the_scenario_from_the_page(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = get(client, f"/play/{campaign['id']}")
    assert "Record a casualty of the British" in text_of(page)
    assert 'hx-confirm="End the' in page
    answer = act(client, campaign, {"action": "casualty", "side": BRITISH, "unit": "4-5-7",
                                    "cvp": "3"})
    assert answer.status_code == 303, answer.text
    assert status(client, campaign, "/cvp")["totals"] == {AXIS: 0, BRITISH: 3}
    answer = act(client, campaign, {"action": "end_scenario"})
    assert answer.status_code == 303, answer.text
    assert status(client, campaign)["phase"] == "reph"
    assert "End the" not in text_of(get(client, f"/play/{campaign['id']}"))


@pytest.mark.parametrize(("fields", "said"), [
    ({"action": "casualty", "side": AXIS, "unit": "4-6-8", "cvp": "lots"}, "CVP it is worth: "),
    ({"action": "casualty", "side": AXIS, "unit": "", "cvp": "1"}, "Unit lost: left empty"),
    ({"action": "casualty", "side": BRITISH, "unit": "4-5-7", "cvp": "1"}, "British"),
    ({"action": "end_scenario"}, "director"),
    ({"action": "answer", "side": AXIS, "report": "1", "answer": "confirm_report"},
     "report 1"),
])
def test_what_a_side_may_not_send_from_the_page_is_refused_and_appends_nothing(
        client: TestClient, campaign: dict[str, Any], fields: dict[str, str],
        said: str) -> None:
    log_in(client, campaign["tokens"]["sides"][AXIS])
    before = status(client, campaign)["version"]
    answer = act(client, campaign, fields)
    assert answer.status_code in (403, 409, 422), answer.text
    assert said in markup.unescape(answer.text)
    assert status(client, campaign)["version"] == before


@pytest.mark.parametrize(("fields", "marked"), [
    ({"unit": "", "cvp": "3", "purchase": "2"}, "unit"),
    ({"unit": "Lt. Braun \"Bruno\"", "cvp": "lots", "purchase": ""}, "cvp"),
])
def test_a_refused_casualty_comes_back_as_typed_with_the_refused_field_marked(
        client: TestClient, campaign: dict[str, Any], fields: dict[str, str],
        marked: str) -> None:
    log_in(client, campaign["tokens"]["sides"][AXIS])
    answer = act(client, campaign, {"action": "casualty", "side": AXIS} | fields)
    assert answer.status_code == 422, answer.text
    inputs = inputs_of(answer.text, "casualty")
    for name, typed in fields.items():
        assert inputs[name]["value"] == typed, name  # the quotes escaped, and read back
        assert (inputs[name].get("aria-invalid") == "true") is (name == marked), name
    assert inputs[marked]["aria-describedby"] == "error"


def to_reph_step(client: TestClient, campaign: dict[str, Any], step: str,
                 cg_date: str = "14PM") -> None:
    """The director advances until the RePh of `cg_date` is at `step` (from the scenario
    in play: it ends it first)."""
    director = campaign["tokens"]["director"]
    if status(client, campaign)["phase"] == "scenario":
        send(client, campaign, director, {"type": "end_scenario"})
    while (status(client, campaign)["cg_date"], status(client, campaign)["step"]) != (
            cg_date, step):
        assert send(client, campaign, director, {"type": "advance"}).status_code == 200


def advance_form(client: TestClient, campaign: dict[str, Any], token: str) -> str:
    """The Advance form of the side the token opens, on its page."""
    log_in(client, token)
    found = [form for form in forms_of(get(client, f"/play/{campaign['id']}"))
             if 'value="advance"' in form]
    assert len(found) == 1, found
    return found[0]


def test_a_sides_advance_asks_first_where_leaving_the_step_gives_up_its_points(
        client: TestClient, campaign: dict[str, Any]) -> None:
    director, british = campaign["tokens"]["director"], campaign["tokens"]["sides"][BRITISH]
    to_reph_step(client, campaign, "3.616")
    assert "hx-confirm=" not in advance_form(client, campaign, british)  # nothing to lose
    assert send(client, campaign, director, {"type": "advance"}).status_code == 200
    assert status(client, campaign)["step"] == "3.617"  # CPP left are forfeit after 14PM
    form = advance_form(client, campaign, british)
    asked = markup.unescape(form.split('hx-confirm="', 1)[1].split('"', 1)[0])
    cpp = status(client, campaign)["sides"][BRITISH]["cpp"]
    assert cpp > 0 and f"forfeits the British side's unspent CPP ({cpp} now, 0 after)" in asked


def test_the_initiative_chit_is_due_on_the_page_until_chosen_then_waits_for_the_other(
        client: TestClient, campaign: dict[str, Any]) -> None:
    british = campaign["tokens"]["sides"][BRITISH]
    to_reph_step(client, campaign, "3.621")
    log_in(client, british)
    due = text_of(get(client, f"/play/{campaign['id']}")).split("Due now", 1)[1]
    assert "The British Initiative chit (3.6212)" in due.split("Initiative chit 3.6212")[0]
    assert "Nothing due" not in due.split("The other side")[0]
    chosen = get(client, f"/play/{campaign['id']}").split('class="row chit-choice"', 1)[1]
    asked = chosen.split('hx-confirm="', 1)[1].split('"', 1)[0]
    assert asked == "Choose the British Initiative chit? It stays secret until every side " \
        "has chosen; only the director can undo it."
    answer = act(client, campaign, {"action": "chit", "side": BRITISH, "chit": "idle"})
    assert answer.status_code == 303, answer.text
    page = text_of(get(client, f"/play/{campaign['id']}"))
    assert "Chosen; waiting for Axis." in page and "The British Initiative chit" not in page
    assert "Initiative 3.6212" not in page.split("Due now")[0]  # the chits are not shown yet
    assert status(client, campaign, "/guide")["initiative"] is None
    assert send(client, campaign, campaign["tokens"]["sides"][AXIS], {
        "type": "select_initiative", "side": AXIS, "chit": "attack"}).status_code == 200
    shown = status(client, campaign, "/guide")["initiative"]
    assert shown["chits"] == {AXIS: "attack", BRITISH: "idle"} and shown["scenario_type"]
    where = text_of(get(client, f"/play/{campaign['id']}")).split("Due now")[0]
    assert f"{shown['scenario_type']} Axis Attack · British Idle" in where


def test_a_drm_computed_from_a_count_is_claimed_on_the_page_with_the_count_stated(
        client: TestClient, campaign: dict[str, Any]) -> None:
    to_reph_step(client, campaign, "3.606", "14AM")
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    page = get(client, f"/play/{campaign['id']}")
    leader = page.split('name="count.3.606-p-leader"', 1)[1].split(">", 1)[0]
    assert 'type="number"' in leader and 'min="-3"' in leader and 'max="1"' in leader
    assert "the leadership DRM of the Leader/Hero escaping" in text_of(page)
    answer = act(client, campaign, {"action": "roll", "side": BRITISH,
                                    "table": "3.606-personnel", "subject": "unit:LABEL",
                                    "unit": "Lt.Fox", "count.3.606-p-leader": "-2",
                                    "count.3.606-p-hs": "3", "count.3.606-p-pp": ""})
    assert answer.status_code == 303, answer.text
    rolled = [r for r in status(client, campaign, "/rolls") if r["table"] == "3.606-personnel"]
    claimed = {d["id"]: d["value"] for d in rolled[-1]["drm"] if not d.get("auto")}
    assert claimed == {"3.606-p-leader": -2, "3.606-p-hs": 2}  # 3 HS-equivalents: +1 x (3-1)
    bad = act(client, campaign, {"action": "roll", "side": BRITISH, "unit": "Lt.Ash",
                                 "table": "3.606-personnel", "subject": "unit:LABEL",
                                 "count.3.606-p-hs": "two", "drm": "3.606-p-isolated"})
    assert bad.status_code == 422 and "DRM you may claim" in text_of(bad.text)
    # The refused card comes back as typed, to correct: its unit and its count.
    roll_card = bad.text.split('value="3.606-personnel"', 1)[1]  # not the casualty form's
    card = roll_card.split('name="unit"', 1)[1].split(">", 1)[0]
    assert 'value="Lt.Ash"' in card
    count = bad.text.split('name="count.3.606-p-hs"', 1)[1].split(">", 1)[0]
    assert 'value="two"' in count
    isolated = bad.text.split('value="3.606-p-isolated"', 1)[1].split(">", 1)[0]
    assert "checked" in isolated
    assert "checked" not in bad.text.split('value="3.606-p-encircled"', 1)[1].split(">", 1)[0]


def at_3_619_with_20_fpp(client: TestClient, campaign: dict[str, Any]) -> str:
    """14PM 3.619 with the Axis logged in, holding the 20 FPP of an M3 bought in 3.617; its
    token."""
    axis = campaign["tokens"]["sides"][AXIS]
    to_reph_step(client, campaign, "3.617")
    assert send(client, campaign, axis, {"type": "purchase_rg", "side": AXIS,
                                         "rg": "M3"}).status_code == 200  # 20 FPP
    to_reph_step(client, campaign, "3.619")
    log_in(client, axis)
    return axis


def test_fortifications_are_bought_on_the_page_at_the_tables_price_with_the_fpp(
        client: TestClient, campaign: dict[str, Any]) -> None:
    axis = at_3_619_with_20_fpp(client, campaign)
    form = [f for f in forms_of(get(client, f"/play/{campaign['id']}"))
            if 'value="fortification"' in f]
    assert len(form) == 1 and "Roadblock · 10 FPP" in markup.unescape(form[0])
    answer = act(client, campaign, {"action": "fortification", "side": AXIS,
                                    "item": "Roadblock", "count": "1", "hex": ""})
    assert answer.status_code == 303, answer.text
    own = client.get(f"/campaigns/{campaign['id']}", headers=auth(axis)).json()
    assert own["sides"][AXIS]["fpp"] == 10
    too_many = act(client, campaign, {"action": "fortification", "side": AXIS,
                                      "item": "Roadblock", "count": "2"})
    assert too_many.status_code == 422 and "FPP" in text_of(too_many.text)
    assert client.get(f"/campaigns/{campaign['id']}", headers=auth(axis)).json()[
        "sides"][AXIS]["fpp"] == 10


def test_a_dispute_the_director_rejects_shows_as_settled_on_each_sides_page(
        client: TestClient, campaign: dict[str, Any]) -> None:
    tokens = campaign["tokens"]
    log_in(client, tokens["sides"][AXIS])
    assert act(client, campaign, {"action": "casualty", "side": AXIS, "unit": "4-6-8",
                                  "cvp": "2"}).status_code == 303
    log_in(client, tokens["sides"][BRITISH])
    assert act(client, campaign, {"action": "answer", "side": BRITISH, "report": "1",
                                  "answer": "dispute_report",
                                  "reason": "it was captured"}).status_code == 303
    assert "Reports settled" not in text_of(get(client, f"/play/{campaign['id']}"))
    log_in(client, tokens["director"])
    assert act(client, campaign, {"action": "settle", "report": "1",
                                  "answer": "withdraw_report",
                                  "reason": "captured, not eliminated"}).status_code == 303
    for token in (tokens["sides"][AXIS], tokens["sides"][BRITISH], tokens["observer"]):
        log_in(client, token)
        shown = text_of(get(client, f"/play/{campaign['id']}"))
        assert "Report 1: the Axis lost 4-6-8 (2 CVP): rejected by the director " \
            "(captured, not eliminated)." in shown, shown[:400]
    assert status(client, campaign, "/cvp")["totals"] == {AXIS: 0, BRITISH: 0}
    [row] = status(client, campaign, "/reports")  # the JSON read says it alike
    assert (row["report"], row["by"], row["status"], row["answered_by"], row["reason"]) == (
        1, AXIS, "rejected", "director", "captured, not eliminated")


def test_a_rolls_result_shows_the_tables_notes_its_footnote_marks_point_to(
        client: TestClient) -> None:
    answer = client.post("/campaigns", headers=auth(ADMIN), json={
        "module": "pbr", "cg": "I", "name": "Ranville", "dice": "entered"})
    assert answer.status_code == 201, answer.text
    campaign = answer.json()
    while status(client, campaign)["phase"] != "scenario":  # the Initial Scenario
        assert send(client, campaign, campaign["tokens"]["director"],
                    {"type": "advance"}).status_code == 200
    to_reph_step(client, campaign, "3.606", "14AM")
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    answer = act(client, campaign, {"action": "roll", "side": BRITISH, "dice": "1 1",
                                    "table": "3.606-personnel", "subject": "unit:LABEL",
                                    "unit": "Lt.Fox"})
    assert answer.status_code == 303, answer.text
    shown = get(client, answer.headers["location"])
    result = shown.split('class="outcome">', 1)[1].split("</p>", 1)[0]
    assert result == "Escapes(1)"
    notes = text_of(shown.split('class="footnotes"', 1)[1].split("</ul>", 1)[0])
    assert "(1) An Original 2 DR results in Escape and Heat of Battle" in notes
    assert "(2)" not in notes and "(3)" not in notes


def test_the_fortifications_a_side_bought_are_listed_on_its_page_only(
        client: TestClient, campaign: dict[str, Any]) -> None:
    at_3_619_with_20_fpp(client, campaign)
    assert "Fortifications bought for" not in text_of(get(client, f"/play/{campaign['id']}"))
    answer = act(client, campaign, {"action": "fortification", "side": AXIS,
                                    "item": "Roadblock", "count": "1", "hex": ""})
    assert answer.status_code == 303, answer.text
    page = text_of(get(client, f"/play/{campaign['id']}"))
    listed = page.split("Fortifications bought for 14PM", 1)[1].split("sealed from", 1)[0]
    assert "1 x Roadblock · 10 FPP" in listed and "10 FPP in all" in listed
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    seen = text_of(get(client, f"/play/{campaign['id']}"))
    # (the Roadblock is a line of the Fortification table its own forms offer; not bought)
    assert "Fortifications bought" not in seen and "1 x Roadblock" not in seen


def test_the_director_ends_each_player_turn_from_the_page_and_the_game_end_dr_falls_due(
        client: TestClient) -> None:
    # KGP CG23: the ATTACKER makes a Game End dr at the end of each Player Turn from Game
    # Turn 6 on; only the director ends a turn, from its page, the next one in order.
    from tests.web.test_control_page import in_play
    campaign = in_play(client, "kgp")
    log_in(client, campaign["tokens"]["director"])
    ended = []
    while not (turn := status(client, campaign, "/guide")["turn"])["due_first"]:
        assert f"{turn['name']} has ended" in text_of(get(client, f"/play/{campaign['id']}"))
        fields = {"action": "end_turn", "turn": str(turn["turn"]),
                  "player_turn": str(turn["player_turn"])}
        if turn["circled"]:  # Game Turn 6's box: not in the seeds, the director reads it
            html = get(client, f"/play/{campaign['id']}")
            assert 'name="circled"' in html and "Game Turn 6's box" in text_of(html)
            unread = act(client, campaign, fields)
            assert unread.status_code == 422 and 'aria-invalid="true"' in unread.text
            fields["circled"] = "3"
        answer = act(client, campaign, fields)
        assert answer.status_code == 303, answer.text
        ended.append(turn["name"])
    assert len(ended) == 11 and ended[-1] == "Player Turn 1 of Game Turn 6"
    page = text_of(get(client, f"/play/{campaign['id']}"))
    assert "Player Turn 1 of Game Turn 6 has ended." in page
    assert "CG23: the Game End dr is made at the end of each Player Turn from Game Turn 6 on" \
        in page  # not "of Game Turn 6 and of each Player Turn after it"
    assert "Due first: the Game End dr for Player Turn 1 of Game Turn 6, by the " in page
    again = act(client, campaign, {"action": "end_turn", "turn": "6", "player_turn": "2"})
    assert "is due first" in text_of(again.text)
    sides = status(client, campaign, "/guide")["sides"]
    assert {(d["table"], d["subject"]) for part in sides.values() for d in part["due"]} == \
        {("CG23", "turn:6/pt:1")}
    side = next(iter(sides))
    log_in(client, campaign["tokens"]["sides"][side])
    html = get(client, f"/play/{campaign['id']}")
    page = text_of(html)
    assert "CG23" in page and "has ended" not in page  # the director's form only
    # Turn 6's circled number is the director's: the side that rolls is not asked for it,
    # and its card says what the dr is compared with.
    assert 'name="target"' not in html
    assert "Scenario ends on a Final dr < 3, the number circled in Game Turn 6's box" in html
    answer = act(client, campaign, {"action": "roll", "side": side, "table": "CG23",
                                    "subject": "turn:6/pt:1"})
    assert answer.status_code == 303, answer.text
    [made] = [r for r in status(client, campaign, "/rolls") if r["table"] == "CG23"]
    assert (made["subject"], made["target"]) == ("turn:6/pt:1", 3)
    other = next(s for s in sides if s != side)  # the opponent sees what it was against
    log_in(client, campaign["tokens"]["sides"][other])
    assert "against 3" in text_of(get(client, f"/play/{campaign['id']}"))
    assert not any(part["due"] for part in status(client, campaign, "/guide")["sides"].values())


def test_every_report_settled_on_the_cg_date_is_listed_the_earlier_ones_folded(
        client: TestClient, campaign: dict[str, Any]) -> None:
    axis, british = campaign["tokens"]["sides"][AXIS], campaign["tokens"]["sides"][BRITISH]
    for report in range(1, 11):
        send(client, campaign, axis, {"type": "record_casualty", "side": AXIS,
                                      "unit": f"4-6-8 #{report}", "cvp": 1})
        answer = send(client, campaign, british, {"type": "confirm_report", "side": BRITISH,
                                                  "report": report})
        assert answer.status_code == 200, answer.text
    log_in(client, campaign["tokens"]["director"])
    page = get(client, f"/play/{campaign['id']}")
    section = page.split('class="settled card"', 1)[1].split("</section>", 1)[0]
    newest, _, earlier = section.partition('class="settled-earlier"')
    assert [f'data-report="{n}"' in newest for n in (10, 3, 2)] == [True, True, False]
    assert "2 settled earlier on" in text_of(earlier)
    assert 'data-report="1"' in earlier and 'data-report="2"' in earlier


def test_an_item_not_on_the_fortification_table_is_refused_by_the_forms_own_label(
        client: TestClient, campaign: dict[str, Any]) -> None:
    at_3_619_with_20_fpp(client, campaign)
    answer = act(client, campaign, {"action": "fortification", "side": AXIS,
                                    "item": "Pillbox", "count": "1"})
    said = text_of(answer.text)
    assert answer.status_code == 422 and "is not on the Fortification Purchase Table" in said
    assert "(field: Fortification (FPP each))" in said and "(field: Reason)" not in said


def test_a_reph_whose_steps_are_owner_data_not_loaded_says_so_on_every_page(
        client: TestClient) -> None:
    # KGP's RePh steps (8.6) are not in the seeds: once the scenario ends, nothing can be
    # advanced, and each page says why (before, the director read "Nothing due").
    campaign = new_campaign(client, module="kgp", name="Stoumont")
    tokens = campaign["tokens"]
    log_in(client, tokens["sides"]["US"])
    page = text_of(get(client, f"/play/{campaign['id']}"))
    assert "Nothing due in the CG Scenario." in page and "owner data not loaded" not in page
    ended = send(client, campaign, tokens["director"], {"type": "end_scenario"})
    assert ended.status_code == 200, ended.text
    said = ("The KGP Refit Phase steps (8.6) are owner data not loaded here: the Refit "
            "Phase goes on once an owner loads them")
    for token in (tokens["director"], tokens["sides"]["German"], tokens["observer"]):
        log_in(client, token)
        assert said in text_of(get(client, f"/play/{campaign['id']}")), token
    assert status(client, campaign, "/guide")["stalled"].startswith("the KGP Refit Phase")
