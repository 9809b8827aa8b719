"""Server dice follow CONTRACT 'Dice' to the byte; entered dice are checked."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from domain.dice import check_entered, dice_from_seed, ordinal_key, subject_key
from domain.errors import InvalidCommand

SEED = bytes(range(32))


def contract_dice(seed: bytes, key: str, count: int) -> list[int]:
    """The contract read literally: bytes in order, b < 252 gives b % 6 + 1."""
    out = []
    for byte in hmac.new(seed, key.encode(), hashlib.sha256).digest():
        if byte < 252:
            out.append(byte % 6 + 1)
        if len(out) == count:
            return out
    raise AssertionError("digest exhausted")


def test_dice_are_read_from_hmac_sha256_of_seed_and_key() -> None:
    for line in range(1, 200):
        key = subject_key("18AM", "9.6181", "British", f"rg:{line}", 0)
        assert dice_from_seed(SEED, key, 2) == contract_dice(SEED, key, 2)


def test_a_byte_of_252_or_more_is_skipped() -> None:
    for ordinal in range(5000):
        key = f"k/{ordinal}"
        digest = hmac.new(SEED, key.encode(), hashlib.sha256).digest()
        if digest[0] >= 252:
            first_kept = next(b for b in digest if b < 252)
            assert dice_from_seed(SEED, key, 1) == [first_kept % 6 + 1]
            return
    pytest.fail("no key with a leading byte >= 252 in 5000 tries")


def test_the_same_key_always_gives_the_same_dice() -> None:
    key = subject_key("19PM", "9.6181", "German", "rg:3", 0)
    assert dice_from_seed(SEED, key, 2) == dice_from_seed(SEED, key, 2)


def test_a_raised_reroll_epoch_is_a_different_key() -> None:
    keys = {subject_key("19PM", "9.6181", "German", "rg:1", epoch) for epoch in range(3)}
    assert len(keys) == 3


def test_a_roll_key_names_date_table_side_subject_and_epoch() -> None:
    assert subject_key("18AM", "3.6182", "British", "rg:2/sw:3", 0) == \
        "18AM/3.6182/British/rg:2/sw:3/0"


def test_a_key_made_before_subjects_named_the_step_and_an_ordinal() -> None:
    assert ordinal_key("18AM", "9.610", "9.6101", "British", 2, 0) == \
        "18AM/9.610/9.6101/British/2/0"


@pytest.mark.parametrize("dice,kind", [([7], "dr"), ([0], "dr"), ([3], "DR"), ([1, 2], "dr"),
                                       (None, "DR")])
def test_entered_dice_must_be_the_right_count_of_1_to_6(dice: list[int] | None,
                                                          kind: str) -> None:
    with pytest.raises(InvalidCommand) as refused:
        check_entered(dice, kind)
    assert refused.value.field == "dice"


def test_entered_dr_keeps_coloured_then_white_die() -> None:
    assert check_entered([6, 1], "DR") == [6, 1]
