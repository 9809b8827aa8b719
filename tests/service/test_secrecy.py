"""What a side may keep secret reaches that side and the director only, on every read."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from infra.application import Refit
from infra.settings import Settings
from tests.helpers.http import ADMIN, serving
from tests.helpers.story import advance_to, do, load_fixture_chart, to_reph_step


def secret_acts(refit: Refit) -> UUID:
    """On 14AM the Axis buys an RG, spends FPP and rolls in secret; on 14PM it picks a chit."""
    load_fixture_chart(refit)
    campaign = refit.commands.create_campaign("pbr", "I", "Secrets", "server").id
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 39,
                         "reason": "CPP Base # 14AM", "rule": "3.6161"})
    do(refit, campaign, {"type": "purchase_rg", "side": "Axis", "rg": "X1"})
    do(refit, campaign, {"type": "credit_fpp", "side": "Axis", "amount": 3, "reason": "FPP"})
    advance_to(refit, campaign, "3.619")
    do(refit, campaign, {"type": "purchase_fortification", "side": "Axis", "amount": 2,
                         "reason": "Foxhole (2-squad)", "rule": "3.619"})
    do(refit, campaign, {"type": "roll", "table": "T1", "side": "Axis", "secret": True,
                         "subject": "unit:Oblt.Secret"})
    to_reph_step(refit, campaign, "3.621")  # 14PM: chits come after the Initial Scenario
    do(refit, campaign, {"type": "select_initiative", "side": "Axis", "chit": "attack"})
    return campaign


def test_the_opponent_sees_a_secret_roll_happened_but_not_what(refit: Refit) -> None:
    campaign = secret_acts(refit)
    (seen,) = refit.reads.rolls(campaign, viewer="British")
    assert seen.hidden and seen.secret and seen.side == "Axis"
    assert (seen.dice, seen.result, seen.subject, seen.table) == (None, None, None, None)
    (own,) = refit.reads.rolls(campaign, viewer="Axis")
    assert own.subject == "unit:Oblt.Secret" and own.dice is not None


def test_the_opponent_cannot_read_rg_purchases(refit: Refit) -> None:
    campaign = secret_acts(refit)
    (seen,) = refit.reads.purchase_record(campaign, viewer="British")
    assert seen.hidden and seen.rg is None and seen.cpp is None
    (own,) = refit.reads.purchase_record(campaign, viewer="Axis")
    assert own.rg == "X1" and own.cpp == 8


def test_the_opponent_cannot_read_cpp_spent_or_left_on_the_roster(refit: Refit) -> None:
    campaign = secret_acts(refit)
    cell = refit.reads.roster(campaign, viewer="British")[0].sides["Axis"]
    assert cell.hidden
    assert (cell.cpp_spent, cell.cpp_left, cell.rg_purchased, cell.fortifications) == (
        None, None, None, None)
    own = refit.reads.roster(campaign, viewer="Axis")[0].sides["Axis"]
    assert (own.cpp_spent, own.cpp_left, own.fpp) == (8, 31, 0)  # FPP unspent: forfeit (3.619)


def test_a_chit_stays_secret_until_both_are_chosen(refit: Refit) -> None:
    campaign = secret_acts(refit)
    assert refit.reads.roster(campaign, viewer="British")[1].sides["Axis"].chit is None
    result = do(refit, campaign, {"type": "select_initiative", "side": "British",
                                  "chit": "idle"})
    assert [e["type"] for e in result.events[1:]] == ["ChitsRevealed", "OrderDecided"]
    row = refit.reads.roster(campaign, viewer="British")[1]
    assert (row.sides["Axis"].chit, row.sides["British"].chit) == ("attack", "idle")


def test_the_opponent_cannot_read_cpp_in_the_status(refit: Refit) -> None:
    campaign = secret_acts(refit)
    assert refit.reads.status(campaign, viewer="British").sides["Axis"]["cpp"] is None
    assert refit.reads.status(campaign, viewer="Axis").sides["Axis"]["cpp"] == 0  # lost on 14PM


def test_an_observer_sees_neither_sides_secrets(refit: Refit) -> None:
    campaign = secret_acts(refit)
    assert refit.reads.rolls(campaign, viewer="observer")[0].hidden
    assert refit.reads.purchase_record(campaign, viewer="observer")[0].hidden


def test_as_of_reads_keep_secrets_too(refit: Refit) -> None:
    campaign = secret_acts(refit)
    version = refit.store.campaign(campaign).version
    assert refit.reads.purchase_record(campaign, as_of=version, viewer="British")[0].hidden
    assert refit.reads.rolls(campaign, as_of=version, viewer="British")[0].hidden


def test_everything_is_revealed_at_cg_end(refit: Refit) -> None:
    load_fixture_chart(refit)
    campaign = refit.commands.create_campaign("pbr", "I", "Last day", "server",
                                              start_date="17PM").id
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 12, "reason": "Base"})
    do(refit, campaign, {"type": "purchase_rg", "side": "Axis", "rg": "X1"})
    assert refit.reads.purchase_record(campaign, viewer="British")[0].hidden
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})
    assert refit.reads.purchase_record(campaign, viewer="British")[0].rg == "X1"


def test_no_projection_row_holds_the_unrevealed_seed(refit: Refit) -> None:
    campaign = secret_acts(refit)
    seed = refit.store.campaign(campaign).dice.seed
    assert seed is not None
    refit.views.catch_up()
    for kind in ("meta", "roster", "purchase", "roll"):
        for row in refit.views.view.select_all(kind):
            assert seed not in str(row)


def test_cpp_stays_hidden_on_every_later_cg_date_and_in_the_history(refit: Refit) -> None:
    campaign = secret_acts(refit)
    do(refit, campaign, {"type": "select_initiative", "side": "British", "chit": "idle"})
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})
    advance_to(refit, campaign, "3.616")
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 42,
                         "reason": "CPP Base # 14N", "rule": "3.6161"})
    later = refit.reads.roster(campaign, viewer="British")[2]
    axis = later.sides["Axis"]
    assert later.cg_date == "14N" and axis.hidden
    assert (axis.cpp_start, axis.cpp_credited, axis.cpp_left) == (None, None, None)
    assert refit.reads.roster(campaign, viewer="Axis")[2].sides["Axis"].cpp_credited == 42
    assert refit.reads.roster(campaign, viewer="British")[1].sides["Axis"].cpp_start is None
    started = next(r for r in refit.store.records(campaign) if r["type"] == "CGDateStarted")
    assert "cpp" not in started["data"]


# -- over HTTP: what the other side's and the observer's tokens read ---------------------


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The service on the test's own database, with PBr as it ships."""
    yield from serving(settings)


class Game:
    """A PBr campaign over HTTP: the director, both sides and an observer at the table."""

    def __init__(self, client: TestClient, dice: str = "server") -> None:
        created = client.post("/campaigns", headers=_auth(ADMIN),
                              json={"module": "pbr", "cg": "I", "name": "Ranville",
                                    "dice": dice})
        assert created.status_code == 201, created.text
        self.client, self.path = client, f"/campaigns/{created.json()['id']}"
        tokens = created.json()["tokens"]
        self.tokens = {"director": tokens["director"], "observer": tokens["observer"],
                       **tokens["sides"]}

    def do(self, role: str, body: dict[str, Any]) -> Any:
        """A command sent with a role's token; the answer."""
        return self.client.post(f"{self.path}/commands", headers=_auth(self.tokens[role]),
                                json=body)

    def ok(self, role: str, body: dict[str, Any]) -> dict[str, Any]:
        """A command the ledger accepts; its answer's body."""
        answer = self.do(role, body)
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        return result

    def read(self, role: str, read: str) -> Any:
        """A read (`/events`, `/export`, ...) with a role's token; the answer."""
        answer = self.client.get(self.path + read, headers=_auth(self.tokens[role]))
        assert answer.status_code == 200, answer.text
        return answer

    def version(self) -> int:
        return int(self.read("director", "").json()["version"])

    def to_step(self, step: str | None) -> None:
        """The director advances the RePh to a step (None: the scenario)."""
        for _ in range(40):
            if self.read("director", "").json()["step"] == step:
                return
            self.ok("director", {"type": "advance"})
        raise AssertionError(f"never reached step {step}")

    def past_the_initial_scenario_to(self, step: str) -> None:
        """14AM's Initial Scenario is played; the RePh of 14PM reaches `step`."""
        self.to_step(None)
        self.ok("director", {"type": "end_scenario"})
        self.to_step(step)


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


OTHERS = ("British", "observer")  # those the Axis secrets are kept from


def test_a_re_roll_of_a_secret_roll_tells_the_others_an_undo_happened_but_not_why(
        client: TestClient) -> None:
    game = Game(client)
    game.ok("director", {"type": "credit_cpp", "side": "Axis", "amount": 39,
                          "reason": "Initial Scenario: 3.6161 Base #"})
    game.ok("Axis", {"type": "purchase_rg", "side": "Axis", "rg": "I5", "mode": "entry"})
    game.to_step("3.618")
    game.ok("Axis", {"type": "roll", "table": "3.6181", "side": "Axis", "subject": "rg:1"})
    before = game.version()
    key = game.read("director", "/rolls").json()[-1]["key"]  # the secret RG strength DR
    why = "the die rolled under Hptm. Kraus's I5 roster sheet"
    rerolled = client.post(f"{game.path}/rerolls", headers=_auth(game.tokens["director"]),
                           json={"key": key, "reason": why})
    assert rerolled.status_code == 200, rerolled.text

    for role in OTHERS:
        for read in ("/events", "/export", "/report"):
            assert "Kraus" not in game.read(role, read).text, (role, read)
        undone = next(e for e in game.read(role, "/events").json() if e["type"] == "Undone")
        assert undone["data"]["to_version"] == before - 2  # back to before the DR and its RG line
    assert why in game.read("Axis", "/events").text  # kept for the side it was rolled for
    assert why in game.read("director", "/report").text


CASUALTIES = {"type": "roll", "table": "3.613-casualties", "side": "British", "dice": [5],
              "subject": "unit:Lt.Wood"}


def test_a_shift_casualties_dr_is_as_secret_as_the_shift_dr_it_follows(
        client: TestClient) -> None:
    game = Game(client, dice="entered")
    game.past_the_initial_scenario_to("3.613")
    game.ok("British", {"type": "roll", "table": "3.613", "side": "British",  # Final 11:
                        "subject": "unit:Lt.Wood", "dice": [5, 6]})  # Shifted with Casualties
    game.ok("British", CASUALTIES)  # the subsequent dr (3.613 footnote)

    for role in ("Axis", "observer"):
        rolls = game.read(role, "/rolls").json()[-2:]
        assert [(r["secret"], r["table"], r["dice"], r["result"]) for r in rolls] == [
            (True, None, None, None)] * 2, role
        events = game.read(role, "/events").text
        assert "3.613-casualties" not in events and "Casualty Reduction" not in events, role
    own = game.read("British", "/rolls").json()[-1]
    assert (own["table"], own["dice"], own["secret"]) == ("3.613-casualties", [5], True)


def test_no_casualties_dr_follows_a_shift_whose_result_calls_for_none(
        client: TestClient) -> None:
    game = Game(client, dice="entered")
    game.past_the_initial_scenario_to("3.613")
    game.ok("British", {"type": "roll", "table": "3.613", "side": "British",
                        "subject": "unit:Lt.Wood", "dice": [2, 3]})  # Final 5: Shifted safely
    version = game.version()
    refused = game.do("British", CASUALTIES)
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert error["rule"] == "3.613" and "Shifted with Casualties" in error["message"]
    assert game.version() == version  # nothing appended


def test_the_open_recon_dr_shows_its_drm_but_not_the_cpp_spent_on_it(
        client: TestClient) -> None:
    game = Game(client, dice="entered")
    game.past_the_initial_scenario_to("3.620")
    game.ok("director", {"type": "credit_cpp", "side": "British", "amount": 3,
                         "reason": "CPP left"})
    game.ok("British", {"type": "roll", "table": "3.620", "side": "British", "dice": [3],
                        "drm": [{"id": "3.620-beneficial"}]})

    for role in ("Axis", "observer"):
        recon = game.read(role, "/rolls").json()[-1]  # open: 3.6223 has the Axis reveal
        assert (recon["secret"], recon["final"], recon["result"]) == (False, 8, "8 Locations")
        assert [item["value"] for item in recon["drm"]] == [5]
        assert "CPP" not in str(recon["drm"]), role
        *_, roll, spent, _recon = game.read(role, "/events").json()
        assert "CPP" not in str(roll["data"]["drm"]), role
        assert spent["type"] == "Sealed" and spent.get("redacted"), role
    *_, spent, _recon = game.read("British", "/events").json()
    assert spent["data"]["amount"] == 2  # the side reads what it spent, and so has 1 left


def test_the_recon_plus_five_is_taken_once_for_its_one_extra_cpp(client: TestClient) -> None:
    game = Game(client, dice="entered")
    game.past_the_initial_scenario_to("3.620")
    game.ok("director", {"type": "credit_cpp", "side": "British", "amount": 3,
                         "reason": "CPP left"})
    version = game.version()
    for twice in ([{"id": "3.620-beneficial"}] * 2,
                  [{"id": "3.620-beneficial"}, {"id": "3.620-beneficial", "count": 2}]):
        refused = game.do("British", {"type": "roll", "table": "3.620", "side": "British",
                                      "dice": [3], "drm": twice})
        assert refused.status_code == 422
        assert refused.json()["error"]["field"] == "drm[1]"
        assert refused.json()["error"]["rule"] == "3.620"
    assert game.version() == version


def test_the_latest_rolls_are_the_tail_of_every_roll_for_each_viewer(refit: Refit) -> None:
    campaign = secret_acts(refit)
    for name in ("Able", "Baker", "Charlie"):  # public rolls after the secret one
        do(refit, campaign, {"type": "roll", "table": "T1", "side": "British",
                             "subject": f"unit:Sgt.{name}"})
    refit.views.catch_up()
    for viewer in ("Axis", "British", None):
        every = refit.reads.rolls(campaign, viewer=viewer)
        assert len(every) == 4
        for count in (1, 3, 4, 8):
            assert refit.reads.recent_rolls(campaign, viewer, count) == every[-count:]
    assert refit.reads.recent_rolls(campaign, "British", 4)[0].hidden  # the Axis secret
