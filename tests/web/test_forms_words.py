"""The forms diff in the paper's words: a purchase's mode (3.6175) reads as the history
report says it ('on map', 'in reserve'), never as the API's value (`on_map`)."""

from __future__ import annotations

from api.web.forms_view import changes
from projections.diff import Change

LINE = {"side": "Axis", "cg_date": "14N", "rg": "I7", "cost": 15, "mode": "on_map",
        "purchase": 4}


def said(change: Change) -> dict[str, str]:
    """The one change as the diff page words it."""
    (group,) = changes([change])
    (line,) = group["lines"]
    return dict(line)


def test_a_line_bought_on_map_reads_on_map_in_words() -> None:
    line = said(Change(form="purchase_record", line="#4", after=LINE, change="added"))
    assert "Mode on map" in line["after"] and "on_map" not in line["after"]


def test_a_mode_changed_reads_in_words_before_and_after() -> None:
    line = said(Change(form="purchase_record", line="#4", field="mode", before="reserve",
                       after="on_map", change="changed"))
    assert (line["what"], line["before"], line["after"]) == ("Mode", "in reserve", "on map")
