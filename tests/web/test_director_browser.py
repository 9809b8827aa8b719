"""The director's tools in a real headless Chromium: a ruling recorded from a roll's audit
page shows beside the roll, the seed revealed from the Director nav after its page says
what it does, and the browser then checks the roll's dice itself; verify reads OK; the
admin imports an export with the upload's progress shown. Screenshots go to
test-artifacts/."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from playwright.sync_api import Browser, expect

from infra.settings import Settings
from tests.helpers.http import ADMIN, auth, serving
from tests.helpers.web import AXIS, secret_step
from tests.web.test_browser import WIDTHS, joined, shoot

REASON = "the KG Bonus DRM was missed: the RG is Elite"


def test_the_director_rules_on_a_roll_reveals_the_seed_and_the_browser_checks_the_dice(
        browser: Browser, live: str, shots: Path) -> None:
    with httpx.Client(base_url=live) as api:
        campaign = secret_step(api)
        rolled = api.post(f"/campaigns/{campaign['id']}/commands",
                          headers=auth(campaign["tokens"]["sides"][AXIS]),
                          json={"type": "roll", "table": "3.6181", "side": AXIS,
                                "subject": "rg:1"})
        assert rolled.status_code == 200, rolled.text
    director = joined(browser, live, campaign, campaign["tokens"]["director"])
    director.locator("section.recent a.audit-link").first.click()
    expect(director).to_have_url(re.compile(rf"/play/{campaign['id']}/rolls/\d+$"))
    director.get_by_label("Corrected").check()
    director.get_by_label("Reason", exact=True).fill(REASON)
    director.get_by_label("The ruling's DRM").fill("-1")
    director.get_by_label("Why that DRM").fill("KG Bonus (9.6181)")
    director.get_by_text("Add a correction applied from the ruling on").click()
    first = director.locator("details.correction").first
    expect(first.get_by_label("Adjust: amount")).to_be_visible()  # the closed lists
    director.get_by_text("Add a second correction applied from the ruling on").click()
    expect(director.locator("#r-c2_kind")).to_be_visible()
    shoot(director, shots, "director-ruling-form")
    director.get_by_role("button", name="Record the ruling").click()
    ruling = director.locator("section.rulings article.ruling")
    expect(ruling).to_contain_text("Corrected by the director at version")
    expect(ruling).to_contain_text(REASON)
    expect(ruling).to_contain_text("KG Bonus (9.6181)")
    audit_url = director.url.split("#")[0]
    shoot(director, shots, "director-ruled")

    director.goto(f"{live}/play/{campaign['id']}")
    shoot(director, shots, "director-home")
    director.get_by_role("navigation", name="Director").get_by_role(
        "link", name="Reveal seed").click()
    expect(director.get_by_text("anyone can recompute every roll made with it",
                                exact=False)).to_be_visible()
    shoot(director, shots, "director-seed-confirm")
    director.get_by_role("button", name="Reveal the seed and commit a fresh one").click()
    expect(director.locator("#revealed")).to_contain_text("Seed revealed at version")
    shoot(director, shots, "director-seed-revealed")

    director.goto(audit_url)
    director.get_by_role("button", name="Check the dice in this browser").click()
    expect(director.locator("output#dice-checked")).to_contain_text(
        "the dice match the revealed seed")
    director.goto(f"{live}/play/{campaign['id']}/verify")
    expect(director.locator("#verdict h2")).to_have_text("OK: the history verifies")
    shoot(director, shots, "director-verify")


def test_the_admin_imports_an_export_and_sees_the_uploads_progress_then_the_campaign(
        browser: Browser, live: str, shots: Path, tmp_path: Path) -> None:
    elsewhere = Settings(database_url=f"sqlite:///{tmp_path / 'elsewhere.db'}",
                         module_dir=tmp_path / "modules", signing_key_file=tmp_path / "key")
    for client in serving(elsewhere):  # a campaign of another service, exported to move
        campaign = secret_step(client)
        export = client.get(f"/campaigns/{campaign['id']}/export",
                            headers=auth(campaign["tokens"]["director"])).content
    tampered = export.replace(b'"amount":39', b'"amount":93', 1)
    assert tampered != export
    (tmp_path / "tampered.jsonl").write_bytes(tampered)
    (tmp_path / "ranville.jsonl").write_bytes(export)
    page = browser.new_context(viewport={"width": WIDTHS[0], "height": 900}).new_page()
    page.goto(f"{live}/")
    page.get_by_label("Token").fill(ADMIN)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Import a campaign…").click()
    for name, said, done in (("tampered", "does not verify at version", "uploaded; refused"),
                             ("ranville", "Imported: Ranville", "uploaded and imported")):
        page.get_by_label("Export file").set_input_files(str(tmp_path / f"{name}.jsonl"))
        page.get_by_role("button", name="Import").click()
        expect(page.locator("#import-result")).to_contain_text(said)
        expect(page.locator(".upload-progress output")).to_have_text(done)
        assert page.locator("progress").evaluate("p => p.value === p.max")
        assert page.url == f"{live}/admin/import"  # no reload: the script showed the answer
        shoot(page, shots, f"admin-import-{name}")
    page.get_by_role("link", name="See it among the campaigns").click()
    expect(page.locator(f'tr[data-campaign="{campaign["id"]}"]')).to_be_visible()
