"""What an upgrade to new module data says changed: tables and rows named by their id,
values shown when they are small, the list kept short."""

from __future__ import annotations

from domain.rules.diff import MAX_CHANGES, changes


def test_a_rows_changed_value_is_named_by_table_and_row_id_with_before_and_after() -> None:
    before = {"rg_charts": {"Axis": {"rows": [{"id": "I5", "cost": 14}, {"id": "I7", "cost": 12}]}}}
    after = {"rg_charts": {"Axis": {"rows": [{"id": "I7", "cost": 13}, {"id": "I5", "cost": 14}]}}}
    assert changes(before, after) == [{"at": "rg_charts.Axis.rows[I7].cost",
                                       "change": "changed", "before": 12, "after": 13}]


def test_added_and_removed_tables_and_a_band_by_its_place() -> None:
    before = {"tables": [{"id": "3.606", "bands": [{"max": 8, "result": "Escapes"}]},
                         {"id": "T1"}]}
    after = {"tables": [{"id": "3.606", "bands": [{"max": 7, "result": "Escapes"}]},
                        {"id": "3.6181"}]}
    assert changes(before, after) == [
        {"at": "tables[3.606].bands[0].max", "change": "changed", "before": 8, "after": 7},
        {"at": "tables[T1]", "change": "removed", "before": {"id": "T1"}},
        {"at": "tables[3.6181]", "change": "added", "after": {"id": "3.6181"}}]


def test_a_large_value_is_named_but_not_copied_into_the_event() -> None:
    chart = {"rows": [{"id": f"I{n}", "units_full": "3x 4-6-8 " * 5} for n in range(9)]}
    assert changes({"rg_charts": {}}, {"rg_charts": {"British": chart}}) == [
        {"at": "rg_charts.British", "change": "added"}]


def test_the_list_stops_at_its_limit_and_says_how_many_more() -> None:
    found = changes({"a": list(range(MAX_CHANGES + 5))}, {"a": [-1] * (MAX_CHANGES + 5)})
    assert len(found) == MAX_CHANGES + 1 and found[-1] == {"at": "", "change": "more",
                                                          "count": 5}
