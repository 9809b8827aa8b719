"""The director's other tools in the web client (issue 18 item 5): a ruling with its
corrections from a roll's audit page, the seed revealed after a page saying what it does,
the history verified and a receipt checked, the export downloaded as a file. Only the
director's session sees or uses them; a side and the observer are refused (403), a form
from another site or without the session's CSRF token too; every refusal is the JSON
API's, never a 500."""

from __future__ import annotations

import html as markup
import json
import re
from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from infra.settings import Settings
from tests.helpers.http import auth
from tests.helpers.tamper import edit_event
from tests.helpers.web import AXIS, BRITISH, csrf_of, secret_roll, text_of
from tests.http.test_reports import LOST, Table

REASON = "the Axis rolled 3.6181 with the KG Bonus DRM it does not have"


@pytest.fixture
def campaign(client: TestClient) -> dict[str, Any]:
    """The campaign at 3.618, the Axis's secret DR for RG line 1 rolled (its version under
    `rolled`: tests/helpers/web.py secret_roll)."""
    return secret_roll(client)


def log_in(client: TestClient, token: str) -> None:
    """The session cookie of the token's role, as the login form gives it."""
    answer = client.post("/login", data={"token": token}, follow_redirects=False)
    assert answer.status_code == 303, answer.text


def get(client: TestClient, path: str, code: int = 200) -> str:
    """A page as the session's role reads it, with its code checked."""
    answer = client.get(path, follow_redirects=False)
    assert answer.status_code == code, answer.text
    return markup.unescape(answer.text)


def post(client: TestClient, path: str, form: dict[str, str], **kwargs: Any) -> Any:
    """A page's form posted (not followed)."""
    return client.post(path, data=form, follow_redirects=False, **kwargs)


def json_read(client: TestClient, campaign: dict[str, Any], path: str) -> Any:
    """A JSON read of the campaign as the director."""
    answer = client.get(f"/campaigns/{campaign['id']}{path}",
                        headers=auth(campaign["tokens"]["director"]))
    assert answer.status_code == 200, answer.text
    return answer.json()


def roll_path(campaign: dict[str, Any]) -> str:
    return f"/play/{campaign['id']}/rolls/{campaign['rolled']}"


def test_the_director_corrects_a_roll_and_the_ruling_shows_beside_it(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = get(client, roll_path(campaign))
    assert 'id="h-rule"' in page and 'name="verdict"' in page
    results = re.findall(r'<select id="r-result" name="result">(.*?)</select>', page, re.S)
    offered = re.findall(r'<option value="([^"]+)"', results[0])
    assert offered and "F" not in offered  # the table's results, not what they record
    made = json_read(client, campaign, f"/rolls/audit?version={campaign['rolled']}")
    roll = next(r for r in made["rolls"] if r["version"] == campaign["rolled"])
    other = next(r for r in offered if r != roll["result"])
    form = {"csrf": csrf_of(page), "verdict": "corrected", "reason": REASON,
            "result": other, "disputed_by": BRITISH}
    answer = post(client, f"{roll_path(campaign)}/ruling", form)
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"].endswith(f"/rolls/{campaign['rolled']}#rulings")
    ruled = json_read(client, campaign, f"/rolls/audit?version={campaign['rolled']}")
    assert [(r["verdict"], r["reason"], r["disputed_by"]) for r in ruled["rulings"]] == \
        [("corrected", REASON, BRITISH)]
    text = text_of(get(client, roll_path(campaign)))
    assert f"Corrected by the director at version {ruled['rulings'][0]['version']}: " \
           f"{REASON} (disputed by {BRITISH})" in text
    assert f"the result is “{other}”" in markup.unescape(text)  # a result alone, shown too


def test_a_ruling_adjusts_a_sides_cpp_from_the_closed_lists(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = get(client, roll_path(campaign))
    before = json_read(client, campaign, "")["sides"][BRITISH]["cpp"]
    form = {"csrf": csrf_of(page), "verdict": "corrected", "reason": "a CPP credit missed",
            "c_kind": "adjust", "c_side": BRITISH, "c_pool": "cpp", "c_amount": "2",
            "c_reason": "3.6161 credit short by 2", "c_rule": "3.6161"}
    answer = post(client, f"{roll_path(campaign)}/ruling", form)
    assert answer.status_code == 303, answer.text
    assert json_read(client, campaign, "")["sides"][BRITISH]["cpp"] == before + 2
    text = text_of(get(client, roll_path(campaign)))
    assert "Points adjusted for the British at version" in text  # in words, not `adjust`


def test_one_ruling_from_the_page_carries_several_corrections_in_their_order(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = get(client, roll_path(campaign))
    assert 'name="c2_kind"' in page and 'name="c3_kind"' in page
    before = json_read(client, campaign, "")["sides"][BRITISH]
    form = {"csrf": csrf_of(page), "verdict": "corrected", "reason": "two credits missed",
            "c_kind": "adjust", "c_side": BRITISH, "c_pool": "cpp", "c_amount": "2",
            "c_reason": "3.6161 credit short by 2", "c_rule": "3.6161",
            "c3_kind": "adjust", "c3_side": BRITISH, "c3_pool": "fpp", "c3_amount": "1",
            "c3_reason": "an FPP not credited"}  # the second left blank: skipped
    answer = post(client, f"{roll_path(campaign)}/ruling", form)
    assert answer.status_code == 303, answer.text
    after = json_read(client, campaign, "")["sides"][BRITISH]
    assert (after["cpp"], after["fpp"]) == (before["cpp"] + 2, before["fpp"] + 1)


def test_a_later_correction_refused_names_its_own_fields_and_records_nothing(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = get(client, roll_path(campaign))
    form = {"csrf": csrf_of(page), "verdict": "corrected", "reason": REASON,
            "c_kind": "adjust", "c_side": BRITISH, "c_pool": "cpp", "c_amount": "2",
            "c_reason": "short by 2", "c2_kind": "adjust", "c2_side": AXIS,
            "c2_pool": "cpp", "c2_amount": "1"}
    answer = post(client, f"{roll_path(campaign)}/ruling", form)
    assert answer.status_code == 422, answer.text
    assert "Why (correction 2): give the reason" in markup.unescape(answer.text)
    assert 'value="short by 2"' in answer.text  # the form again, as filled in
    assert json_read(client, campaign, f"/rolls/audit?version={campaign['rolled']}"
                     )["rulings"] == []


def test_a_correction_the_rules_refuse_is_named_by_its_own_fields_on_the_page(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = get(client, roll_path(campaign))
    form = {"csrf": csrf_of(page), "verdict": "corrected", "reason": REASON,
            "c3_kind": "amend_purchase", "c3_side": AXIS, "c3_purchase": "99",
            "c3_reason": "ruled at the table"}  # the third alone: a line there is not
    answer = post(client, f"{roll_path(campaign)}/ruling", form)
    assert answer.status_code == 422, answer.text
    said = text_of(answer.text)
    assert "Amend: purchase line # (correction 3): " in said and "corrections[" not in said


@pytest.mark.parametrize(("correction", "event"), [
    ({"c_kind": "void_roll"}, "RollVoided"),
    ({"c_kind": "amend_purchase", "c_side": AXIS, "c_purchase": "2", "c_rg": "I5",
      "c_cost": "20"}, "PurchaseAmended"),
])
def test_a_ruling_voids_the_roll_or_amends_a_purchase_line(
        client: TestClient, campaign: dict[str, Any], correction: dict[str, str],
        event: str) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = get(client, roll_path(campaign))
    form = {"csrf": csrf_of(page), "verdict": "corrected", "reason": REASON,
            "c_reason": "ruled at the table", "c_rule": "3.6181"} | correction
    answer = post(client, f"{roll_path(campaign)}/ruling", form)
    assert answer.status_code == 303, markup.unescape(answer.text)[-600:]
    kinds = [e["type"] for e in json_read(client, campaign, "/events")]
    assert kinds[-3:] == ["RulingRecorded", "RulingSealed", event]  # a secret roll's


@pytest.mark.parametrize(("change", "said"), [
    ({"verdict": "overruled"}, "Verdict: choose one of upheld, corrected"),
    ({"result": "Elite"}, "Result: choose one of"),
    ({"final": "seven"}, "Final roll: a whole number from -100 to 100"),
    ({"c_kind": "adjust", "c_side": AXIS, "c_pool": "morale", "c_amount": "1",
      "c_reason": "x"}, "Adjust: which (correction 1): choose one of cpp, fpp, elr, san"),
    ({"reason": ""}, "a ruling gives its reason"),
    ({"verdict": "upheld", "final": "3"}, "an upheld roll keeps its Final roll"),
])
def test_a_ruling_refused_is_the_page_again_naming_the_field_and_records_nothing(
        client: TestClient, campaign: dict[str, Any], change: dict[str, str],
        said: str) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = get(client, roll_path(campaign))
    form = {"csrf": csrf_of(page), "verdict": "corrected", "reason": REASON} | change
    answer = post(client, f"{roll_path(campaign)}/ruling", form)
    assert answer.status_code == 422, answer.text
    assert said in markup.unescape(answer.text)
    assert 'id="h-rule"' in answer.text  # the form again, as filled in
    assert json_read(client, campaign, f"/rolls/audit?version={campaign['rolled']}"
                     )["rulings"] == []


@pytest.mark.parametrize("role", ["side", "observer"])
def test_a_side_and_the_observer_see_none_of_the_directors_tools_and_are_refused_them(
        client: TestClient, campaign: dict[str, Any], role: str) -> None:
    tokens = campaign["tokens"]
    log_in(client, tokens["sides"][AXIS] if role == "side" else tokens["observer"])
    ident = campaign["id"]
    page = get(client, roll_path(campaign))
    assert 'id="h-rule"' not in page
    home = get(client, f"/play/{ident}")
    assert f"/play/{ident}/verify" not in home and f"/play/{ident}/seed" not in home
    found = re.findall(r'name="csrf" value="([^"]+)"', home)  # the observer's page has none
    csrf = found[0] if found else ""
    refused = [post(client, f"{roll_path(campaign)}/ruling",
                    {"csrf": csrf, "verdict": "upheld", "reason": "x"}),
               post(client, f"/play/{ident}/seed", {"csrf": csrf}),
               post(client, f"/play/{ident}/verify", {"csrf": csrf, "pasted": "{}"}),
               client.get(f"/play/{ident}/verify"), client.get(f"/play/{ident}/seed"),
               client.get(f"/play/{ident}/export")]
    assert [answer.status_code for answer in refused] == [403] * 6
    assert "the director" in markup.unescape(refused[1].text)
    assert json_read(client, campaign, f"/rolls/audit?version={campaign['rolled']}"
                     )["rulings"] == []


def test_the_directors_forms_without_the_csrf_token_or_from_another_site_are_refused(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    ident = campaign["id"]
    csrf = csrf_of(get(client, f"/play/{ident}/seed"))
    before = json_read(client, campaign, "")["version"]
    ruling = {"verdict": "upheld", "reason": "x"}
    for path, form in ((f"{roll_path(campaign)}/ruling", ruling),
                       (f"/play/{ident}/seed", {})):
        assert post(client, path, form | {"csrf": "0" * 64}).status_code == 403
        cross = post(client, path, form | {"csrf": csrf},
                     headers={"Sec-Fetch-Site": "cross-site"})
        assert cross.status_code == 403
        assert "posted from another site" in markup.unescape(cross.text)
    assert json_read(client, campaign, "")["version"] == before


def test_the_director_reveals_the_seed_after_a_page_saying_what_it_does(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    ident = campaign["id"]
    home = get(client, f"/play/{ident}")
    for link in ("undo", "verify", "seed", "export"):
        assert f'href="/play/{ident}/{link}"' in home
    page = get(client, f"/play/{ident}/seed")
    committed = json_read(client, campaign, "")["seed_commitment"]
    assert "anyone can recompute every roll made with it" in page and committed in page
    # the Axis's secret DR was made with this seed: the opponent could compute its dice
    assert "1 secret roll was made with this seed" in text_of(page)
    assert "the opponent can compute its dice" in text_of(page)
    answer = post(client, f"/play/{ident}/seed", {"csrf": csrf_of(page)})
    assert answer.status_code == 303, answer.text
    shown = get(client, answer.headers["location"])
    revealed = [e for e in json_read(client, campaign, "/events")
                if e["type"] == "SeedRevealed"]
    assert len(revealed) == 1
    assert f"Seed revealed at version {revealed[0]['version']}" in shown
    assert revealed[0]["data"]["seed"] in shown
    assert revealed[0]["data"]["next_commitment"] in shown
    audit = get(client, roll_path(campaign))
    assert f'data-seed="{revealed[0]["data"]["seed"]}"' in audit  # the dice now checkable


def test_verify_says_ok_with_the_counts_checked(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    report = json_read(client, campaign, "/verify")
    text = text_of(get(client, f"/play/{campaign['id']}/verify"))
    assert "OK: the history verifies" in text
    assert f"{report['events']} events checked" in text
    assert f"{report['rolls_verified']} server rolls recomputed" in text


def test_a_receipt_held_by_the_history_checks_ok(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    path = f"/play/{campaign['id']}/verify"
    receipt = json.dumps(campaign["answer"]).encode()
    good = client.post(path, data={"csrf": csrf_of(get(client, path))},
                       files={"receipt": ("roll.json", receipt, "application/json")})
    assert good.status_code == 200, good.text
    versions = ", ".join(str(v) for v in campaign["answer"]["receipt"]["versions"])
    assert f"OK : roll.json is held by the history: versions {versions} in the tree of " \
           f"{campaign['answer']['receipt']['tree_size']} events" in \
        text_of(markup.unescape(good.text))


def test_an_edited_history_fails_verify_at_its_version_and_a_receipt_says_so(
        client: TestClient, campaign: dict[str, Any], settings: Settings) -> None:
    edit_event(settings.database_url, UUID(campaign["id"]), 10, b'"previous":"3.617"',
               b'"previous":"3.61X"')  # the public advance into 3.618, behind its back
    found = json_read(client, campaign, "/verify")
    assert not found["ok"]
    log_in(client, campaign["tokens"]["director"])
    path = f"/play/{campaign['id']}/verify"
    page = get(client, path)
    assert f"BAD at version {found['first_bad_version']}" in text_of(page)
    assert f"The first version that does not fit is {found['first_bad_version']}" in \
        text_of(page) and found["problem"] in page
    pasted = client.post(path, data={"csrf": csrf_of(page),
                                     "pasted": json.dumps(campaign["answer"])})
    text = text_of(markup.unescape(pasted.text))
    assert pasted.status_code == 200 and "BAD" in text and "the receipt pasted" in text
    assert "(a fork): one of versions 9 to 10 differs" in text


def test_a_receipt_that_is_not_json_is_refused_naming_the_field(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    path = f"/play/{campaign['id']}/verify"
    answer = client.post(path, data={"csrf": csrf_of(get(client, path)), "pasted": "{nope"})
    assert answer.status_code == 422
    assert "the receipt pasted is not JSON" in markup.unescape(answer.text)
    deep = client.post(path, data={"csrf": csrf_of(get(client, path)),
                                   "pasted": "[" * 100_000 + "]" * 100_000})
    assert deep.status_code == 422 and "nested too deep" in deep.text


def test_the_director_downloads_the_export_as_a_named_file(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    answer = client.get(f"/play/{campaign['id']}/export")
    assert answer.status_code == 200
    version = json_read(client, campaign, "")["version"]
    assert re.fullmatch(rf'attachment; filename="refit-[a-z0-9-]+-v{version}\.jsonl"',
                        answer.headers["content-disposition"])
    lines = [json.loads(line) for line in answer.text.splitlines()]
    assert [line["version"] for line in lines if "version" in line and "data" in line] == \
        list(range(1, version + 1))


@pytest.mark.parametrize(("answer", "status"), [("withdraw_report", "withdrawn"),
                                                ("confirm_report", "confirmed")])
def test_a_disputed_report_shows_on_the_directors_home_and_is_settled_there(
        client: TestClient, answer: str, status: str) -> None:
    table = Table(client, "Pegasus Bridge")
    table.to("scenario")
    table.ok(AXIS, LOST)
    table.ok(BRITISH, {"type": "dispute_report", "report": 1, "side": BRITISH,
                       "reason": "a 4-4-7, 1 CVP"})
    ident = table.campaign["id"]
    log_in(client, table.tokens[BRITISH])
    assert 'id="disputes"' not in get(client, f"/play/{ident}")  # the director's to settle
    log_in(client, table.tokens["director"])
    home = get(client, f"/play/{ident}")
    text = text_of(home)
    assert "Disputes to rule on 1" in text
    assert "Report 1 A26.2 : the Axis lost 4-6-8 (2 CVP), reported by the Axis; disputed: " \
           "“a 4-4-7, 1 CVP”" in text
    form = {"csrf": csrf_of(home), "action": "settle", "report": "1", "answer": answer,
            "reason": "the unit lost was a 4-4-7"}
    settled = post(client, f"/play/{ident}/act", form)
    assert settled.status_code == 303, settled.text
    events = [e for e in table.read("director", "/events").json()
              if e["type"].startswith("Report")]
    assert events[-1]["type"] == f"Report{status.capitalize()}"
    assert 'id="disputes"' not in get(client, f"/play/{ident}")


def test_a_refused_ruling_is_shown_at_the_rolls_address_and_a_refused_login_at_home(
        client: TestClient, campaign: dict[str, Any]) -> None:
    log_in(client, campaign["tokens"]["director"])
    page = get(client, roll_path(campaign))
    form = {"csrf": csrf_of(page), "verdict": "corrected", "reason": "",
            "c_kind": "adjust", "c_side": BRITISH, "c_pool": "cpp", "c_amount": "2"}
    answer = post(client, f"{roll_path(campaign)}/ruling", form)
    assert answer.status_code == 422, answer.text
    # htmx shows the roll's own address, which answers a reload (the form's does not)
    assert answer.headers["HX-Replace-Url"] == roll_path(campaign)
    refused = post(client, "/login", {"token": "not-a-token"})
    assert refused.status_code == 401 and refused.headers["HX-Replace-Url"] == "/"
    assert "HX-Replace-Url" not in client.get(roll_path(campaign)).headers


def test_a_forms_address_asked_for_as_a_page_leads_to_the_page_it_is_on(
        client: TestClient, campaign: dict[str, Any]) -> None:
    # Where a browser without htmx is left after a refused form: a reload asks for these.
    ident = campaign["id"]
    for address, page_of_it in (("/login", "/"), (f"/play/{ident}/act", f"/play/{ident}"),
                                (f"{roll_path(campaign)}/ruling", roll_path(campaign)),
                                (f"/play/{ident}/rolls/²/ruling", f"/play/{ident}")):
        answer = client.get(address, follow_redirects=False)
        assert (answer.status_code, answer.headers["location"]) == (303, page_of_it), address
