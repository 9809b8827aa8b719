"""The forms pages over HTTP (issue 18): each role reads its paper forms as its JSON reads
give them, now and as of an earlier point; the diff page says what changed between two
points; the opponent never reads a side's secret purchases or rolls on either; a bad point
is a clear message with the JSON API's status, never a 500."""

from __future__ import annotations

import html as markup
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers.http import auth
from tests.helpers.web import AXIS, BRITISH, secret_step, strength_rolled, text_of

LABELS = {"as_of": "As of", "version": "Or at version", "from": "From", "to": "To"}
BAD_POINTS = ["garbage", "0", "99999", "-3", "14AM/", "99ZZ/3.618", "14AM/9.999",
              "1" * 60, "x/" * 30, "14AM/3.617/2", "\u00e9\u00e9/3.618", "1e3",
              "\x00", "\x00/3.618"]


@pytest.fixture
def campaign(client: TestClient) -> dict[str, Any]:
    """14AM: both sides bought RG in secret in 3.617 (tests/helpers/web.py), then the Axis
    rolled its secret strength DR for line 1 (3.6181): its F/D, units and SW are set."""
    return strength_rolled(client)


def log_in(client: TestClient, token: str) -> None:
    """The session cookie of the token's role, as the login form gives it."""
    answer = client.post("/login", data={"token": token}, follow_redirects=False)
    assert answer.status_code == 303, answer.text


def read(client: TestClient, path: str, code: int = 200, **params: str) -> str:
    """A forms page as the session's role reads it, as plain text."""
    answer = client.get(path, params=params, follow_redirects=False)
    assert answer.status_code == code, answer.text
    assert "script-src 'self'" in answer.headers["content-security-policy"]
    return text_of(markup.unescape(answer.text))


def json_read(client: TestClient, campaign: dict[str, Any], token: str, path: str,
              **params: str) -> Any:
    """A JSON read of the campaign with the token."""
    answer = client.get(f"/campaigns/{campaign['id']}{path}", params=params,
                        headers=auth(token))
    assert answer.status_code == 200, answer.text
    return answer.json()


def rg_lines(rows: list[dict[str, Any]]) -> dict[int, str | None]:
    """The RG Purchase Record's lines: each line's RG as a role reads it."""
    return {row["purchase"]: row["rg"] for row in rows}


def line_one(client: TestClient, campaign: dict[str, Any]) -> dict[str, Any]:
    """The Axis's RG line 1 as the Axis reads it: its strength DR set F/D and units."""
    rows = json_read(client, campaign, campaign["tokens"]["sides"][AXIS], "/purchase-record")
    line: dict[str, Any] = rows[0]
    assert line["units"] and line["strength"] in ("F", "D")
    return line


def test_each_side_reads_its_own_purchases_and_only_that_the_other_side_bought(
        client: TestClient, campaign: dict[str, Any]) -> None:
    sides = campaign["tokens"]["sides"]
    for side, own, theirs in ((AXIS, ("I5", "I7"), ("I2",)), (BRITISH, ("I2",), ("I5", "I7"))):
        log_in(client, sides[side])
        page = read(client, f"/play/{campaign['id']}/forms")
        lines = rg_lines(json_read(client, campaign, sides[side], "/purchase-record"))
        assert sorted(rg for rg in lines.values() if rg) == sorted(own)
        for rg in own:
            assert f" {rg} " in page, f"the {side} does not read its own {rg}"
        for rg in theirs:
            assert f" {rg} " not in page, f"the {side} reads the other side's {rg}"
        assert "(secret)" in page
    log_in(client, sides[AXIS])
    page = read(client, f"/play/{campaign['id']}/forms")
    line = line_one(client, campaign)
    assert f" {line['units']} " in page  # what its secret strength DR gave line 1


def test_the_forms_as_of_an_earlier_point_are_the_forms_then(
        client: TestClient, campaign: dict[str, Any]) -> None:
    tokens = campaign["tokens"]
    log_in(client, tokens["sides"][AXIS])
    after_buying = read(client, f"/play/{campaign['id']}/forms", as_of="14AM/3.617")
    units = line_one(client, campaign)["units"]
    assert " I5 " in after_buying and units not in after_buying  # no strength DR yet
    assert "14AM, after step 3.617" in after_buying
    before_credit = read(client, f"/play/{campaign['id']}/forms", version="2")
    assert "as of version 2" in before_credit and " I5 " not in before_credit
    json_forms = client.get(f"/campaigns/{campaign['id']}/forms",
                            params={"as_of": "14AM/3.617", "form": "purchases"})
    assert json_forms.status_code == 200 and units not in json_forms.text


def test_the_diff_says_what_the_strength_dr_changed_and_the_opponent_reads_none_of_it(
        client: TestClient, campaign: dict[str, Any]) -> None:
    sides = campaign["tokens"]["sides"]
    log_in(client, sides[AXIS])
    page = read(client, f"/play/{campaign['id']}/forms/diff", **{"from": "14AM/3.617"})
    assert "RG Purchase Record" in page
    line = line_one(client, campaign)
    assert f"#1 changed F/D — {line['strength']}" in page
    assert f"#1 changed Units — {line['units']}" in page
    log_in(client, sides[BRITISH])
    theirs = json_read(client, campaign, sides[BRITISH], "/diff", **{"from": "14AM/3.617"})
    page = read(client, f"/play/{campaign['id']}/forms/diff", **{"from": "14AM/3.617"})
    assert theirs == [] and "Nothing changed in the forms" in page
    for secret in ("4-4-7", "LMG", "I5", "I7", "F/D"):
        assert secret not in page, f"the British reads the Axis's {secret}"
    backwards = read(client, f"/play/{campaign['id']}/forms/diff", **{"from": "", "to": "2"})
    assert "#1 added the whole line — Axis (secret)" in backwards  # read forwards
    assert "#3 added the whole line — Side British; CG Date 14AM; RG I2;" in backwards
    since_start = read(client, f"/play/{campaign['id']}/forms/diff", **{"from": "1"})
    assert "#1 added the whole line — Axis (secret)" in since_start
    assert "#3 added" in since_start and "I2" in since_start  # its own line, open to it
    for secret in ("I5", "I7", "4-4-7"):
        assert secret not in since_start, f"the British reads the Axis's {secret}"


def test_a_diff_asked_from_a_later_point_to_an_earlier_one_is_read_forwards_and_says_so(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = read(client, f"/play/{campaign['id']}/forms/diff", **{"from": "9", "to": "2"})
    assert "“From” (version 9) came after “To” (version 2)" in page
    assert "What changed from version 2 to 9" in page
    assert "#1 added the whole line" in page
    html = client.get(f"/play/{campaign['id']}/forms/diff", params={"from": "9", "to": "2"})
    assert 'data-change="removed"' not in html.text
    assert 'id="from-version" name="from" inputmode="numeric" maxlength="12" ' \
        'placeholder="e.g. 1" value="2"' in html.text  # the form shows what is shown
    forwards = read(client, f"/play/{campaign['id']}/forms/diff", **{"from": "2", "to": "9"})
    assert "came after" not in forwards


@pytest.mark.parametrize("point", BAD_POINTS)
def test_a_bad_point_is_a_clear_refusal_with_the_json_status(
        client: TestClient, campaign: dict[str, Any], point: str) -> None:
    director = campaign["tokens"]["director"]
    log_in(client, director)
    for path, params, api in (("/forms", {"as_of": point}, "/roster"),
                              ("/forms", {"version": point}, "/roster"),
                              ("/forms/diff", {"from": point}, "/diff"),
                              ("/forms/diff", {"to": point}, "/diff")):
        expected = client.get(f"/campaigns/{campaign['id']}{api}", headers=auth(director),
                              params={"as_of" if api == "/roster" else next(iter(params)):
                                      point}).status_code
        assert expected == 422
        page = read(client, f"/play/{campaign['id']}{path}", expected, **params)
        label = LABELS[next(iter(params))]  # the field as the page's form labels it
        assert "Refused:" in page and f"(field: {label})" in page, (path, params, page)


def test_the_forms_pages_need_a_session_that_opens_the_campaign(
        client: TestClient, campaign: dict[str, Any]) -> None:
    for path in ("/forms", "/forms/diff"):
        answer = client.get(f"/play/{campaign['id']}{path}", follow_redirects=False)
        assert answer.status_code == 303 and answer.headers["location"] == "/"
    log_in(client, campaign["tokens"]["observer"])
    page = read(client, f"/play/{campaign['id']}/forms")
    assert "as the observer reads it" in page
    for secret in ("I5", "I7", "I2"):
        assert f" {secret} " not in page


def test_the_home_page_links_the_forms_pages(client: TestClient,
                                             campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    home = client.get(f"/play/{campaign['id']}").text
    assert f'href="/play/{campaign["id"]}/forms"' in home


def test_a_diff_without_from_starts_at_the_last_step_that_ended_before_now(
        client: TestClient) -> None:
    made = secret_step(client)  # its last command ended 3.617: the head is that step's end
    log_in(client, made["tokens"]["director"])
    page = read(client, f"/play/{made['id']}/forms/diff")
    head = int(client.get(f"/campaigns/{made['id']}",
                          headers=auth(made["tokens"]["director"])).json()["version"])
    assert f"What changed from version 1 to {head}" in page  # no step ended before 3.617
    assert "Nothing changed in the forms" not in page  # the purchases of 3.617 are there
