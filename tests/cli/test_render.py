"""Terminal tables read like the paper forms."""

from __future__ import annotations

from api.render import dice_text, format_table


def test_a_dr_shows_its_die_and_a_dr_keeps_coloured_and_white_apart() -> None:
    assert dice_text([4]) == "4"
    assert dice_text([6, 1]) == "6c+1w"


def test_columns_are_padded_to_their_widest_cell() -> None:
    table = format_table(["CG Date", "side"], [["18AM", "British"], ["18PM", None]])
    assert table.splitlines() == ["CG Date  side", "-------  -------", "18AM     British",
                                  "18PM"]
