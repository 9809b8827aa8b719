"""The caches checked against the events (`verify`): every stored snapshot of a campaign
against its state rebuilt from the events, and its view rows and as-of checkpoints against
its history folded afresh (each difference named; none is an event version); and each
undo's stored state, a cache inside an event, against the campaign at its target."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, cast
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from domain.campaign import Campaign, CampaignEvent
from domain.campaign.audit import Undone, restorable
from domain.campaign.dice import DiceRolled
from infra.seal import SealedSnapshots, older, split_state
from infra.store import CampaignStore
from infra.views import Views
from projections.runner import MemoryRows, fold_onto

Rows = dict[tuple[str, str], tuple[int, Any]]


def snapshot_problems(store: CampaignStore, campaign_id: UUID) -> list[str]:
    """Each stored snapshot that differs from the campaign rebuilt from its events, named
    with the first field that differs (e.g. the director token hash). One an older Refit
    took (another class_version) is left unchecked: the store passes it over."""
    snapshots = cast(SealedSnapshots, store.snapshots)
    kept = {s.originator_version: s for s in snapshots.stored(campaign_id)
            if not older(split_state(s.state)[1])}
    problems: list[str] = []
    campaign: Campaign | None = None
    for event in store.events.get(campaign_id, lte=max(kept, default=0)):
        campaign = cast(CampaignEvent, event).mutate(campaign)
        stored = kept.pop(event.originator_version, None)
        if stored is not None and campaign is not None:
            problems += _snapshot_differs(store, campaign, stored)
    problems += [f"snapshot at version {v} is beyond the events" for v in sorted(kept)]
    return problems


def undo_problems(store: CampaignStore, campaign_id: UUID) -> list[tuple[int, str]]:
    """Each undo whose stored state (outside its hashed record: what a replay restores) is
    not the campaign as the events give it at the undo's target, or whose dice kept for a
    redo are not those its undone rolls showed: (its version, where it differs). An undo
    whose state an older Refit took (another class_version) is left unchecked."""
    problems: list[tuple[int, str]] = []
    rolled: list[tuple[int, str, list[int]]] = []  # version, key, dice of every roll
    for event in store.events.get(campaign_id):
        if isinstance(event, DiceRolled):
            rolled.append((event.originator_version, event.key, list(event.dice)))
        elif isinstance(event, Undone):
            where = _undo_differs(store, campaign_id, event, rolled)
            if where is not None:
                problems.append((event.originator_version, where))
    return problems


def _undo_differs(store: CampaignStore, campaign_id: UUID, undo: Undone,
                  rolled: list[tuple[int, str, list[int]]]) -> str | None:
    target = undo.to_version
    dice = {key: shown for version, key, shown in rolled if version > target}
    if dice != undo.redo_dice:
        return "redo_dice"
    if undo.state_version != Campaign.class_version:
        return None  # taken by an older Refit, which may have kept its state otherwise
    state = undo.state
    before = restorable(store.campaign(campaign_id, version=target).__dict__)
    encode = store.mapper.transcoder.encode
    return first_difference(json.loads(encode(state)), json.loads(encode(before)))


def _snapshot_differs(store: CampaignStore, campaign: Campaign,
                      stored: StoredEvent) -> list[str]:
    version = stored.originator_version
    fresh = _state(store, campaign)
    try:
        kept = store.mapper.to_domain_event(replace(stored, state=split_state(stored.state)[1]))
        found = _state(store, cast(Campaign, cast(Any, kept).mutate(None)))
    except Exception as error:  # any damage at all is the finding
        return [f"snapshot at version {version} cannot be read: {error}"]
    where = first_difference(found, fresh)
    if where is None:
        return []
    return [f"snapshot at version {version} differs from the events ({_named(where)})"]


def _state(store: CampaignStore, campaign: Campaign) -> Any:
    """A campaign's state as a snapshot stores it (JSON), without the snapshot's time."""
    stored = store.mapper.to_stored_event(Campaign.Snapshot.take(campaign))
    return json.loads(stored.state)["state"]


def first_difference(found: Any, expected: Any, path: str = "") -> str | None:
    """The path of the first value that differs between two JSON documents, or None."""
    if isinstance(found, dict) and isinstance(expected, dict):
        for key in sorted(set(found) | set(expected), key=str):
            if key not in found or key not in expected:
                return f"{path}.{key}".lstrip(".")
            where = first_difference(found[key], expected[key], f"{path}.{key}")
            if where is not None:
                return where
        return None
    if isinstance(found, list) and isinstance(expected, list) and len(found) == len(expected):
        return next((where for i, (a, b) in enumerate(zip(found, expected, strict=True))
                     if (where := first_difference(a, b, f"{path}[{i}]")) is not None), None)
    return None if found == expected else path.lstrip(".") or "the whole state"


def _named(path: str) -> str:
    """A state path as a reader says it: a role's token hash by its role."""
    parts = [p for p in path.replace("_data_.", "").split(".") if p != "_data_"]
    if parts[:2] == ["access", "token_hashes"] and len(parts) > 2:
        return f"{parts[2]} token hash"
    return ".".join(parts)


def view_problems(store: CampaignStore, views: Views, campaign_id: UUID) -> list[str]:
    """Each view row, and each as-of checkpoint, that differs from the history folded
    afresh: `roster view row 14AM differs from the events`."""
    views.up_to_date()
    campaign = str(campaign_id)
    history = list(store.records(campaign_id))
    stored: Rows = {(kind, key): (order, json.loads(doc))
                    for kind, key, order, doc in views.view.select_campaign(campaign, False)}
    fold = _Folding(history)
    problems = []
    for version, data in views.view.select_checkpoints(campaign):  # oldest first
        expected = fold.to(version)
        try:
            kept: Rows = MemoryRows.load(data).rows
        except Exception as error:  # any damage at all is the finding
            problems.append(f"view checkpoint at version {version} cannot be read: {error}")
            continue
        problems += [f"{p} (checkpoint at version {version})" for p in
                     _rows_differ(kept, expected, "view row")]
    return _rows_differ(stored, fold.to(len(history)), "view row") + problems


class _Folding:
    """The history folded forward, one point after another (from the start again only
    where an undo turns back before the last point)."""

    def __init__(self, history: list[dict[str, Any]]) -> None:
        self.history, self.rows, self.at = history, MemoryRows(), 0

    def to(self, version: int) -> Rows:
        """The rows as of `version` (not before the last one asked for)."""
        rows = fold_onto(self.rows, self.at, self.history[self.at:version])
        if rows is None:
            rows = fold_onto(MemoryRows(), 0, self.history[:version])
        assert rows is not None  # from the start, every undo's target is in the history
        self.rows, self.at = rows, version
        return {key: value for key, value in rows.rows.items() if value[1] is not None}


def _rows_differ(stored: Rows, expected: Rows, what: str) -> list[str]:
    problems = []
    for kind, key in sorted(set(stored) | set(expected)):
        name = f"{kind} {what} {key or '(the campaign)'}"
        if (kind, key) not in expected:
            problems.append(f"{name} is not in the events")
        elif (kind, key) not in stored:
            problems.append(f"{name} is missing")
        elif stored[(kind, key)] != expected[(kind, key)]:
            where = first_difference(stored[(kind, key)][1], expected[(kind, key)][1])
            problems.append(f"{name} differs from the events ({where or 'its order'})")
    return problems
