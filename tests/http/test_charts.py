"""`GET /campaigns/{id}/statistics` and `/charts/{name}.svg` (issue 18, item 3): the SVG
is well-formed with a mark for each value, and a side's secret roll changes nothing the
opponent reads there, while it counts for its own side and the director."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.charts import CHARTS
from api.svg import DARK, LIGHT, SERIES
from infra.settings import Settings
from projections.statistics import (
    CPPPoint,
    CVPBar,
    CVPSeries,
    RatingPoint,
    SideDice,
    Statistics,
    distribution,
)
from tests.helpers.http import ADMIN, auth, send, serving
from tests.http.test_reports import Table

SVG = "{http://www.w3.org/2000/svg}"
AXIS, BRITISH = "Axis", "British"
SECRET_DR = {"type": "roll", "table": "T2", "side": AXIS, "subject": "unit:a", "dice": [6, 6]}
OPEN_DR = [({"type": "roll", "table": "T1", "side": AXIS, "subject": "unit:b", "dice": [3]}),
           ({"type": "roll", "table": "T1", "side": BRITISH, "subject": "unit:c", "dice": [5]})]


class Played:
    """A PBr CG I with entered dice (known faces), read by each role."""

    def __init__(self, client: TestClient) -> None:
        answer = client.post("/campaigns", headers=auth(ADMIN), json={
            "module": "pbr", "cg": "I", "name": "Charts", "dice": "entered"})
        assert answer.status_code == 201, answer.text
        self.client, self.campaign = client, answer.json()
        tokens = self.campaign["tokens"]
        self.tokens = {"director": tokens["director"], "observer": tokens["observer"],
                       **tokens["sides"]}

    def roll(self, body: dict[str, Any]) -> None:
        answer = send(self.client, self.campaign, self.tokens[body["side"]], body)
        assert answer.status_code == 200, answer.text

    def get(self, role: str, path: str) -> Any:
        answer = self.client.get(f"/campaigns/{self.campaign['id']}{path}",
                                 headers=auth(self.tokens[role]))
        assert answer.status_code == 200, answer.text
        return answer

    def dice(self, role: str) -> dict[str, Any]:
        dice: dict[str, Any] = self.get(role, "/statistics").json()["dice"]
        return dice

    def svg(self, role: str, name: str) -> ET.Element:
        answer = self.get(role, f"/charts/{name}.svg")
        assert answer.headers["content-type"].startswith("image/svg+xml")
        return ET.fromstring(answer.text)  # well-formed XML, or this raises


RATINGS = [{"type": "change_elr", "side": AXIS, "value": 3, "cause": "test", "rule": "3.613"},
           {"type": "change_san", "side": BRITISH, "value": 2, "cause": "test", "rule": "3.6"}]


@pytest.fixture
def played(client: TestClient) -> Played:
    """Open dr for both sides, an ELR and a SAN set by the director."""
    table = Played(client)
    for body in OPEN_DR:
        table.roll(body)
    for body in RATINGS:
        answer = send(client, table.campaign, table.tokens["director"], body)
        assert answer.status_code == 200, answer.text
    return table


def test_a_secret_roll_changes_nothing_the_opponent_reads_of_the_dice(
        played: Played) -> None:
    before = {role: (played.dice(role), played.get(role, "/charts/dice.svg").text)
              for role in (BRITISH, "observer")}
    played.roll(SECRET_DR)
    for role in (BRITISH, "observer"):
        assert (played.dice(role), played.get(role, "/charts/dice.svg").text) == before[role]
        assert played.dice(role)[AXIS]["DR"]["rolls"] == 0  # the T2 DR stays sealed
        assert played.dice(role)[AXIS]["dr"]["observed"] == [0, 0, 1, 0, 0, 0]  # open T1
    for role in (AXIS, "director"):  # its own side and the director count it
        axis_dr = played.dice(role)[AXIS]["DR"]
        assert axis_dr["rolls"] == 1 and axis_dr["observed"][-1] == 1  # 6 + 6 = 12
        assert played.dice(role)[BRITISH]["dr"]["observed"] == [0, 0, 0, 0, 1, 0]
        histograms = played.svg(role, "dice").iter(f"{SVG}g")
        assert ("Axis", "DR") in {(g.get("data-side"), g.get("data-kind")) for g in histograms}


def bars(svg: ET.Element, cls: str = "rc-bar") -> list[ET.Element]:
    return [e for e in svg.iter() if cls in (e.get("class") or "").split()]


def test_each_chart_has_a_mark_for_each_value_the_role_may_see(played: Played) -> None:
    played.roll(SECRET_DR)
    stats = played.get(BRITISH, "/statistics").json()
    cpp = stats["cpp"]
    shown = [v for side in cpp.values() for p in side if not p["hidden"]
             for v in (p["start"], p["received"], p["spent"], p["forfeited"], p["left"])
             if v is not None]
    assert len(bars(played.svg(BRITISH, "cpp"))) == len(shown) > 0
    assert all(p["hidden"] and p["left"] is None for p in cpp[AXIS])  # 3.617: secret
    scenarios = len(stats["cvp"]["scenarios"])
    assert len(bars(played.svg(BRITISH, "cvp"))) == 2 * scenarios + 2  # and the totals
    ratings = [v for side in stats["ratings"].values() for p in side
               for v in (p["elr"], p["san"]) if v is not None]
    assert len(bars(played.svg(BRITISH, "ratings"), "rc-pt")) == len(ratings) == 2
    for role, histograms in ((BRITISH, 2), ("director", 3)):  # the two open dr, the T2 DR
        groups = [g for g in played.svg(role, "dice").iter(f"{SVG}g")
                  if g.get("class") == "rc-hist"]
        assert len(groups) == histograms, role
        for group in groups:
            assert len(bars(group)) == (6 if group.get("data-kind") == "dr" else 11)


def test_every_chart_is_titled_and_labelled_for_a_screen_reader(played: Played) -> None:
    for name in CHARTS:
        svg = played.svg("observer", name)
        assert svg.get("role") == "img" and svg.get("aria-label")
        assert svg.get("viewBox") and svg.find(f"{SVG}title") is not None
        assert (svg.findtext(f"{SVG}desc") or "").strip()
    caption = played.svg("director", "dice").get("aria-label") or ""
    assert "British dr 1 dr: χ² = 5.00, 5 df, p = 0.416" in caption


def test_the_reads_take_as_of_and_refuse_strangers_and_unknown_charts(
        played: Played) -> None:
    early = played.get(AXIS, "/statistics?as_of=2").json()
    assert early["version"] == 2 and early["dice"][BRITISH]["dr"]["rolls"] == 0
    assert early["dice"][AXIS]["dr"]["rolls"] == 1
    base = f"/campaigns/{played.campaign['id']}"
    assert played.client.get(f"{base}/statistics").status_code == 401
    assert played.client.get(f"{base}/charts/cpp.svg",
                             headers=auth("not-a-token")).status_code == 401
    unknown = played.client.get(f"{base}/charts/pie.svg", headers=auth(played.tokens[AXIS]))
    assert unknown.status_code == 422 and unknown.json()["error"]["field"] == "name"


def test_the_reads_are_documented(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    chart = paths["/campaigns/{campaign}/charts/{name}.svg"]["get"]
    assert "image/svg+xml" in chart["responses"]["200"]["content"]
    assert "401" in chart["responses"] and "Who:" in chart["description"]
    assert "Statistics" in str(paths["/campaigns/{campaign}/statistics"]["get"]["responses"])


def contrast(one: str, two: str) -> float:
    """WCAG 2's contrast ratio of two #rrggbb colours."""
    def luminance(colour: str) -> float:
        channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    light, dark = sorted((luminance(one), luminance(two)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_text_and_series_stand_out_on_the_ground_in_both_themes(theme: dict[str, str]) -> None:
    for name in ("ink", "muted", *SERIES):
        assert contrast(theme[name], theme["bg"]) >= 4.5, name
    assert contrast("#000000", "#ffffff") == pytest.approx(21)  # the check itself


@pytest.fixture
def shipped(settings: Settings) -> Iterator[TestClient]:
    """The service with PBr as it ships."""
    yield from serving(settings)


def as_read(table: Table, role: str) -> tuple[dict[str, Any], list[str]]:
    """The role's statistics (its version aside) and its four charts."""
    stats = table.read(role, "/statistics").json()
    stats.pop("version")
    return stats, [table.read(role, f"/charts/{name}.svg").text for name in CHARTS]


def test_the_axis_secrets_change_no_statistic_or_chart_the_others_read(
        shipped: TestClient) -> None:
    """3.617: the Axis is credited, buys an I5 (three secret leader rolls) and an M1 (a SAN
    held back until 3.623), and rolls its lines' 3.618 in secret; the British and the
    observer read the very same statistics and charts before and after, to the byte."""
    table = Table(shipped)
    table.ok("director", {"type": "change_san", "side": AXIS, "value": 2, "cause": "CG I",
                          "rule": "3.6"})  # public: the opening SAN the M1 will raise
    before = {role: as_read(table, role) for role in (BRITISH, "observer")}
    table.ok("director", {"type": "credit_cpp", "side": AXIS, "amount": 39,
                          "reason": "3.6161"})
    table.ok(AXIS, {"type": "purchase_rg", "side": AXIS, "rg": "I5"})
    table.ok(AXIS, {"type": "purchase_rg", "side": AXIS, "rg": "M1"})
    table.to("setup", "3.619")
    secret = [r for r in table.read("director", "/rolls").json() if r["secret"]]
    assert len(secret) >= 3  # the Axis did roll, in secret
    for role in (BRITISH, "observer"):
        assert as_read(table, role) == before[role], role
    axis = table.read(AXIS, "/statistics").json()
    assert axis["dice"][AXIS]["DR"]["rolls"] + axis["dice"][AXIS]["dr"]["rolls"] == \
        len(secret)
    assert axis["cpp"][AXIS][0]["spent"] > 0 and not axis["cpp"][AXIS][0]["hidden"]
    assert axis["ratings"][AXIS][0]["san"] == 3  # its own SAN, raised by the M1
    assert before[BRITISH][0]["ratings"][AXIS][0]["san"] == 2


HOSTILE = '<script>alert("x")</script> & ]]>'


def test_every_text_is_escaped_and_read_back_as_written() -> None:
    stats = Statistics(
        version=1, sides=[HOSTILE, "B"], cg_dates=[HOSTILE],
        cpp={HOSTILE: [CPPPoint(cg_date=HOSTILE, start=1, spent=2, left=3, hidden=False)],
             "B": [CPPPoint(cg_date=HOSTILE, start=None, spent=None, left=None,
                            hidden=True)]},
        ratings={HOSTILE: [RatingPoint(cg_date=HOSTILE, elr=3, san=None)],
                 "B": [RatingPoint(cg_date=HOSTILE, elr=None, san=2)]},
        cvp=CVPSeries(scenarios=[CVPBar(scenario=HOSTILE, cvp={HOSTILE: 4, "B": 0})],
                      totals={HOSTILE: 4, "B": 0}),
        dice={side: SideDice(dr=distribution("dr", [1, 6]), DR=distribution("DR", []))
              for side in (HOSTILE, "B")},
        rules={"cpp": HOSTILE})
    for name, draw in CHARTS.items():
        svg = ET.fromstring(draw(stats))
        assert not list(svg.iter(f"{SVG}script")), name
        said = [e.text for e in svg.iter(f"{SVG}text")] + [svg.findtext(f"{SVG}desc")]
        assert any(HOSTILE in (words or "") for words in said), name
