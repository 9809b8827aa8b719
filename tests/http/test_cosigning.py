"""Co-signing as players do it (CONTRACT 'Proofs'): each side makes a key with `refit
keygen`, registers it with its token, fetches the checkpoint, signs it with `refit cosign`
and sends it back; verify names the checkpoint both sides signed. A side acts for itself
only, an observer not at all, and a bad key or signature is a 422 naming the field."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli import app as cli
from tests.helpers.http import auth, secrets_played, send

runner = CliRunner()


def keygen(name: str, out: Path) -> str:
    """`refit keygen`: the verifier key it prints."""
    made = runner.invoke(cli, ["keygen", "--name", name, "--out", str(out)])
    assert made.exit_code == 0, made.output
    return made.stdout.strip()


def signed_by(client: TestClient, campaign: dict[str, Any], side: str, key: Path,
              tmp_path: Path, size: int | None = None) -> dict[str, Any]:
    """The side fetches the checkpoint (of `size` events, else now) and signs it with
    `refit cosign --side`: the command to send."""
    note = client.get(f"/campaigns/{campaign['id']}/checkpoint",
                      params={} if size is None else {"size": size},
                      headers=auth(campaign["tokens"]["sides"][side]))
    assert note.status_code == 200, note.text
    saved = tmp_path / f"{side}-checkpoint.txt"
    saved.write_text(note.text, encoding="utf-8")
    done = runner.invoke(cli, ["cosign", str(saved), "--key-file", str(key), "--side", side])
    assert done.exit_code == 0, done.output
    body: dict[str, Any] = json.loads(done.stdout)
    return body


def test_both_sides_cosign_with_their_tokens_and_verify_names_them(
        client: TestClient, tmp_path: Path) -> None:
    campaign = secrets_played(client)  # the Axis bought an RG and rolled in secret
    tokens = campaign["tokens"]
    keys = {side: tmp_path / f"{side}.key" for side in ("Axis", "British")}
    for side, path in keys.items():
        vkey = keygen(f"{side}-player", path)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        registered = send(client, campaign, tokens["sides"][side],
                          {"type": "register_key", "side": side, "key": vkey})
        assert registered.status_code == 200, registered.text
        assert registered.json()["events"][0]["type"] == "SideKeyRegistered"
    step_end = client.get(f"/campaigns/{campaign['id']}",
                          headers=auth(tokens["director"])).json()["version"]
    for side in keys:  # the first co-signature grows the log: both sign the step's end
        body = signed_by(client, campaign, side, keys[side], tmp_path, step_end)
        answer = send(client, campaign, tokens["sides"][side], body)
        assert answer.status_code == 200, answer.text
    for token in (tokens["observer"], tokens["sides"]["British"], tokens["director"]):
        report = client.get(f"/campaigns/{campaign['id']}/verify", headers=auth(token))
        assert report.status_code == 200 and report.json()["ok"]
        (point,) = report.json()["cosigned"]
        assert point["size"] == step_end
        assert point["sides"] == ["Axis", "British"] and point["all_sides"] is True
    beyond = client.get(f"/campaigns/{campaign['id']}/checkpoint", params={"size": 999},
                        headers=auth(tokens["observer"]))
    assert beyond.status_code == 422 and "size" in beyond.json()["error"]["message"]


def test_a_side_registers_for_itself_only_and_an_observer_not_at_all(
        client: TestClient, tmp_path: Path) -> None:
    campaign = secrets_played(client)
    tokens = campaign["tokens"]
    vkey = keygen("axis-player", tmp_path / "axis.key")
    body = {"type": "register_key", "side": "Axis", "key": vkey}
    assert send(client, campaign, tokens["sides"]["British"], body).status_code == 403
    assert send(client, campaign, tokens["observer"], body).status_code == 403
    bad = send(client, campaign, tokens["sides"]["Axis"], body | {"key": "axis+00+AAAA"})
    assert bad.status_code == 422 and bad.json()["error"]["message"].startswith("key:")
    assert send(client, campaign, tokens["director"], body).status_code == 200


def test_a_bad_cosignature_is_a_422_naming_the_checkpoint_and_appends_nothing(
        client: TestClient, tmp_path: Path) -> None:
    campaign = secrets_played(client)
    axis = campaign["tokens"]["sides"]["Axis"]
    assert send(client, campaign, axis, {"type": "register_key", "side": "Axis",
                                         "key": keygen("axis", tmp_path / "a.key")}).is_success
    impostor = tmp_path / "impostor.key"
    keygen("axis", impostor)
    body = signed_by(client, campaign, "Axis", impostor, tmp_path)
    version = client.get(f"/campaigns/{campaign['id']}", headers=auth(axis)).json()["version"]
    refused = send(client, campaign, axis, body)
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["message"].startswith("checkpoint:")
    garbled = send(client, campaign, axis, body | {"checkpoint": body["checkpoint"] + "\x07"})
    assert garbled.status_code == 422
    after = client.get(f"/campaigns/{campaign['id']}", headers=auth(axis)).json()["version"]
    assert after == version


def test_keygen_never_writes_over_a_key_and_cosign_refuses_a_bad_file(tmp_path: Path) -> None:
    key = tmp_path / "side.key"
    keygen("side", key)
    again = runner.invoke(cli, ["keygen", "--name", "side", "--out", str(key)])
    assert again.exit_code == 2 and "never written over" in again.output
    spaced = runner.invoke(cli, ["keygen", "--name", "two words", "--out",
                                 str(tmp_path / "x.key")])
    assert spaced.exit_code == 2 and not (tmp_path / "x.key").exists()
    note = tmp_path / "note.txt"
    note.write_text("not a checkpoint\n", encoding="utf-8")
    refused = runner.invoke(cli, ["cosign", str(note), "--key-file", str(key)])
    assert refused.exit_code == 2 and "checkpoint" in refused.output
    not_a_key = runner.invoke(cli, ["cosign", str(note), "--key-file", str(note)])
    assert not_a_key.exit_code == 2 and "key-file" in not_a_key.output
