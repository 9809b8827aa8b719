"""The charts page over HTTP (issue 18, item 3): each role sees the campaign's SVG charts
and each side's dice against fair dice, as its own `/statistics` read gives them, now or
as of an earlier point; the opponent reads nothing of a side's secret rolls or CPP there;
a bad point is a clear refusal with the JSON API's status."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.charts import CHARTS
from tests.helpers.web import AXIS, BRITISH, strength_rolled
from tests.web.test_forms_pages import json_read, log_in, read


@pytest.fixture
def campaign(client: TestClient) -> dict[str, Any]:
    """14AM: both sides bought RG in secret in 3.617, then the Axis rolled its secret
    strength DR for line 1 (3.6181)."""
    return strength_rolled(client)


def dice_caption(page: str, side: str, kind: str) -> str:
    """What the page's dice table for a side's dr or DR says of its chi-square."""
    found = re.search(rf"{side} {kind}: (.*?) {kind} Rolled", page)
    assert found is not None, f"no {side} {kind} table on the page"
    return found.group(1)


def test_each_role_sees_every_chart_and_the_dice_table_of_each_side(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    answer = client.get(f"/play/{campaign['id']}/charts")
    assert answer.status_code == 200, answer.text
    for name in CHARTS:
        image = f'src="/campaigns/{campaign["id"]}/charts/{name}.svg"'
        assert image in answer.text, f"no {name} chart"
        svg = client.get(f"/campaigns/{campaign['id']}/charts/{name}.svg")  # by the cookie
        assert svg.status_code == 200 and svg.text.startswith("<svg")
    assert re.search(r'<img [^>]*alt="CPP per CG Date: [^"]+"', answer.text)
    page = read(client, f"/play/{campaign['id']}/charts")
    stats = json_read(client, campaign, campaign["tokens"]["director"], "/statistics")
    assert stats["dice"][AXIS]["DR"]["rolls"] == 1 and stats["dice"][BRITISH]["DR"]["rolls"] == 0
    assert dice_caption(page, AXIS, "DR").startswith("1 DR: χ² = ")
    for side, kind in ((BRITISH, "DR"), (AXIS, "dr"), (BRITISH, "dr")):
        assert dice_caption(page, side, kind) == f"no {kind} this reader may see yet"


def test_the_opponent_reads_no_dice_of_a_secret_roll_and_no_secret_cpp(
        client: TestClient, campaign: dict[str, Any]) -> None:
    sides = campaign["tokens"]["sides"]
    axis = json_read(client, campaign, sides[AXIS], "/statistics")
    british = json_read(client, campaign, sides[BRITISH], "/statistics")
    assert axis["dice"][AXIS]["DR"]["rolls"] == 1  # its own secret strength DR
    assert british["dice"][AXIS]["DR"]["rolls"] == 0
    spent = axis["cpp"][AXIS][-1]["spent"]
    assert spent and british["cpp"][AXIS][-1]["spent"] is None
    log_in(client, sides[BRITISH])
    page = read(client, f"/play/{campaign['id']}/charts")
    assert dice_caption(page, AXIS, "DR") == "no DR this reader may see yet"
    assert "as the British reads them" in page
    chart = client.get(f"/campaigns/{campaign['id']}/charts/cpp.svg").text
    assert "kept secret" in chart and f"Spent {spent}" not in chart
    log_in(client, sides[AXIS])
    own = read(client, f"/play/{campaign['id']}/charts")
    assert dice_caption(own, AXIS, "DR").startswith("1 DR: χ² = ")


def test_the_charts_as_of_an_earlier_point_are_drawn_then(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["sides"][AXIS])
    answer = client.get(f"/play/{campaign['id']}/charts", params={"as_of": "14AM/3.617"})
    assert answer.status_code == 200, answer.text
    version = json_read(client, campaign, campaign["tokens"]["sides"][AXIS], "/statistics",
                        as_of="14AM/3.617")["version"]
    assert f'charts/dice.svg?as_of={version}"' in answer.text
    page = read(client, f"/play/{campaign['id']}/charts", as_of="14AM/3.617")
    assert f"As of version {version} (14AM, after step 3.617)" in page
    assert dice_caption(page, AXIS, "DR") == "no DR this reader may see yet"  # before it


@pytest.mark.parametrize("params", [{"as_of": "garbage"}, {"version": "99999"},
                                    {"version": "x1"}, {"as_of": "1" * 60}])
def test_a_bad_point_is_refused_naming_its_field(
        client: TestClient, campaign: dict[str, Any], params: dict[str, str]) -> None:
    log_in(client, campaign["tokens"]["observer"])
    page = read(client, f"/play/{campaign['id']}/charts", 422, **params)
    assert "Refused:" in page and "charts/cpp.svg" not in page


def test_the_charts_page_needs_a_session_and_the_guide_links_it(
        client: TestClient, campaign: dict[str, Any]) -> None:
    answer = client.get(f"/play/{campaign['id']}/charts", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/"
    log_in(client, campaign["tokens"]["observer"])
    home = client.get(f"/play/{campaign['id']}").text
    assert f'href="/play/{campaign["id"]}/charts"' in home
