"""Verify a history: the hash chain, the secrets' commitments, and every server roll."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from domain.dice import dice_from_seed
from domain.hashing import sha256_hex
from domain.history import first_bad_version


@dataclass(frozen=True)
class VerifyReport:
    """CONTRACT: `{ok, events, rolls_verified, first_bad_version}` plus the head hash."""

    ok: bool
    events: int
    rolls_verified: int
    first_bad_version: int | None
    head_hash: str
    problem: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-able data."""
        return asdict(self)


class _RollWatch:
    """Collects what a roll check needs while the chain is walked (keys and dice only)."""

    def __init__(self) -> None:
        self.commitment: str | None = None
        self.seed: str | None = None
        self.rolls: list[tuple[int, str, list[int]]] = []

    def see(self, record: dict[str, Any]) -> dict[str, Any]:
        data = record["data"]
        if record["type"] == "Created":
            self.commitment = data.get("seed_commitment")
        elif record["type"] == "SeedRevealed":
            self.seed = data["seed"]
        elif record["type"] == "DiceRolled" and "dice" in data and not data["entered_by"]:
            self.rolls.append((record["version"], data["key"], list(data["dice"])))
        return record

    def first_bad_roll(self) -> tuple[int | None, int, str | None]:
        if self.seed is None:
            return None, 0, None
        if sha256_hex(bytes.fromhex(self.seed)) != self.commitment:
            return 1, 0, "the revealed seed does not match the seed commitment"
        seed = bytes.fromhex(self.seed)
        for count, (version, key, dice) in enumerate(self.rolls):
            if dice_from_seed(seed, key, len(dice)) != dice:
                return version, count, f"roll {key} does not match its seed dice"
        return None, len(self.rolls), None


def verify_records(records: Iterable[dict[str, Any]]) -> VerifyReport:
    """Walk the records once; name the first bad version, if any."""
    watch = _RollWatch()
    bad, count, head, problem = first_bad_version(watch.see(r) for r in records)
    if bad is not None:
        return VerifyReport(False, count, 0, bad, head, problem)
    bad_roll, rolls, roll_problem = watch.first_bad_roll()
    return VerifyReport(bad_roll is None, count, rolls, bad_roll, head, roll_problem)
