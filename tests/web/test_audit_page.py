"""The roll audit page over HTTP (README 'The web client'): each role reads on it what its
JSON roll audit answers, and never another side's secret roll; its seed, once revealed, and
the roll's inclusion proof; an address naming no roll is a clear 404 or 422 page."""

from __future__ import annotations

import hashlib
import html as markup
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from domain.dice import dice_from_seed, effective_seed
from tests.helpers.http import auth, send
from tests.helpers.web import AXIS, BRITISH, secret_roll, text_of


@pytest.fixture
def campaign(client: TestClient) -> dict[str, Any]:
    """The campaign at 3.618, the Axis's secret DR for RG line 1 rolled (its version under
    `rolled`: tests/helpers/web.py secret_roll)."""
    return secret_roll(client)


def log_in(client: TestClient, token: str) -> None:
    """The session cookie of the token's role, as the login form gives it."""
    answer = client.post("/login", data={"token": token}, follow_redirects=False)
    assert answer.status_code == 303, answer.text


def audit_page(client: TestClient, campaign: dict[str, Any], version: Any,
               code: int = 200) -> str:
    """The roll audit page at `version`, as the session's role reads it."""
    answer = client.get(f"/play/{campaign['id']}/rolls/{version}", follow_redirects=False)
    assert answer.status_code == code, answer.text
    assert "script-src 'self'" in answer.headers["content-security-policy"]
    return answer.text


def json_audit(client: TestClient, campaign: dict[str, Any], token: str,
               version: int) -> dict[str, Any]:
    """GET /campaigns/{id}/rolls/audit?version= for the token's role."""
    answer = client.get(f"/campaigns/{campaign['id']}/rolls/audit",
                        params={"version": version}, headers=auth(token))
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def data_of(html: str, name: str) -> str:
    """The dice check button's data-NAME attribute."""
    found = re.search(rf'data-dice-check[^>]*?data-{name}="([^"]*)"', html, re.S)
    assert found is not None, f"no dice check button with data-{name}"
    return markup.unescape(found.group(1))


def shown_roll(html: str, made: dict[str, Any]) -> None:
    """The page shows the roll as the JSON audit made it: key, dice, DRM, Final, result."""
    text = text_of(markup.unescape(html))
    assert made["title"] in text and made["rule"] in text
    assert re.findall(r'<span class="die">(\d)</span>', html) == [str(d) for d in made["dice"]]
    for drm in made["drm"]:
        assert drm["reason"] in text
    final = re.search(r'<tr class="final">.*?<td class="num">(-?\d+)</td>', html, re.S)
    assert final is not None and int(final.group(1)) == made["final"]
    assert made["result"] in text and made["table"] in text


def test_each_role_reads_the_roll_its_json_audit_shows_and_the_opponent_none(
        client: TestClient, campaign: dict[str, Any]) -> None:
    tokens, version = campaign["tokens"], campaign["rolled"]
    for token in (tokens["director"], tokens["sides"][AXIS]):
        audit = json_audit(client, campaign, token, version)
        log_in(client, token)
        html = audit_page(client, campaign, version)
        shown_roll(html, audit["rolls"][0])
        assert audit["key"] in html and audit["key"].startswith(audit["rolls"][0]["cg_date"])
    for token in (tokens["sides"][BRITISH], tokens["observer"]):
        audit = json_audit(client, campaign, token, version)
        assert audit["key"] is None and audit["rolls"] == [] and len(audit["sealed"]) == 1
        log_in(client, token)
        html = audit_page(client, campaign, version)
        assert "secret roll of the Axis" in text_of(html)
        secrets = [tokens["director"], "rg:1", "RG line 1", "I5", 'class="die"',
                   json_audit(client, campaign, tokens["director"], version)["key"]]
        for secret in secrets:
            assert secret not in html, secret


def test_each_drm_shows_with_its_rule(client: TestClient, campaign: dict[str, Any]) -> None:
    british = campaign["tokens"]["sides"][BRITISH]
    body = {"type": "roll", "table": "3.6181", "side": BRITISH, "subject": "rg:3"}
    assert send(client, campaign, british, body).status_code == 200
    version = client.get(f"/campaigns/{campaign['id']}/rolls",
                         headers=auth(british)).json()[-1]["version"]
    made = json_audit(client, campaign, british, version)["rolls"][0]
    assert made["drm"], "the British RG strength DR has its Airborne DRM (3.6181)"
    log_in(client, british)
    html = audit_page(client, campaign, version)
    shown_roll(html, made)
    for drm in made["drm"]:
        row = f'{markup.escape(drm["reason"])} <span class="rule">{drm["rule"]}</span></th>' \
              f'<td class="num">{drm["value"]:+d}</td>'
        assert row in html


def test_the_seed_is_committed_then_revealed_and_the_button_carries_what_the_check_needs(
        client: TestClient, campaign: dict[str, Any]) -> None:
    tokens, version = campaign["tokens"], campaign["rolled"]
    log_in(client, tokens["sides"][AXIS])
    before = audit_page(client, campaign, version)
    assert campaign["seed_commitment"] in before
    assert "committed, not yet revealed" in before and "data-dice-check" not in before
    answer = send(client, campaign, tokens["director"], {"type": "reveal_seed"})
    assert answer.status_code == 200, answer.text
    after = audit_page(client, campaign, version)
    seed, key = data_of(after, "seed"), data_of(after, "key")
    shares = [bytes.fromhex(s) for s in data_of(after, "shares").split()]
    recorded = [int(d) for d in data_of(after, "dice").split()]
    # What the browser is given recomputes the recorded dice, and the seed is the committed
    assert dice_from_seed(effective_seed(bytes.fromhex(seed), shares), key,
                          len(recorded)) == recorded
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == campaign["seed_commitment"]
    assert data_of(after, "commitment") == campaign["seed_commitment"]
    assert recorded == json_audit(client, campaign, tokens["director"], version)["rolls"][0][
        "dice"]
    assert '<script src="/static/dicecheck.js"' in after  # the check's own file, no inline


def test_the_page_shows_the_rolls_inclusion_proof_and_links_its_json(
        client: TestClient, campaign: dict[str, Any]) -> None:
    tokens, version = campaign["tokens"], campaign["rolled"]
    proof = client.get(f"/campaigns/{campaign['id']}/proof", params={"version": version},
                       headers=auth(tokens["director"])).json()
    log_in(client, tokens["sides"][BRITISH])  # a sealed roll's leaf covers no content
    html = audit_page(client, campaign, version)
    assert proof["leaf_hash"] in html and proof["root"] in html
    link = f"/campaigns/{campaign['id']}/proof?version={version}&amp;size={proof['tree_size']}"
    assert link in html
    assert client.get(markup.unescape(link)).json() == proof  # the cookie opens it


def test_the_guide_links_each_latest_roll_to_its_audit_page(
        client: TestClient, campaign: dict[str, Any]) -> None:
    for token in (campaign["tokens"]["sides"][AXIS], campaign["tokens"]["sides"][BRITISH]):
        log_in(client, token)
        guide = client.get(f"/play/{campaign['id']}").text
        assert f'href="/play/{campaign["id"]}/rolls/{campaign["rolled"]}"' in guide


@pytest.mark.parametrize(("version", "code", "said"), [
    ("9999", 422, "no roll with version 9999 is open to this role"),
    ("1", 422, "no roll with version 1 is open to this role"),  # the campaign's creation
    ("abc", 404, "a roll is named by the version it was made at"),
    ("0", 422, "no roll with version 0"),
])
def test_an_address_naming_no_roll_is_a_clear_page_not_a_500(
        client: TestClient, campaign: dict[str, Any], version: str, code: int,
        said: str) -> None:
    log_in(client, campaign["tokens"]["sides"][BRITISH])
    html = audit_page(client, campaign, version, code)
    assert said in markup.unescape(html) and 'role="alert"' in html
    assert "Or at version" not in html  # the forms page's field, not this address's


def test_the_page_needs_a_session(client: TestClient, campaign: dict[str, Any]) -> None:
    answer = client.get(f"/play/{campaign['id']}/rolls/{campaign['rolled']}",
                        follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/"


def test_a_ruling_shows_beside_the_roll_in_the_form_the_roles_json_gives(
        client: TestClient, campaign: dict[str, Any]) -> None:
    tokens, version = campaign["tokens"], campaign["rolled"]
    key = json_audit(client, campaign, tokens["director"], version)["key"]
    ruling = {"key": key, "verdict": "corrected", "reason": "the DR was misread at the table",
              "final": 11, "result": "Depleted"}
    answer = client.post(f"/campaigns/{campaign['id']}/rulings", json=ruling,
                         headers=auth(tokens["director"]))
    assert answer.status_code == 200, answer.text
    # the Axis reads the corrected figures of its secret roll; the British, that it was ruled
    for side, figures in ((AXIS, True), (BRITISH, False)):
        said = json_audit(client, campaign, tokens["sides"][side], version)["rulings"]
        assert [r["reason"] for r in said] == [ruling["reason"]]
        assert (said[0]["final"] == 11) is figures
        log_in(client, tokens["sides"][side])
        text = text_of(markup.unescape(audit_page(client, campaign, version)))
        assert "Corrected by the director" in text and ruling["reason"] in text
        assert ("Final 11: the result is “Depleted”" in markup.unescape(text)) is figures


@pytest.mark.parametrize("path", ["/rolls/²", "/rolls/٣", "?rolled=²-3", "?rolled=1-٣"])
def test_digits_of_other_scripts_in_an_address_are_no_version_and_no_failure(
        client: TestClient, campaign: dict[str, Any], path: str) -> None:
    log_in(client, campaign["tokens"]["director"])
    answer = client.get(f"/play/{campaign['id']}{path}")
    # int() refuses '²', which str.isdigit() takes for a digit: it was a 500
    assert answer.status_code in (200, 404), answer.text[:300]
    assert "the service failed" not in answer.text
