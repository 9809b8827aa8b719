"""No metadata leaks (issue 15 item 7), read as the British and as an observer would attack
a PBr CG I: the Axis buys an I5 and an M1 in secret, is credited FPP and buys a Roadblock,
rolls its lines' 3.618 in secret, and the director rules on one of those rolls. Every read
those two may make shows one neutral type for every sealed fact, and no token material."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from domain.merkle import event_leaf
from infra.settings import Settings
from tests.helpers.http import serving
from tests.http.test_reports import Table

AXIS, BRITISH = "Axis", "British"
OTHERS = (BRITISH, "observer")
READS = ("", "/events", "/export", "/rolls", "/roster", "/purchase-record", "/cvp", "/elr",
         "/guide", "/report?format=text", "/report?format=html", "/forms?form=html",
         "/forms?form=roster", "/forms?form=purchases", "/forms?form=cvp",
         "/forms?form=elr", "/forms?form=retained", "/retained", "/san", "/steps",
         "/control", "/verify", "/checkpoint", "/proof?version=1", "/proof?from=1",
         "/statistics", "/charts/cpp.svg", "/charts/dice.svg")
# Each fact the Axis keeps (3.617, 3.619, 3.6183) and the ruling's sealed figures.
SEALED_KINDS = {"RGPurchased", "SANChanged", "FPPCredited", "FortificationPurchased",
                "RGDetermined", "RulingSealed", "PointsCorrected", "PurchasePadded"}


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The service with PBr as it ships."""
    yield from serving(settings)


@pytest.fixture
def table(client: TestClient) -> Table:
    """Every kind of sealed fact the issue names, made as the Axis and the director would."""
    table = Table(client)
    table.ok("director", {"type": "credit_cpp", "side": AXIS, "amount": 39,
                          "reason": "3.6161"})
    table.ok("director", {"type": "change_san", "side": AXIS, "value": 2, "cause": "CG I",
                          "rule": "3.6"})
    table.ok("director", {"type": "credit_fpp", "side": AXIS, "amount": 10,
                          "reason": "3.619"})
    table.ok(AXIS, {"type": "purchase_rg", "side": AXIS, "rg": "I5"})
    table.ok(AXIS, {"type": "purchase_rg", "side": AXIS, "rg": "M1"})
    table.to("setup", "3.619")
    table.ok(AXIS, {"type": "purchase_fortification", "side": AXIS, "reason": "Roadblock",
                    "amount": 10})
    rolled = [r for r in table.read("director", "/rolls").json() if r["secret"]]
    ruled = table.client.post(
        f"/campaigns/{table.campaign['id']}/rulings",
        headers={"Authorization": f"Bearer {table.tokens['director']}"},
        json={"key": rolled[0]["key"], "verdict": "corrected", "reason": "a DRM left out",
              "drm": [{"value": -1, "reason": "left out"}], "disputed_by": BRITISH,
              "corrections": [{"kind": "adjust", "side": AXIS, "pool": "cpp", "amount": -1,
                               "reason": "one too many", "rule": "3.6181"}]})
    assert ruled.status_code == 200, ruled.text
    return table


def events(table: Table, role: str) -> list[dict[str, Any]]:
    """The event log as the role reads it."""
    found: list[dict[str, Any]] = table.read(role, "/events").json()
    return found


def test_the_director_reads_each_kind_of_sealed_fact_under_its_own_type(
        table: Table) -> None:
    sealed = {e["type"] for e in events(table, "director") if e["sealed"] is not None}
    assert sealed >= SEALED_KINDS


def test_the_others_read_the_public_types_and_one_neutral_type_only(table: Table) -> None:
    public = {e["type"] for e in events(table, "director") if e["sealed"] is None}
    for role in OTHERS:
        seen = events(table, role)
        assert {e["type"] for e in seen} == public | {"Sealed"}, role
        # (SAN: the director's opening SAN is public, the M1's is not.)
        assert not SEALED_KINDS - {"SANChanged"} & {e["type"] for e in seen}, role
        exported = [json.loads(line) for line in table.read(role, "/export").text.splitlines()]
        assert {line.get("type") for line in exported[1:-1]} == public | {"Sealed"}, role


def test_a_sealed_fact_names_for_whom_it_is_kept_and_nothing_else(table: Table) -> None:
    for role in OTHERS:
        for event in events(table, role):
            if event["type"] == "Sealed":  # nor who sent it (the director, or the side)
                assert event["data"] == {"secret_for": AXIS}, role
                assert event["salt"] is None and event["redacted"] is True, role


def test_no_read_by_the_others_holds_a_token_or_its_hash(table: Table) -> None:
    hashes = [hashlib.sha256(token.encode()).hexdigest() for token in table.tokens.values()]
    assert any("tokens" in e for e in events(table, "director"))  # the director's alone
    for role in OTHERS:
        for path in READS:
            text = table.read(role, path).text
            assert '"tokens"' not in text and "token_hashes\":{" not in text, (role, path)
            for digest in hashes:  # nor any prefix a hash might be shown by
                assert digest[:12] not in text, (role, path)
            for token in table.tokens.values():
                assert token not in text, (role, path)


def test_every_role_reads_the_same_leaves_and_they_verify(table: Table) -> None:
    version = table.read("director", "").json()["version"]
    for at in (1, version // 2, version):
        leaves = {role: table.read(role, f"/proof?version={at}").json()["leaf_hash"]
                  for role in ("director", *OTHERS)}
        assert len(set(leaves.values())) == 1, at
    director = events(table, "director")
    for role in OTHERS:
        seen = events(table, role)
        assert [event_leaf(r) for r in seen] == [event_leaf(r) for r in director], role
        assert table.read(role, "/verify").json()["ok"] is True, role
    assert table.read("director", "/checkpoint").text.splitlines()[:3] == \
        table.read(BRITISH, "/checkpoint").text.splitlines()[:3]


def test_at_cg_end_every_side_secret_opens_but_the_token_hashes_stay_the_directors(
        table: Table) -> None:
    replaced = table.client.post(f"/campaigns/{table.campaign['id']}/tokens/{BRITISH}",
                                 headers={"Authorization": f"Bearer {table.tokens['director']}"})
    assert replaced.status_code == 200, replaced.text
    table.tokens[BRITISH] = replaced.json()["token"]
    new_hash = hashlib.sha256(table.tokens[BRITISH].encode()).hexdigest()
    table.ok("director", {"type": "end_cg", "reason": "concession", "side": AXIS,
                          "rule": "3.6212"})
    for role in OTHERS:
        seen = events(table, role)
        assert [e["data"] for e in seen if e["type"] == "Sealed"] == [
            {"secret_for": "director"}], role  # the replaced token's hash, and only it
        assert not any("tokens" in e for e in seen), role
        assert new_hash[:12] not in table.read(role, "/export").text, role
        assert table.read(role, "/verify").json()["ok"] is True, role


def test_the_roll_audit_calls_a_sealed_record_a_roll_only_where_rolls_lists_one(
        table: Table) -> None:
    rolls = {r["version"] for r in table.read(BRITISH, "/rolls").json() if r["hidden"]}
    sealed = [e["version"] for e in events(table, BRITISH) if e["type"] == "Sealed"]
    path = f"/campaigns/{table.campaign['id']}/rolls/audit"
    for version in (min(rolls), min(set(sealed) - rolls)):
        answer = table.client.get(path, params={"version": version},
                                  headers={"Authorization": f"Bearer {table.tokens[BRITISH]}"})
        assert (answer.status_code == 200) is (version in rolls), answer.text
