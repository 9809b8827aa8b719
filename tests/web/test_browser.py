"""The web client in a real headless Chromium (Playwright with Debian's chromium, README
'The web client'): each role joins by its link in a browser context of its own, a side rolls
its due roll and sees the result, the opponent's page keeps that side's secrets, the director
sees every side and a refusal with its rule, and logging out ends the session. Screenshots
of each page, at desktop and phone width, go to test-artifacts/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.helpers.http import new_campaign
from tests.helpers.web import AXIS, BRITISH, join_link, secret_step

WIDTHS = (1280, 390)  # a desktop and a phone


@pytest.fixture
def campaign(live: str) -> dict[str, Any]:
    """The campaign at 3.618, set up through the served API (tests/helpers/web.py)."""
    with httpx.Client(base_url=live) as api:
        return secret_step(api)


def shoot(page: Page, shots: Path, name: str) -> None:
    """Screenshots of the whole page at each width."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=shots / f"{name}-{width}.png", full_page=True)
    page.set_viewport_size({"width": WIDTHS[0], "height": 900})


def joined(browser: Browser, live: str, campaign: dict[str, Any], token: str) -> Page:
    """A browser context of its own (its own cookies), logged in by the role's join link."""
    page = browser.new_context(viewport={"width": WIDTHS[0], "height": 900}).new_page()
    page.goto(join_link(live, campaign, token))
    page.wait_for_url(f"{live}/play/{campaign['id']}")
    assert token not in page.url and "#" not in page.url  # out of the address bar
    return page


def test_each_role_joins_by_link_a_side_rolls_and_the_opponent_sees_no_secret(
        browser: Browser, live: str, campaign: dict[str, Any], shots: Path) -> None:
    tokens = campaign["tokens"]
    axis = joined(browser, live, campaign, tokens["sides"][AXIS])
    due = axis.locator(f'li.work.due[data-side="{AXIS}"][data-subject="rg:1"]')
    expect(due).to_be_visible()
    expect(axis.locator(f'li.work.due[data-side="{AXIS}"]')).to_have_count(2)
    shoot(axis, shots, "side-guide")
    due.get_by_role("button").click()
    result = axis.locator("article.result")
    expect(result).to_be_visible()
    expect(result.locator(".die")).to_have_count(2)  # the DR's two dice, then the sum
    # htmx swapped the page the redirect answered, and the address is that page's
    expect(axis).to_have_url(re.compile(rf"/play/{campaign['id']}\?rolled=\d+-\d+$"))
    expect(result.locator("tr.final")).to_contain_text("Final")
    # that DR is no longer due (what its result calls for may be: a leader's roll)
    expect(axis.locator('li.work.due[data-table="3.6181"][data-subject="rg:1"]')) \
        .to_have_count(0)
    shoot(axis, shots, "side-rolled")

    british = joined(browser, live, campaign, tokens["sides"][BRITISH])
    html = british.content()
    assert all(secret not in html for secret in ("rg:1", "rg:2", "RG line 1", "I5", "I7"))
    expect(british.locator("tr.sealed")).to_have_count(1)  # the Axis DR: that it was made
    expect(british.locator(f'.other[data-side="{AXIS}"]')).to_be_visible()
    # the keyboard alone rolls the British DR
    british.locator(f'li.work.due[data-side="{BRITISH}"] button').focus()
    british.keyboard.press("Enter")
    expect(british.locator("article.result .die")).to_have_count(2)
    shoot(british, shots, "opponent")

    director = joined(browser, live, campaign, tokens["director"])
    expect(director.locator(f'li.work.due[data-side="{AXIS}"][data-subject="rg:2"]')) \
        .to_be_visible()
    expect(director.locator(f'section.side[data-side="{BRITISH}"]')).to_be_visible()
    asked: list[str] = []  # the browser asks first what advancing every side gives up
    director.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    director.get_by_role("button", name="Advance step 3.618 for every side").click()
    expect(director.get_by_role("alert")).to_contain_text("rule 3.618")  # still due: rg:2
    assert "optional rolls and purchases not made in it are given up" in asked[0]
    shoot(director, shots, "director")


def test_both_sides_buy_in_the_browser_and_advance_each_seeing_the_other_live(
        browser: Browser, live: str, shots: Path) -> None:
    with httpx.Client(base_url=live) as api:  # PBr 14AM, 3.617: each side with its CPP
        campaign = new_campaign(api)
        for side, amount in ((AXIS, 10), (BRITISH, 7)):
            credit = {"type": "credit_cpp", "side": side, "amount": amount, "reason": "3.6161"}
            assert api.post(f"/campaigns/{campaign['id']}/commands", json=credit, headers={
                "Authorization": f"Bearer {campaign['tokens']['director']}"}).status_code == 200
    axis = joined(browser, live, campaign, campaign["tokens"]["sides"][AXIS])
    british = joined(browser, live, campaign, campaign["tokens"]["sides"][BRITISH])
    # The RG to buy are open in the purchase step, no click needed to see them
    expect(axis.get_by_role("button", name="Buy I9 in reserve · 4 CPP")).to_be_visible()
    expect(axis.get_by_text("RG you may not buy now")).to_be_visible()
    shoot(axis, shots, "side-purchase")
    asked: list[str] = []  # the purchase is confirmed first: only the director undoes one
    axis.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    axis.get_by_role("button", name="Buy I9 in reserve · 4 CPP").click()
    expect(axis.locator(".points")).to_contain_text("6")  # 10 CPP less the reserve's 4
    expect(axis.locator(f'.bought-now[data-side="{AXIS}"]')).to_contain_text(
        "I9 (Italian MTR Coy) in reserve · 4 CPP")
    assert asked == ["Buy I9 in reserve for 4 CPP? Only the director can undo a purchase."]
    shoot(axis, shots, "side-bought")
    axis.get_by_role("button", name=f"Advance: the {AXIS} side is done with 3.617").click()
    expect(axis.get_by_text("Done with step 3.617")).to_be_visible()
    # the British page follows, without the Axis purchase or its CPP
    expect(british.locator(f'.other[data-side="{AXIS}"]')).to_contain_text(
        "Done with 3.617", timeout=5000)
    assert "I9" not in british.locator(".others").inner_text()
    expect(british.locator(f'.other[data-side="{AXIS}"]')).to_contain_text(
        "1 sealed line in its RG Purchase Record")
    british.once("dialog", lambda dialog: dialog.accept())
    british.get_by_role("button", name="Buy I2 entry · 7 CPP").click()
    # bought, as the page now says: its Advance then asks nothing (it would, had the
    # British bought nothing, and the click were the old page's)
    expect(british.locator(f'.bought-now[data-side="{BRITISH}"]')).to_contain_text("I2")
    british.get_by_role("button", name=f"Advance: the {BRITISH} side is done with 3.617").click()
    # both done: the RePh moves on to 3.618, on both pages
    for page in (axis, british):
        expect(page.locator(".where")).to_contain_text("3.618", timeout=5000)
    shoot(british, shots, "both-advanced")


def test_logging_out_ends_the_session_and_a_bad_token_is_told(
        browser: Browser, live: str, campaign: dict[str, Any], shots: Path) -> None:
    british = joined(browser, live, campaign, campaign["tokens"]["sides"][BRITISH])
    british.get_by_role("button", name="Log out").click()
    british.wait_for_url(f"{live}/")
    expect(british.get_by_label("Token")).to_be_visible()
    british.goto(f"{live}/play/{campaign['id']}")
    expect(british).to_have_url(f"{live}/")
    british.get_by_label("Token").fill("not-a-token")
    british.get_by_role("button", name="Log in").click()
    expect(british.get_by_role("alert")).to_contain_text("opens nothing")
    shoot(british, shots, "login")


def test_each_page_follows_the_other_sides_actions_live_without_a_reload(
        browser: Browser, live: str, campaign: dict[str, Any], shots: Path) -> None:
    tokens = campaign["tokens"]
    british = joined(browser, live, campaign, tokens["sides"][BRITISH])
    director = joined(browser, live, campaign, tokens["director"])
    expect(british.locator("tr.sealed")).to_have_count(0)
    british.evaluate("window.notReloaded = true")  # gone if the page were loaded again
    axis = joined(browser, live, campaign, tokens["sides"][AXIS])
    axis.locator(f'li.work.due[data-side="{AXIS}"][data-subject="rg:1"] button').click()
    expect(axis.locator("article.result .die")).to_have_count(2)
    # the opponent's page shows that the Axis rolled, sealed, within a second or so
    expect(british.locator("tr.sealed")).to_have_count(1, timeout=5000)
    assert british.evaluate("window.notReloaded") is True
    assert all(secret not in british.content() for secret in ("rg:1", "RG line 1", "I5"))
    # the director's page shows the roll itself, and no longer offers it as due
    expect(director.locator(f'li.work.due[data-side="{AXIS}"][data-subject="rg:1"]')) \
        .to_have_count(0, timeout=5000)
    # the Axis page keeps its own roll's result: its own event is not a change to it
    expect(axis.locator("article.result")).to_be_visible()
    shoot(british, shots, "opponent-live")


def test_the_audit_page_checks_a_rolls_dice_from_the_revealed_seed_in_the_browser(
        browser: Browser, live: str, campaign: dict[str, Any], shots: Path) -> None:
    tokens = campaign["tokens"]
    shares = {AXIS: "a1" * 16, BRITISH: "b2" * 24}  # so the check mixes both in (E)
    with httpx.Client(base_url=live) as api:
        for side, share in shares.items():
            given = api.post(f"/campaigns/{campaign['id']}/commands",
                             headers=_auth(tokens, side),
                             json={"type": "contribute_seed", "side": side, "share": share})
            assert given.status_code == 200, given.text
        rolled = api.post(f"/campaigns/{campaign['id']}/commands", headers=_auth(tokens, AXIS),
                          json={"type": "roll", "table": "3.6181", "side": AXIS,
                                "subject": "rg:1"})
        assert rolled.status_code == 200, rolled.text
        version = max(r["version"] for r in api.get(
            f"/campaigns/{campaign['id']}/rolls", headers=_auth(tokens, None)).json())
        before = api.get(f"/campaigns/{campaign['id']}/rolls/audit",
                         params={"version": version}, headers=_auth(tokens, None)).json()
    axis = joined(browser, live, campaign, tokens["sides"][AXIS])
    axis.locator(f'tr[data-version="{version}"] a.audit-link').click()  # htmx boosts it
    expect(axis).to_have_url(f"{live}/play/{campaign['id']}/rolls/{version}")
    expect(axis.get_by_text("committed, not yet revealed")).to_be_visible()
    expect(axis.locator("button[data-dice-check]")).to_have_count(0)
    shoot(axis, shots, "audit-committed")

    with httpx.Client(base_url=live) as api:
        revealed = api.post(f"/campaigns/{campaign['id']}/commands",
                            headers=_auth(tokens, None), json={"type": "reveal_seed"})
        assert revealed.status_code == 200, revealed.text
    axis.reload()
    assert axis.locator("button[data-dice-check]").get_attribute("data-shares") == \
        f"{shares[AXIS]} {shares[BRITISH]}"  # the module's side order
    recorded = " ".join(axis.locator(".die").all_inner_texts())
    assert recorded == " ".join(map(str, before["rolls"][0]["dice"]))
    axis.get_by_role("button", name="Check the dice in this browser").click()
    said = axis.locator("output#dice-checked")
    expect(said).to_contain_text("the dice match the revealed seed")
    expect(said).to_contain_text("SHA-256 is the commitment published before the roll")
    # the browser's own dice, not an echo of the recorded ones: a wrong record is told
    assert said.get_attribute("data-computed") == recorded
    shoot(axis, shots, "audit-checked")
    axis.locator("button[data-dice-check]").evaluate(
        "b => { b.dataset.dice = b.dataset.dice.split(' ').map(d => d % 6 + 1).join(' '); }")
    axis.get_by_role("button", name="Check the dice in this browser").click()
    expect(said).to_contain_text("the dice do NOT match the revealed seed")
    assert said.get_attribute("data-computed") == recorded


def test_the_director_previews_an_undo_of_the_last_roll_and_confirms_it(
        browser: Browser, live: str, campaign: dict[str, Any], shots: Path) -> None:
    tokens = campaign["tokens"]
    with httpx.Client(base_url=live) as api:
        rolled = api.post(f"/campaigns/{campaign['id']}/commands", headers=_auth(tokens, AXIS),
                          json={"type": "roll", "table": "3.6181", "side": AXIS,
                                "subject": "rg:1"})
        assert rolled.status_code == 200, rolled.text
    version = min(e["version"] for e in rolled.json()["events"])
    director = joined(browser, live, campaign, tokens["director"])
    due = director.locator(f'li.work.due[data-side="{AXIS}"][data-subject="rg:1"]')
    expect(due).to_have_count(0)
    undo = director.locator("section#undo")
    undo.get_by_role("link", name=re.compile("^Undo a step")).click()  # the undo's own page
    expect(director).to_have_url(f"{live}/play/{campaign['id']}/undo")
    expect(director.get_by_label("Return to", exact=True)).to_have_value(str(version - 1))
    director.get_by_label("Reason").fill("the Axis DR was rolled for the wrong RG line")
    director.get_by_role("button", name="Preview the undo").click()
    expect(director).to_have_url(re.compile(rf"/play/{campaign['id']}/undo\?"))
    expect(director.locator(f'tr[data-version="{version}"]')).to_contain_text("RG line 1")
    expect(director.locator(".undone-events li")).to_have_count(2)  # the DR, the RG's fate
    shoot(director, shots, "undo-preview")
    director.get_by_role("button", name=re.compile(r"^Undo 2 events")).click()
    expect(director).to_have_url(f"{live}/play/{campaign['id']}")
    expect(undo).to_contain_text(f"Undone back to version {version - 1}")
    expect(due).to_be_visible()  # the campaign as it stood before the DR
    shoot(director, shots, "undo-done")


def _auth(tokens: dict[str, Any], side: str | None) -> dict[str, str]:
    """A side's bearer header, or the director's for None."""
    token = tokens["director"] if side is None else tokens["sides"][side]
    return {"Authorization": f"Bearer {token}"}
