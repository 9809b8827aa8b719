"""The director's undo in the web client (issue 18): the director picks a point on the
home page, previews what an undo would remove (the JSON API's dry run, in ASL words, rolls
and dice as the director reads them), and confirms with a reason; the undo is made only at
the version previewed. A side and the observer see no undo and are refused one; every
refusal is the JSON API's, never a 500."""

from __future__ import annotations

import html as markup
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers.http import auth, new_campaign, send
from tests.helpers.web import AXIS, BRITISH, csrf_of, secret_step, text_of

REASON = "the Axis DR was rolled for the wrong RG line"


@pytest.fixture
def campaign(client: TestClient) -> dict[str, Any]:
    """The campaign at 3.618 (tests/helpers/web.py), the Axis's secret DR for RG line 1
    rolled: the version just before its command under `before_roll`."""
    made = secret_step(client)
    before = head(client, made)
    body = {"type": "roll", "table": "3.6181", "side": AXIS, "subject": "rg:1"}
    answer = send(client, made, made["tokens"]["sides"][AXIS], body)
    assert answer.status_code == 200, answer.text
    return made | {"before_roll": before}


def log_in(client: TestClient, token: str) -> None:
    """The session cookie of the token's role, as the login form gives it."""
    answer = client.post("/login", data={"token": token}, follow_redirects=False)
    assert answer.status_code == 303, answer.text


def head(client: TestClient, campaign: dict[str, Any]) -> int:
    """The campaign's version, as the director's JSON status reads it."""
    answer = client.get(f"/campaigns/{campaign['id']}", headers=auth(campaign["tokens"]
                                                                    ["director"]))
    return int(answer.json()["version"])


def dry_run(client: TestClient, campaign: dict[str, Any], to_version: int) -> dict[str, Any]:
    """The JSON API's plan of an undo to `to_version`, for the director."""
    answer = client.post(f"/campaigns/{campaign['id']}/undo", headers=auth(
        campaign["tokens"]["director"]), json={"to_version": to_version, "reason": REASON,
                                               "dry_run": True})
    assert answer.status_code == 200, answer.text
    plan: dict[str, Any] = answer.json()
    return plan


def preview(client: TestClient, campaign: dict[str, Any], code: int = 200,
            **query: Any) -> str:
    """The undo preview page for the session's role."""
    answer = client.get(f"/play/{campaign['id']}/undo", params=query, follow_redirects=False)
    assert answer.status_code == code, answer.text
    assert "script-src 'self'" in answer.headers["content-security-policy"]
    return answer.text


def confirm(client: TestClient, campaign: dict[str, Any], page: str, **change: str) -> Any:
    """The preview's confirming form posted as the page fills it in (not followed)."""
    form = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    form["reason"] = markup.unescape(re.findall(r'name="reason"[^>]*value="([^"]*)"',
                                                page)[0])
    form |= change
    return client.post(f"/play/{campaign['id']}/undo", data=form, follow_redirects=False)


def rolls(client: TestClient, campaign: dict[str, Any]) -> list[dict[str, Any]]:
    """The standing rolls, as the director's JSON reads them."""
    answer = client.get(f"/campaigns/{campaign['id']}/rolls",
                        headers=auth(campaign["tokens"]["director"]))
    found: list[dict[str, Any]] = answer.json()
    return found


def test_the_director_picks_the_last_roll_on_the_home_page_and_previews_what_would_go(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    home = client.get(f"/play/{campaign['id']}").text
    assert f'href="/play/{campaign["id"]}/undo"' in home  # the way to the undo's own page
    home = markup.unescape(client.get(f"/play/{campaign['id']}/undo").text)
    choices = re.findall(r'<option value="([^"]+)">([^<]*)</option>', home)
    # newest first: the Axis DR, then the advance into 3.618, and the end of 3.617
    assert choices[0][0] == str(campaign["before_roll"])
    assert "Axis DR RG Strength Table (3.6181) for RG line 1" in choices[0][1]
    assert "step 3.617 complete" in choices[1][1]
    assert ("14AM/3.617", f"v{campaign['before_roll']} · just after step 3.617 of 14AM "
            "(14AM/3.617)") in choices
    assert 'name="reason" type="text" required' in home

    before = head(client, campaign)
    plan = dry_run(client, campaign, campaign["before_roll"])
    page = preview(client, campaign, to=campaign["before_roll"], reason=REASON)
    text = text_of(markup.unescape(page))
    assert f"takes back {plan['events']} events" in text
    for version in plan["versions"]:
        assert f"v{version} " in text
    times = "\N{MULTIPLICATION SIGN}"
    assert f"1 {times} Dice rolled" in text and f"1 {times} RG determined" in text
    roll = next(r for r in rolls(client, campaign) if r["version"] == plan["rolls"][0]["version"])
    row = re.search(rf'<tr data-version="{roll["version"]}">.*?</tr>', page, re.S)
    assert row is not None
    shown = text_of(markup.unescape(row.group(0)))
    assert " ".join(str(d) for d in roll["dice"]) in shown and roll["result"] in shown
    assert "RG line 1" in shown and "secret" in shown
    assert head(client, campaign) == before  # a preview appends nothing


def test_a_step_chosen_previews_the_undo_to_the_end_of_that_step(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    text = text_of(markup.unescape(preview(client, campaign, to="14AM/3.617", reason=REASON)))
    assert "Undoing to the end of step 14AM/3.617 (version " \
        f"{campaign['before_roll']})" in text


def test_confirming_undoes_and_the_undone_stay_in_the_history(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    target = campaign["before_roll"]
    undone = dry_run(client, campaign, target)["versions"]
    page = preview(client, campaign, to_version=target, reason=REASON)
    answer = confirm(client, campaign, page)
    assert answer.status_code == 303 and answer.headers["location"] == f"/play/{campaign['id']}"

    assert all(r["version"] not in undone for r in rolls(client, campaign))
    home = markup.unescape(client.get(f"/play/{campaign['id']}").text)
    assert f"Undone back to version {target}" in home and REASON in home
    assert f'data-table="3.6181" data-subject="rg:1" data-side="{AXIS}"' in home  # due again
    events = client.get(f"/campaigns/{campaign['id']}/events",
                        headers=auth(campaign["tokens"]["director"])).json()
    kept = {e["version"]: e["type"] for e in events}
    assert kept[undone[0]] == "DiceRolled"  # the log is append-only
    assert events[-1]["type"] == "Undone" and events[-1]["data"]["reason"] == REASON
    assert events[-1]["data"]["actor"] == "director"


def test_a_preview_the_campaign_has_moved_on_from_is_refused_and_asks_for_another(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = preview(client, campaign, to_version=campaign["before_roll"], reason=REASON)
    moved = send(client, campaign, campaign["tokens"]["sides"][BRITISH],
                 {"type": "roll", "table": "3.6181", "side": BRITISH, "subject": "rg:3"})
    assert moved.status_code == 200, moved.text
    before, standing = head(client, campaign), rolls(client, campaign)
    answer = confirm(client, campaign, page)
    assert answer.status_code == 409
    text = text_of(markup.unescape(answer.text))
    assert f"campaign is at version {before}, not {before - 2}" in text
    assert "moved on since this preview was made: nothing was undone" in text
    again = re.search(r'href="(/play/[^"]+/undo\?[^"]+)">Preview the undo again', answer.text)
    assert again is not None
    fresh = text_of(markup.unescape(client.get(markup.unescape(again.group(1))).text))
    assert f"The campaign is at version {before}." in fresh
    assert head(client, campaign) == before and rolls(client, campaign) == standing


@pytest.mark.parametrize("role", [AXIS, BRITISH, "observer"])
def test_a_side_and_the_observer_see_no_undo_and_are_refused_one(
        client: TestClient, campaign: dict[str, Any], role: str) -> None:
    tokens = campaign["tokens"]
    log_in(client, tokens["observer"] if role == "observer" else tokens["sides"][role])
    home = client.get(f"/play/{campaign['id']}").text
    assert 'id="undo"' not in home and "/undo" not in home
    page = preview(client, campaign, 403, to_version=campaign["before_roll"], reason=REASON)
    assert "an undo is the director&#39;s to do" in page and 'class="card confirm"' not in page
    before = head(client, campaign)
    csrf = re.findall(r'name="csrf" value="([^"]+)"', home)  # the observer's page has none
    answer = client.post(f"/play/{campaign['id']}/undo", follow_redirects=False, data={
        "csrf": csrf[0] if csrf else "", "to_version": campaign["before_roll"],
        "reason": REASON, "at": before})
    assert answer.status_code == 403 and "the director&#39;s to do" in answer.text
    assert head(client, campaign) == before


def test_the_undo_pages_need_a_session(client: TestClient, campaign: dict[str, Any]) -> None:
    path = f"/play/{campaign['id']}/undo"
    before = head(client, campaign)
    for answer in (client.get(path, params={"to_version": "1", "reason": REASON},
                              follow_redirects=False),
                   client.post(path, data={"to_version": "1", "reason": REASON,
                                           "at": str(before)}, follow_redirects=False)):
        assert answer.status_code == 303 and answer.headers["location"] == "/"
    assert head(client, campaign) == before


def test_a_confirmation_without_the_sessions_csrf_token_or_from_another_site_is_refused(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = preview(client, campaign, to_version=campaign["before_roll"], reason=REASON)
    before = head(client, campaign)
    for csrf in ("", "0" * 64):
        answer = confirm(client, campaign, page, csrf=csrf)
        assert answer.status_code == 403
        assert "this form is out of date: reload the page" in markup.unescape(answer.text)
    path = f"/play/{campaign['id']}/undo"
    cross = client.post(path, data={"csrf": csrf_of(page), "to_version": "1", "reason": "x",
                                    "at": str(before)},
                        headers={"Origin": "https://evil.example"}, follow_redirects=False)
    assert cross.status_code == 403
    assert head(client, campaign) == before


@pytest.mark.parametrize(("query", "said"), [
    ({"to_version": "HEAD"}, "there is nothing to undo"),
    ({"to_version": "abc"}, "“or version” is a version number, e.g. 12"),
    ({"to_version": "99999"}, "“or version” is a version from 1 to"),
    ({"to_step": "14AM/3.618"}, "step 3.618 of 14AM is not over yet"),
    ({"to_step": "15AM/3.617"}, "the campaign has not reached CG Date 15AM"),
    ({"to_step": "nonsense"},
     "“Return to” is CGDATE/STEP, e.g. 14AM/3.617 (PBr) or 19PM/9.616 (ABtF)"),
])
def test_an_undo_refused_is_a_clear_page_in_the_json_apis_words(
        client: TestClient, campaign: dict[str, Any], query: dict[str, str],
        said: str) -> None:
    log_in(client, campaign["tokens"]["director"])
    before = head(client, campaign)
    query = {k: str(before) if v == "HEAD" else v for k, v in query.items()}
    page = preview(client, campaign, 422, reason=REASON, **query)
    text = text_of(markup.unescape(page))
    assert said in text and 'role="alert"' in page and 'class="card confirm"' not in page
    assert "Choose another point" in text
    assert head(client, campaign) == before


def test_an_undo_without_a_reason_is_refused_naming_the_field(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    text = text_of(markup.unescape(preview(client, campaign, 422,
                                           to_version=campaign["before_roll"], reason=" ")))
    assert "an undo gives its reason (field: Reason)" in text


def test_the_undo_page_without_a_point_asks_where_to_return_to(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = client.get(f"/play/{campaign['id']}/undo", params={"to": " ", "to_step": ""})
    assert page.status_code == 200 and "Where to return to" in page.text
    assert "Preview the undo" in page.text and 'class="card undo-plan"' not in page.text
    assert "Nothing was undone" not in page.text  # nothing was asked yet


def test_a_new_campaign_has_nothing_to_undo(client: TestClient) -> None:
    made = new_campaign(client)  # nothing done since its creation: no point to return to
    log_in(client, made["tokens"]["director"])
    assert "Nothing to undo yet." in text_of(client.get(f"/play/{made['id']}/undo").text)
    page = preview(client, made, 422, to_version="1", reason=REASON)
    assert "the campaign is at version 1: there is nothing to undo" in text_of(
        markup.unescape(page))


def test_an_ended_campaign_is_refused_an_undo_by_its_rule(
        client: TestClient, campaign: dict[str, Any]) -> None:
    ended = send(client, campaign, campaign["tokens"]["director"],
                 {"type": "end_cg", "reason": "concession", "side": BRITISH})
    assert ended.status_code == 200, ended.text
    log_in(client, campaign["tokens"]["director"])
    home = text_of(client.get(f"/play/{campaign['id']}").text)
    assert "every secret is open: it cannot be undone" in home and "Preview the undo" not in home
    page = preview(client, campaign, 422, to_version=campaign["before_roll"], reason=REASON)
    assert "the CG has ended and every secret is open: it cannot be undone" in text_of(
        markup.unescape(page))


def test_an_undo_of_secret_purchases_says_their_sealed_records_in_asl_words(
        client: TestClient, campaign: dict[str, Any]) -> None:
    plan = dry_run(client, campaign, 3)  # before the purchases of 3.617
    assert plan["event_types"].get("PurchasePadded")
    log_in(client, campaign["tokens"]["director"])
    text = text_of(markup.unescape(preview(client, campaign, to_version="3", reason=REASON)))
    times = "\N{MULTIPLICATION SIGN}"
    count = plan["event_types"]["PurchasePadded"]
    assert f"{count} {times} Sealed record of a secret purchase (nothing happened)" in text
    assert "padded" not in text.lower()
