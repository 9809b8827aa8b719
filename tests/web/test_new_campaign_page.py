"""A tournament director starts a campaign from the admin's page (POST /campaigns's use
case): a module's CG from the list, a name and the dice; the answer shows each role's
join link once, and each one opens its role's page. A bad field is refused naming it,
and nothing is started; only the admin's session starts one, and only from this site."""

from __future__ import annotations

import html as markup
import re
from typing import Any

from fastapi.testclient import TestClient

from tests.helpers.http import ADMIN, auth
from tests.helpers.web import text_of


def started(client: TestClient, **form: str) -> Any:
    """The admin's new-campaign form, loaded and posted with these fields."""
    page = client.get("/admin/new")
    assert page.status_code == 200, page.text
    return client.post("/admin/new", data=hidden(page.text) | form, follow_redirects=False)


def hidden(page: str) -> dict[str, str]:
    """The form's hidden fields as a page shows them: its CSRF token and its one-time id."""
    return {name: page.split(f'name="{name}" value="')[1].split('"')[0]
            for name in ("csrf", "once")}


def campaign_names(client: TestClient) -> list[str]:
    """Every campaign's name, as GET /campaigns lists them to the admin."""
    return [c["name"] for c in client.get("/campaigns", headers=auth(ADMIN)).json()]


def test_the_admin_starts_a_campaign_and_each_join_link_opens_its_role(
        client: TestClient) -> None:
    client.post("/login", data={"token": ADMIN})
    assert 'href="/admin/new"' in client.get("/admin").text
    form = client.get("/admin/new").text
    assert '<option value="pbr/I">PBr CG I: PBr Campaign Game (July 14-17)</option>' in form
    assert 'value="kgp/III"' in form and 'value="abtf/I"' in form
    answer = started(client, cg="pbr/I", name="Ranville,  table 4", dice_mode="entered")
    assert answer.status_code == 201, answer.text
    text = text_of(markup.unescape(answer.text))
    assert "Started: Ranville, table 4" in text and "PBr CG I, entered dice" in text
    links = dict(re.findall(r'<code class="link" data-role="([^"]+)">([^<]+)</code>',
                            markup.unescape(answer.text)))
    assert set(links) == {"director", "observer", "Axis", "British"}
    ident = links["director"].split("campaign=")[1].split("&")[0]
    assert campaign_names(client).count("Ranville, table 4") == 1
    for role, link in links.items():  # the link's fragment is what /join logs in with
        assert link.startswith("http://testserver/join#campaign=")
        token = link.split("token=")[1]
        player = TestClient(client.app)
        login = player.post("/login", data={"token": token, "campaign": ident},
                            follow_redirects=False)
        assert login.status_code == 303, (role, login.text)
        status = player.get(f"/campaigns/{ident}", headers=auth(token)).json()
        assert status["name"] == "Ranville, table 4" and status["dice"] == "entered"
    assert answer.headers["cache-control"] == "no-store"  # the tokens are never cached


def test_a_bad_field_is_refused_naming_it_and_nothing_is_started(client: TestClient) -> None:
    client.post("/login", data={"token": ADMIN})
    before = campaign_names(client)
    cg = "choose a module's CG from the list (field: Module and CG)"
    name = "give the campaign a name of 1 to 200 characters (field: Name)"
    for form, said, field in (
            ({"cg": "pbr/IX", "name": "X", "dice_mode": "server"}, cg, "new-cg"),
            ({"cg": "chess/I", "name": "X", "dice_mode": "server"}, cg, "new-cg"),
            ({"cg": "pbr/I", "name": " \t", "dice_mode": "server"}, name, "new-name"),
            ({"cg": "pbr/I", "name": "X" * 201, "dice_mode": "server"}, name, "new-name"),
            ({"cg": "pbr/I", "name": "X", "dice_mode": "loaded"}, "dice (field: Dice)", "")):
        answer = started(client, **form)
        assert answer.status_code == 422, answer.text
        text = text_of(markup.unescape(answer.text))
        assert said in text and "No campaign was started." in text, text
        if field:  # the field refused is marked, for a screen reader too
            tag = answer.text.split(f'id="{field}"', 1)[1].split(">", 1)[0]
            assert 'aria-invalid="true"' in tag
    assert campaign_names(client) == before


def test_only_the_admins_session_starts_one_and_only_from_this_site(
        client: TestClient) -> None:
    made = TestClient(client.app).post("/campaigns", headers=auth(ADMIN), json={
        "module": "pbr", "cg": "I", "name": "Ranville"}).json()
    for token in (None, made["tokens"]["director"]):  # no session, then a director's
        if token is not None:
            client.post("/login", data={"token": token})
        answer = client.get("/admin/new", follow_redirects=False)
        assert answer.status_code == 303  # the login page, or the director's own home
        refused = client.post("/admin/new", data={"csrf": "x", "cg": "pbr/I", "name": "X",
                                                  "dice_mode": "server"}, follow_redirects=False)
        assert refused.status_code == 303 and refused.headers["location"] == "/"
    client.post("/login", data={"token": ADMIN})
    forged = client.post("/admin/new", data={"csrf": "x", "cg": "pbr/I", "name": "Forged",
                                             "dice_mode": "server"})
    assert forged.status_code == 403, forged.text
    cross = started(client, cg="pbr/I", name="Cross", dice_mode="server")
    assert cross.status_code == 201  # the same site: started
    page = client.get("/admin/new")
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    other_site = client.post("/admin/new", headers={"Sec-Fetch-Site": "cross-site"},
                             data={"csrf": csrf, "cg": "pbr/I", "name": "Other site",
                                   "dice_mode": "server"})
    assert other_site.status_code == 403
    assert set(campaign_names(client)) == {"Ranville", "Cross"}  # nothing else started


def replaced(client: TestClient, campaign: str, role: str, **headers: str) -> Any:
    """The dashboard's "Replace a lost token" form, posted for a role."""
    dashboard = client.get("/admin")
    csrf = dashboard.text.split('name="csrf" value="')[1].split('"')[0]
    return client.post("/admin/tokens", headers=headers,
                       data={"csrf": csrf, "campaign": campaign, "role": role})


def test_the_admin_replaces_a_lost_token_from_the_dashboard_and_the_old_one_dies(
        client: TestClient) -> None:
    made = client.post("/campaigns", headers=auth(ADMIN), json={
        "module": "pbr", "cg": "I", "name": "Ranville"}).json()
    old = made["tokens"]["sides"]["British"]
    player = TestClient(client.app)
    assert player.post("/login", data={"token": old}, follow_redirects=False) \
        .status_code == 303
    client.post("/login", data={"token": ADMIN})
    line = client.get("/admin").text.split(f'data-campaign="{made["id"]}"')[1]
    assert "Replace a lost token" in line and '<option value="British">' in line
    answer = replaced(client, made["id"], "British")
    assert answer.status_code == 201, answer.text
    assert answer.headers["cache-control"] == "no-store"
    text = text_of(markup.unescape(answer.text))
    assert "New British token: Ranville" in text
    link = re.search(r'<code class="link" data-role="British">([^<]+)</code>',
                     markup.unescape(answer.text))
    assert link is not None
    new = link.group(1).split("token=")[1]
    assert client.get(f"/campaigns/{made['id']}", headers=auth(old)).status_code == 401
    assert client.get(f"/campaigns/{made['id']}", headers=auth(new)).status_code == 200
    assert player.get(f"/play/{made['id']}", follow_redirects=False).status_code == 303


def test_a_bad_role_or_campaign_replaces_nothing_and_says_which_field(
        client: TestClient) -> None:
    made = client.post("/campaigns", headers=auth(ADMIN), json={
        "module": "pbr", "cg": "I", "name": "Ranville"}).json()
    client.post("/login", data={"token": ADMIN})
    for campaign, role, said in ((made["id"], "Germans", "Role"),
                                 ("not-an-id", "British", "Campaign"),
                                 ("00000000-0000-0000-0000-000000000000", "British", "")):
        answer = replaced(client, campaign, role)
        assert answer.status_code in (404, 422), answer.text
        text = text_of(markup.unescape(answer.text))
        assert "No token was replaced." in text and (not said or f"field: {said}" in text)
    for token in made["tokens"]["sides"].values():  # every old token still opens it
        assert client.get(f"/campaigns/{made['id']}", headers=auth(token)).status_code == 200
    other_site = replaced(client, made["id"], "British", **{"Sec-Fetch-Site": "cross-site"})
    assert other_site.status_code == 403
    director = TestClient(client.app)
    director.post("/login", data={"token": made["tokens"]["director"]})
    refused = director.post("/admin/tokens", data={"csrf": "x", "campaign": made["id"],
                                                   "role": "British"}, follow_redirects=False)
    assert refused.status_code == 303 and refused.headers["location"] == "/"
    assert client.get(f"/campaigns/{made['id']}",
                      headers=auth(made["tokens"]["sides"]["British"])).status_code == 200


def test_a_file_sent_for_a_text_field_is_no_name_and_starts_nothing(
        client: TestClient) -> None:
    client.post("/login", data={"token": ADMIN})
    before = campaign_names(client)
    page = client.get("/admin/new")
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    answer = client.post("/admin/new", data={"csrf": csrf, "cg": "pbr/I",
                                             "dice_mode": "server"},
                         files={"name": ("a.txt", b"Ranville", "text/plain")})
    assert answer.status_code == 422, answer.text
    text = text_of(markup.unescape(answer.text))
    assert "give the campaign a name of 1 to 200 characters (field: Name)" in text
    assert "UploadFile" not in text and campaign_names(client) == before


def test_a_form_sent_twice_starts_one_campaign_and_says_which(client: TestClient) -> None:
    client.post("/login", data={"token": ADMIN})
    fields = hidden(client.get("/admin/new").text) | {
        "cg": "pbr/I", "name": "Ranville, table 4", "dice_mode": "server"}
    first = client.post("/admin/new", data=fields)
    assert first.status_code == 201, first.text

    again = client.post("/admin/new", data=fields)  # a browser's resend, a second click

    assert again.status_code == 409, again.text
    text = text_of(markup.unescape(again.text))
    assert "this form was sent before, and started the campaign \u201cRanville, table 4\u201d" \
        f" ({fields['once']})" in text and "No other campaign was started." in text
    assert 'class="link"' not in again.text  # no join link shown a second time
    assert campaign_names(client).count("Ranville, table 4") == 1
    found = client.get(f"/admin?q={fields['once']}")  # the page's link finds it by its id
    assert f'href="/admin?q={fields["once"]}"' in again.text
    assert f'data-campaign="{fields["once"]}"' in found.text
    fresh = hidden(again.text)["once"]  # a new, blank form for another campaign
    assert fresh != fields["once"] and 'value="Ranville, table 4"' not in again.text
    assert client.post("/admin/new", data=fields | {"once": fresh}).status_code == 201
    assert campaign_names(client).count("Ranville, table 4") == 2


def test_a_refused_form_keeps_its_id_and_starts_its_campaign_once_corrected(
        client: TestClient) -> None:
    client.post("/login", data={"token": ADMIN})
    fields = hidden(client.get("/admin/new").text) | {"cg": "pbr/I", "dice_mode": "server"}
    refused = client.post("/admin/new", data=fields | {"name": " "})
    assert refused.status_code == 422
    assert hidden(refused.text)["once"] == fields["once"]  # nothing was started with it

    corrected = client.post("/admin/new", data=hidden(refused.text) | fields | {
        "name": "Ranville"})

    assert corrected.status_code == 201, corrected.text
    assert fields["once"] in corrected.text  # the campaign's id is the form's
    bad = client.post("/admin/new", data=fields | {"once": "not-an-id", "name": "Other"})
    assert bad.status_code == 422
    assert "load the page again (field: this page's form)" in text_of(
        markup.unescape(bad.text))
    assert hidden(bad.text)["once"] not in ("not-an-id", fields["once"])  # a fresh one
    assert campaign_names(client) == ["Ranville"]
