"""PBr CG I played to CG End by two sides that do only what the guide lists (issue 14).

Each side reads `GET /campaigns/{id}/guide` with its own token and does what its part
lists: every roll `due`, for the subject the guide names; some `optional` work (an RG it
can afford from the purchase list, its FPP on Foxholes, the Loss Points and Recon dr,
a Wounded Leader dr, each now and then with a DRM picked from the listed claims); an
Initiative chit from those the guide offers; then `{"type": "advance", "side": S}`. The
director only ends each CG Scenario with its casualties. Server dice, so no two runs
play alike: whatever the dice, the guide's lists alone must carry the CG to its end.
The CG parameters are the owner file's (fictitious: 3.51 is not in the seeds), so both
sides start with their ELR, SAN and CPP, the OB's RGs on the record and their
Attack-Chit limits. A run is some 650 commands over HTTP, a few seconds on each database.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from infra.application import Refit
from infra.settings import Settings
from tests.helpers.http import ADMIN, auth, serving
from tests.helpers.paths import FIXTURE_PBR_CGS
from tests.helpers.story import do, to_reph_step

AXIS, BRITISH = "Axis", "British"
# CVP each side loses in each CG Scenario, in turn: the first a heavy Axis loss (3.6162).
CASUALTIES = [(16, 4), (6, 8), (4, 14), (9, 9), (12, 5)]


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The service with PBr as it ships and the owner's CG I-III parameters."""
    yield from serving(settings, FIXTURE_PBR_CGS)


class Player:
    """One side at the table: its token, and its own choices among what the guide offers."""

    def __init__(self, client: TestClient, campaign: dict[str, Any], side: str) -> None:
        self.client, self.campaign, self.side = client, campaign, side
        self.token = campaign["tokens"]["sides"][side]
        self.choice = random.Random(f"{side} CG I")
        self.seen: Counter[str] = Counter()  # what the guide listed, by kind

    def send(self, body: dict[str, Any]) -> dict[str, Any]:
        """A command the guide listed: the ledger must take it."""
        answer = self.client.post(f"/campaigns/{self.campaign['id']}/commands",
                                  json={"side": self.side} | body, headers=auth(self.token))
        assert answer.status_code == 200, (self.side, body, answer.text)
        result: dict[str, Any] = answer.json()
        return result

    def part(self) -> dict[str, Any]:
        """The side's own part of the guide (it reads no other)."""
        answer = self.client.get(f"/campaigns/{self.campaign['id']}/guide",
                                 headers=auth(self.token)).json()
        assert list(answer["sides"]) == [self.side]
        part: dict[str, Any] = answer["sides"][self.side] | {"phase": answer["phase"]}
        return part

    def play_step(self) -> None:
        """Its part of the step the RePh is at: due rolls, a choice of optional work, its
        chit, then done (unless it waits for the other side's chit)."""
        part = self.part()
        if part["done"] or part["phase"] not in ("setup", "reph"):
            return  # a CG Scenario is the director's to end
        for note in part["on_leaving"]:
            self.seen[f"warned {note.split(':')[0]}"] += 1
        part = self.roll_due(part)
        if part["optional"]:
            self.optional(part)
            part = self.part()
        if part["chit"] and not part["chit"]["chosen"]:
            self.seen["chit"] += 1
            self.send({"type": "select_initiative",
                       "chit": self.choice.choice(part["chit"]["chits"])})
            part = self.roll_due(self.part())  # both chosen: a Dual Attack's 3.6213 dr
        if part["chit"] is None or not part["chit"]["waiting_for"]:
            self.send({"type": "advance"})

    def roll_due(self, part: dict[str, Any]) -> dict[str, Any]:
        """Every roll listed as due, until none is (a Depleted RG's SW dr follow its
        strength DR; a 3.6182 re-roll round follows too few SW); the part then."""
        for _ in range(10):
            if not part["due"]:
                return part
            for work in part["due"]:
                self.seen[f"due {work['table']}"] += 1
                self.send({"type": "roll", "table": work["table"],
                           "subject": work["subject"]} | self.claim(work))
            part = self.part()
        raise AssertionError(f"{self.side}: rolls never stopped being due")

    def claim(self, work: dict[str, Any]) -> dict[str, Any]:
        """Now and then one optional DRM from the listed claims, by id."""
        plain = [c for c in work["claims"] if not c["count"]]
        if not plain or self.choice.random() < 0.5:
            return {}
        self.seen[f"claim {work['table']}"] += 1
        return {"drm": [{"id": self.choice.choice(plain)["id"]}]}

    def optional(self, part: dict[str, Any]) -> None:
        """Loss Points and Recon when offered, a Wounded Leader dr, RG bought from the
        purchase list (read again after each), FPP spent on Foxholes."""
        for work in part["optional"]:
            if work.get("subject") == "step":
                self.seen[f"optional {work['table']}"] += 1
                self.send({"type": "roll", "table": work["table"], "subject": "step"}
                          | self.claim(work))
            elif work.get("table") == "3.610":  # a leader of each side wounded each time
                self.seen["optional 3.610"] += 1
                self.send({"type": "roll", "table": "3.610", "subject": "unit:Lt.Wounded"}
                          | self.claim(work))
            elif work.get("purchase") == "fortification":
                self.foxholes(work["fpp"])
        if any(work.get("purchase") == "rg" for work in part["optional"]):
            self.buy()

    def buy(self) -> None:
        """Up to three RG a date, each from the guide's list of what the side can afford."""
        for _ in range(3):
            offered = [w for w in self.part()["optional"] if w.get("purchase") == "rg"]
            if not offered or self.choice.random() < 0.4:
                return
            pick = self.choice.choice(offered)
            self.seen["purchase"] += 1
            self.send({"type": "purchase_rg", "rg": pick["rg"]})

    def foxholes(self, fpp: int) -> None:
        """1-squad Foxholes (3.619) with the FPP the guide says are left."""
        self.seen["fortification"] += 1
        self.send({"type": "purchase_fortification", "reason": "Foxhole (1-squad)",
                   "count": fpp, "amount": fpp, "rule": "3.619"})


class Director:
    """Reads where the campaign stands and ends each CG Scenario with its casualties."""

    def __init__(self, client: TestClient, campaign: dict[str, Any]) -> None:
        self.client, self.campaign = client, campaign
        self.token = campaign["tokens"]["director"]
        self.scenarios = 0

    def read(self, what: str = "") -> Any:
        answer = self.client.get(f"/campaigns/{self.campaign['id']}{what}",
                                 headers=auth(self.token))
        assert answer.status_code == 200, answer.text
        return answer.json()

    def end_scenario(self) -> None:
        """Each side's casualties of the CG Scenario, then its end (A26.2)."""
        axis, british = CASUALTIES[self.scenarios % len(CASUALTIES)]
        self.scenarios += 1
        for side, cvp in ((AXIS, axis), (BRITISH, british)):
            self.send({"type": "record_casualty", "side": side, "unit": "4-4-7", "cvp": cvp})
        self.send({"type": "end_scenario"})

    def send(self, body: dict[str, Any]) -> None:
        answer = self.client.post(f"/campaigns/{self.campaign['id']}/commands", json=body,
                                  headers=auth(self.token))
        assert answer.status_code == 200, (body, answer.text)


def play_to_cg_end(client: TestClient) -> tuple[Director, dict[str, Player]]:
    """PBr CG I from its creation to CG End, each side on the guide alone."""
    created = client.post("/campaigns", headers=auth(ADMIN),
                          json={"module": "pbr", "cg": "I", "name": "Guided", "dice": "server"})
    assert created.status_code == 201, created.text
    campaign = created.json()
    director = Director(client, campaign)
    players = {side: Player(client, campaign, side) for side in (AXIS, BRITISH)}
    order = random.Random("who moves first")
    for _ in range(400):
        phase = director.read()["phase"]
        if phase == "ended":
            return director, players
        if phase == "scenario":
            director.end_scenario()
            continue
        for side in order.sample([AXIS, BRITISH], 2):  # either side may act first
            players[side].play_step()
    raise AssertionError("CG I never reached CG End")


def test_pbr_cg_i_runs_to_cg_end_on_the_guides_lists_alone(client: TestClient) -> None:
    director, players = play_to_cg_end(client)
    status = director.read()
    assert (status["cg_date"], status["phase"]) == ("17PM", "ended")
    the_seed_is_revealed_and_every_roll_verifies(director, status)
    nothing_is_still_due(director, status)
    the_cg_roster_adds_up_on_every_date(director)
    the_guide_led_every_kind_of_work(players)


def the_seed_is_revealed_and_every_roll_verifies(director: Director,
                                                 status: dict[str, Any]) -> None:
    """CG End reveals the seed the campaign committed to; verify recomputes every roll."""
    seed = status["seed"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == status["seed_commitment"]
    verified = director.read("/verify")
    rolls = director.read("/rolls")
    assert verified["ok"] and verified["first_bad_version"] is None
    assert verified["rolls_verified"] == len(rolls) > 30


def nothing_is_still_due(director: Director, status: dict[str, Any]) -> None:
    """The guide lists no roll or chit for any side, and the status no roll."""
    guide = director.read("/guide")
    assert all(not part["due"] and part["chit"] is None for part in guide["sides"].values())
    assert status["to_roll"] == []


def the_cg_roster_adds_up_on_every_date(director: Director) -> None:
    """Per CG Date and side: Start + credited - spent - forfeited = Left; the next date
    starts from Left less the Recon CPP (3.620); the RG bought cost what was spent."""
    roster = director.read("/roster")
    record = director.read("/purchase-record")
    assert [row["cg_date"] for row in roster][-1] == "17PM"
    for row, following in zip(roster, [*roster[1:], None], strict=True):
        for side, cell in row["sides"].items():
            where = (row["cg_date"], side)
            assert cell["cpp_start"] + cell["cpp_credited"] - cell["cpp_spent"] - \
                (cell["cpp_forfeited"] or 0) == cell["cpp_left"], where
            assert cell["cpp_spent"] == sum(line["cpp"] or 0 for line in record
                                            if (line["cg_date"], line["side"]) == where)
            if following is not None:
                assert following["sides"][side]["cpp_start"] == \
                    cell["cpp_left"] - (cell["recon_cpp"] or 0), where
    forfeited = {side: cell["cpp_forfeited"] for side, cell in roster[1]["sides"].items()}
    assert roster[1]["cg_date"] == "14PM" and forfeited == {
        side: cell["cpp_start"] + cell["cpp_credited"] - cell["cpp_spent"]
        for side, cell in roster[1]["sides"].items()}  # 3.617 EXC: all of it lost


def the_guide_led_every_kind_of_work(players: dict[str, Player]) -> None:
    """What the guide listed over the CG: RG strength and leader rolls, purchases, chits,
    Recon, Wounded Leader dr, Fortifications, the 14PM warning of CPP forfeited (3.617
    EXC); the Axis's Loss Points after its heavy loss (3.6162)."""
    seen = players[AXIS].seen + players[BRITISH].seen
    for kind in ("due 3.6181", "due 3.6183-personnel", "purchase", "chit",
                 "optional 3.620", "optional 3.610", "fortification", "warned 3.617"):
        assert seen[kind] > 0, (kind, seen)
    assert players[AXIS].seen["optional 3.6162"] > 0, players[AXIS].seen


def test_a_side_that_chose_its_chit_first_is_done_with_3_621_only_once_both_have(
        client: TestClient) -> None:
    director, players = play_to_the_first_initiative_step(client)
    british, axis = players[BRITISH], players[AXIS]
    british.send({"type": "select_initiative", "chit": "attack"})
    waiting = british.part()["chit"]
    assert (waiting["chosen"], waiting["waiting_for"]) == (True, [AXIS])
    before = director.read()["version"]
    early = british.client.post(f"/campaigns/{british.campaign['id']}/commands",
                                json={"type": "advance", "side": BRITISH},
                                headers=auth(british.token))
    assert early.status_code == 422 and early.json()["error"]["rule"] == "3.621"
    assert "the Axis must choose an Initiative chit" in early.json()["error"]["message"]
    assert director.read()["version"] == before
    axis.send({"type": "select_initiative", "chit": "attack"})  # a Dual Attack: 3.6213
    assert [w["table"] for w in british.part()["due"]] == ["3.6213"]
    axis.send({"type": "advance"})
    british.send({"type": "roll", "table": "3.6213", "subject": "step"})
    british.send({"type": "advance"})
    assert director.read()["step"] == "3.622"


def play_to_the_first_initiative_step(client: TestClient) -> tuple[Director, dict[str, Player]]:
    """PBr CG I on the guide's lists to 14PM's 3.621, neither side having chosen a chit."""
    created = client.post("/campaigns", headers=auth(ADMIN),
                          json={"module": "pbr", "cg": "I", "name": "Chits", "dice": "server"})
    campaign = created.json()
    director = Director(client, campaign)
    players = {side: Player(client, campaign, side) for side in (AXIS, BRITISH)}
    for _ in range(100):
        status = director.read()
        if status["phase"] == "scenario":
            director.end_scenario()
        elif status["phase"] == "reph" and status["step"] == "3.621":
            return director, players
        else:
            for player in players.values():
                player.play_step()
    raise AssertionError("never reached 3.621")


def test_the_guide_offers_the_axis_no_attack_chit_while_no_british_unit_is_on_the_map(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Off map", "server").id
    to_reph_step(refit, campaign, "3.621")  # 14PM
    do(refit, campaign, {"type": "record_on_map", "side": BRITISH, "on_map": False})
    sides = refit.reads.guide(campaign)["sides"]
    assert sides[AXIS]["chit"] == {
        "select": "initiative", "rule": "3.6212", "chosen": False, "chits": ["idle"],
        "waiting_for": [BRITISH], "refused": [{  # said why, on the Axis page too
            "chit": "attack", "rule": "3.6212", "why": "the Axis may not choose Attack: the "
                                                      "British have no on-map Retained units"}]}
    assert sides[BRITISH]["chit"]["chits"] == ["attack", "idle"]


def test_recon_is_offered_only_with_the_cpp_to_pay_for_it_and_its_plus_5_with_two(
        refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Recon", "server").id
    to_reph_step(refit, campaign, "3.620")  # 14PM: what was left after 3.617 is lost

    def recon() -> list[list[str]]:
        optional = refit.reads.guide(campaign, viewer=BRITISH)["sides"][BRITISH]["optional"]
        return [[c["id"] for c in w["claims"]] for w in optional if w["table"] == "3.620"]

    assert recon() == []
    for claims in ([], ["3.620-beneficial"]):
        do(refit, campaign, {"type": "credit_cpp", "side": BRITISH, "amount": 1,
                             "reason": "a ruling's CPP", "rule": "3.620"})
        assert recon() == [claims]
