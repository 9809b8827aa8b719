"""The CG Scenario's end in a real headless Chromium: the Axis reports a casualty from its
page, the British confirms it on its own page (which shows the report live), and the
director ends the scenario after the browser asks to confirm. Screenshots go to
test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, Route, expect

from tests.helpers.http import ADMIN, auth
from tests.helpers.web import AXIS, BRITISH
from tests.web.test_browser import joined, shoot


def in_scenario(api: httpx.Client) -> dict[str, Any]:
    """A PBr CG I campaign made by the admin, its Initial Scenario in play."""
    campaign: dict[str, Any] = api.post("/campaigns", headers=auth(ADMIN), json={
        "module": "pbr", "cg": "I", "name": "Ranville"}).json()
    director, base = auth(campaign["tokens"]["director"]), f"/campaigns/{campaign['id']}"
    while api.get(base, headers=director).json()["phase"] != "scenario":
        api.post(f"{base}/commands", headers=director, json={"type": "advance"})
    return campaign


def test_a_casualty_is_reported_confirmed_and_the_director_ends_the_scenario(
        browser: Browser, live: str, shots: Path) -> None:
    with httpx.Client(base_url=live) as api:
        campaign = in_scenario(api)
    tokens = campaign["tokens"]
    axis = joined(browser, live, campaign, tokens["sides"][AXIS])
    british = joined(browser, live, campaign, tokens["sides"][BRITISH])
    axis.get_by_label("Unit lost").fill("   ")  # passes the browser's `required`, not ours
    axis.get_by_label("CVP it is worth").fill("2")
    axis.get_by_role("button", name="Report the casualty").click()
    expect(axis.get_by_role("alert")).to_contain_text("Unit lost: left empty")
    # the form comes back as typed, the refused field marked and described by the alert
    expect(axis.get_by_label("CVP it is worth")).to_have_value("2")
    expect(axis.get_by_label("Unit lost")).to_have_attribute("aria-invalid", "true")
    expect(axis.get_by_label("CVP it is worth")).not_to_have_attribute("aria-invalid", "true")
    shoot(axis, shots, "scenario-refused")
    # the address stays the page's, not the form's: a reload asks for the page again
    expect(axis).to_have_url(f"{live}/play/{campaign['id']}")
    axis.reload()
    expect(axis.get_by_role("alert")).to_have_count(0)
    axis.get_by_label("CVP it is worth").fill("2")
    axis.get_by_label("Unit lost").fill("4-6-8")
    shoot(axis, shots, "scenario-side")
    axis.get_by_role("button", name="Report the casualty").click()
    expect(axis.get_by_text("Report 1 awaits the British")).to_be_visible()
    shoot(axis, shots, "scenario-reported")
    confirm = british.get_by_role("button", name="Confirm report 1")
    expect(confirm).to_be_visible()  # live, without a reload
    shoot(british, shots, "scenario-report-due")
    confirm.click()
    expect(british.get_by_text("Report 1 awaits")).to_have_count(0)
    # Enter in the reason box disputes the next report: it never confirms it.
    axis.get_by_label("Unit lost").fill("Lt. 9-1")
    axis.get_by_label("CVP it is worth").fill("4")
    axis.get_by_role("button", name="Report the casualty").click()
    # Reloaded: this step is about Enter in the form. (A page that has just posted its own
    # form sometimes misses the other side's next update on a loaded machine: noted on
    # issue 17, not yet found.)
    expect(axis.get_by_text("Report 2 awaits the British")).to_be_visible(timeout=20_000)
    british.reload()
    reason = british.get_by_label("Why the British disputes report 2")
    reason.fill("he broke and routed")
    reason.press("Enter")
    expect(british.get_by_text("Report 2 awaits")).to_have_count(0)
    with httpx.Client(base_url=live) as api:
        reports = api.get(f"/campaigns/{campaign['id']}", headers=auth(
            campaign["tokens"]["director"])).json()["reports"]
        assert [(r["report"], r["status"]) for r in reports] == [(2, "disputed")], reports
        settled = api.post(f"/campaigns/{campaign['id']}/commands", headers=auth(
            campaign["tokens"]["director"]), json={"type": "withdraw_report", "report": 2,
                                                    "reason": "routed, not eliminated"})
        assert settled.status_code == 200, settled.text

    boss = joined(browser, live, campaign, tokens["director"])
    shoot(boss, shots, "scenario-director")
    boss.once("dialog", lambda dialog: dialog.accept())
    boss.get_by_role("button", name="End the 14AM CG Scenario: the Refit Phase begins").click()
    expect(boss.get_by_role("button", name="End the 14AM CG Scenario: the Refit Phase begins")
           ).to_have_count(0)
    expect(boss.locator("section.where")).not_to_contain_text("CG Scenario")
    shoot(boss, shots, "scenario-ended")


def test_a_live_reload_that_comes_back_after_the_reader_began_typing_keeps_what_they_typed(
        browser: Browser, live: str, shots: Path) -> None:
    with httpx.Client(base_url=live) as api:
        campaign = in_scenario(api)
        director = auth(campaign["tokens"]["director"])
        base = f"/campaigns/{campaign['id']}"
        axis = joined(browser, live, campaign, campaign["tokens"]["sides"][AXIS])
        held: list[Route] = []

        def hold(route: Route) -> None:  # the area's live reload waits until the Axis typed
            if route.request.headers.get("x-refit-live") == "1" and not held:
                held.append(route)
            else:
                route.continue_()

        axis.route(f"{live}/play/{campaign['id']}", hold)
        done = api.post(f"{base}/commands", headers=director, json={
            "type": "record_casualty", "side": BRITISH, "unit": "4-5-7", "cvp": 1})
        assert done.status_code == 200, done.text
        version = done.json()["version"]
    for _ in range(100):  # the stream's message, then the reload it asks for
        if held:
            break
        axis.wait_for_timeout(100)
    assert held, "the page never asked to reload its live area"
    axis.get_by_label("Unit lost").fill("4-6-8")
    held[0].continue_()
    note = axis.locator("#live-note")
    expect(note).to_contain_text("The campaign moved on")
    expect(axis.get_by_label("Unit lost")).to_have_value("4-6-8")  # not wiped by the reload
    shoot(axis, shots, "scenario-moved-on-while-typing")
    axis.get_by_role("button", name="Show it").click()  # the reader's own choice: shown
    expect(axis.locator("#live")).to_have_attribute("data-version", str(version))
    expect(note).to_have_count(0)
