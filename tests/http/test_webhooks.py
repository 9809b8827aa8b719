"""A campaign's outgoing webhook (issue 18 item 7), posted to a chat on this machine: each
public event once, in order, in ASL words with a link to its receipt; a sealed one never;
a chat that fails or is down is tried again until it takes the post, while commands answer
at once; only the director sets, reads or removes it, and its URL is never shown whole."""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from infra.settings import Settings
from tests.helpers.http import ADMIN, auth, new_campaign, send, serving
from tests.helpers.paths import FIXTURE_CHART
from tests.helpers.processes import until
from tests.helpers.receiver import TOKEN, Receiver, linked_version

AXIS, BRITISH = "Axis", "British"
CREDIT = {"type": "credit_cpp", "side": AXIS, "amount": 39, "reason": "Base"}  # sealed (PBr)
ADVANCE = {"type": "advance"}  # public
SECRETS = ({"type": "purchase_rg", "side": AXIS, "rg": "X1"},  # sealed (PBr 3.617)
           {"type": "roll", "table": "T2", "side": AXIS, "subject": "unit:Oblt.Secret"})
PUBLIC_ROLL = {"type": "roll", "table": "T1", "side": BRITISH, "subject": "unit:Sgt.Able"}
SITE = "http://refit.test"


@pytest.fixture
def hooked(settings: Settings) -> Iterator[TestClient]:
    """The service as a test may post from it: to this machine, its address SITE."""
    yield from serving(settings.model_copy(update={"webhook_allow_local": True,
                                                   "public_url": SITE}), FIXTURE_CHART)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver().start()
    yield found
    found.stop()


def hook(client: TestClient, campaign: dict[str, Any], url: str, token: str = "") -> Any:
    return client.put(f"/campaigns/{campaign['id']}/webhook", json={"url": url},
                      headers=auth(token or campaign["tokens"]["director"]))


def status(client: TestClient, campaign: dict[str, Any]) -> dict[str, Any]:
    answer = client.get(f"/campaigns/{campaign['id']}/webhook",
                        headers=auth(campaign["tokens"]["director"]))
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def ok(client: TestClient, campaign: dict[str, Any], role: str, body: dict[str, Any]) -> int:
    tokens = campaign["tokens"]
    answer = send(client, campaign, tokens["sides"].get(role) or tokens[role], body)
    assert answer.status_code == 200, answer.text
    return int(answer.json()["version"])


def all_sent(client: TestClient, campaign: dict[str, Any], version: int) -> bool:
    now = status(client, campaign)
    return now["delivered"] == version and now["pending"] == 0


def test_each_public_event_is_posted_once_in_order_with_its_words_and_receipt(
        hooked: TestClient, receiver: Receiver) -> None:
    campaign = new_campaign(hooked)
    set_at = hook(hooked, campaign, receiver.url)
    assert set_at.status_code == 200, set_at.text
    ok(hooked, campaign, "director", CREDIT)
    for secret in SECRETS:
        ok(hooked, campaign, AXIS, secret)
    advanced = ok(hooked, campaign, "director", ADVANCE)
    rolled = ok(hooked, campaign, BRITISH, PUBLIC_ROLL)
    assert until(lambda: all_sent(hooked, campaign, rolled))
    observer = hooked.get(f"/campaigns/{campaign['id']}/events",
                          headers=auth(campaign["tokens"]["observer"])).json()
    public = [e["version"] for e in observer if e["version"] > set_at.json()["since"]
              and not e.get("redacted")]
    posted = [linked_version(text) for text in receiver.texts()]
    assert posted == public and posted[-2:] == [advanced, rolled]
    first, last = receiver.texts()[-2], receiver.texts()[-1]
    assert first.startswith("Ranville, 14AM, Step 3.618 (before the Initial Scenario) "
                            f"(v{advanced}): step 3.617 complete")
    assert first.endswith(f"{SITE}/campaigns/{campaign['id']}/proof?version={advanced}")
    assert "British" in last and "T1" in last and "Sgt.Able" in last
    assert last.endswith(f"{SITE}/play/{campaign['id']}/rolls/{rolled}")
    assert all(body["username"] == "Refit" and html.unescape(body["text"]) == body["content"]
               and body["allowed_mentions"] == {"parse": []} for body in receiver.bodies)
    assert " -&gt; " in receiver.bodies[-1]["text"]  # Slack's escapes: no `<!channel>`


def test_no_sealed_fact_reaches_the_chat(hooked: TestClient, receiver: Receiver) -> None:
    campaign = new_campaign(hooked)
    hook(hooked, campaign, receiver.url)
    ok(hooked, campaign, "director", CREDIT)
    for secret in SECRETS:
        ok(hooked, campaign, AXIS, secret)
    last = ok(hooked, campaign, BRITISH, PUBLIC_ROLL)
    assert until(lambda: all_sent(hooked, campaign, last))
    said = " ".join(receiver.texts())
    for secret in ("X1", "Oblt.Secret", "T2", "sealed"):
        assert secret not in said, secret


def test_a_chat_that_fails_once_is_posted_to_again_and_gets_the_event_once(
        hooked: TestClient) -> None:
    failing = Receiver(500).start()
    try:
        campaign = new_campaign(hooked)
        hook(hooked, campaign, failing.url)
        advanced = ok(hooked, campaign, "director", ADVANCE)
        assert until(lambda: all_sent(hooked, campaign, advanced))
        assert (failing.tries, len(failing.bodies)) == (2, 1)
        assert status(hooked, campaign)["error"] is None
    finally:
        failing.stop()


def test_a_chat_that_is_down_holds_up_no_command_and_gets_its_posts_once_up(
        hooked: TestClient) -> None:
    down = Receiver()
    campaign = new_campaign(hooked)
    hook(hooked, campaign, down.url)
    advanced = ok(hooked, campaign, "director", ADVANCE)
    assert until(lambda: status(hooked, campaign)["error"] is not None)
    now = status(hooked, campaign)
    assert now["pending"] == 1 and now["delivered"] is None
    assert "no answer from 127.0.0.1" in now["error"] and TOKEN not in now["error"]
    down.start()
    try:
        assert until(lambda: all_sent(hooked, campaign, advanced))
        assert len(down.bodies) == 1
    finally:
        down.stop()


def test_a_removed_webhook_is_posted_to_no_more(hooked: TestClient,
                                                receiver: Receiver) -> None:
    campaign = new_campaign(hooked)
    hook(hooked, campaign, receiver.url)
    removed = hooked.delete(f"/campaigns/{campaign['id']}/webhook",
                            headers=auth(campaign["tokens"]["director"]))
    assert removed.status_code == 200 and removed.json()["set"] is False
    ok(hooked, campaign, "director", ADVANCE)
    hook(hooked, campaign, receiver.url)  # set again: what comes after it is posted
    last = ok(hooked, campaign, BRITISH, PUBLIC_ROLL)
    assert until(lambda: all_sent(hooked, campaign, last))
    assert len(receiver.bodies) == 1 and "Sgt.Able" in receiver.texts()[0]


@pytest.mark.parametrize(("url", "words"), [
    ("ftp://chat.example.com/hook", "https only"),
    ("http://chat.example.com/hook", "https only"),
    ("https://10.0.0.7/hook", "private"),
    ("https://169.254.169.254/latest/meta-data", "private"),
    ("https://[fd00::1]/hook", "private"),
    # this machine or a private one written another way: short, in hex, inside IPv6
    ("https://127.1/hook", "private"),
    ("https://0x7f.1/hook", "private"),
    ("https://[::127.0.0.1]/hook", "private"),
    ("https://[::ffff:10.0.0.1]/hook", "private"),
    ("https://[64:ff9b::7f00:1]/hook", "private"),
    ("https://[2002:7f00:1::]/hook", "private"),
    ("https://224.0.0.1/hook", "private"),
    ("https://localhost./hook", "not to this machine"),
    ("https://localhost/hook", "not to this machine"),
    ("http://127.0.0.1:9/hook", "not to this machine"),
    ("https://user:pw@chat.example.com/hook", "no user or password"),
    ("https://chat.example.com/" + "x" * 600, "at most 500"),
    ("", "give the webhook's URL"),
])
def test_a_url_a_webhook_may_not_post_to_is_refused_naming_the_field(
        client: TestClient, url: str, words: str) -> None:
    campaign = new_campaign(client)
    refused = hook(client, campaign, url)
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["field"] == "url" and words in refused.json()["error"][
        "message"]
    assert status(client, campaign) == status(client, campaign) | {"set": False, "url": None}


def test_only_the_director_sets_reads_or_removes_it_and_no_read_shows_the_url(
        hooked: TestClient, receiver: Receiver) -> None:
    campaign = new_campaign(hooked)
    shown = hook(hooked, campaign, receiver.url).json()
    assert shown["url"] == f"http://127.0.0.1:{receiver.port}/api/…" and shown["set"]
    path = f"/campaigns/{campaign['id']}/webhook"
    for token in (campaign["tokens"]["sides"][AXIS], campaign["tokens"]["observer"]):
        for answer in (hooked.put(path, json={"url": receiver.url}, headers=auth(token)),
                       hooked.get(path, headers=auth(token)),
                       hooked.delete(path, headers=auth(token))):
            assert answer.status_code == 403 and TOKEN not in answer.text
    assert hooked.get(path, headers=auth("not-a-token")).status_code == 401
    assert hooked.get(path, headers=auth(ADMIN)).status_code == 401
    ok(hooked, campaign, "director", CREDIT)
    director = auth(campaign["tokens"]["director"])
    for read in ("", "/events", "/export", "/report", "/verify"):
        answer = hooked.get(f"/campaigns/{campaign['id']}{read}", headers=director)
        assert answer.status_code == 200 and TOKEN not in answer.text, read
        assert f"127.0.0.1:{receiver.port}" not in answer.text, read  # nor its host
