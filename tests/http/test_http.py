"""The HTTP service (CONTRACT "HTTP"): roles and tokens, a side acting for itself, secrecy
on every read path, If-Match, Idempotency-Key and the error body."""

from __future__ import annotations

import gc
import json
import sys
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from infra.settings import Settings
from tests.helpers.http import (
    ADMIN,
    auth,
    new_campaign,
    secrets_played,
    send,
    without_module_data,
)


def test_get_modules_lists_sides_calendars_steps_and_tables(client: TestClient) -> None:
    answer = client.get("/modules")
    assert answer.status_code == 200
    abtf = next(m for m in answer.json() if m["id"] == "abtf")
    assert abtf["sides"] == ["British", "German"] and abtf["cgs"] == ["I", "II", "III"]
    assert abtf["calendar"][:2] == ["17N", "18AM"]
    assert "9.6101" in [table["id"] for table in abtf["tables"]]
    assert abtf["steps"][9]["rule"] == "9.610"


def test_get_modules_lists_each_tables_drm_with_id_kind_and_exclusions(
        client: TestClient) -> None:
    pbr = next(m for m in client.get("/modules").json() if m["id"] == "pbr")
    tables = {table["id"]: table for table in pbr["tables"]}
    drm = {item["id"]: item for item in tables["3.606-personnel"]["drm"]}
    adjacent = drm["3.606-p-adjacent"]
    assert (adjacent["value"], adjacent["kind"], adjacent["rule"]) == (-2, "optional", "3.606")
    assert adjacent["excludes"] == ["3.606-p-two-hexes"] and adjacent["doubt"]
    signal = next(item for item in tables["3.6183-personnel"]["drm"]
                  if item["id"] == "3.6183-signal")
    assert (signal["value"], signal["kind"], signal["reason"]) == (
        -4, "automatic", "1st Signal Coy RG Leader Roll")
    assert signal["qualifies"] == {"sides": ["Axis"], "traits": ["Signal"], "leader_rolls": [1]}
    hexes = next(item for item in tables["3.613"]["drm"] if item["id"] == "3.613-hexes")
    assert hexes["count"]["per"] == 5


def test_only_the_admin_creates_and_lists_campaigns(client: TestClient) -> None:
    body = {"module": "pbr", "cg": "I", "name": "X"}
    assert client.post("/campaigns", json=body).status_code == 401
    refused = client.post("/campaigns", json=body, headers=auth("not-the-admin"))
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
    created = new_campaign(client)
    assert set(created["tokens"]) == {"director", "observer", "sides"}
    assert set(created["tokens"]["sides"]) == {"Axis", "British"}
    listed = client.get("/campaigns", headers=auth(ADMIN)).json()
    assert [line["id"] for line in listed] == [created["id"]] and "sides" not in listed[0]
    director = created["tokens"]["director"]
    assert client.get("/campaigns", headers=auth(director)).status_code == 401


def test_a_side_acts_for_itself_an_observer_only_reads(client: TestClient) -> None:
    campaign = new_campaign(client)
    tokens = campaign["tokens"]
    roll = {"type": "roll", "table": "T1", "side": "Axis", "subject": "unit:Pak-1"}
    british = send(client, campaign, tokens["sides"]["British"], roll)
    assert british.status_code == 403 and british.json()["error"]["field"] == "side"
    assert send(client, campaign, tokens["observer"], roll).status_code == 403
    for directors in ({"type": "advance"}, {"type": "end_cg", "reason": "concession",
                                            "side": "Axis"},
                      {"type": "credit_cpp", "side": "Axis", "amount": 5, "reason": "x"}):
        assert send(client, campaign, tokens["sides"]["Axis"], directors).status_code == 403
    assert send(client, campaign, tokens["sides"]["Axis"], roll).status_code == 200
    assert send(client, campaign, tokens["director"], {"type": "advance"}).status_code == 200


def test_a_token_of_one_campaign_opens_nothing_of_another(client: TestClient) -> None:
    first, second = new_campaign(client), new_campaign(client)
    answer = client.get(f"/campaigns/{second['id']}/roster",
                        headers=auth(first["tokens"]["director"]))
    assert answer.status_code == 401
    assert client.get(f"/campaigns/{second['id']}/roster").status_code == 401


def read_as(client: TestClient, campaign: dict[str, Any], path: str, token: str) -> str:
    """A read's text (JSON or JSON lines); an export's without the module data its tail
    carries (public rules: the charts name every RG)."""
    answer = client.get(f"/campaigns/{campaign['id']}{path}", headers=auth(token))
    assert answer.status_code == 200, answer.text
    return without_module_data(answer.text) if path.startswith("/export") else answer.text


@pytest.mark.parametrize("path", ["", "/roster", "/purchase-record", "/rolls", "/events",
                                  "/export", "/forms", "/forms?form=roster",
                                  "/forms?form=purchases", "/report", "/report?format=html",
                                  "/diff?from=1", "/steps"])
def test_no_read_path_shows_the_british_the_axis_secrets(client: TestClient,
                                                         path: str) -> None:
    campaign = secrets_played(client)
    british = read_as(client, campaign, path, campaign["tokens"]["sides"]["British"])
    observer = read_as(client, campaign, path, campaign["tokens"]["observer"])
    axis = read_as(client, campaign, path, campaign["tokens"]["sides"]["Axis"])
    for shown in (british, observer):
        assert "X1" not in shown and "Oblt.Secret" not in shown and ": 31" not in shown
    secret_in_axis_view = {"": '"cpp":31', "/rolls": "Oblt.Secret", "/steps": ""}.get(path, "X1")
    assert secret_in_axis_view in axis.replace(" ", "")


def test_a_redacted_export_still_verifies_to_the_same_head(client: TestClient) -> None:
    campaign = secrets_played(client)
    british = campaign["tokens"]["sides"]["British"]
    exported = client.get(f"/campaigns/{campaign['id']}/export", headers=auth(british))
    lines = [json.loads(line) for line in exported.text.splitlines()]
    header, events, tail = lines[0], lines[1:-1], lines[-1]
    assert header["format"] == "refit-export/1" and header["module"] == "pbr"
    status = json.loads(read_as(client, campaign, "", campaign["tokens"]["director"]))
    signed = read_as(client, campaign, "/checkpoint", british)
    assert {k: v for k, v in tail.items() if k != "module_data"} == {
        "head_hash": status["head_hash"], "events": status["version"], "checkpoint": signed}
    from domain.verify import verify_records
    assert verify_records(events).ok and any(e.get("redacted") for e in events)


def test_if_match_a_stale_version_is_409_and_appends_nothing(client: TestClient) -> None:
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    body = {"type": "credit_cpp", "side": "Axis", "amount": 5, "reason": "Base"}
    stale = send(client, campaign, director, body, **{"If-Match": "7"})
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "conflict"
    fresh = send(client, campaign, director, body, **{"If-Match": "1"})
    assert fresh.status_code == 200 and fresh.json()["version"] == 2


def test_if_match_may_be_quoted_as_an_entity_tag(client: TestClient) -> None:
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    body = {"type": "credit_cpp", "side": "Axis", "amount": 5, "reason": "Base"}
    assert send(client, campaign, director, body, **{"If-Match": '"1"'}).status_code == 200
    assert send(client, campaign, director, body, **{"If-Match": 'W/"1"'}).status_code == 409
    assert send(client, campaign, director, body, **{"If-Match": 'W/"2"'}).status_code == 200
    unmatched = send(client, campaign, director, body, **{"If-Match": '"3'})
    assert unmatched.status_code == 422 and "if-match" in unmatched.json()["error"]["field"]


def test_a_repeated_idempotency_key_answers_the_first_answer(client: TestClient) -> None:
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    body = {"type": "roll", "table": "T1", "side": "Axis", "subject": "unit:Pak-1"}
    first = send(client, campaign, director, body, **{"Idempotency-Key": "roll-1"})
    again = send(client, campaign, director, body, **{"Idempotency-Key": "roll-1"})
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    status = json.loads(read_as(client, campaign, "", director))
    assert status["version"] == 2  # the roll was appended once
    other = send(client, campaign, director, body | {"side": "British"},
                 **{"Idempotency-Key": "roll-1"})
    assert other.status_code == 422 and other.json()["error"]["field"] == "Idempotency-Key"


def test_a_retry_with_the_same_if_match_and_idempotency_key_gets_the_first_answer(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    body = {"type": "credit_cpp", "side": "Axis", "amount": 5, "reason": "Base"}
    headers = {"If-Match": "1", "Idempotency-Key": "cpp-1"}
    first = send(client, campaign, director, body, **headers)
    again = send(client, campaign, director, body, **headers)  # its answer was lost
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    other = send(client, campaign, director, body, **(headers | {"Idempotency-Key": "cpp-2"}))
    assert other.status_code == 409  # a new command for version 1 is still refused


def test_an_unreadable_body_an_unknown_route_and_a_wrong_method_answer_the_error_body(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    path = f"/campaigns/{campaign['id']}/commands"
    unreadable = client.post(path, content=b'{"type": "advance\xc3"}',
                             headers=auth(director) | {"Content-Type": "application/json"})
    unknown = client.get("/campaign", headers=auth(director))
    wrong = client.delete(path, headers=auth(director))
    assert (unreadable.status_code, unknown.status_code, wrong.status_code) == (400, 404, 405)
    assert unreadable.json()["error"]["code"] == "invalid_body"
    assert unknown.json()["error"]["code"] == "not_found"
    assert wrong.json()["error"]["message"] == "this route takes POST only"
    assert wrong.headers["Allow"] == "POST"
    assert json.loads(read_as(client, campaign, "", director))["version"] == 1


def test_every_refusal_is_the_contracts_error_body(client: TestClient) -> None:
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    unknown = client.get("/campaigns/00000000-0000-0000-0000-000000000000/roster",
                         headers=auth(director))
    assert unknown.status_code == 401 and unknown.json()["error"]["code"] == "unauthorized"
    bad_type = send(client, campaign, director, {"type": "teleport"})
    assert bad_type.status_code == 422 and bad_type.json()["error"]["field"] is not None
    rule = send(client, campaign, director, {"type": "roll", "table": "3.610",
                                             "side": "Axis", "subject": "unit:Lt.A"})
    assert rule.status_code == 422 and rule.json()["error"]["rule"] == "3.610"
    not_json = client.post(f"/campaigns/{campaign['id']}/commands", content=b"{nope",
                           headers=auth(director) | {"Content-Type": "application/json"})
    assert not_json.status_code == 400 and not_json.json()["error"]["code"] == "invalid_body"


def test_a_director_replaces_a_lost_token_and_the_old_one_dies(client: TestClient) -> None:
    campaign = new_campaign(client)
    lost = campaign["tokens"]["sides"]["British"]
    answer = client.post(f"/campaigns/{campaign['id']}/tokens/British",
                         headers=auth(campaign["tokens"]["director"]))
    assert answer.status_code == 200
    assert client.get(f"/campaigns/{campaign['id']}", headers=auth(lost)).status_code == 401
    fresh = answer.json()["token"]
    assert client.get(f"/campaigns/{campaign['id']}", headers=auth(fresh)).status_code == 200
    by_side = client.post(f"/campaigns/{campaign['id']}/tokens/Axis", headers=auth(fresh))
    assert by_side.status_code == 403


def test_the_admin_replaces_a_lost_director_token(client: TestClient) -> None:
    campaign = new_campaign(client)
    answer = client.post(f"/campaigns/{campaign['id']}/tokens/director", headers=auth(ADMIN))
    assert answer.status_code == 200 and answer.json()["role"] == "director"
    lost = campaign["tokens"]["director"]
    assert client.get(f"/campaigns/{campaign['id']}", headers=auth(lost)).status_code == 401
    fresh = auth(answer.json()["token"])
    assert client.get(f"/campaigns/{campaign['id']}", headers=fresh).status_code == 200
    nobody = client.post("/campaigns/00000000-0000-0000-0000-000000000000/tokens/director",
                         headers=auth(ADMIN))
    assert nobody.status_code == 404


def test_the_openapi_schema_says_who_may_call_each_campaign_route(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path, methods in paths.items():
        for method, route in methods.items():
            if path.startswith("/campaigns/{campaign}"):
                said = route.get("description", "") + route.get("summary", "")
                assert any(role in said for role in ("Who:", "Director", "Admin")), \
                    f"{method.upper()} {path}"


def test_the_openapi_schema_documents_each_command_type(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    text = json.dumps(schema)
    for command_type in ("purchase_rg", "select_initiative", "designate_objective"):
        assert f'"{command_type}"' in text
    answers = schema["paths"]["/campaigns/{campaign}/commands"]["post"]["responses"]
    assert {"200", "401", "403", "404", "409", "422"} <= set(answers)
    assert "ErrorBody" in json.dumps(answers["422"])
    page = client.get("/docs")
    assert page.status_code == 200 and "/docs-assets/swagger-ui-bundle.js" in page.text
    assert "cdn" not in page.text.lower()  # works with no network
    assert client.get("/docs-assets/swagger-ui-bundle.js").status_code == 200


def test_an_idempotency_key_is_the_callers_own(client: TestClient) -> None:
    campaign = new_campaign(client)
    axis, british = (campaign["tokens"]["sides"][s] for s in ("Axis", "British"))
    first = send(client, campaign, axis, {"type": "roll", "table": "T1", "side": "Axis",
                                          "subject": "unit:Pak-1"},
                 **{"Idempotency-Key": "k1"})
    other = send(client, campaign, british, {"type": "roll", "table": "T1", "side": "British",
                                             "subject": "unit:Pak-1"},
                 **{"Idempotency-Key": "k1"})  # the same key, another role: its own command
    assert first.status_code == other.status_code == 200
    assert other.json()["version"] == first.json()["version"] + 1


def test_an_early_seed_reveal_works_with_secret_rolls_made_on_the_seed(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    director = campaign["tokens"]["director"]
    assert send(client, campaign, director, {"type": "reveal_seed"}).status_code == 200
    send(client, campaign, campaign["tokens"]["sides"]["Axis"],
         {"type": "roll", "table": "T2", "side": "Axis", "subject": "unit:Pak-1"})  # secret
    revealed = send(client, campaign, director, {"type": "reveal_seed"})
    assert revealed.status_code == 200  # the secret roll is checkable by anyone from now
    assert json.loads(read_as(client, campaign, "", director))["seed"] is not None


def test_a_seed_share_is_public_and_a_malformed_one_is_refused_naming_share(
        client: TestClient) -> None:
    campaign = new_campaign(client)
    axis = campaign["tokens"]["sides"]["Axis"]
    short = send(client, campaign, axis, {"type": "contribute_seed", "side": "Axis",
                                          "share": "ab" * 15})
    assert short.status_code == 422 and short.json()["error"]["field"].endswith("share")
    given = send(client, campaign, axis, {"type": "contribute_seed", "side": "Axis",
                                          "share": "ab" * 16})
    assert given.status_code == 200
    for reader in (campaign["tokens"]["sides"]["British"], campaign["tokens"]["observer"]):
        shown = json.loads(read_as(client, campaign, "/events", reader))
        (shared,) = [e for e in shown if e["type"] == "SeedShareContributed"]
        assert shared["data"]["share"] == "ab" * 16 and not shared.get("redacted")


def test_points_credited_are_sealed_in_the_event_log(client: TestClient) -> None:
    campaign = new_campaign(client)
    send(client, campaign, campaign["tokens"]["director"],
         {"type": "credit_cpp", "side": "Axis", "amount": 39, "reason": "Base"})
    shown = json.loads(read_as(client, campaign, "/events",
                               campaign["tokens"]["sides"]["British"]))
    (credited,) = [e for e in shown if e.get("redacted")]
    assert credited["type"] == "Sealed" and credited["data"] == {"secret_for": "Axis"}


def test_odd_tokens_and_versions_are_refusals_not_failures(client: TestClient) -> None:
    odd = client.post("/campaigns", json={"module": "pbr", "cg": "I", "name": "X"},
                      headers={"Authorization": "Bearer \u00e9t\u00e9".encode()})
    assert odd.status_code in (401, 403)
    campaign = new_campaign(client)
    far = client.get(f"/campaigns/{campaign['id']}/events?as_of=99999999999999999999",
                     headers=auth(campaign["tokens"]["director"]))
    assert far.status_code == 422 and far.json()["error"]["field"] == "as_of"


def test_a_sides_verify_checks_what_it_may_read(client: TestClient) -> None:
    campaign = secrets_played(client)
    for role in ("Axis", "British"):
        report = json.loads(read_as(client, campaign, "/verify",
                                    campaign["tokens"]["sides"][role]))
        assert report["ok"] and report["events"] == 4


def test_the_service_sets_the_gil_switch_interval_it_is_given(settings: Settings) -> None:
    before = sys.getswitchinterval()
    try:
        app = create_app(settings.model_copy(update={"switch_interval_ms": 2.5}))
        with TestClient(app):
            assert sys.getswitchinterval() == pytest.approx(0.0025)
    finally:
        sys.setswitchinterval(before)


def test_the_service_freezes_its_start_up_heap_until_it_stops(settings: Settings) -> None:
    gc.unfreeze()
    with TestClient(create_app(settings.model_copy(update={"freeze_heap": True}))):
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_a_process_that_starts_many_services_may_leave_its_heap_unfrozen(
        settings: Settings) -> None:
    gc.unfreeze()
    with TestClient(create_app(settings.model_copy(update={"freeze_heap": False}))):
        assert gc.get_freeze_count() == 0


def test_retained_hip_units_fortifications_and_rg_areas_stay_the_axis_own_on_every_read(
        client: TestClient) -> None:
    campaign = secrets_played(client)  # the Axis bought X1: its RG line #1
    axis = campaign["tokens"]["sides"]["Axis"]
    for body in ({"type": "record_rg_area", "side": "Axis", "purchase": 1, "area": "AreaQ16"},
                 {"type": "retain_units", "side": "Axis", "units": [
                     {"unit": "4-6-8", "count": 3, "area": "A", "purchase": 1,
                      "kind": "squad"},
                     {"unit": "HiddenSquad", "area": "A", "purchase": 1, "hip": True,
                      "kind": "squad"},
                     {"unit": "MinesSix", "area": "A", "hex": "HexP9",
                      "fortification": True}]}):
        assert send(client, campaign, axis, body).status_code == 200, body
    for path in ("/retained", "/forms?form=retained", "/forms?form=purchases", "/forms",
                 "/purchase-record", "/events", "/export", "/report"):
        for token in (campaign["tokens"]["sides"]["British"], campaign["tokens"]["observer"]):
            shown = read_as(client, campaign, path, token)
            for secret in ("AreaQ16", "HiddenSquad", "MinesSix", "HexP9"):
                assert secret not in shown, (path, secret)
        assert "HiddenSquad" in read_as(client, campaign, "/retained", axis)
    seen = json.loads(read_as(client, campaign, "/retained",
                              campaign["tokens"]["sides"]["British"]))
    assert [(u["unit"], u["count"], u["purchase"]) for u in seen] == [("4-6-8", 3, None)]
