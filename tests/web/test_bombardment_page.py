"""A pre-game Bombardment resolved from the side's page (PBr RG chart note i): the guide
offers it at 3.623 and the page shows it with a button; the opponent's page and live
stream see only that a sealed fact was recorded, never the RG or its line."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.helpers.web import AXIS, BRITISH, text_of
from tests.http.test_reports import Table
from tests.web.test_director_tools import get, log_in
from tests.web.test_scenario_page import act


def chits(table: Table, chit: str) -> None:
    """Both sides choose their Initiative chit at 3.621."""
    table.to("reph", "3.621")
    for side in (AXIS, BRITISH):
        table.ok(side, {"type": "select_initiative", "side": side, "chit": chit})


def bombardment_at_3_623(client: TestClient) -> Table:
    """PBr CG I in 15AM's RePh at 3.623: the British bought a B1 Bombardment (line 1) at
    3.617 (on or after 14N, note p) and both chose Attack."""
    table = Table(client, name="Bénouville")
    for _ in ("14PM", "14N"):  # each CG Date's RePh to its scenario, played
        chits(table, "attack")
        table.to("scenario")
    table.to("reph", "3.617")
    table.ok("director", {"type": "credit_cpp", "side": BRITISH, "amount": 20,
                          "reason": "3.6161"})
    bought = table.ok(BRITISH, {"type": "purchase_rg", "side": BRITISH, "rg": "B1"})
    assert bought["events"][0]["data"]["purchase"] == 1
    chits(table, "attack")
    table.to("reph", "3.623")
    return table



def guided(table: Table) -> list[dict[str, Any]]:
    """The Bombardments the British JSON guide offers to resolve now."""
    optional = table.read(BRITISH, "/guide").json()["sides"][BRITISH]["optional"]
    return [w for w in optional if w.get("command") == "resolve_bombardment"]


def test_the_british_resolve_their_bombardment_from_the_page_the_guide_offers_it_on(
        client: TestClient) -> None:
    table = bombardment_at_3_623(client)
    campaign = table.campaign
    assert [(w["rg"], w["purchase"]) for w in guided(table)] == [("B1", 1)]
    log_in(client, table.tokens[BRITISH])
    page = get(client, f"/play/{campaign['id']}")
    card = text_of(page.split('class="bombardments"', 1)[1].split("</div>", 1)[0])
    assert "Pre-game Bombardment 3.6178 note i" in card and "B1 line #1" in card
    before = table.read("director", "").json()["version"]
    answer = act(client, campaign, {"action": "bombardment", "side": BRITISH,
                                    "purchase": "1"})
    assert answer.status_code == 303, answer.text
    page = text_of(get(client, answer.headers["location"]))
    assert "Recorded: British RG #1: its pre-game Bombardment resolved for 15AM, then " \
        "Eliminated (note i) (3.6178)." in page
    assert table.read("director", "").json()["version"] == before + 1
    assert guided(table) == [] and 'class="bombardments"' not in page
    # Its line stays in what was bought, Eliminated, with no Setup/Entry Area to record.
    assert "B1 (Bombardment) · 3 CPP line #1 · left the OB: 15AM: Bombardment " \
        "resolved, Eliminated (note i)" in page and "Its Setup/Entry Area" not in page
    lines = table.read(BRITISH, "/purchase-record").json()
    assert lines[0]["removed"] == "15AM: Bombardment resolved, Eliminated (note i)"


def test_the_axis_page_never_shows_the_british_bombardment_nor_its_line(
        client: TestClient) -> None:
    table = bombardment_at_3_623(client)
    campaign = table.campaign
    log_in(client, table.tokens[AXIS])
    assert "Bombardment" not in text_of(get(client, f"/play/{campaign['id']}"))
    table.ok(BRITISH, {"type": "resolve_bombardment", "side": BRITISH, "purchase": 1})
    seen = text_of(get(client, f"/play/{campaign['id']}"))
    assert "Bombardment" not in seen and "B1" not in seen and "RG #1" not in seen


def test_a_second_bombardment_is_refused_on_the_page_with_note_i_and_appends_nothing(
        client: TestClient) -> None:
    table = bombardment_at_3_623(client)
    campaign = table.campaign
    log_in(client, table.tokens[BRITISH])
    act(client, campaign, {"action": "bombardment", "side": BRITISH, "purchase": "1"})
    before = table.read("director", "").json()["version"]
    answer = act(client, campaign, {"action": "bombardment", "side": BRITISH,
                                    "purchase": "1"})
    assert answer.status_code == 422, answer.text
    assert "already left the OB" in text_of(answer.text)
    for purchase in ("", "x", "0"):
        answer = act(client, campaign, {"action": "bombardment", "side": BRITISH,
                                        "purchase": purchase})
        assert answer.status_code == 422 and "RG line #:" in text_of(answer.text)
    assert table.read("director", "").json()["version"] == before


def test_the_director_resolves_the_british_bombardment_from_its_page_too(
        client: TestClient) -> None:
    table = bombardment_at_3_623(client)
    campaign = table.campaign
    log_in(client, table.tokens["director"])
    page = get(client, f"/play/{campaign['id']}")
    assert "B1 line #1" in text_of(page.split('class="bombardments"', 1)[1])
    answer = act(client, campaign, {"action": "bombardment", "side": BRITISH,
                                    "purchase": "1"})
    assert answer.status_code == 303, answer.text  # the director acts for a side
    assert guided(table) == []
    assert table.read(BRITISH, "/purchase-record").json()[0]["removed"] == \
        "15AM: Bombardment resolved, Eliminated (note i)"
