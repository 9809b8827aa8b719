"""Checking a history against what a player kept (docs/audit.md, 'Receipts'): receipts
taken from command answers, and the signed checkpoint an export's tail carries. The
history is a campaign's stored events or an export file's lines, as leaf hashes."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from uuid import UUID

from domain import merkle
from domain.checkpoint import CheckpointInvalid, verify_checkpoint
from domain.merkle_log import MerkleLog
from domain.receipt import ReceiptInvalid, check_receipt, history_problem
from infra.store import CampaignStore

FROM_RECEIPT = ("the key came from the receipt itself: this proves nothing until it is "
                "compared with the service's published key (GET /keys)")


def stored_leaves(store: CampaignStore, campaign_id: UUID) -> list[bytes]:
    """The leaf hashes of a campaign's stored events, up to the first unreadable one."""
    damaged: list[tuple[int, str]] = []
    return [merkle.leaf_hash(merkle.event_leaf(r)) for r in store.readable(campaign_id, damaged)]


def export_leaves(lines: Iterable[dict[str, Any]]) -> tuple[list[bytes], dict[str, Any]]:
    """An export's event leaf hashes, and its tail line ({} when it has none)."""
    leaves, tail = [], {}
    for line in lines:
        if "version" in line and isinstance(line.get("data"), dict):
            leaves.append(merkle.leaf_hash(merkle.event_leaf(line)))
        elif "head_hash" in line and "events" in line:
            tail = line
    return leaves, tail


def load_receipt(path: Path) -> Any:
    """A receipt file's JSON (a receipt, or a command's answer holding one)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ReceiptInvalid(f"{path} is not a JSON file: {error}") from None


def receipt_finding(receipt: Any, key: str | None, leaves: list[bytes] | None,
                    name: str = "receipt") -> dict[str, Any]:
    """What a receipt proves, offline, and (given a history's leaves) whether that history
    still holds it: {receipt, ok, version, problem, tree_size, versions, key, note}."""
    found: dict[str, Any] = {"receipt": name, "ok": False, "version": None, "problem": None,
                             "tree_size": None, "versions": [], "key": key, "note": None}
    try:
        checked = check_receipt(receipt, key)
    except ReceiptInvalid as error:
        return found | {"problem": f"the receipt does not check: {error}"}
    found |= {"tree_size": checked.tree_size, "versions": checked.versions, "key": checked.key,
              "note": FROM_RECEIPT if checked.key_from_receipt else None}
    problem = None if leaves is None else history_problem(receipt, checked, leaves)
    if problem is not None:
        return found | {"version": problem[0], "problem": problem[1]}
    return found | {"ok": True}


def export_checkpoint_finding(leaves: list[bytes], tail: dict[str, Any],
                              key: str) -> dict[str, Any]:
    """Whether an export's events have the Merkle root its tail's checkpoint signs, the
    signature checked with `key`: {ok, problem}."""
    note = tail.get("checkpoint")
    if not isinstance(note, str):
        return {"ok": False, "problem": "the export carries no signed checkpoint (made "
                                        "before exports were signed, or it was removed)"}
    try:
        point = verify_checkpoint(note, key)
    except CheckpointInvalid as error:
        return {"ok": False, "problem": f"the export's checkpoint does not check: {error}"}
    if point.size != len(leaves):
        return {"ok": False, "problem": f"the export holds {len(leaves)} events, its signed "
                                        f"checkpoint {point.size}"}
    if MerkleLog(leaves).root(point.size) != point.root:
        return {"ok": False, "problem": f"the Merkle root of the export's {point.size} events "
                                        "does not match the signed checkpoint: an event "
                                        "was altered and the chain re-made"}
    return {"ok": True, "problem": None}
