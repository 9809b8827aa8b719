"""POST /campaigns starts a PBr CG where the owner's CG parameters (3.51-3.53) say, and its
Initial Scenario OB's RGs are public on every read, while a purchase stays secret (3.617)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from infra.settings import Settings
from tests.helpers.http import ADMIN, auth, send, serving
from tests.helpers.paths import FIXTURE_PBR_CGS


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The service, with PBr's charts as they ship and the owner's (fictitious) CG file."""
    yield from serving(settings, FIXTURE_PBR_CGS)


def cg_ii(client: TestClient) -> dict[str, Any]:
    """PBr CG II, created by the admin; the Axis then buys a G3 in secret."""
    answer = client.post("/campaigns", headers=auth(ADMIN),
                         json={"module": "pbr", "cg": "II", "name": "Primosole"})
    assert answer.status_code == 201, answer.text
    campaign: dict[str, Any] = answer.json()
    axis = campaign["tokens"]["sides"]["Axis"]
    bought = send(client, campaign, axis, {"type": "purchase_rg", "side": "Axis", "rg": "G3"})
    assert bought.status_code == 200, bought.text
    return campaign


def read(client: TestClient, campaign: dict[str, Any], token: str, what: str) -> Any:
    answer = client.get(f"/campaigns/{campaign['id']}{what}", headers=auth(token))
    assert answer.status_code == 200, answer.text
    return answer


def test_post_campaigns_starts_cg_ii_on_its_date_with_its_ratings(client: TestClient) -> None:
    campaign = cg_ii(client)
    status = read(client, campaign, campaign["tokens"]["sides"]["British"], "").json()
    assert (status["cg_date"], status["step"]) == ("15AM", "3.617")
    assert status["sides"]["Axis"] | {"cpp": None} == {"cpp": None, "fpp": None, "elr": 4,
                                                         "san": 2}
    assert status["sides"]["British"]["cpp"] == 45  # its own: the CG's 45 CPP


def test_the_opponent_reads_the_ob_given_rgs_but_not_the_purchase(client: TestClient) -> None:
    campaign = cg_ii(client)
    for role in ("British", "observer"):
        token = campaign["tokens"]["sides"].get(role) or campaign["tokens"][role]
        given, _, bought = read(client, campaign, token, "/purchase-record").json()
        assert (given["rg"], given["given"], given["hidden"]) == (
            "I1", "CG II Initial Scenario OB", False)
        assert bought["hidden"] and bought["rg"] is None
        events = read(client, campaign, token, "/events").json()
        assert [e["data"]["rg"] for e in events if e["type"] == "RGReceived"] == ["I1", "V1"]
        assert "RGPurchased" not in {e["type"] for e in events}  # one sealed fact, of no type
        purchase = next(e for e in events if e["type"] == "Sealed")
        assert purchase["data"] == {"secret_for": "Axis"}
        # The events; the tail also carries the module data, whose chart names every RG.
        export = read(client, campaign, token, "/export").text.splitlines()[:-1]
        assert '"rg":"I1"' in "".join(export).replace(" ", "") and "G3" not in "".join(export)


def test_get_modules_says_which_cg_parameters_are_supplied(client: TestClient) -> None:
    modules = {m["id"]: m for m in client.get("/modules").json()}
    assert modules["pbr"]["missing_cg_parameters"] == []  # the owner's file gives all three
    assert modules["abtf"]["missing_cg_parameters"] == [
        "CG I parameters (9.51-9.53)", "CG II parameters (9.51-9.53)",
        "CG III parameters (9.51-9.53)"]
