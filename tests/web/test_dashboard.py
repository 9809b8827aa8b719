"""The admin's tournament dashboard (GET /admin): two campaigns told as they progress, each
row saying its CG Date, RePh step, each side's state (working, waiting, done), the
disputes awaiting a ruling and when it last moved; the filter and sort form; no side's
secret on it; no dashboard for a campaign's roles; no query that gives a 500."""

from __future__ import annotations

import html as markup
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, expect

from api.web.dashboard import dashboard, date_key
from infra.settings import Settings
from tests.helpers.http import ADMIN
from tests.helpers.tamper import CORRUPTIONS, set_row
from tests.helpers.web import AXIS, BRITISH, text_of
from tests.http.test_reports import LOST, Table
from tests.web.test_browser import WIDTHS, shoot

STATE = re.compile(r'data-side="([^"]+)" data-state="([^"]+)"><strong>[^<]+</strong> '
                   r"<span>([^<]*)</span>")


@pytest.fixture
def ranville(client: TestClient) -> Table:
    """PBr CG I at 14AM 3.618: the Axis bought an I5 in secret; its RG strength DR due."""
    table = Table(client, "Ranville")
    table.ok("director", {"type": "credit_cpp", "side": AXIS, "amount": 39,
                          "reason": "3.6161"})
    table.ok(AXIS, {"type": "purchase_rg", "side": AXIS, "rg": "I5"})
    table.ok("director", {"type": "advance"})
    return table


@pytest.fixture
def bridge(client: TestClient, ranville: Table) -> Table:
    """A second campaign, created after Ranville, in its 14AM CG Scenario."""
    table = Table(client, "Pegasus Bridge")
    table.to("scenario")
    return table


def admin_page(client: TestClient, **query: Any) -> str:
    """The dashboard as the admin's session opens it."""
    client.post("/login", data={"token": ADMIN})
    answer = client.get("/admin", params=query, follow_redirects=False)
    assert answer.status_code == 200, answer.text
    return answer.text


def row(page: str, table: Table) -> dict[str, Any]:
    """A campaign's row: its text, each side's (state, words), whether it is flagged."""
    found = re.search(rf'<tr class="([^"]*)" data-campaign="{table.campaign["id"]}">'
                      r"(.*?)</tr>", page, re.S)
    assert found is not None, "the campaign has no row"
    states = {side: (state, markup.unescape(says))
              for side, state, says in STATE.findall(found[2])}
    return {"text": markup.unescape(text_of(found[2])), "sides": states,
            "needs": found[1] == "needs"}


def order(page: str, *tables: Table) -> list[str]:
    """The campaigns' names in the order the page lists them."""
    ids = re.findall(r'data-campaign="([^"]+)"', page)
    names = {table.campaign["id"]: table.read("observer", "").json()["name"]
             for table in tables}
    return [names[ident] for ident in ids if ident in names]


def roll_due(table: Table, side: str) -> None:
    """The side rolls, with its own token, each roll its own guide lists as due."""
    for _ in range(5):
        due = [w for w in table.read(side, "/guide").json()["sides"][side]["due"]
               if "table" in w]
        for work in due:
            table.ok(side, {"type": "roll", "table": work["table"], "side": side,
                            "subject": work["subject"]})
        if not due:
            return


def test_each_row_tells_the_step_and_each_sides_state_as_two_campaigns_progress(
        client: TestClient, ranville: Table, bridge: Table) -> None:
    first = row(admin_page(client), ranville)
    assert "14AM" in first["text"] and "3.618" in first["text"]
    assert first["sides"] == {AXIS: ("working", "working on 3.618"),
                              BRITISH: ("working", "working on 3.618")}
    assert not first["needs"] and "none" in first["text"]

    roll_due(ranville, AXIS)
    ranville.ok(AXIS, {"type": "advance", "side": AXIS})  # the Axis's part of 3.618 done
    after = row(admin_page(client), ranville)
    assert after["sides"] == {AXIS: ("waiting", "done with 3.618; waiting on the British"),
                              BRITISH: ("working", "working on 3.618")}

    played = row(admin_page(client), bridge)
    assert "CG Scenario" in played["text"]
    assert set(played["sides"].values()) == {("working", "playing the CG Scenario")}
    bridge.ok(AXIS, LOST)
    reported = row(admin_page(client), bridge)
    assert reported["sides"] == {AXIS: ("waiting", "waiting on the British: report 1"),
                                 BRITISH: ("working", "report 1 to answer")}
    bridge.ok(BRITISH, {"type": "dispute_report", "report": 1, "side": BRITISH,
                        "reason": "a 4-4-7, 1 CVP"})
    disputed = row(admin_page(client), bridge)
    assert disputed["needs"] and "1 ruling pending" in disputed["text"]
    assert "report 1: the Axis lost 4-6-8 (2 CVP)" in disputed["text"]
    assert disputed["sides"][AXIS] == ("waiting", "waiting on the director: report 1")
    bridge.ok("director", {"type": "withdraw_report", "report": 1, "reason": "a 4-4-7"})
    assert not row(admin_page(client), bridge)["needs"]  # the ruling given


def test_the_form_filters_by_name_module_and_need_and_sorts(
        client: TestClient, ranville: Table, bridge: Table) -> None:
    both = (ranville, bridge)
    assert order(admin_page(client, q="PEGASUS"), *both) == ["Pegasus Bridge"]
    assert order(admin_page(client, module="pbr", sort="name"), *both) == \
        ["Pegasus Bridge", "Ranville"]
    assert order(admin_page(client, sort="activity"), *both) == ["Pegasus Bridge", "Ranville"]
    ranville.ok("director", {"type": "credit_cpp", "side": BRITISH, "amount": 1,
                             "reason": "3.6161"})  # Ranville moved last
    assert order(admin_page(client, sort="activity"), *both) == ["Ranville", "Pegasus Bridge"]
    assert order(admin_page(client, sort="quiet"), *both) == ["Pegasus Bridge", "Ranville"]
    assert order(admin_page(client, needs="director"), *both) == []
    bridge.ok(AXIS, LOST)
    bridge.ok(BRITISH, {"type": "dispute_report", "report": 1, "side": BRITISH,
                        "reason": "a 4-4-7"})
    page = admin_page(client, needs="director")
    assert order(page, *both) == ["Pegasus Bridge"] and 'value="director" checked' in page
    nothing = admin_page(client, q="Arnhem")
    assert order(nothing, *both) == [] and "No campaign matches these filters" in nothing


def test_campaign_dates_sort_in_calendar_order() -> None:
    dates = ["19AM", "18PM", "9PM", "18AM", "10AM"]
    assert sorted(dates, key=date_key) == ["9PM", "10AM", "18AM", "18PM", "19AM"]


def test_a_refit_phase_quiet_for_a_day_needs_the_director_a_scenario_in_play_does_not(
        client: TestClient, ranville: Table, bridge: Table) -> None:
    refit = client.app.state.refit  # type: ignore[attr-defined]
    later = datetime.now(UTC) + timedelta(hours=25)
    lines = dashboard(refit, {"needs": "director"}, now=later)["lines"]
    assert [line.status.name for line in lines] == ["Ranville"]
    assert lines[0].stalled and lines[0].ago == "1 d ago"
    assert dashboard(refit, {"needs": "director"})["lines"] == []  # not yet


def test_the_dashboard_shows_no_sides_secret(client: TestClient, ranville: Table) -> None:
    director = ranville.read("director", "/guide").json()
    assert any(w["subject"].startswith("rg:") for w in director["sides"][AXIS]["due"])
    roll_due(ranville, AXIS)  # its secret RG strength DR
    page = admin_page(client)
    # the Axis's secret RG line, its roll and its CPP are not on it, nor how many it rolls
    assert all(secret not in page for secret in ("I5", "rg:1", "RG line", "3.6181", "CPP"))
    assert row(page, ranville)["sides"][AXIS] == ("working", "working on 3.618")
    tokens = ranville.campaign["tokens"]
    assert all(token not in page for token in [tokens["director"], *tokens["sides"].values()])


@pytest.mark.parametrize("role", ["director", "observer", AXIS])
def test_a_campaign_roles_session_gets_no_dashboard(
        client: TestClient, ranville: Table, role: str) -> None:
    login = client.post("/login", data={"token": ranville.tokens[role]},
                        follow_redirects=False)
    assert login.headers["location"] == f"/play/{ranville.campaign['id']}"
    answer = client.get("/admin", follow_redirects=False)
    assert (answer.status_code, answer.headers["location"]) == (303, "/")


HOSTILE = [{"q": "x" * 5000}, {"q": "\x00\x01'\"<script>alert(1)</script>"},
           {"q": "ü𝔘 ranville"}, {"module": "../../etc/passwd"}, {"module": "PBR"},
           {"sort": "__class__"}, {"sort": ""}, {"needs": "everyone"},
           {"needs": ["director", "x"]}, {"q": ["a", "b"], "sort": ["name", "zzz"]},
           {"unknown": "1"}, {"q": "%ff%00", "module": "pbr"}]


def test_hostile_query_parameters_are_ignored_with_a_note_never_a_500(
        client: TestClient, ranville: Table) -> None:
    for query in HOSTILE:
        page = admin_page(client, **query)
        assert "<script>alert" not in page  # escaped, as every value the page echoes
        wrong = {"q": len(str(query.get("q", ""))) > 100, "module": "etc" in str(query),
                 "sort": "__class__" in str(query) or "zzz" in str(query),
                 "needs": "everyone" in str(query) or "x" in query.get("needs", [])}
        notes = re.findall(r'<p class="warn" role="status">([^<]+)</p>', page)
        assert len(notes) == sum(wrong.values()), (query, notes)


def test_in_a_browser_the_admin_reads_the_dashboard_and_filters_it(
        browser: Browser, live: str, shots: Path) -> None:
    with httpx.Client(base_url=live) as api:
        tables = [Table(api, name) for name in ("Ranville", "Hill 112", "Pegasus Bridge")]
        for table in tables:
            table.ok("director", {"type": "advance"})  # each moves a step
        tables[1].ok(BRITISH, {"type": "advance", "side": BRITISH})  # its part done
        bridge = Table(api, "Merville Battery")
        bridge.to("scenario")
        bridge.ok(AXIS, LOST)
        bridge.ok(BRITISH, {"type": "dispute_report", "report": 1, "side": BRITISH,
                            "reason": "a 4-4-7, 1 CVP"})
    page = browser.new_context(viewport={"width": WIDTHS[0], "height": 900}).new_page()
    page.goto(live)
    page.get_by_label("Token").fill(ADMIN)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live}/admin")
    expect(page.locator("table.dash tbody tr")).to_have_count(4)
    expect(page.locator('li.st.waiting[data-side="British"]')).to_contain_text("waiting on")
    shoot(page, shots, "dashboard")
    page.get_by_label("Needs the director only").check()
    page.get_by_role("button", name="Show").click()
    expect(page).to_have_url(re.compile(r"/admin\?.*needs=director"))
    expect(page.locator("table.dash tbody tr")).to_have_count(1)
    expect(page.locator("tr.needs")).to_contain_text("1 ruling pending")
    shoot(page, shots, "dashboard-needs")


def test_a_damaged_campaign_is_listed_saying_so_beside_the_others(
        client: TestClient, ranville: Table, bridge: Table, settings: Settings) -> None:
    set_row(settings.database_url, UUID(ranville.campaign["id"]), 2,
            CORRUPTIONS["garbage state"])
    client.app.state.refit.store.forget(UUID(ranville.campaign["id"]))  # type: ignore[attr-defined]
    page = admin_page(client)
    damaged = row(page, ranville)
    assert damaged["needs"] and "version 2" in damaged["text"] and not damaged["sides"]
    assert row(page, bridge)["sides"]  # the other campaign is read as before
