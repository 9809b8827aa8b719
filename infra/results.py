"""What the service's use cases answer, shared by the HTTP service and the command line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CommandResult:
    """What a command appended: the new version, head hash and event records."""

    version: int
    head_hash: str
    events: list[dict[str, Any]]
    ended: bool = False  # the CG has ended: every secret is open
    actor: str = ""  # who the command ran as (its role, when authorized)
    receipt: dict[str, Any] | None = None  # its proof in the signed log (CONTRACT 'Proofs')


@dataclass(frozen=True)
class Tokens:
    """A campaign's role tokens, shown once at creation."""

    director: str
    observer: str
    sides: dict[str, str]

    def by_role(self) -> dict[str, str]:
        """Role name -> token (a side's role is its name)."""
        return {"director": self.director, "observer": self.observer} | self.sides


@dataclass(frozen=True)
class Imported:
    """What an import rebuilt."""

    id: str
    events: int
    head_hash: str
    rolls_verified: int
    seed: bool  # whether the private seed came with it (server rolls can go on)
