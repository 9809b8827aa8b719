"""View rows and checkpoints sealed: each is stored with a MAC under a key that is not in
the database (infra gives the view its seal), so a row edited behind the service's back
is found when it is read, and never folded on or answered."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

log = logging.getLogger(__name__)


class Seal(Protocol):
    """What a view needs of infra's seal (infra/seal.py)."""

    def mac(self, *parts: bytes | str | int) -> str:
        """The MAC of the parts."""

    def holds(self, mac: str | None, *parts: bytes | str | int) -> bool:
        """Whether `mac` is the MAC of the parts."""

    def row_macs(self, rows: Sequence[tuple[str, str, str, int, str]]) -> list[str]:
        """`mac("row", *row)` of each (campaign, kind, key, order, doc)."""


class RowUnsealed(Exception):
    """A view row whose MAC fails: edited behind the service's back (or by another key)."""

    def __init__(self, campaign: str, kind: str, key: str) -> None:
        super().__init__(f"the {kind} view row {key!r} of campaign {campaign} is not sealed "
                         "by this service")
        self.campaign, self.kind, self.key = campaign, kind, key


def row_mac(seal: Seal | None, campaign: str, kind: str, key: str, order: int,
            doc: str) -> str | None:
    """A row's MAC (None for a view that has no seal)."""
    return None if seal is None else seal.mac("row", campaign, kind, key, order, doc)


def row_holds(seal: Seal | None, campaign: str, kind: str, key: str, order: int, doc: str,
              mac: str | None) -> bool:
    """Whether a row's MAC holds (a view without a seal trusts every row)."""
    return seal is None or seal.holds(mac, "row", campaign, kind, key, order, doc)


def check_row(seal: Seal | None, campaign: str, kind: str, key: str, order: int, doc: str,
              mac: str | None) -> None:
    """Refuse a row whose MAC fails."""
    if not row_holds(seal, campaign, kind, key, order, doc, mac):
        log.warning("view row %s %r of campaign %s is not sealed by this service: the "
                    "answer comes from the events", kind, key, campaign)
        raise RowUnsealed(campaign, kind, key)


def sealed_rows(seal: Seal | None, rows: list[tuple[str, str, str, int, str | None]]
                ) -> list[tuple[str, str, str, int, str | None, str | None]]:
    """Rows to write, each with its MAC (a deleted row, its document None, has none)."""
    if seal is None:
        return [(*row, None) for row in rows]
    macs = iter(seal.row_macs([(c, kind, key, order, doc)
                               for c, kind, key, order, doc in rows if doc is not None]))
    return [(*row, None if row[4] is None else next(macs)) for row in rows]


def checkpoint_mac(seal: Seal | None, campaign: str, version: int, doc: bytes) -> str | None:
    """A checkpoint's MAC (None for a view that has no seal)."""
    return None if seal is None else seal.mac("checkpoint", campaign, version, doc)


def checkpoint_holds(seal: Seal | None, campaign: str, version: int, doc: bytes,
                     mac: str | None) -> bool:
    """Whether a checkpoint's MAC holds (a view without a seal trusts every one)."""
    if seal is None or seal.holds(mac, "checkpoint", campaign, version, doc):
        return True
    log.warning("view checkpoint of campaign %s at version %s is not sealed by this "
                "service: passed over", campaign, version)
    return False


def row_macs(seal: Seal | None, rows: list[Any]) -> list[tuple[str | None, str, str, str]]:
    """(MAC, campaign, kind, key) of rows read as (campaign, kind, key, ord, doc)."""
    return [(row_mac(seal, *_columns(row, "campaign", "kind", "key", "ord", "doc")),
             *_columns(row, "campaign", "kind", "key")) for row in rows]


def checkpoint_macs(seal: Seal | None, rows: list[Any]) -> list[tuple[str | None, str, int]]:
    """(MAC, campaign, version) of checkpoints read as (campaign, version, doc)."""
    return [(checkpoint_mac(seal, row["campaign"], row["version"], bytes(row["doc"])),
             row["campaign"], row["version"]) for row in rows]


def _columns(row: Any, *names: str) -> tuple[Any, ...]:
    return tuple(row[name] for name in names)
