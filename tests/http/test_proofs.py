"""The proofs a player keeps (CONTRACT 'Proofs'): the Axis buys an RG and rolls in secret,
and every event is proved in every tree that holds it, every tree extends the ones
before, the signed checkpoint checks offline with the key the service publishes, and the
British are handed the very same proof of the Axis secret as the Axis."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.app import create_app
from api.cli import app as cli
from domain import merkle
from domain.checkpoint import CheckpointInvalid, verify_checkpoint
from domain.merkle import ConsistencyProof, InclusionProof
from infra.settings import Settings
from tests.helpers.http import ADMIN, auth, secrets_played, started_and_stopped

PETER_SIGNER = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
PETER_VERIFIER = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"


def proof(client: TestClient, campaign: dict[str, Any], token: str, **query: int) -> Any:
    """`GET /campaigns/{id}/proof` with a query (`first` is sent as `from`)."""
    params = {("from" if k == "first" else k): v for k, v in query.items()}
    answer = client.get(f"/campaigns/{campaign['id']}/proof", params=params,
                        headers=auth(token))
    assert answer.status_code == 200, answer.text
    return answer.json()


def inclusion(body: dict[str, Any]) -> InclusionProof:
    """An inclusion proof as its JSON states it."""
    return InclusionProof(body["leaf_index"], body["tree_size"],
                          bytes.fromhex(body["leaf_hash"]),
                          tuple(bytes.fromhex(h) for h in body["hashes"]),
                          bytes.fromhex(body["root"]))


def consistency(body: dict[str, Any]) -> ConsistencyProof:
    """A consistency proof as its JSON states it."""
    return ConsistencyProof(body["from"], body["tree_size"], bytes.fromhex(body["from_root"]),
                            tuple(bytes.fromhex(h) for h in body["hashes"]),
                            bytes.fromhex(body["root"]))


def events(client: TestClient, campaign: dict[str, Any], token: str) -> list[dict[str, Any]]:
    """The event log as a token's role reads it."""
    answer = client.get(f"/campaigns/{campaign['id']}/events", headers=auth(token))
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()
    return found


def checkpoint(client: TestClient, campaign: dict[str, Any], token: str) -> str:
    """The campaign's signed checkpoint, as text."""
    answer = client.get(f"/campaigns/{campaign['id']}/checkpoint", headers=auth(token))
    assert answer.status_code == 200 and answer.headers["content-type"].startswith(
        "text/plain"), answer.text
    return answer.text


def test_every_event_is_proved_in_every_tree_that_holds_it(client: TestClient) -> None:
    campaign = secrets_played(client)
    observer = campaign["tokens"]["observer"]
    log = events(client, campaign, observer)
    head = len(log)
    assert head >= 4 and [e["version"] for e in log] == list(range(1, head + 1))
    roots = {}
    for size in range(1, head + 1):
        for version in range(1, size + 1):
            body = proof(client, campaign, observer, version=version, size=size)
            assert (body["leaf_index"], body["tree_size"]) == (version - 1, size)
            assert body["leaf_hash"] == merkle.leaf_hash(
                merkle.event_leaf(log[version - 1])).hex()
            assert merkle.verify_inclusion(inclusion(body)), (version, size)
            roots[size] = body["root"]
    assert proof(client, campaign, observer, version=1)["tree_size"] == head  # size: now
    for first in range(1, head + 1):
        for size in range(first, head + 1):
            body = proof(client, campaign, observer, first=first, size=size)
            assert (body["from_root"], body["root"]) == (roots[first], roots[size])
            assert merkle.verify_consistency(consistency(body)), (first, size)


def test_the_checkpoint_checks_offline_with_the_published_key_and_no_other(
        client: TestClient) -> None:
    campaign = secrets_played(client)
    keys = client.get("/keys").json()["keys"]  # anyone may fetch them
    note = checkpoint(client, campaign, campaign["tokens"]["observer"])
    head = client.get(f"/campaigns/{campaign['id']}",
                      headers=auth(campaign["tokens"]["director"])).json()["version"]
    point = verify_checkpoint(note, keys[0], f"refit/campaigns/{campaign['id']}")
    assert point.size == head
    assert point.root.hex() == proof(client, campaign, campaign["tokens"]["observer"],
                                     version=head)["root"]
    with pytest.raises(CheckpointInvalid):
        verify_checkpoint(note, PETER_VERIFIER)
    with pytest.raises(CheckpointInvalid):
        verify_checkpoint(note.replace(f"\n{head}\n", f"\n{head - 1}\n"), keys[0])
    other_root = base64.b64encode(bytes(32)).decode()
    with pytest.raises(CheckpointInvalid):
        verify_checkpoint(note.replace(base64.b64encode(point.root).decode(), other_root),
                          keys[0])


def test_the_british_get_the_same_proof_of_an_axis_secret_as_the_axis(
        client: TestClient) -> None:
    campaign = secrets_played(client)
    tokens = campaign["tokens"]
    axis, british = tokens["sides"]["Axis"], tokens["sides"]["British"]
    sealed = [e["version"] for e in events(client, campaign, tokens["director"])
              if e.get("sealed")]
    assert len(sealed) >= 2  # the RG purchase and the secret roll, at least
    seen_by_british = {e["version"]: e for e in events(client, campaign, british)}
    for version in sealed:
        assert seen_by_british[version].get("redacted") is True
        shown = {who: proof(client, campaign, token, version=version)
                 for who, token in (("Axis", axis), ("British", british),
                                    ("observer", tokens["observer"]))}
        assert shown["British"] == shown["Axis"] == shown["observer"]
        assert shown["British"]["leaf_hash"] == merkle.leaf_hash(
            merkle.event_leaf(seen_by_british[version])).hex()
    assert checkpoint(client, campaign, british) == checkpoint(client, campaign, axis)


@pytest.mark.parametrize(("query", "field"), [
    ({"version": 99}, "version"), ({"version": 1, "size": 99}, "size"),
    ({"from": 3, "size": 2}, "from"), ({}, "version"), ({"version": 1, "from": 1}, "version")])
def test_a_proof_of_what_the_log_does_not_hold_is_refused_naming_the_field(
        client: TestClient, query: dict[str, int], field: str) -> None:
    campaign = secrets_played(client)
    answer = client.get(f"/campaigns/{campaign['id']}/proof", params=query,
                        headers=auth(campaign["tokens"]["observer"]))
    assert answer.status_code == 422 and answer.json()["error"]["field"] == field


def test_a_checkpoint_and_a_proof_need_a_token_of_the_campaign(client: TestClient) -> None:
    campaign = secrets_played(client)
    for path in ("/checkpoint", "/proof?version=1"):
        assert client.get(f"/campaigns/{campaign['id']}{path}").status_code == 401
        assert client.get(f"/campaigns/{campaign['id']}{path}",
                          headers=auth("not-a-token")).status_code == 401


def test_a_signing_key_from_the_settings_signs_the_checkpoints(settings: Settings) -> None:
    conf = settings.model_copy(update={"admin_token": ADMIN, "signing_key": PETER_SIGNER})
    with TestClient(create_app(conf)) as client:
        assert client.get("/keys").json() == {"keys": [PETER_VERIFIER]}
        campaign = client.post("/campaigns", headers=auth(ADMIN),
                               json={"module": "pbr", "cg": "I", "name": "Ranville"}).json()
        note = checkpoint(client, campaign, campaign["tokens"]["observer"])
    assert verify_checkpoint(note, PETER_VERIFIER,
                             f"PeterNeumann/campaigns/{campaign['id']}").size == 1
    assert settings.signing_key_file is not None and not settings.signing_key_file.exists()


def test_serve_makes_a_signing_key_beside_the_database_once_and_says_its_verifier_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", started_and_stopped())
    db = f"sqlite:///{tmp_path / 'refit.db'}"
    first = CliRunner().invoke(cli, ["serve", "--db", db, "--json"])
    assert first.exit_code == 0, first.output
    # serve says one JSON object a line: the admin token, the verifier key, what to open
    said = {k: v for line in first.output.splitlines() for k, v in json.loads(line).items()}
    where = tmp_path / "refit-signing-key"
    assert said["signing_key_file"] == str(where) and said["verifier_key"].startswith("refit+")
    assert oct(where.stat().st_mode & 0o777) == "0o600"
    assert "PRIVATE+KEY+refit+" in where.read_text()
    again = CliRunner().invoke(cli, ["serve", "--db", db])
    assert again.exit_code == 0, again.output
    assert f"verifier key: {said['verifier_key']}" in again.output
    assert "made" not in again.output.split("verifier key:")[1]
    with TestClient(create_app(Settings(database_url=db, module_dir=tmp_path / "m"))) as client:
        assert client.get("/keys").json() == {"keys": [said["verifier_key"]]}


def test_serve_refuses_a_malformed_signing_key_saying_what_it_should_be(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda app, **options: pytest.fail("it started"))
    monkeypatch.setenv("REFIT_SIGNING_KEY", PETER_SIGNER.replace("c74f20a3", "c74f20a4"))
    result = CliRunner().invoke(cli, ["serve", "--db", f"sqlite:///{tmp_path / 'refit.db'}"])
    assert result.exit_code == 2 and "id does not match" in result.output
    assert not (tmp_path / "refit-signing-key").exists()
