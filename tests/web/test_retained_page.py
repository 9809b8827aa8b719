"""A side keeps its Retained units (PBr 3.6055, 3.613) on its page, from the RePh's New CG
Date step on: the list recorded for the CG Date, and one form that records the whole list
again (a line added, changed, or taken off by clearing its Unit), as `retain_units` does.
A refusal names the field or the rule and appends nothing; a page the list has moved past
is refused; the opponent's page, guide and Retained units show only the open part, never
a HIP unit nor an RG line, and each change is one open and one sealed record, as before."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

from fastapi.testclient import TestClient

from api.web.retained_form import listed
from tests.helpers.web import AXIS, BRITISH, text_of
from tests.http.test_reports import Table
from tests.web.test_director_tools import get, log_in
from tests.web.test_scenario_page import act


def in_the_reph(client: TestClient, step: str = "3.612") -> Table:
    """PBr CG I in the RePh after the 14AM scenario (14PM from 3.612 on)."""
    table = Table(client, name="Bénouville")
    table.to("reph", step)
    return table


def british_list(client: TestClient, units: list[dict[str, Any]]) -> Table:
    """In the RePh after 14AM (14PM's list), the British have recorded these Retained
    units through the API, and their page is open."""
    table = in_the_reph(client)
    table.ok(BRITISH, {"type": "retain_units", "side": BRITISH, "units": units})
    log_in(client, table.tokens[BRITISH])
    return table


def card(page: str) -> str:
    """The words of the page's Retained units card."""
    return text_of(page.split('class="retained"', 1)[1].split("</section>", 1)[0])


class Fields(HTMLParser):
    """A form's fields as a browser would send them: inputs (checkboxes when checked), and
    each select's selected option."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}
        self.select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        got = {k: v or "" for k, v in attrs}
        if tag == "input" and (got.get("type") != "checkbox" or "checked" in got):
            self.fields[got["name"]] = got.get("value", "")
        elif tag == "select":
            self.select = got["name"]
            self.fields.setdefault(self.select, "")
        elif tag == "option" and self.select and "selected" in got:
            self.fields[self.select] = got.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self.select = None


def shown(page: str) -> dict[str, str]:
    """The Retained units form's fields as the page fills them in."""
    parser = Fields()
    parser.feed(page.split('class="retain"', 1)[1].split("</form>", 1)[0])
    return parser.fields


def record(client: TestClient, campaign: dict[str, Any], **changed: str) -> Any:
    """The British page's form sent with these fields changed, the rest as shown."""
    page = get(client, f"/play/{campaign['id']}")
    fields = {k: v for k, v in shown(page).items() if k not in ("csrf", "side", "action")}
    return act(client, campaign, {"action": "retained", "side": BRITISH} | fields | changed)


def line(n: int, unit: str, count: str, area: str, kind: str, **flags: str) -> dict[str, str]:
    """Line n's fields as typed."""
    return {f"unit.{n}": unit, f"count.{n}": count, f"area.{n}": area, f"kind.{n}": kind} | {
        f"{flag}.{n}": value for flag, value in flags.items()}


def test_the_british_record_change_and_take_off_retained_units_on_their_page(
        client: TestClient) -> None:
    table = in_the_reph(client)
    campaign = table.campaign
    log_in(client, table.tokens[BRITISH])
    assert "None recorded for 14PM yet." in card(get(client, f"/play/{campaign['id']}"))

    first = record(client, campaign, **line(0, "6-5-8", "10", "A1", "squad"),
                   **line(1, "6-5-8", "2", "A1", "squad", hip="yes"))
    assert first.status_code == 303, first.text
    said = text_of(get(client, first.headers["location"]))
    assert "British Retained: 10 x 6-5-8 in A1" in said
    page = get(client, f"/play/{campaign['id']}")
    assert "1 6-5-8 squad 10 A1" in card(page) and "2 6-5-8 squad, HIP, sealed 2 A1" in card(page)
    assert shown(page)["rows"] == "6"  # the two lines and four blank ones
    # The side records its list again itself: the confirmation says so, not "undo".
    form = page.split('class="retain"', 1)[1].split("</form>", 1)[0]
    assert "They replace the list recorded so far; the British side may record it again" \
        in form and "undo" not in form

    taken = record(client, campaign, **{"unit.1": ""},  # cleared: taken off
                   **line(2, "8-1", "1", "A2", "leader", isolated="yes"))

    assert taken.status_code == 303, taken.text
    units = table.read(BRITISH, "/retained").json()
    assert [(u["unit"], u["count"], u["hip"], u["isolated"]) for u in units] == [
        ("6-5-8", 10, False, False), ("8-1", 1, False, True)]


def test_a_refused_list_names_its_field_or_rule_and_appends_nothing(
        client: TestClient) -> None:
    table = in_the_reph(client)
    campaign = table.campaign
    log_in(client, table.tokens[BRITISH])
    record(client, campaign, **line(0, "6-5-8", "10", "A1", "squad"))
    before = table.read("director", "").json()["version"]

    too_many = record(client, campaign, **line(1, "6-5-8", "3", "A1", "squad", hip="yes"))
    no_area = record(client, campaign, **line(1, "6-5-8", "1", "", "squad"))
    no_kind = record(client, campaign, **line(1, "6-5-8", "1", "A1", ""))
    tampered = record(client, campaign, **line(1, "6-5-8", "1", "A1", "tank"))

    assert too_many.status_code == 422 and "Refused by rule 3.619" in text_of(too_many.text)
    assert shown(too_many.text)["count.1"] == "3"  # the form back as typed, to correct
    assert no_area.status_code == 422
    assert "line 2: " in text_of(no_area.text) and "(field: Setup/Entry Area)" in text_of(
        no_area.text)
    assert no_kind.status_code == 422
    assert "choose the kind of line 2 (6-5-8): what the limits count, or none" in text_of(
        no_kind.text)
    assert tampered.status_code == 422
    assert table.read("director", "").json()["version"] == before


def test_a_fortification_line_needs_no_kind_chosen(client: TestClient) -> None:
    table = in_the_reph(client)
    log_in(client, table.tokens[BRITISH])
    kept = record(client, table.campaign, **line(0, "Foxhole 1S", "1", "A1", "",
                                                 fortification="yes"),
                  **{"hex.0": "Q16", "item.0": "Foxhole (1-squad)"})
    assert kept.status_code == 303, text_of(kept.text)
    (unit,) = table.read(BRITISH, "/retained").json()
    assert (unit["unit"], unit["kind"], unit["fortification"]) == ("Foxhole 1S", None, True)


def test_a_page_the_list_has_moved_past_is_refused_and_a_lines_more_is_kept(
        client: TestClient) -> None:
    table = british_list(client, [
        {"unit": "Foxhole 1S", "count": 1, "area": "A1", "fortification": True,
         "hex": "Q7", "item": "Foxhole (1-squad)"}])
    campaign = table.campaign
    stale = get(client, f"/play/{campaign['id']}")
    fields = {k: v for k, v in shown(stale).items() if k not in ("csrf", "side", "action")}
    assert record(client, campaign, **line(1, "6-5-8", "4", "A1", "squad")).status_code == 303

    late = act(client, campaign, {"action": "retained", "side": BRITISH} | fields)

    assert late.status_code == 422
    assert "the British Retained units have changed since this page was loaded: here " \
        "they are as they are now" in text_of(late.text)
    units = table.read(BRITISH, "/retained").json()
    assert [(u["unit"], u["hex"], u["item"]) for u in units] == [
        ("6-5-8", None, None), ("Foxhole 1S", "Q7", "Foxhole (1-squad)")]
    again = {k: v for k, v in shown(late.text).items() if k not in ("csrf", "side", "action")}
    assert again["unit.0"] == "6-5-8"  # the form as the list is now, to change again
    assert act(client, campaign, {"action": "retained", "side": BRITISH} | again).status_code \
        == 303


def test_the_form_is_offered_from_the_new_cg_date_step_on(client: TestClient) -> None:
    table = in_the_reph(client, "3.605")
    log_in(client, table.tokens[BRITISH])
    assert 'class="retained"' not in get(client, f"/play/{table.campaign['id']}")
    table.to("reph", "3.612")
    assert "Retained units, 14PM 3.605, 3.613" in card(get(client, f"/play/{table.campaign['id']}"))


def test_the_axis_sees_only_the_open_part_and_never_an_rg_line(client: TestClient) -> None:
    table = in_the_reph(client, "3.617")
    table.ok("director", {"type": "credit_cpp", "side": BRITISH, "amount": 20,
                          "reason": "3.6161"})
    table.ok(BRITISH, {"type": "purchase_rg", "side": BRITISH, "rg": "I2"})  # line 1
    campaign = table.campaign
    log_in(client, table.tokens[BRITISH])
    record(client, campaign, **line(0, "6-5-8", "4", "A1", "squad") | {"purchase.0": "1"},
           **line(1, "3-4-8", "1", "A2", "HS", hip="yes"))
    assert "1 6-5-8 squad 4 A1 #1" in card(get(client, f"/play/{campaign['id']}"))

    log_in(client, table.tokens[AXIS])
    page = get(client, f"/play/{campaign['id']}")
    seen = text_of(page)
    assert "Retained units of the British" not in seen and "3-4-8" not in seen
    assert "None recorded for 14PM yet." in card(page)  # the Axis's own card, empty
    assert BRITISH not in table.read(AXIS, "/guide").json()["sides"]
    assert [(u["unit"], u["purchase"]) for u in table.read(AXIS, "/retained").json()] == [
        ("6-5-8", None)]
    kinds = [e["type"] for e in table.read(AXIS, "/events").json()[-2:]]
    assert kinds == ["UnitsRetained", "Sealed"]  # one open record and one sealed: the list's
    observer = table.read("observer", "/guide").json()
    assert all(part["retained"] == [] for part in observer["sides"].values())
    log_in(client, table.tokens["observer"])
    assert 'class="retained"' not in get(client, f"/play/{campaign['id']}")


def test_the_axis_cannot_send_the_british_list_nor_learn_from_its_refusal(
        client: TestClient) -> None:
    table = in_the_reph(client)
    campaign = table.campaign
    log_in(client, table.tokens[BRITISH])
    record(client, campaign, **line(0, "6-5-8", "10", "A1", "squad"),
           **line(1, "6-5-8", "1", "A1", "squad", hip="yes"))
    theirs = table.read(BRITISH, "/guide").json()["sides"][BRITISH]["retained"]
    log_in(client, table.tokens[AXIS])

    answers = [act(client, campaign, {"action": "retained", "side": BRITISH, "rows": "0",
                                      "listed": guess})
               for guess in (listed(theirs), listed(theirs[:1]), "0" * 16)]

    assert {answer.status_code for answer in answers} == {403}  # a right guess alike
    assert len({text_of(answer.text) for answer in answers}) == 1
    assert "the Axis token acts for the Axis only" in text_of(answers[0].text)


def test_a_tampered_form_is_refused_small_and_whole(client: TestClient) -> None:
    table = in_the_reph(client)
    campaign = table.campaign
    log_in(client, table.tokens[BRITISH])
    before = table.read("director", "").json()["version"]

    for rows in ("99999999999", "5e4", "1_000", "505"):
        answer = record(client, campaign, rows=rows)
        assert answer.status_code == 422
        assert "a form lists 0 to 504 lines: load the page again" in text_of(answer.text)
        assert answer.text.count('<fieldset class="line">') == 4  # as the list is: none, +4
    deep = record(client, campaign, **line(0, "6-5-8", "1", "A1", "squad"),
                  **{"more.0": '{"hex": ' + "[" * 100_000 + "]" * 100_000 + "}"})
    assert deep.status_code == 422 and "load the page again" in text_of(deep.text)
    assert table.read("director", "").json()["version"] == before


def test_a_list_of_two_hundred_lines_goes_back_through_the_page_whole(
        client: TestClient) -> None:
    table = british_list(client, [
        {"unit": f"4-4-7 #{n}", "count": 1, "area": "A1", "kind": "squad", "elite": True}
        for n in range(200)])
    campaign = table.campaign

    answer = record(client, campaign, **{"count.0": "2"})  # 1,400 fields and more

    assert answer.status_code == 303, answer.text[:300]
    units = table.read(BRITISH, "/retained").json()
    assert len(units) == 200 and units[0]["count"] == 2 and all(u["elite"] for u in units)


def test_a_new_cg_dates_form_starts_from_the_list_last_recorded(client: TestClient) -> None:
    table = in_the_reph(client)
    campaign = table.campaign
    log_in(client, table.tokens[BRITISH])
    record(client, campaign, **line(0, "6-5-8", "10", "A1", "squad"),
           **line(1, "6-5-8", "1", "A1", "squad", hip="yes"))
    table.to("reph", "3.621")
    for side in (AXIS, BRITISH):  # both Idle: no scenario, the RePh again for 14N
        table.ok(side, {"type": "select_initiative", "side": side, "chit": "idle"})
    table.to("reph", "3.612")
    page = get(client, f"/play/{campaign['id']}")
    assert "None recorded for 14N yet." in card(page)
    assert "Filled in from the list the British last recorded" in card(page)
    assert shown(page)["unit.0"] == "6-5-8" and shown(page)["hip.1"] == "yes"

    kept = record(client, campaign, **{"count.0": "9"})

    assert kept.status_code == 303, kept.text[:300]
    now = [(u["cg_date"], u["count"], u["hip"]) for u in table.read(BRITISH, "/retained").json()]
    assert ("14N", 9, False) in now and ("14N", 1, True) in now
    log_in(client, table.tokens[AXIS])  # the Axis's own form starts from its own: none
    assert "Filled in" not in card(get(client, f"/play/{campaign['id']}"))


def test_a_fortification_and_its_hex_are_kept_from_the_page_its_hex_sealed(
        client: TestClient) -> None:
    table = in_the_reph(client)
    campaign = table.campaign
    log_in(client, table.tokens[BRITISH])
    answer = record(client, campaign, **line(0, "6-5-8", "4", "A1", "squad"),
                    **line(1, "Foxhole 2S", "1", "A1", "none", fortification="yes"),
                    **{"hex.1": "Q16", "item.1": "Foxhole (2-squad)"})
    assert answer.status_code == 303, answer.text
    units = table.read(BRITISH, "/retained").json()
    assert [(u["unit"], u["fortification"], u["hex"], u["item"]) for u in units] == [
        ("6-5-8", False, None, None), ("Foxhole 2S", True, "Q16", "Foxhole (2-squad)")]
    page = get(client, f"/play/{campaign['id']}")
    assert "Foxhole 2S Fortification: Foxhole (2-squad) in Q16, sealed" in card(page)
    fields = shown(page)
    foxhole = next(n for n in range(4) if fields.get(f"unit.{n}") == "Foxhole 2S")
    assert (fields[f"hex.{foxhole}"], fields[f"fortification.{foxhole}"],
            fields[f"item.{foxhole}"]) == ("Q16", "yes", "Foxhole (2-squad)")
    moved = record(client, campaign, **{f"hex.{foxhole}": "R17"})  # changed on the page
    assert moved.status_code == 303, moved.text
    assert [u["hex"] for u in table.read(BRITISH, "/retained").json()] == [None, "R17"]
    seen = table.read(AXIS, "/retained").json()  # the Fortification's location is secret
    assert [u["unit"] for u in seen] == ["6-5-8"] and "R17" not in str(seen)


def test_a_hex_on_an_open_line_is_refused_naming_the_field(client: TestClient) -> None:
    table = in_the_reph(client)
    log_in(client, table.tokens[BRITISH])
    before = table.read("director", "").json()["version"]
    answer = record(client, table.campaign, **line(0, "6-5-8", "4", "A1", "squad"),
                    **{"hex.0": "Q16"})  # it would show the Axis where the squad is
    assert answer.status_code == 422
    assert "a hex is recorded for a Fortification or a HIP unit only" in text_of(answer.text)
    assert table.read("director", "").json()["version"] == before


def test_a_page_from_before_the_fortification_fields_is_refused_not_opened(
        client: TestClient) -> None:
    table = british_list(client, [
        {"unit": "Foxhole 2S", "area": "A1", "fortification": True, "hex": "Q16"}])
    campaign = table.campaign
    fields = {k: v for k, v in shown(get(client, f"/play/{campaign['id']}")).items()
              if k not in ("csrf", "side", "action", "fortification.0", "hex.0", "item.0")}
    before = table.read("director", "").json()["version"]
    # as the older form sent the line: its mark and hex in `more`, no field of their own
    old = fields | {"more.0": '{"hex": "Q16", "fortification": true, "shifted_from": null, '
                              '"weapon": null, "usage_dr": null, "item": null}'}
    answer = act(client, campaign, {"action": "retained", "side": BRITISH} | old)
    assert answer.status_code == 422 and "load the page again" in text_of(answer.text)
    assert table.read("director", "").json()["version"] == before
    assert table.read(AXIS, "/retained").json() == []


def test_a_foxhole_kept_from_the_page_lets_a_trench_be_dug_in_its_hex_next_cg_date(
        client: TestClient) -> None:
    table = in_the_reph(client)  # 14PM's list
    log_in(client, table.tokens[BRITISH])
    kept = record(client, table.campaign, **line(0, "Foxhole 2S", "1", "A1", "none",
                                                 fortification="yes"),
                  **{"hex.0": "Q16", "item.0": "Foxhole (2-squad)"})
    assert kept.status_code == 303, kept.text
    table.to("reph", "3.621")
    for side, chit in ((AXIS, "attack"), (BRITISH, "idle")):
        table.ok(side, {"type": "select_initiative", "side": side, "chit": chit})
    table.to("scenario")  # 14PM's
    table.to("reph", "3.619")  # 14N
    table.ok("director", {"type": "credit_fpp", "side": BRITISH, "amount": 20,
                          "reason": "M3 Fortification RG"})
    trench = {"type": "purchase_fortification", "side": BRITISH, "amount": 10,
              "reason": "Trench", "count": 1}
    page = get(client, f"/play/{table.campaign['id']}")
    assert "Trench · 10 FPP (in Q16)" in page  # offered where the Foxhole was, and only there
    assert '<datalist id="fort-hexes-British"><option value="Q16"></datalist>' in page
    elsewhere = table.send(BRITISH, trench | {"hex": "R17"})
    assert elsewhere.status_code == 422 and "3.619" in elsewhere.text
    table.ok(BRITISH, trench | {"hex": "Q16"})
    after = get(client, f"/play/{table.campaign['id']}")
    assert "Trench ·" not in after and "fort-hexes-British" not in after
    # 15AM: the list starts from 14PM's, with the Foxhole the Trench replaced as the Trench
    table.to("reph", "3.621")
    for side, chit in ((AXIS, "attack"), (BRITISH, "idle")):
        table.ok(side, {"type": "select_initiative", "side": side, "chit": chit})
    table.to("scenario")  # 14N's
    table.to("reph", "3.612")  # 15AM
    started = shown(get(client, f"/play/{table.campaign['id']}"))
    assert (started["unit.0"], started["item.0"], started["hex.0"]) == ("Trench", "Trench",
                                                                        "Q16")
    log_in(client, table.tokens[AXIS])  # the Foxhole's hex is the British's own
    axis_page = get(client, f"/play/{table.campaign['id']}")
    assert axis_page.count("Q16") == axis_page.count("e.g. Q16")  # a placeholder's only


def test_a_sides_fortification_items_are_those_its_table_lets_it_buy(
        client: TestClient) -> None:
    table = in_the_reph(client)
    for side, offered in ((AXIS, False), (BRITISH, True)):  # 3.619 d: British A-T mines
        log_in(client, table.tokens[side])
        form = get(client, f"/play/{table.campaign['id']}").split('class="retain"', 1)[1]
        choices = form.split('name="item.0"', 1)[1].split("</select>", 1)[0]
        assert "Foxhole (2-squad)" in choices
        assert ("A-T Mine factor" in choices) == offered, side
