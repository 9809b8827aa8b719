"""The web client as a browser uses it: the service on a real port, a campaign at the RePh
step where both sides roll in secret, a login by join link, pages read as text."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from tests.helpers.http import auth, new_campaign, send

AXIS, BRITISH = "Axis", "British"


def secret_step(client: Any) -> dict[str, Any]:
    """PBr 14AM at 3.618: the Axis bought an I5 and an I7 (lines 1, 2), the British an I2
    (line 3), each in secret with its own token; each side's RG strength DR (3.6181,
    secret) is due."""
    campaign = new_campaign(client)
    tokens = campaign["tokens"]
    director, sides = tokens["director"], tokens["sides"]
    sent = [(director, {"type": "credit_cpp", "side": AXIS, "amount": 39, "reason": "3.6161"}),
            (director, {"type": "credit_cpp", "side": BRITISH, "amount": 17,
                        "reason": "3.6161"})]
    sent += [(sides[side], {"type": "purchase_rg", "side": side, "rg": rg})
             for side, rg in ((AXIS, "I5"), (AXIS, "I7"), (BRITISH, "I2"))]
    for token, body in [*sent, (director, {"type": "advance"})]:
        answer = send(client, campaign, token, body)
        assert answer.status_code == 200, answer.text
    return campaign



def secret_roll(client: Any) -> dict[str, Any]:
    """`secret_step`, and the Axis's secret DR for RG line 1 rolled: its version under
    `rolled`, its command's answer under `answer`."""
    made = secret_step(client)
    body = {"type": "roll", "table": "3.6181", "side": AXIS, "subject": "rg:1"}
    answer = send(client, made, made["tokens"]["sides"][AXIS], body)
    assert answer.status_code == 200, answer.text
    rolls = client.get(f"/campaigns/{made['id']}/rolls",
                       headers=auth(made["tokens"]["director"])).json()
    return made | {"rolled": rolls[-1]["version"], "answer": answer.json()}

def strength_rolled(client: Any) -> dict[str, Any]:
    """The secret step's campaign after the Axis rolled its secret strength DR for RG line
    1 (3.6181): its F/D, units and SW are set."""
    made = secret_step(client)
    body = {"type": "roll", "table": "3.6181", "side": AXIS, "subject": "rg:1"}
    answer = send(client, made, made["tokens"]["sides"][AXIS], body)
    assert answer.status_code == 200, answer.text
    return made


def join_link(base: str, campaign: dict[str, Any], token: str) -> str:
    """A join link: the campaign and the token in the URL's fragment."""
    return f"{base}/join#campaign={campaign['id']}&token={token}"


def csrf_of(html: str) -> str:
    """The CSRF token a page's forms carry."""
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None, "the page has no form with a CSRF token"
    return found.group(1)


def text_of(html: str) -> str:
    """A page's HTML without its tags: what a person reads (and attribute values)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def inputs_of(html: str, form_class: str) -> dict[str, dict[str, str | None]]:
    """The inputs of the page's first form of that class: each one's attributes, by name,
    as a browser reads them (entities decoded)."""
    class Inputs(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.inside, self.done = False, False
            self.inputs: dict[str, dict[str, str | None]] = {}

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            named = dict(attrs)
            if tag == "form" and not self.done:
                self.inside = form_class in (named.get("class") or "").split()
            elif tag == "input" and self.inside and named.get("name"):
                self.inputs[str(named["name"])] = named

        def handle_endtag(self, tag: str) -> None:
            if tag == "form" and self.inside:
                self.inside, self.done = False, True

    parser = Inputs()
    parser.feed(html)
    assert parser.inputs, f"the page has no form of class {form_class!r} with inputs"
    return parser.inputs
