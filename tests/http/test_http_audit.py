"""The audit over HTTP (issue 6): undo, re-roll, rulings, the roll audit, diffs, forms,
the report, and import, each for the roles that may."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from infra.modules import install_file
from infra.settings import Settings
from tests.helpers.http import (
    ADMIN,
    auth,
    new_campaign,
    secrets_played,
    send,
    without_module_data,
)
from tests.helpers.paths import FIXTURE_CHART


def axis_roll_key(client: TestClient, campaign: dict[str, Any]) -> str:
    rolls = client.get(f"/campaigns/{campaign['id']}/rolls",
                       headers=auth(campaign["tokens"]["director"])).json()
    return str(rolls[-1]["key"])


def test_a_director_undoes_and_the_status_is_the_as_of_answer(client: TestClient) -> None:
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    body = {"type": "credit_cpp", "side": "Axis", "amount": 9, "reason": "Base"}
    target = send(client, campaign, director, body).json()["version"]
    send(client, campaign, director, body | {"amount": 4})
    path = f"/campaigns/{campaign['id']}"
    undone = client.post(f"{path}/undo", headers=auth(director),
                         json={"to_version": target, "reason": "credited twice"})
    assert undone.status_code == 200, undone.text
    assert [e["type"] for e in undone.json()["events"]] == ["Undone"]
    now = client.get(f"{path}/roster", headers=auth(director)).json()
    then = client.get(f"{path}/roster?as_of={target}", headers=auth(director)).json()
    assert now == then


def test_only_the_director_undoes_re_rolls_and_rules(client: TestClient) -> None:
    campaign = secrets_played(client)
    key = axis_roll_key(client, campaign)
    path = f"/campaigns/{campaign['id']}"
    axis = auth(campaign["tokens"]["sides"]["Axis"])
    for route, body in (("/undo", {"to_version": 1, "reason": "x"}),
                        ("/rerolls", {"key": key, "reason": "x"}),
                        ("/rulings", {"key": key, "verdict": "upheld", "reason": "x"})):
        answer = client.post(path + route, headers=axis, json=body)
        assert answer.status_code == 403, route
        assert answer.json()["error"]["code"] == "forbidden"


def test_a_stale_if_match_undo_is_409_and_a_bad_one_names_its_field(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    director = auth(campaign["tokens"]["director"])
    path = f"/campaigns/{campaign['id']}/undo"
    stale = client.post(path, headers=director | {"If-Match": "99"},
                        json={"to_version": 1, "reason": "x"})
    assert stale.status_code == 409
    both = client.post(path, headers=director,
                       json={"to_version": 1, "to_step": "14AM/3.617", "reason": "x"})
    assert both.status_code == 422 and both.json()["error"]["field"] == "to_version"
    empty = client.post(path, headers=director, json={"to_version": 1, "reason": ""})
    assert empty.status_code == 422 and empty.json()["error"]["field"] == "reason"


def test_the_other_side_cannot_audit_a_secret_roll_but_its_own_side_can(
        client: TestClient) -> None:
    campaign = secrets_played(client)
    key = axis_roll_key(client, campaign)
    path = f"/campaigns/{campaign['id']}/rolls/audit"
    british = client.get(path, params={"key": key},
                         headers=auth(campaign["tokens"]["sides"]["British"]))
    assert british.status_code == 422  # the key it was given, nothing of the roll
    assert british.json()["error"]["message"] == f"no roll with key {key} is open to this role"
    axis = client.get(path, params={"key": key},
                      headers=auth(campaign["tokens"]["sides"]["Axis"]))
    assert axis.status_code == 200 and axis.json()["rolls"][0]["subject"] == "unit:Oblt.Secret"


def test_a_ruling_on_a_secret_roll_is_open_but_not_the_roll(client: TestClient) -> None:
    campaign = secrets_played(client)
    key = axis_roll_key(client, campaign)
    path = f"/campaigns/{campaign['id']}"
    ruled = client.post(f"{path}/rulings", headers=auth(campaign["tokens"]["director"]),
                        json={"key": key, "verdict": "upheld", "reason": "Seen by both"})
    assert ruled.status_code == 200, ruled.text
    for read in ("/events", "/rolls", "/report", "/export"):
        text = client.get(path + read,
                          headers=auth(campaign["tokens"]["sides"]["British"])).text
        text = without_module_data(text) if read == "/export" else text
        # the table's id as a word: a timestamp's hour (e.g. "...T21:05") is not it
        assert "Seen by both" in text and key not in text, read
        assert re.search(r"\bT2\b", text) is None, read
    axis = client.get(f"{path}/rolls", headers=auth(campaign["tokens"]["sides"]["Axis"]))
    assert axis.json()[-1]["rulings"][0]["reason"] == "Seen by both"


def test_forms_come_as_csv_and_as_one_printable_page(client: TestClient) -> None:
    campaign = secrets_played(client)
    path = f"/campaigns/{campaign['id']}/forms"
    director = auth(campaign["tokens"]["director"])
    csv = client.get(path, params={"form": "purchases"}, headers=director)
    assert csv.headers["content-type"].startswith("text/csv") and "X1" in csv.text
    page = client.get(path, headers=director)
    assert page.headers["content-type"].startswith("text/html") and "<table" in page.text
    assert client.get(path, params={"form": "tea"}, headers=director).status_code == 422


def test_an_as_of_that_is_neither_a_version_nor_a_step_is_refused(client: TestClient) -> None:
    campaign = new_campaign(client)
    path = f"/campaigns/{campaign['id']}/roster"
    director = auth(campaign["tokens"]["director"])
    for bad in ("0", "x y", "19PM/9.616/3"):
        answer = client.get(path, params={"as_of": bad}, headers=director)
        assert answer.status_code == 422, bad
    unknown = client.get(path, params={"as_of": "19PM/9.616"}, headers=director)
    assert unknown.status_code == 422 and unknown.json()["error"]["field"] == "as_of"


def unsigned(export: bytes) -> list[Any]:
    """An export's lines without the tail's checkpoint."""
    lines = [json.loads(line) for line in export.splitlines()]
    lines[-1].pop("checkpoint")
    return lines


def signed_root(export: bytes) -> str:
    """The root line of the checkpoint an export's tail carries."""
    return str(json.loads(export.splitlines()[-1])["checkpoint"].split("\n")[2])


@pytest.fixture
def other_client(other_database_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """The service on an empty database of the other kind."""
    conf = Settings(database_url=other_database_url, module_dir=tmp_path / "other" / "modules",
                    admin_token=ADMIN)
    install_file(FIXTURE_CHART, conf.module_dir)
    with TestClient(create_app(conf)) as c:
        yield c


def test_the_admin_moves_a_campaign_to_another_service(client: TestClient,
                                                       other_client: TestClient) -> None:
    campaign = secrets_played(client)
    path = f"/campaigns/{campaign['id']}/export"
    moved = client.get(path, params={"with_seed": "true"}, headers=auth(ADMIN)).content
    answer = other_client.post("/campaigns/import", content=moved, headers=auth(ADMIN))
    assert answer.status_code == 201, answer.text
    assert answer.json()["seed"] is True
    again_moved = other_client.get(path, params={"with_seed": "true"}, headers=auth(ADMIN))
    # The same lines, but for the checkpoint: each service signs the same root with its key.
    assert unsigned(again_moved.content) == unsigned(moved)
    assert signed_root(again_moved.content) == signed_root(moved)
    again = other_client.post("/campaigns/import", content=moved, headers=auth(ADMIN))
    assert again.status_code == 409
    director = auth(campaign["tokens"]["director"])  # the tokens move with the campaign
    assert other_client.get(f"/campaigns/{campaign['id']}", headers=director).status_code == 200


def test_only_the_admin_imports_or_exports_the_seed(client: TestClient) -> None:
    campaign = secrets_played(client)
    director = auth(campaign["tokens"]["director"])
    seed = client.get(f"/campaigns/{campaign['id']}/export", params={"with_seed": "true"},
                      headers=director)
    assert seed.status_code == 403
    export = client.get(f"/campaigns/{campaign['id']}/export", headers=director).content
    assert b'"private"' not in export
    assert client.post("/campaigns/import", content=export,
                       headers=director).status_code == 401


@pytest.mark.parametrize("body", [b"", b"not json\n", b"[1, 2]\n", b'{"format": "x"}\n',
                                  b'{"format": "refit-export/1"}\n{"version": 1}\n'])
def test_a_malformed_import_is_a_clear_refusal(client: TestClient, body: bytes) -> None:
    answer = client.post("/campaigns/import", content=body, headers=auth(ADMIN))
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["field"] in ("export", "schema_version")


def test_a_sides_export_is_refused_by_import(client: TestClient,
                                             other_client: TestClient) -> None:
    campaign = secrets_played(client)
    british = client.get(f"/campaigns/{campaign['id']}/export",
                         headers=auth(campaign["tokens"]["sides"]["British"])).content
    answer = other_client.post("/campaigns/import", content=british, headers=auth(ADMIN))
    assert answer.status_code == 422 and "redacted" in answer.json()["error"]["message"]
    assert json.loads(british.splitlines()[0])["view"] == "British"


def test_a_deeply_nested_import_line_is_a_refusal(client: TestClient) -> None:
    body = b'{"format": "refit-export/1"}\n' + b"[" * 100_000 + b"]" * 100_000 + b"\n"
    answer = client.post("/campaigns/import", content=body, headers=auth(ADMIN))
    assert answer.status_code == 422, answer.text


def test_a_ruling_on_a_secret_roll_shows_to_the_side_that_disputed_it(
        client: TestClient) -> None:
    campaign = secrets_played(client)
    key = axis_roll_key(client, campaign)
    path = f"/campaigns/{campaign['id']}"
    director = auth(campaign["tokens"]["director"])
    british = auth(campaign["tokens"]["sides"]["British"])
    version = client.get(f"{path}/rolls", headers=director).json()[-1]["version"]
    ruled = client.post(f"{path}/rulings", headers=director, json={
        "key": key, "verdict": "corrected", "reason": "a DRM was left out",
        "drm": [{"value": -2, "reason": "the Bocage -2"}], "disputed_by": "British",
        "corrections": [{"kind": "adjust", "side": "Axis", "pool": "cpp", "amount": -3,
                         "reason": "the roll gave too many"}]})
    assert ruled.status_code == 200, ruled.text
    row = client.get(f"{path}/rolls", headers=british).json()[-1]
    assert row["hidden"] and row["rulings"][0]["reason"] == "a DRM was left out"
    assert row["rulings"][0]["corrections"] == ["adjust"] and "drm" not in row["rulings"][0]
    audit = client.get(f"{path}/rolls/audit", params={"version": version}, headers=british)
    assert audit.status_code == 200, audit.text
    assert audit.json()["rulings"][0]["changed"][0]["sealed"] is True
    assert "Oblt.Secret" not in audit.text and "Bocage" not in audit.text
    for read in ("events", "export"):
        text = client.get(f"{path}/{read}", headers=british).text
        assert "a DRM was left out" in text and "Oblt.Secret" not in text
        assert '"amount":-3' not in text.replace(" ", "")
    own = client.get(f"{path}/rolls/audit", params={"key": key},
                     headers=auth(campaign["tokens"]["sides"]["Axis"])).json()
    assert own["rulings"][0]["changed"][0]["amount"] == -3


def test_a_bad_correction_is_a_422_naming_its_field(client: TestClient) -> None:
    campaign = new_campaign(client)
    path = f"/campaigns/{campaign['id']}/rulings"
    director = auth(campaign["tokens"]["director"])
    head = client.get(f"/campaigns/{campaign['id']}", headers=director).json()["version"]
    bad = client.post(path, headers=director, json={
        "verdict": "corrected", "reason": "x", "corrections": [
            {"kind": "adjust", "side": "Axis", "pool": "cpp", "amount": -9, "reason": "x"}]})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "corrections[0].amount"
    unknown = client.post(path, headers=director, json={
        "verdict": "corrected", "reason": "x", "corrections": [{"kind": "recount"}]})
    assert unknown.status_code == 422
    assert unknown.json()["error"]["field"] == "corrections[0].kind"
    axis = client.post(path, headers=auth(campaign["tokens"]["sides"]["Axis"]), json={
        "verdict": "corrected", "reason": "x", "corrections": [
            {"kind": "adjust", "side": "Axis", "pool": "cpp", "amount": 9, "reason": "x"}]})
    assert axis.status_code == 403  # corrections are the director's
    assert client.get(f"/campaigns/{campaign['id']}", headers=director).json()["version"] == head


def test_an_undo_dry_run_lists_and_appends_nothing(client: TestClient) -> None:
    campaign = secrets_played(client)
    path = f"/campaigns/{campaign['id']}"
    director = auth(campaign["tokens"]["director"])
    head = client.get(path, headers=director).json()["version"]
    plan = client.post(f"{path}/undo", headers=director,
                       json={"to_version": 2, "reason": "x", "dry_run": True})
    assert plan.status_code == 200, plan.text
    assert plan.json()["versions"] == list(range(3, head + 1))
    assert plan.json()["rolls"][0]["subject"] == "unit:Oblt.Secret"
    assert client.get(path, headers=director).json()["version"] == head
    nothing = client.post(f"{path}/undo", headers=director,
                          json={"to_version": head, "reason": "x", "dry_run": True})
    assert nothing.status_code == 422 and "nothing to undo" in nothing.text


@pytest.mark.parametrize(("route", "body", "field"), [
    ("/undo", {"to_version": True, "reason": "x"}, "to_version"),  # not version 1
    ("/undo", {"to_version": "2", "reason": "x"}, "to_version"),
    ("/undo", {"to_version": 2.0, "reason": "x"}, "to_version"),
    ("/undo", {"to_version": 2, "reason": "x", "dry_run": "false"}, "dry_run"),
    ("/undo", {"to_version": 2, "reason": "x", "dry_run": 0}, "dry_run"),
    ("/rulings", {"verdict": "corrected", "reason": "x", "final": "7"}, "final"),
    ("/rulings", {"verdict": "corrected", "reason": "x", "final": True}, "final"),
])
def test_a_director_body_is_read_as_its_json_says_it_and_a_wrong_type_appends_nothing(
        client: TestClient, route: str, body: dict[str, Any], field: str) -> None:
    campaign = new_campaign(client)
    director = auth(campaign["tokens"]["director"])
    for amount in (9, 4, 2):
        send(client, campaign, campaign["tokens"]["director"],
             {"type": "credit_cpp", "side": "Axis", "amount": amount, "reason": "Base"})
    path = f"/campaigns/{campaign['id']}"
    head = client.get(path, headers=director).json()["version"]
    answer = client.post(f"{path}{route}", headers=director, json=body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["field"] == field
    assert client.get(path, headers=director).json()["version"] == head
