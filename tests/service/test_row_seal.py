"""The view's rows are sealed in a batch (`CacheSeal.row_macs`) exactly as one row is
checked when read (`mac("row", ...)`): a row the service wrote is never taken for edited."""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from infra.seal import CacheSeal
from infra.settings import Settings
from projections.sealed import row_holds, sealed_rows

text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40)
row = st.tuples(text, text, text, st.integers(-2**40, 2**40), text)


@hsettings(max_examples=300, deadline=None)
@given(rows=st.lists(row, max_size=12))
def test_each_row_of_a_batch_is_sealed_as_it_is_checked(rows: list, tmp_path_factory) -> None:
    seal = CacheSeal(Settings(database_url="sqlite:///:memory:",
                              signing_key_file=tmp_path_factory.mktemp("k") / "key"))

    macs = seal.row_macs(rows)

    assert macs == [seal.mac("row", *r) for r in rows]
    assert all(row_holds(seal, *r, mac) for r, mac in zip(rows, macs, strict=True))


def test_a_row_sealed_for_one_campaign_fails_for_another(tmp_path) -> None:
    seal = CacheSeal(Settings(database_url="sqlite:///:memory:",
                              signing_key_file=tmp_path / "key"))
    mac = seal.row_macs([("c1", "rolls", "7", 7, '{"dr": 3}')])[0]

    assert not row_holds(seal, "c2", "rolls", "7", 7, '{"dr": 3}', mac)
    assert not row_holds(seal, "c1", "rolls", "7", 7, '{"dr": 4}', mac)
    # The framing keeps parts apart: moving a character from the kind to the key fails.
    assert not row_holds(seal, "c1", "roll", "s7", 7, '{"dr": 3}', mac)


def test_a_deleted_row_is_written_without_a_mac(tmp_path) -> None:
    seal = CacheSeal(Settings(database_url="sqlite:///:memory:",
                              signing_key_file=tmp_path / "key"))
    written = sealed_rows(seal, [("c1", "rolls", "7", 7, None), ("c1", "rolls", "8", 8, "{}")])

    assert written[0][5] is None
    assert written[1][5] == seal.mac("row", "c1", "rolls", "8", 8, "{}")
    assert sealed_rows(None, [("c1", "rolls", "8", 8, "{}")])[0][5] is None
