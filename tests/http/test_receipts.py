"""Every answer that appends carries a receipt (CONTRACT 'Proofs'): a command's, an undo's,
a re-roll's and a ruling's, each checking with the key GET /keys publishes; a repeated
Idempotency-Key answers the first answer, receipt and all; the OpenAPI answer model
documents it; `POST /campaigns/{id}/verify` checks one against the history now."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi.testclient import TestClient

from domain import merkle
from domain.receipt import check_receipt
from infra.settings import Settings
from tests.helpers.http import auth, new_campaign, secrets_played, send
from tests.helpers.tamper import delete_from

CREDIT = {"type": "credit_cpp", "side": "Axis", "amount": 9, "reason": "Base"}


def published_key(client: TestClient) -> str:
    """The service's verifier key, as anyone reads it."""
    key: str = client.get("/keys").json()["keys"][0]
    return key


def checked(client: TestClient, answer: Any) -> dict[str, Any]:
    """An answer's receipt, checked with the published key against its events."""
    assert answer.status_code == 200, answer.text
    body = answer.json()
    receipt: dict[str, Any] = body["receipt"]
    proved = check_receipt(receipt, published_key(client))
    assert proved.tree_size == body["version"]
    assert proved.versions == [event["version"] for event in body["events"]]
    assert receipt["leaf_hashes"] == [merkle.leaf_hash(merkle.event_leaf(event)).hex()
                                      for event in body["events"]]
    return receipt


def test_a_commands_receipt_checks_with_the_published_key(client: TestClient) -> None:
    campaign = new_campaign(client)
    receipt = checked(client, send(client, campaign, campaign["tokens"]["director"], CREDIT))
    assert receipt["checkpoint"] == client.get(
        f"/campaigns/{campaign['id']}/checkpoint",
        headers=auth(campaign["tokens"]["observer"])).text


def test_a_sides_receipt_proves_its_secret_as_the_chain_seals_it(client: TestClient) -> None:
    campaign = new_campaign(client)
    axis = campaign["tokens"]["sides"]["Axis"]
    receipt = checked(client, send(client, campaign, axis, {
        "type": "roll", "table": "T2", "side": "Axis", "subject": "unit:Oblt.Secret"}))
    assert receipt["versions"] == [2]


def test_an_undo_a_reroll_and_a_ruling_carry_receipts(client: TestClient) -> None:
    campaign = secrets_played(client)
    director = auth(campaign["tokens"]["director"])
    path = f"/campaigns/{campaign['id']}"
    key = client.get(f"{path}/rolls", headers=director).json()[-1]["key"]
    for route, body in (("/rulings", {"key": key, "verdict": "upheld", "reason": "seen"}),
                        ("/rerolls", {"key": key, "reason": "cocked dice"}),
                        ("/undo", {"to_version": 2, "reason": "start again"})):
        assert checked(client, client.post(path + route, headers=director, json=body))


def test_a_repeated_idempotency_key_answers_the_first_receipt(client: TestClient) -> None:
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    first = send(client, campaign, director, CREDIT, **{"Idempotency-Key": "k-1"})
    send(client, campaign, director, CREDIT | {"amount": 4})
    again = send(client, campaign, director, CREDIT, **{"Idempotency-Key": "k-1"})
    assert again.json() == first.json() and checked(client, again)["tree_size"] == 2


def test_the_openapi_answer_model_documents_the_receipt(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert "receipt" in schemas["CommandAnswer"]["properties"]
    assert {"origin", "tree_size", "versions", "leaf_hashes", "checkpoint", "proofs",
            "keys"} <= set(schemas["Receipt"]["properties"])


def test_post_verify_checks_a_receipt_against_the_history_now(client: TestClient,
                                                              settings: Settings) -> None:
    campaign = new_campaign(client)
    director, observer = campaign["tokens"]["director"], campaign["tokens"]["observer"]
    answer = send(client, campaign, director, CREDIT).json()
    path = f"/campaigns/{campaign['id']}/verify"
    held = client.post(path, json=answer, headers=auth(observer))
    assert held.status_code == 200 and held.json()["ok"], held.text
    delete_from(settings.database_url, UUID(campaign["id"]), 2)
    gone = client.post(path, json=answer["receipt"], headers=auth(observer)).json()
    assert not gone["ok"] and gone["version"] == 2 and "version 2 is missing" in gone["problem"]


def test_post_verify_says_what_is_wrong_with_a_receipt_and_refuses_a_non_object(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    receipt = send(client, campaign, campaign["tokens"]["director"], CREDIT).json()["receipt"]
    path = f"/campaigns/{campaign['id']}/verify"
    observer = auth(campaign["tokens"]["observer"])
    receipt["leaf_hashes"][0] = "00" * 32
    wrong = client.post(path, json=receipt, headers=observer).json()
    assert not wrong["ok"] and "proof is of another leaf" in wrong["problem"]
    assert client.post(path, json=[1], headers=observer).status_code == 422
    assert client.post(path, json=receipt).status_code == 401
