"""A side disputes a roll from its audit page; the director's home lists the dispute with
a link to the roll's audit, whose ruling form names who disputed it; the ruling settles
it. A refusal comes back on the same page, as the JSON API words it."""

from __future__ import annotations

import html as markup
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from infra.settings import Settings
from tests.helpers.http import auth, serving
from tests.helpers.paths import FIXTURE_CHART
from tests.helpers.web import csrf_of, text_of
from tests.http.test_roll_disputes import played, rolls
from tests.web.test_director_tools import get, log_in, post


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The service with the fictitious PBr test chart (a public and a secret table)."""
    yield from serving(settings, FIXTURE_CHART)


def dispute_from_page(client: TestClient, campaign: dict[str, Any], version: int,
                      reason: str) -> Any:
    """The dispute form posted from the roll's audit page (the session's side)."""
    page = get(client, f"/play/{campaign['id']}/rolls/{version}")
    return post(client, f"/play/{campaign['id']}/rolls/{version}/dispute",
                {"csrf": csrf_of(page), "reason": reason})


def test_a_side_disputes_the_other_sides_roll_and_the_director_rules_from_the_link(
        client: TestClient) -> None:
    campaign = played(client)
    british = rolls(client, campaign)["British"]
    log_in(client, campaign["tokens"]["sides"]["Axis"])
    page = get(client, f"/play/{campaign['id']}/rolls/{british}")
    assert "Dispute this roll" in page
    answer = dispute_from_page(client, campaign, british, "Sgt. Jones was Pinned")
    assert answer.status_code == 303, answer.text
    page = text_of(get(client, answer.headers["location"].split("#")[0]))
    assert "The Axis disputed it on 14AM" in page and "“Sgt. Jones was Pinned”" in page
    assert "awaits the director's ruling" in page and "Dispute this roll" not in page
    home = text_of(get(client, f"/play/{campaign['id']}"))
    assert f"Your dispute of roll {british} (Fictitious Test Table, " in home
    assert "Sgt. Jones was Pinned" in home

    log_in(client, campaign["tokens"]["director"])
    home = get(client, f"/play/{campaign['id']}")
    assert f'href="/play/{campaign["id"]}/rolls/{british}#rule"' in home
    assert "disputed by the Axis on" in text_of(home) and "Sgt. Jones was Pinned" in home
    audit = get(client, f"/play/{campaign['id']}/rolls/{british}")
    picked = audit.split('name="disputed_by"', 1)[1].split("</select>", 1)[0]
    assert '<option value="Axis" selected>' in picked
    ruled = post(client, f"/play/{campaign['id']}/rolls/{british}/ruling",
                 {"csrf": csrf_of(audit), "verdict": "upheld", "reason": "he was not",
                  "disputed_by": "Axis"})
    assert ruled.status_code == 303, ruled.text
    assert "Sgt. Jones was Pinned" not in get(client, f"/play/{campaign['id']}")
    assert "(settled by a ruling)" in text_of(get(client, f"/play/{campaign['id']}/rolls/"
                                                          f"{british}"))
    log_in(client, campaign["tokens"]["sides"]["Axis"])  # the ruling stands: no form
    assert "Dispute this roll" not in get(client, f"/play/{campaign['id']}/rolls/{british}")


def test_the_director_and_observer_have_no_dispute_form_and_are_refused_one(
        client: TestClient) -> None:
    campaign = played(client)
    british = rolls(client, campaign)["British"]
    log_in(client, campaign["tokens"]["director"])
    assert "Dispute this roll" not in get(client, f"/play/{campaign['id']}/rolls/{british}")
    answer = dispute_from_page(client, campaign, british, "no")
    assert answer.status_code == 403 and "the director rules on it" in answer.text
    log_in(client, campaign["tokens"]["observer"])  # its pages carry no form at all
    page = get(client, f"/play/{campaign['id']}/rolls/{british}")
    assert "Dispute this roll" not in page and 'name="csrf"' not in page
    answer = post(client, f"/play/{campaign['id']}/rolls/{british}/dispute",
                  {"csrf": "none", "reason": "no"})
    assert answer.status_code == 403, answer.text
    status = client.get(f"/campaigns/{campaign['id']}",
                        headers=auth(campaign["tokens"]["director"])).json()
    assert status["disputes"] == []


def test_a_blank_reason_comes_back_on_the_roll_page_naming_the_field(
        client: TestClient) -> None:
    campaign = played(client)
    british = rolls(client, campaign)["British"]
    log_in(client, campaign["tokens"]["sides"]["British"])  # its own roll
    answer = dispute_from_page(client, campaign, british, "   ")
    assert answer.status_code == 422, answer.text
    said = markup.unescape(answer.text)
    assert "a dispute says why the roll is wrong" in said and "Dispute this roll" in said
    assert 'aria-invalid="true"' in answer.text.split('id="dispute-reason"', 1)[1][:400]


def test_the_page_refuses_a_reason_the_api_refuses_and_appends_nothing(
        client: TestClient) -> None:
    campaign = played(client)
    british = rolls(client, campaign)["British"]
    log_in(client, campaign["tokens"]["sides"]["Axis"])
    before = client.get(f"/campaigns/{campaign['id']}",
                        headers=auth(campaign["tokens"]["director"])).json()["version"]
    for reason in ("y" * 10_000, "bell\x07 esc\x1b[31m", "line1\nline2", "a\x00b",
                   "rtl\u202eevil", "\u200b"):
        answer = dispute_from_page(client, campaign, british, reason)
        assert answer.status_code == 422, (reason[:20], answer.text[:200])
        tag = answer.text.split('id="dispute-reason"', 1)[1].split(">", 1)[0]
        assert 'aria-invalid="true"' in tag
    after = client.get(f"/campaigns/{campaign['id']}",
                       headers=auth(campaign["tokens"]["director"])).json()["version"]
    assert after == before


def test_an_address_naming_no_version_is_refused_never_a_500(client: TestClient) -> None:
    campaign = played(client)
    log_in(client, campaign["tokens"]["sides"]["Axis"])
    page = get(client, f"/play/{campaign['id']}/rolls/{rolls(client, campaign)['British']}")
    for version in ("%E2%98%83", "%D9%A1%D9%A5", "%0D%0AX-Injected:%201", "%00", "abc"):
        answer = post(client, f"/play/{campaign['id']}/rolls/{version}/dispute",
                      {"csrf": csrf_of(page), "reason": "why"})
        assert answer.status_code in (404, 422), (version, answer.status_code)
        assert "X-Injected" not in answer.headers


def test_a_side_is_told_on_its_home_that_the_other_side_disputes_its_roll(
        client: TestClient) -> None:
    campaign = played(client)
    british = rolls(client, campaign)["British"]
    log_in(client, campaign["tokens"]["sides"]["Axis"])
    assert dispute_from_page(client, campaign, british, "Sgt. Jones was Pinned"
                             ).status_code == 303
    log_in(client, campaign["tokens"]["sides"]["British"])
    home = text_of(get(client, f"/play/{campaign['id']}"))
    assert f"The Axis disputes your roll {british} (Fictitious Test Table, 14AM): " \
        "“Sgt. Jones was Pinned”" in home
    log_in(client, campaign["tokens"]["observer"])
    home = text_of(get(client, f"/play/{campaign['id']}"))
    assert "Your dispute" not in home and "your roll" not in home
    assert f"The Axis's dispute of roll {british}" in home or \
        f"The Axis disputes the British's roll {british}" in home
