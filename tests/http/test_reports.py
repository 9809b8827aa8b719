"""Reports between the sides over HTTP: each side's token sends its own casualty and
control reports and answers the other side's; what it may not send is 403 (CONTRACT: role
may not); the RG line a casualty came from stays its side's on every read; a side spends
its own Recon CPP by rolling 3.620 itself."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from infra.settings import Settings
from tests.helpers.http import auth, new_campaign, send, serving, without_module_data

AXIS, BRITISH = "Axis", "British"
LOST = {"type": "record_casualty", "side": AXIS, "unit": "4-6-8", "cvp": 2}


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The service with PBr as it ships."""
    yield from serving(settings)


class Table:
    """A PBr CG I over HTTP: the director, both sides and an observer, each by token."""

    def __init__(self, client: TestClient, name: str = "Ranville") -> None:
        self.client, self.campaign = client, new_campaign(client, name=name)
        tokens = self.campaign["tokens"]
        self.tokens = {"director": tokens["director"], "observer": tokens["observer"],
                       **tokens["sides"]}

    def send(self, role: str, body: dict[str, Any]) -> Any:
        return send(self.client, self.campaign, self.tokens[role], body)

    def ok(self, role: str, body: dict[str, Any]) -> dict[str, Any]:
        answer = self.send(role, body)
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        return result

    def forbidden(self, role: str, body: dict[str, Any]) -> str:
        """A command the role may not send: 403, and nothing appended."""
        before = self.read("director", "").json()["version"]
        answer = self.send(role, body)
        assert answer.status_code == 403, answer.text
        assert self.read("director", "").json()["version"] == before
        message: str = answer.json()["error"]["message"]
        return message

    def read(self, role: str, path: str) -> Any:
        answer = self.client.get(f"/campaigns/{self.campaign['id']}{path}",
                                 headers=auth(self.tokens[role]))
        assert answer.status_code == 200, answer.text
        return answer

    def to(self, phase: str, step: str | None = None) -> None:
        """The director moves on, each side making its own due rolls, to a phase/step."""
        for _ in range(40):
            status = self.read("director", "").json()
            if (status["phase"], status["step"]) == (phase, step):
                return
            self.roll_what_is_due()
            if status["phase"] == "scenario":
                self.ok("director", {"type": "end_scenario"})
            else:
                self.ok("director", {"type": "advance"})
        raise AssertionError(f"never reached {phase} {step}")

    def roll_what_is_due(self) -> None:
        """Each side rolls, with its own token, what the guide lists as due (a Depleted
        RG's SW dr follow its strength DR)."""
        for _ in range(10):
            rolls = [(side, work) for side, part in
                     self.read("director", "/guide").json()["sides"].items()
                     for work in part["due"] if "table" in work]
            if not rolls:
                return
            for side, work in rolls:
                self.ok(side, {"type": "roll", "table": work["table"], "side": side,
                               "subject": work["subject"]})


@pytest.fixture
def table(client: TestClient) -> Table:
    """14AM: the Axis bought an I5 (line 1) with its own token; the scenario is in play."""
    return an_i5_bought(client)


def an_i5_bought(client: TestClient) -> Table:
    """A new campaign where the Axis bought an I5 (its secret line 1) at 14AM, its Initial
    Scenario now in play."""
    table = Table(client)
    table.ok("director", {"type": "credit_cpp", "side": AXIS, "amount": 39,
                          "reason": "3.6161"})
    table.ok(AXIS, {"type": "purchase_rg", "side": AXIS, "rg": "I5"})
    table.to("scenario")
    return table


def test_a_side_reports_its_loss_and_the_other_sides_token_confirms_it(table: Table) -> None:
    reported = table.ok(AXIS, LOST)
    assert [e["type"] for e in reported["events"]] == ["CasualtyReported",
                                                        "CasualtyLineReported"]
    assert table.read("observer", "/cvp").json()["totals"] == {AXIS: 0, BRITISH: 0}
    for role in (BRITISH, "observer", AXIS):  # public, as casualties are
        (open_report,) = table.read(role, "").json()["reports"]
        assert open_report["awaiting"] == [BRITISH], role
    (due,) = table.read(BRITISH, "/guide").json()["sides"][BRITISH]["due"]
    assert due["report"] == 1 and due["commands"] == ["confirm_report", "dispute_report"]

    table.ok(BRITISH, {"type": "confirm_report", "report": 1, "side": BRITISH})
    assert table.read("observer", "/cvp").json()["totals"] == {AXIS: 2, BRITISH: 0}


def test_what_a_sides_token_may_not_send_is_403(table: Table) -> None:
    assert "not for the Axis" in table.forbidden(BRITISH, LOST)  # the Axis reports its loss
    table.ok(AXIS, LOST)
    assert "the other side" in table.forbidden(
        AXIS, {"type": "confirm_report", "report": 1, "side": AXIS})
    table.forbidden(AXIS, {"type": "confirm_report", "report": 1, "side": BRITISH})
    table.forbidden(AXIS, {"type": "confirm_report", "report": 1})  # settling: the director's
    table.forbidden("observer", {"type": "confirm_report", "report": 1, "side": BRITISH})
    table.forbidden(BRITISH, {"type": "change_control", "location": "Q16", "side": None})
    table.forbidden(BRITISH, {"type": "spend_cpp", "side": BRITISH, "amount": 1,
                              "reason": "Recon", "rule": "3.620"})


def test_a_dispute_waits_in_the_directors_guide_and_the_director_settles_it(
        table: Table) -> None:
    table.ok(AXIS, LOST)
    table.ok(BRITISH, {"type": "dispute_report", "report": 1, "side": BRITISH,
                       "reason": "a 4-4-7, 1 CVP"})
    (shown,) = table.read("director", "/guide").json()["reports"]
    assert (shown["status"], shown["awaiting"]) == ("disputed", ["director"])
    ending = table.send("director", {"type": "end_scenario"})
    assert ending.status_code == 422 and "report 1" in ending.json()["error"]["message"]
    table.ok("director", {"type": "withdraw_report", "report": 1,
                          "reason": "it was a 4-4-7: report it again"})
    table.ok(AXIS, LOST | {"unit": "4-4-7", "cvp": 1})
    table.ok(BRITISH, {"type": "confirm_report", "report": 2, "side": BRITISH})
    assert table.read("director", "/cvp").json()["totals"] == {AXIS: 1, BRITISH: 0}


def test_the_rg_line_of_a_reported_casualty_stays_its_sides_on_every_read(
        table: Table) -> None:
    reported = table.ok(AXIS, LOST | {"purchase": 1})["version"]
    table.ok(BRITISH, {"type": "confirm_report", "report": 1, "side": BRITISH})
    for role in (BRITISH, "observer"):
        events = table.read(role, "/events").json()
        sealed = [e for e in events if e["type"] == "Sealed"  # the line reported, recorded
                  and e["version"] >= reported]
        assert len(sealed) == 2 and all("purchase" not in e["data"] for e in sealed), role
        export = without_module_data(table.read(role, "/export").text)
        assert '"purchase":1' not in export.replace(" ", ""), role
        assert "purchase" not in str(table.read(role, "/guide").json()["reports"]), role
        assert "RG #1" not in table.read(role, "/report?format=text").text, role
        rows = table.read(role, "/purchase-record").json()
        assert all(row.get("casualties") in (None, [], "") for row in rows), role
    own = [e for e in table.read(AXIS, "/events").json() if e["type"] == "RGCasualty"]
    assert own[0]["data"]["purchase"] == 1
    assert "RG #1 lost 4-6-8" in table.read(AXIS, "/report?format=text").text


def test_a_side_spends_its_own_recon_cpp_by_rolling_3_620(table: Table) -> None:
    table.to("reph", "3.620")  # 14PM: after the Initial Scenario, Recon may be bought
    table.ok("director", {"type": "credit_cpp", "side": BRITISH, "amount": 3,
                          "reason": "CPP left"})
    table.ok(BRITISH, {"type": "roll", "table": "3.620", "side": BRITISH,
                       "drm": [{"id": "3.620-beneficial"}]})
    assert table.read(BRITISH, "").json()["sides"][BRITISH]["cpp"] == 1  # 2 CPP for the +5
    assert table.read(AXIS, "").json()["sides"][BRITISH]["cpp"] is None  # its own secret
