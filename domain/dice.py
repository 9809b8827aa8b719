"""Dice: provably fair server dice (CONTRACT 'Dice') and entered physical dice."""

from __future__ import annotations

import hashlib
import hmac
from typing import Literal

from domain.errors import InvalidCommand

RollKind = Literal["dr", "DR"]
DICE_PER_KIND: dict[str, int] = {"dr": 1, "DR": 2}


def dice_from_seed(seed: bytes, key: str, count: int) -> list[int]:
    """Read `count` dice from HMAC-SHA256(seed, key): a byte b < 252 gives b % 6 + 1."""
    digest = hmac.new(seed, key.encode("utf-8"), hashlib.sha256).digest()
    dice = [b % 6 + 1 for b in digest if b < 252][:count]
    if len(dice) < count:  # pragma: no cover - needs 31 of 32 bytes >= 252
        raise InvalidCommand(f"roll key {key!r} gives too few dice; re-roll epoch needed")
    return dice


def effective_seed(seed: bytes, shares: list[bytes]) -> bytes:
    """The seed the dice are read from: E = HMAC-SHA256(S, share_1 || share_2 ...) over the
    sides' shares in the module's side order, or S itself when no side gave one."""
    if not shares:
        return seed
    return hmac.new(seed, b"".join(shares), hashlib.sha256).digest()


def ordered_shares(shares: dict[str, str], sides: list[str]) -> list[bytes]:
    """The shares' raw bytes in the module's side order (a side that gave none left out)."""
    return [bytes.fromhex(shares[side]) for side in sides if side in shares]


def subject_key(cg_date: str, table: str, side: str, subject: str, epoch: int) -> str:
    """A roll's key, fixed by what is rolled for: CG Date, table, side, subject and the
    re-roll epoch (CONTRACT 'Dice'), never by the order of asking."""
    return f"{cg_date}/{table}/{side}/{subject}/{epoch}"


def ordinal_key(cg_date: str, step: str, table: str, side: str, ordinal: int,
                epoch: int) -> str:
    """The key campaigns made before subjects counted rolls in a step by ordinal: still
    verified as stored, never made any more."""
    return f"{cg_date}/{step}/{table}/{side}/{ordinal}/{epoch}"


def check_entered(dice: list[int] | None, kind: str) -> list[int]:
    """Validate physical dice typed in: the right count, each 1-6."""
    count = DICE_PER_KIND[kind]
    if dice is None or len(dice) != count:
        what = "one die (dr)" if count == 1 else "two dice (DR: coloured, then white)"
        raise InvalidCommand(f"entered mode needs {what}", field="dice")
    for die in dice:
        if not 1 <= die <= 6:
            raise InvalidCommand(f"a die shows 1-6, not {die}", field="dice")
    return list(dice)
