"""KGP's own rule data (8.2, 8.4 CG SSR): Map Groups and LVP, Objective Hexes, PF,
Fanaticism and the Massacre record."""

from __future__ import annotations

from domain.rules import Strict


class ObjectiveRule(Strict):
    """KGP 8.6198: each "I"/"HW" RG lets its side secretly designate an Objective Hex,
    revealed once Infantry of that side Control it."""

    prefixes: list[str]
    rule: str


class PFRule(Strict):
    """KGP CG13: a side's PF, 1½ per non-Reserve squad set up on map, +1½ per squad released
    or entering (kept in halves)."""

    side: str
    halves_per_squad: int = 3
    rule: str


class FanaticismRule(Strict):
    """KGP CG14: a side may declare all its Personnel Fanatic for so many scenarios per CG."""

    side: str
    per_cg: dict[str, int]
    rule: str


def pf_text(halves: int) -> str:
    """PF kept in halves, as the PF Usage Track shows them: 15 -> "7½"."""
    return f"{halves // 2}{'½' if halves % 2 else ''}"
