"""The latest rolls under the guide say which rolls a ruling voided or corrected: a player
reading the page never takes a voided roll's result, or a corrected one's, for the one
that stands (the audit page has each ruling in full)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from tests.helpers.web import AXIS, BRITISH, text_of
from tests.web.test_bombardment_page import bombardment_at_3_623
from tests.web.test_director_tools import get, log_in


def row_of(page: str, version: int) -> str:
    """The latest rolls' row of the roll at `version`, its cells' text."""
    found = re.search(rf'<tr data-version="{version}"[^>]*>.*?</tr>', page, re.S)
    assert found is not None, f"no row for roll {version}"
    return found.group(0)


def test_a_voided_roll_and_a_corrected_one_are_marked_on_both_sides_pages(
        client: TestClient) -> None:
    table = bombardment_at_3_623(client)  # the British Dual Attack dr made on the way
    ident = table.campaign["id"]
    rolls = [r for r in table.read("director", "/rolls").json() if r["side"] == BRITISH]
    voided, corrected = rolls[-1], rolls[-2]
    rulings = f"/campaigns/{ident}/rulings"
    director = {"Authorization": f"Bearer {table.tokens['director']}"}
    for body in ({"key": voided["key"], "verdict": "corrected", "reason": "rolled twice",
                  "corrections": [{"kind": "void_roll", "reason": "rolled twice"}]},
                 {"key": corrected["key"], "verdict": "corrected", "final": 5,
                  "result": "Axis moves first", "reason": "the chart says 5"}):
        answer = client.post(rulings, headers=director, json=body)
        assert answer.status_code == 200, answer.text
    for role in (AXIS, BRITISH):
        log_in(client, table.tokens[role])
        page = get(client, f"/play/{ident}")
        row = row_of(page, voided["version"])
        assert 'class="voided"' in row and "voided by the ruling at version" in text_of(row)
        assert f"<s>{voided['result']}</s>" in row  # the rolled result, struck through
        row = text_of(row_of(page, corrected["version"]))
        assert "ruled Final 5: Axis moves first" in row, row
        assert f"rolled: {corrected['result']}" in row
