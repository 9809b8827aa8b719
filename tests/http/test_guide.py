"""The guide over HTTP: a side reads its own part, the director every side's, an observer
every side's public rolls; the opponent never learns a side's secret RG lines from the
guide, the status's rolls still due or a refusal."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from infra.settings import Settings
from tests.helpers.http import auth, new_campaign, send, serving

AXIS, BRITISH = "Axis", "British"


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The service with PBr as it ships (its own RG charts, no test chart)."""
    yield from serving(settings)


@pytest.fixture
def at_3618(client: TestClient) -> dict[str, Any]:
    """14AM: the Axis bought an I5 (line 1) and the British an I2 (line 2), each with its
    own token; the director has moved the RePh to 3.618."""
    campaign = new_campaign(client)
    tokens = campaign["tokens"]
    for side, amount in ((AXIS, 39), (BRITISH, 17)):
        credit = {"type": "credit_cpp", "side": side, "amount": amount, "reason": "3.6161"}
        assert send(client, campaign, tokens["director"], credit).status_code == 200
    for side, rg in ((AXIS, "I5"), (BRITISH, "I2")):
        bought = send(client, campaign, tokens["sides"][side],
                      {"type": "purchase_rg", "side": side, "rg": rg})
        assert bought.status_code == 200, bought.text
    assert send(client, campaign, tokens["director"], {"type": "advance"}).status_code == 200
    return campaign


def guide(client: TestClient, campaign: dict[str, Any], token: str) -> Any:
    """The guide as the token's role reads it."""
    answer = client.get(f"/campaigns/{campaign['id']}/guide", headers=auth(token))
    assert answer.status_code == 200, answer.text
    return answer


def subjects(part: dict[str, Any]) -> list[tuple[str, str]]:
    """A side's due rolls as (table, subject)."""
    return [(work["table"], work["subject"]) for work in part["due"]]


def test_a_side_reads_its_own_part_and_the_director_every_sides(
        client: TestClient, at_3618: dict[str, Any]) -> None:
    tokens = at_3618["tokens"]
    axis = guide(client, at_3618, tokens["sides"][AXIS]).json()
    assert (axis["cg_date"], axis["step"], list(axis["sides"])) == ("14AM", "3.618", [AXIS])
    assert subjects(axis["sides"][AXIS]) == [("3.6181", "rg:1")]
    strength = axis["sides"][AXIS]["due"][0]
    assert strength["secret"] is True and strength["rule"] == "3.6181"
    assert strength["claims"] == []  # 3.6181 lists no DRM a side claims: all are derived
    director = guide(client, at_3618, tokens["director"]).json()
    assert {side: subjects(part) for side, part in director["sides"].items()} == {
        AXIS: [("3.6181", "rg:1")], BRITISH: [("3.6181", "rg:2")]}


def test_the_opponent_learns_nothing_of_a_sides_rg_lines_from_the_guide_status_or_refusal(
        client: TestClient, at_3618: dict[str, Any]) -> None:
    tokens = at_3618["tokens"]
    british = guide(client, at_3618, tokens["sides"][BRITISH])
    assert list(british.json()["sides"]) == [BRITISH]
    assert "rg:1" not in british.text and "I5" not in british.text
    status = client.get(f"/campaigns/{at_3618['id']}", headers=auth(tokens["sides"][BRITISH]))
    assert status.json()["to_roll"] == ["3.6181 British for rg:2"]
    refused = send(client, at_3618, tokens["sides"][BRITISH],
                   {"type": "advance", "side": BRITISH})
    assert refused.status_code == 422 and refused.json()["error"]["rule"] == "3.618"
    message = refused.json()["error"]["message"]
    assert "rg:2" in message and "rg:1" not in message and AXIS not in message


def test_an_observer_sees_every_sides_public_rolls_and_no_rg_line_or_purchase(
        client: TestClient, at_3618: dict[str, Any]) -> None:
    observer = guide(client, at_3618, at_3618["tokens"]["observer"])
    answer = observer.json()
    assert set(answer["sides"]) == {AXIS, BRITISH}
    assert all(part["due"] == [] and part["optional"] == [] for part in answer["sides"].values())
    assert "rg:" not in observer.text
    status = client.get(f"/campaigns/{at_3618['id']}",
                        headers=auth(at_3618["tokens"]["observer"]))
    assert status.json()["to_roll"] == []


def test_each_side_marks_its_part_done_over_http_and_the_guide_shows_who_has(
        client: TestClient, at_3618: dict[str, Any]) -> None:
    tokens = at_3618["tokens"]
    for side, line in ((AXIS, 1), (BRITISH, 2)):
        strength = {"type": "determine_rg", "side": side, "purchase": line, "strength": "F"}
        assert send(client, at_3618, tokens["director"], strength).status_code == 200
        part = guide(client, at_3618, tokens["sides"][side]).json()["sides"][side]
        for work in part["due"]:
            body = {"type": "roll", "table": work["table"], "side": side,
                    "subject": work["subject"]}
            assert send(client, at_3618, tokens["sides"][side], body).status_code == 200
    advance = {"type": "advance", "side": AXIS}
    assert send(client, at_3618, tokens["sides"][AXIS], advance).status_code == 200
    shown = guide(client, at_3618, tokens["director"]).json()
    assert (shown["sides"][AXIS]["done"], shown["sides"][BRITISH]["done"]) == (True, False)
    again = send(client, at_3618, tokens["sides"][AXIS],
                 {"type": "roll", "table": "3.6183-personnel", "side": AXIS,
                  "subject": "rg:1/leader:1"})
    assert again.status_code == 422 and "marked its part" in again.json()["error"]["message"]
    other = send(client, at_3618, tokens["sides"][AXIS], {"type": "advance", "side": BRITISH})
    assert other.status_code == 403  # a side marks its own part only
    last = send(client, at_3618, tokens["sides"][BRITISH], {"type": "advance", "side": BRITISH})
    assert last.status_code == 200
    assert guide(client, at_3618, tokens["director"]).json()["step"] == "3.619"


def test_leaving_3617_on_14pm_warns_each_side_of_its_cpp_forfeited(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    for body in ({"type": "advance"},) * 7 + ({"type": "end_scenario"},):
        assert send(client, campaign, director, body).status_code == 200, body
    status = client.get(f"/campaigns/{campaign['id']}", headers=auth(director)).json()
    while status["step"] != "3.617":
        assert send(client, campaign, director, {"type": "advance"}).status_code == 200
        status = client.get(f"/campaigns/{campaign['id']}", headers=auth(director)).json()
    axis = guide(client, campaign, campaign["tokens"]["sides"][AXIS]).json()["sides"][AXIS]
    assert any(note.startswith("3.617: leaving 3.617 on 14PM forfeits the Axis side's unspent CPP")
               for note in axis["on_leaving"])
    assert any(work.get("purchase") == "rg" for work in axis["optional"])
    observer = guide(client, campaign, campaign["tokens"]["observer"]).json()
    assert all("now" not in note for part in observer["sides"].values()
               for note in part["on_leaving"])  # how many CPP is each side's secret


def test_a_side_reads_why_the_steps_tables_it_does_not_roll_are_not_rolled_now(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    tokens = campaign["tokens"]
    while guide(client, campaign, tokens["director"]).json()["step"] != "3.620":
        assert send(client, campaign, tokens["director"], {"type": "advance"}).status_code \
            == 200
    british = guide(client, campaign, tokens["sides"][BRITISH]).json()["sides"][BRITISH]
    assert british["due"] == [] and british["optional"] == []
    assert [(t["table"], t["rule"], t["why"]) for t in british["not_now"]] == [
        ("3.620", "3.620", "table 3.620 is not rolled for an Initial Scenario: its SSR gives it")]
    observer = guide(client, campaign, tokens["observer"]).json()["sides"]
    assert all(part["not_now"] == [] for part in observer.values())  # a side's own reasons
    page = client.post("/login", data={"token": tokens["sides"][BRITISH]},
                       follow_redirects=False)
    assert page.status_code == 303
    shown = client.get(f"/play/{campaign['id']}").text
    assert "Not rolled now (1)" in shown and "is not rolled for an Initial Scenario" in shown
