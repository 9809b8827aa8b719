"""The module data a history pins, checked against the data kept for it: in the store
(`verify` of a campaign) or in an export's tail (`verify` of a file, an import).

A campaign's `Created` names the content hash of the module data it was made with, and
each `ModuleUpgraded` the hash it moved to. Every hash named must have its document kept,
and that document must still hash to it (README, 'Module data pinned per campaign').
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.hashing import data_hash

UNPINNED = ("no module data is pinned in this history (made before pinning): it plays the "
            "data loaded here until its next command pins that")

Lookup = Callable[[str], Any]  # a pinned hash -> its kept document (None: none is kept)


def pin_of(record: dict[str, Any]) -> str | None:
    """The module data hash a record pins, if it pins one."""
    if record.get("type") == "Created":
        return record.get("data", {}).get("module_hash")
    if record.get("type") == "ModuleUpgraded":
        return record.get("data", {}).get("new_hash")
    return None


class PinWatch:
    """The hashes a history pins, each at the first version that names it."""

    def __init__(self) -> None:
        self.pins: dict[str, int] = {}
        self.created = False

    def see(self, record: dict[str, Any]) -> dict[str, Any]:
        """Note the hash a record pins (the record passes through)."""
        if isinstance(record, dict):
            self.created = self.created or record.get("type") == "Created"
            pin = pin_of(record)
            if isinstance(pin, str):
                self.pins.setdefault(pin, record.get("version", 0))
        return record

    @property
    def note(self) -> str | None:
        """What a report says of a history that pins nothing."""
        return UNPINNED if self.created and not self.pins else None

    def problem(self, lookup: Lookup) -> tuple[int, str] | None:
        """The first version whose pinned data is missing or altered, and why."""
        for pin, version in sorted(self.pins.items(), key=lambda item: item[1]):
            where = f"the module data pinned at version {version} ({pin})"
            try:
                doc = lookup(pin)
                found = None if doc is None else data_hash(doc)
            except ValueError as error:  # not JSON, or JSON no canonical form has (NaN)
                return version, f"{where} cannot be read: {error}"
            if doc is None:
                return version, f"{where} is not kept: it is missing"
            if found != pin:
                return version, f"{where} was altered: its content hashes to {found}"
        return None
