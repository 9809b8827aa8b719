"""The web client over HTTP, without a browser: login and the session cookie, pages that show
a role exactly what its JSON reads show and never the opponent's secret, forms that send the
JSON API's commands (and are refused as it refuses them), CSRF, logout."""

from __future__ import annotations

import hashlib
import html as markup
import re
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from infra.settings import Settings
from tests.helpers.http import ADMIN, auth
from tests.helpers.tamper import CORRUPTIONS, set_row
from tests.helpers.web import AXIS, BRITISH, csrf_of, secret_step, text_of

STATIC = Path(__file__).resolve().parents[2] / "api" / "web" / "static"


@pytest.fixture
def campaign(client: TestClient) -> dict[str, Any]:
    """The campaign at 3.618, each side's RG strength DR due (tests/helpers/web.py)."""
    return secret_step(client)


def log_in(client: TestClient, token: str, campaign: dict[str, Any] | None = None) -> Any:
    """POST /login as a browser's form does; the answer (not followed)."""
    form = {"token": token} | ({"campaign": campaign["id"]} if campaign else {})
    return client.post("/login", data=form, follow_redirects=False)


def home(client: TestClient, campaign: dict[str, Any], **query: Any) -> Any:
    """The role's home page, as the session cookie opens it."""
    answer = client.get(f"/play/{campaign['id']}", params=query, follow_redirects=False)
    assert answer.status_code == 200, answer.text
    return answer


def listed(html: str, side: str) -> set[tuple[str, str]]:
    """The rolls a page offers a side: (table, subject) of each roll form."""
    return set(re.findall(rf'data-table="([^"]+)" data-subject="([^"]+)" data-side="{side}"',
                          html))


def in_guide(client: TestClient, campaign: dict[str, Any], token: str) -> dict[str, Any]:
    """Per side, the rolls the JSON guide lists (due and optional) for the token's role."""
    body = client.get(f"/campaigns/{campaign['id']}/guide", headers=auth(token)).json()
    return {side: {(w["table"], w["subject"]) for w in part["due"] + part["optional"]
                   if "table" in w} for side, part in body["sides"].items()}


def act(client: TestClient, campaign: dict[str, Any], html: str, **form: str) -> Any:
    """A guide page's form posted with the page's CSRF token (not followed)."""
    return client.post(f"/play/{campaign['id']}/act", data={"csrf": csrf_of(html)} | form,
                        follow_redirects=False)


def version(client: TestClient, campaign: dict[str, Any]) -> int:
    director = campaign["tokens"]["director"]
    return int(client.get(f"/campaigns/{campaign['id']}", headers=auth(director)).json()["version"])


def test_login_sets_a_signed_httponly_lax_session_and_redirects_to_the_roles_home(
        client: TestClient, campaign: dict[str, Any]) -> None:
    token = campaign["tokens"]["sides"][BRITISH]
    answer = log_in(client, token)  # a token typed in alone: its campaign is found
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/play/{campaign['id']}"
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "samesite=lax" in cookie.lower() and "Path=/" in cookie
    assert token not in cookie and hashlib.sha256(token.encode()).hexdigest() not in cookie
    again = client.get("/", follow_redirects=False)  # the session opens the home page
    assert (again.status_code, again.headers["location"]) == (303, f"/play/{campaign['id']}")


def test_a_token_that_opens_nothing_gets_the_login_page_again_and_no_cookie(
        client: TestClient, campaign: dict[str, Any]) -> None:
    for token, named in (("not-a-token", None), (campaign["tokens"]["director"] + "x", campaign)):
        answer = log_in(client, token, named)
        assert answer.status_code == 401 and "set-cookie" not in answer.headers
        assert 'role="alert"' in answer.text and "opens nothing" in answer.text
    assert log_in(client, "   ").status_code == 401


def test_a_damaged_campaign_tells_the_login_form_nothing_unless_the_token_is_its_own(
        client: TestClient, campaign: dict[str, Any], settings: Settings) -> None:
    other = secret_step(client)
    set_row(settings.database_url, UUID(campaign["id"]), 2, CORRUPTIONS["garbage state"])
    for token, named in (("not-a-token", campaign), (other["tokens"]["director"], campaign)):
        answer = log_in(client, token, named)
        assert answer.status_code == 401 and "history" not in answer.text, answer.text
    # a token typed in alone still opens its own campaign, whatever else is damaged
    answer = log_in(client, other["tokens"]["sides"][BRITISH])
    assert answer.status_code == 303 and answer.headers["location"] == f"/play/{other['id']}"
    # its own token is told the version that cannot be read by the login form, where this
    # process reads the history; where it holds the campaign and its view from before the
    # damage, its page answers from them (as its commands do), and the audit names it
    director = campaign["tokens"]["director"]
    own = log_in(client, director, campaign)
    if own.status_code == 303:
        assert client.get(own.headers["location"]).status_code == 200
        own = client.get(f"/campaigns/{campaign['id']}/verify", headers=auth(director))
        assert own.json()["first_bad_version"] == 2, own.text
    else:
        assert own.status_code == 409 and "version 2" in own.text, own.text


def test_a_page_without_a_session_that_opens_it_redirects_to_the_login_page(
        client: TestClient, campaign: dict[str, Any]) -> None:
    for cookie in (None, "garbage", "eyJjIjpudWxsfQ.AAAA"):
        client.cookies.clear()
        if cookie:
            client.cookies.set("refit_session", cookie)
        answer = client.get(f"/play/{campaign['id']}", follow_redirects=False)
        assert (answer.status_code, answer.headers["location"]) == (303, "/")
    other = secret_step(client)  # a session of another campaign opens nothing here
    assert log_in(client, other["tokens"]["director"]).status_code == 303
    answer = client.get(f"/play/{campaign['id']}", follow_redirects=False)
    assert (answer.status_code, answer.headers["location"]) == (303, "/")


def test_the_printable_forms_and_report_open_with_the_session_cookie_and_no_post_does(
        client: TestClient, campaign: dict[str, Any]) -> None:
    base = f"/campaigns/{campaign['id']}"
    assert client.get(f"{base}/forms").status_code == 401
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    forms = client.get(f"{base}/forms")
    assert forms.status_code == 200 and "CG Roster" in forms.text
    assert client.get(f"{base}/report", params={"format": "html"}).status_code == 200
    assert client.get(f"{base}/guide").json()["sides"].keys() == {BRITISH}  # as the British
    before = version(client, campaign)
    sent = client.post(f"{base}/commands", json={"type": "advance", "side": BRITISH})
    assert sent.status_code == 401 and version(client, campaign) == before
    other = secret_step(client)  # the session opens its own campaign only
    assert client.get(f"/campaigns/{other['id']}/forms").status_code == 401


def test_each_roles_page_offers_exactly_the_rolls_its_json_guide_lists(
        client: TestClient, campaign: dict[str, Any]) -> None:
    tokens = campaign["tokens"]
    for token in (tokens["sides"][AXIS], tokens["sides"][BRITISH], tokens["director"]):
        log_in(client, token)
        html = home(client, campaign).text
        expected = in_guide(client, campaign, token)
        assert {side: listed(html, side) for side in expected} == expected
        assert all(expected.values())  # each side has its strength DR due: not vacuous
    assert set(in_guide(client, campaign, tokens["director"])) == {AXIS, BRITISH}


def test_the_directors_roll_buttons_say_whose_roll_and_a_sides_need_not(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    html = home(client, campaign).text
    for side in (AXIS, BRITISH):
        assert f"Roll the {side} DR for RG line" in markup.unescape(html)
    log_in(client, campaign["tokens"]["sides"][AXIS])
    own = markup.unescape(home(client, campaign).text)
    assert "Roll DR for RG line 1" in own and "Roll the Axis" not in own


def test_a_sides_page_shows_its_points_as_its_json_status_does(
        client: TestClient, campaign: dict[str, Any]) -> None:
    token = campaign["tokens"]["sides"][AXIS]
    log_in(client, token)
    html = home(client, campaign).text
    points = client.get(f"/campaigns/{campaign['id']}", headers=auth(token)).json()
    shown = re.search(rf'<section class="side" id="side-{AXIS}".*?</dl>', html, re.S)
    assert shown is not None
    pairs = dict(re.findall(r"<dt>(\w+)</dt><dd>([^<]*)</dd>", shown.group(0)))
    mine = points["sides"][AXIS]
    assert pairs == {key.upper(): "—" if mine[key] is None else str(mine[key])
                     for key in ("cpp", "fpp", "elr", "san")}
    assert pairs["CPP"] == "13"  # 39 credited, 15 and 11 spent: not vacuous


def test_the_opponents_page_never_shows_a_sides_secret_purchases_or_rolls(
        client: TestClient, campaign: dict[str, Any]) -> None:
    tokens = campaign["tokens"]
    log_in(client, tokens["sides"][AXIS])
    axis_page = home(client, campaign).text
    assert "rg:1" in axis_page and "RG line 2" in axis_page  # the Axis's own page shows them
    rolled = act(client, campaign, axis_page, action="roll", table="3.6181", side=AXIS,
                 subject="rg:1")
    assert rolled.status_code == 303
    axis_roll = client.get(f"/campaigns/{campaign['id']}/rolls",
                           headers=auth(tokens["director"])).json()[-1]
    log_in(client, tokens["sides"][BRITISH])
    british = home(client, campaign).text
    for secret in ("I5", "I7", "rg:1", "rg:2", "RG line 1", "RG line 2", axis_roll["key"],
                   axis_roll["result"]):
        assert secret not in british, secret
    row = re.search(rf'<tr data-version="{axis_roll["version"]}".*?</tr>', british, re.S)
    assert row is not None and "secret roll (sealed)" in row.group(0)
    assert f'data-side="{AXIS}"' in british  # the Axis's public progress is there
    assert listed(british, AXIS) == set()  # but none of its rolls


def test_a_roll_from_the_page_is_the_commands_roll_with_dice_and_drm_shown(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    answer = act(client, campaign, home(client, campaign).text, action="roll",
                 table="3.6181", side=BRITISH, subject="rg:3")
    assert answer.status_code == 303, answer.text
    rolled = answer.headers["location"].split("rolled=")[1]
    first, last = (int(v) for v in rolled.split("-"))
    row = next(r for r in client.get(f"/campaigns/{campaign['id']}/rolls").json()
               if first <= r["version"] <= last)
    assert (row["table"], row["subject"], row["side"]) == ("3.6181", "rg:3", BRITISH)
    page = home(client, campaign, rolled=rolled).text
    result = re.search(r'<article class="result".*?</article>', page, re.S)
    assert result is not None
    shown = text_of(result.group(0))
    assert [int(d) for d in re.findall(r'class="die">(\d)<', result.group(0))] == row["dice"]
    assert f"Final {row['final']}" in shown and row["result"] in shown
    assert all(item["reason"] in shown for item in row["drm"])


def test_a_refused_form_shows_its_rule_and_appends_nothing(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    html, before = home(client, campaign).text, version(client, campaign)
    refused = act(client, campaign, html, action="advance", side=BRITISH)
    assert refused.status_code == 422 and "by rule 3.618" in refused.text
    for form, status in (({"action": "advance", "side": AXIS}, 403),  # another side's
                         ({"action": "roll", "table": "3.6181", "side": BRITISH,
                           "subject": "rg:3", "dice": "x"}, 422),
                         ({"action": "roll", "table": "3.6181", "side": BRITISH,
                           "subject": "rg:3", "dice": "\u00b2 \u0663"}, 422),  # not 0-9
                         ({"action": "erase"}, 422)):
        answer = act(client, campaign, html, **form)
        assert answer.status_code == status and 'role="alert"' in answer.text
    assert version(client, campaign) == before


def test_a_form_without_the_sessions_csrf_token_or_from_another_site_is_refused(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    html, before = home(client, campaign).text, version(client, campaign)
    form = {"action": "roll", "table": "3.6181", "side": BRITISH, "subject": "rg:3"}
    path = f"/play/{campaign['id']}/act"
    assert client.post(path, data=form, follow_redirects=False).status_code == 403
    assert client.post(path, data=form | {"csrf": "0" * 64},
                       follow_redirects=False).status_code == 403
    cross = client.post(path, data=form | {"csrf": csrf_of(html)}, follow_redirects=False,
                        headers={"Origin": "https://evil.example"})
    assert cross.status_code == 403
    assert version(client, campaign) == before


def test_logout_ends_the_session_and_a_replaced_token_ends_its_sessions(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    out = client.post("/logout", follow_redirects=False)
    assert (out.status_code, out.headers["location"]) == (303, "/")
    assert 'refit_session=""' in out.headers["set-cookie"]
    assert client.get(f"/play/{campaign['id']}", follow_redirects=False).status_code == 303
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    kept = dict(client.cookies)
    replaced = client.post(f"/campaigns/{campaign['id']}/tokens/{BRITISH}",
                           headers=auth(campaign["tokens"]["director"]))
    assert replaced.status_code == 200
    client.cookies.clear()
    client.cookies.update(kept)
    answer = client.get(f"/play/{campaign['id']}", follow_redirects=False)
    assert (answer.status_code, answer.headers["location"]) == (303, "/")


def test_the_admin_logs_in_to_the_list_of_campaigns(
        client: TestClient, campaign: dict[str, Any]) -> None:
    answer = log_in(client, ADMIN)
    assert (answer.status_code, answer.headers["location"]) == (303, "/admin")
    page = client.get("/admin")
    assert page.status_code == 200 and campaign["id"] in page.text
    assert all(token not in page.text for token in campaign["tokens"]["sides"].values())
    log_in(client, campaign["tokens"]["observer"])  # any other session: not the admin's
    assert client.get("/admin", follow_redirects=False).headers["location"] == "/"


def test_the_join_page_and_static_files_are_the_apps_own_with_a_strict_policy(
        client: TestClient) -> None:
    join = client.get("/join")
    assert join.status_code == 200 and '<script src="/static/join.js">' in join.text
    policy = join.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "<script>" not in join.text and "http" not in re.sub(r'"/static/[^"]+"', "",
                                                                 join.text).split("<body")[1]
    served = client.get("/static/htmx.min.js")
    digest = hashlib.sha256(served.content).hexdigest()
    assert served.status_code == 200 and digest in (STATIC / "VENDORED.md").read_text()


def test_in_entered_mode_the_page_takes_the_physical_dice_and_the_roll_records_them(
        client: TestClient) -> None:
    made = client.post("/campaigns", headers=auth(ADMIN), json={
        "module": "pbr", "cg": "I", "name": "Table dice", "dice": "entered"})
    campaign = made.json()
    director = campaign["tokens"]["director"]
    steps = [{"type": "credit_cpp", "side": BRITISH, "amount": 17, "reason": "3.6161"},
             {"type": "purchase_rg", "side": BRITISH, "rg": "I2"}, {"type": "advance"}]
    for body in steps:
        assert client.post(f"/campaigns/{campaign['id']}/commands", json=body,
                           headers=auth(director)).status_code == 200
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    html = home(client, campaign).text
    assert re.search(r'<label for="dice-[^"]+">Your dice</label>', html)
    answer = act(client, campaign, html, action="roll", table="3.6181", side=BRITISH,
                 subject="rg:1", dice="3, 4")
    assert answer.status_code == 303, answer.text
    row = client.get(f"/campaigns/{campaign['id']}/rolls").json()[-1]
    assert row["dice"] == [3, 4] and row["entered_by"] == BRITISH
