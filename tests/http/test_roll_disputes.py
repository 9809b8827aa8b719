"""A side disputes a roll over HTTP: its own or the other side's public roll, with the
reason; the director's status lists it until a ruling settles it; a dispute of a secret
roll is as secret as the roll, and a roll the side may not read cannot be named."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.helpers.http import ADMIN, auth, secrets_played, send
from tests.helpers.web import text_of


def played(client: TestClient) -> dict[str, Any]:
    """The Axis has bought and rolled in secret (T2); the British roll T1 in public."""
    campaign = secrets_played(client)
    body = {"type": "roll", "table": "T1", "side": "British", "subject": "unit:Sgt.Jones"}
    answer = send(client, campaign, campaign["tokens"]["sides"]["British"], body)
    assert answer.status_code == 200, answer.text
    return campaign


def rolls(client: TestClient, campaign: dict[str, Any]) -> dict[str, int]:
    """The version of each roll, by its side (one each)."""
    rows = client.get(f"/campaigns/{campaign['id']}/rolls",
                      headers=auth(campaign["tokens"]["director"])).json()
    return {row["side"]: row["version"] for row in rows}


def dispute(client: TestClient, campaign: dict[str, Any], role: str, version: int,
            reason: str = "the -1 for the leader was left out") -> Any:
    """A dispute sent with the role's token (a side, or director/observer)."""
    tokens = campaign["tokens"]
    token = tokens["sides"][role] if role in tokens["sides"] else tokens[role]
    return client.post(f"/campaigns/{campaign['id']}/disputes", headers=auth(token),
                       json={"version": version, "reason": reason})


def status(client: TestClient, campaign: dict[str, Any], role: str) -> Any:
    """The status as the role reads it."""
    tokens = campaign["tokens"]
    token = tokens["sides"][role] if role in tokens["sides"] else tokens[role]
    return client.get(f"/campaigns/{campaign['id']}", headers=auth(token)).json()


def test_the_other_side_disputes_a_public_roll_and_a_ruling_settles_it(
        client: TestClient) -> None:
    campaign = played(client)
    british = rolls(client, campaign)["British"]
    answer = dispute(client, campaign, "Axis", british)
    assert answer.status_code == 200, answer.text
    for role in ("director", "British", "observer"):
        [shown] = status(client, campaign, role)["disputes"]
        assert (shown["roll_version"], shown["side"], shown["secret"]) == (british, "Axis",
                                                                           False)
        assert shown["reason"] == "the -1 for the leader was left out"
    key = client.get(f"/campaigns/{campaign['id']}/rolls",
                     headers=auth(campaign["tokens"]["director"])).json()[-1]["key"]
    ruled = client.post(f"/campaigns/{campaign['id']}/rulings",
                        headers=auth(campaign["tokens"]["director"]),
                        json={"key": key, "verdict": "upheld", "reason": "no leader there",
                              "disputed_by": "Axis"})
    assert ruled.status_code == 200, ruled.text
    assert status(client, campaign, "director")["disputes"] == []
    audit = client.get(f"/campaigns/{campaign['id']}/rolls/audit",
                       params={"version": british},
                       headers=auth(campaign["tokens"]["observer"])).json()
    [kept] = audit["disputes"]
    assert (kept["side"], kept["reason"], kept["standing"]) == (
        "Axis", "the -1 for the leader was left out", True)
    verified = client.get(f"/campaigns/{campaign['id']}/verify",
                          headers=auth(campaign["tokens"]["director"])).json()
    assert verified["ok"] is True, verified


def test_a_dispute_of_a_sides_own_secret_roll_is_sealed_from_the_other_side(
        client: TestClient) -> None:
    campaign = played(client)
    axis = rolls(client, campaign)["Axis"]
    answer = dispute(client, campaign, "Axis", axis, "Oblt.Secret had the Bocage DRM")
    assert answer.status_code == 200, answer.text
    assert status(client, campaign, "Axis")["disputes"][0]["secret"] is True
    assert status(client, campaign, "director")["disputes"][0]["roll_version"] == axis
    for role in ("British", "observer"):
        assert status(client, campaign, role)["disputes"] == []
        token = campaign["tokens"]["sides"].get(role) or campaign["tokens"][role]
        for read in ("events", "export", f"rolls/audit?version={axis}"):
            text = client.get(f"/campaigns/{campaign['id']}/{read}", headers=auth(token)).text
            assert "Bocage" not in text and "RollDisputed" not in text, read


def test_a_roll_the_side_may_not_read_cannot_be_disputed_and_nothing_is_appended(
        client: TestClient) -> None:
    campaign = played(client)
    made = rolls(client, campaign)
    before = status(client, campaign, "director")["version"]
    for version in (made["Axis"], before + 5, 1):  # secret, past the head, no roll there
        answer = dispute(client, campaign, "British", version)
        assert answer.status_code == 422, answer.text
        error = answer.json()["error"]
        assert error["field"] == "version"
        assert error["message"] == (f"no standing roll made at version {version} is open "
                                    "to the British")
    assert status(client, campaign, "director")["version"] == before


def test_who_may_dispute_and_what_a_dispute_must_say(client: TestClient) -> None:
    campaign = played(client)
    british = rolls(client, campaign)["British"]
    before = status(client, campaign, "director")["version"]
    for role in ("director", "observer"):
        assert dispute(client, campaign, role, british).status_code == 403, role
    for reason in ("", "   "):
        answer = dispute(client, campaign, "Axis", british, reason)
        assert answer.status_code == 422 and answer.json()["error"]["field"] == "reason"
    assert status(client, campaign, "director")["version"] == before
    assert dispute(client, campaign, "British", british).status_code == 200
    again = dispute(client, campaign, "Axis", british, "and it was Night")
    assert again.status_code == 422, again.text
    assert "disputed already: the director rules on it" in again.json()["error"]["message"]


def test_an_undo_past_the_dispute_takes_it_back_and_the_audit_marks_it_undone(
        client: TestClient) -> None:
    campaign = played(client)
    british = rolls(client, campaign)["British"]
    made = dispute(client, campaign, "Axis", british).json()["version"]
    director = auth(campaign["tokens"]["director"])
    undone = client.post(f"/campaigns/{campaign['id']}/undo", headers=director,
                         json={"to_version": made - 1, "reason": "the Axis sent it twice"})
    assert undone.status_code == 200, undone.text
    assert status(client, campaign, "director")["disputes"] == []
    audit = client.get(f"/campaigns/{campaign['id']}/rolls/audit",
                       params={"version": british}, headers=director).json()
    assert [d["standing"] for d in audit["disputes"]] == [False]
    assert dispute(client, campaign, "Axis", british).status_code == 200  # open again


def test_a_ruling_on_a_secret_roll_its_own_side_disputed_keeps_that_side_sealed(
        client: TestClient) -> None:
    campaign = played(client)
    axis = rolls(client, campaign)["Axis"]
    assert dispute(client, campaign, "Axis", axis, "the Elite -1").status_code == 200
    director = auth(campaign["tokens"]["director"])
    key = client.get(f"/campaigns/{campaign['id']}/rolls", headers=director).json()[0]["key"]
    ruled = client.post(f"/campaigns/{campaign['id']}/rulings", headers=director, json={
        "key": key, "verdict": "upheld", "reason": "stands as rolled", "disputed_by": "Axis"})
    assert ruled.status_code == 200, ruled.text
    british = auth(campaign["tokens"]["sides"]["British"])
    events = client.get(f"/campaigns/{campaign['id']}/events", headers=british).json()
    [ruling] = [e for e in events if e["type"] == "RulingRecorded"]
    assert ruling["data"]["disputed_by"] is None and ruling["data"]["reason"] == \
        "stands as rolled"  # a ruling is public; whose dispute it settled is not
    for read in ("events", "export", f"rolls/audit?version={axis}", "report"):
        text = client.get(f"/campaigns/{campaign['id']}/{read}", headers=british).text
        assert "disputed by Axis" not in text and '"disputed_by":"Axis"' not in \
            text.replace(" ", ""), read
    own = client.get(f"/campaigns/{campaign['id']}/rolls/audit", params={"version": axis},
                     headers=auth(campaign["tokens"]["sides"]["Axis"])).json()
    assert own["rulings"][0]["disputed_by"] == "Axis"


def test_a_dispute_a_ruling_settled_is_not_raised_again(client: TestClient) -> None:
    campaign = played(client)
    british = rolls(client, campaign)["British"]
    assert dispute(client, campaign, "Axis", british).status_code == 200
    director = auth(campaign["tokens"]["director"])
    key = client.get(f"/campaigns/{campaign['id']}/rolls", headers=director).json()[-1]["key"]
    ruled = client.post(f"/campaigns/{campaign['id']}/rulings", headers=director,
                        json={"key": key, "verdict": "upheld", "reason": "no leader there"})
    assert ruled.status_code == 200, ruled.text
    for side in ("Axis", "British"):
        again = dispute(client, campaign, side, british, "still wrong")
        assert again.status_code == 422, again.text
        assert "the ruling stands" in again.json()["error"]["message"]


def test_a_reason_with_no_word_in_it_is_refused(client: TestClient) -> None:
    campaign = played(client)
    british = rolls(client, campaign)["British"]
    for reason in ("\u200b", " ... ", "\u00a0", "\u3164\u115f", "a\u2028v999 forged",
                   "b\u2029", "why\ufeff"):
        answer = dispute(client, campaign, "Axis", british, reason)
        assert answer.status_code == 422 and answer.json()["error"]["field"] == "reason"


def test_the_admins_dashboard_counts_a_public_dispute_never_a_sealed_one(
        client: TestClient) -> None:
    campaign = played(client)
    made = rolls(client, campaign)
    assert dispute(client, campaign, "Axis", made["Axis"], "the Elite -1").status_code == 200
    client.post("/login", data={"token": ADMIN})
    page = text_of(client.get("/admin").text)
    assert "ruling pending" not in page and "Elite" not in page  # the observer's reading
    assert dispute(client, campaign, "Axis", made["British"], "Pinned").status_code == 200
    page = text_of(client.get("/admin").text)
    assert "1 ruling pending" in page
    assert f"roll {made['British']} (T1, 14AM): disputed by the Axis" in page
