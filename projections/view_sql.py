"""What the SQLite and PostgreSQL views share: the row types, the tables' names, the
check that no other writer moved the view on, and reading sealed rows back."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import orjson
from eventsourcing.persistence import IntegrityError, Tracking

from projections.fold import FOLD_VERSION
from projections.rows import META
from projections.sealed import RowUnsealed, Seal, check_row, checkpoint_holds, row_holds

RowKey = tuple[str, str, str]  # campaign, kind, key
RowValue = tuple[int, dict[str, Any] | None]  # order, document (None: the row is gone)
Encoded = list[tuple[str, str, str, int, str | None]]  # campaign, kind, key, order, JSON
Checkpoints = Sequence[tuple[str, int, bytes]]  # campaign, version, packed rows (runner.pack)

TABLE = "refit_projection_rows"
CHECKPOINTS = "refit_checkpoints"  # a campaign's rows as of a version, for `as_of` reads
ANY = -1  # `after` for a writer that is the view's only writer (eventsourcing's runner)
FOLD_TABLE = "refit_view_fold"  # the version of the fold that made the view's rows
FOLDED_LOG = "refit"  # the log the view tracks: CampaignLog.name (projections/runner.py)


def outdated(found: int | None, has_rows: bool) -> bool:
    """Whether the view's rows were made by another fold than this one: a view with rows
    and no version was folded before versions were kept."""
    return found != FOLD_VERSION and (found is not None or has_rows)


class ViewMovedOn(IntegrityError):
    """Another writer moved the view on since this batch was read: fold it again."""


def check_after(found: int | None, after: int | None, tracking: Tracking) -> None:
    """Refuse a batch folded from rows that another writer has changed since it read them."""
    if after != ANY and (found or 0) != (after or 0):
        raise ViewMovedOn(f"view of {tracking.application_name} is at {found}, not {after}")


def dump_doc(doc: dict[str, Any]) -> str:
    """A document as compact JSON: orjson's bytes are json.dumps's compact text for the
    fold's documents (str keys, no floats) at a fraction of the time; json for others."""
    try:
        return orjson.dumps(doc).decode()
    except TypeError:  # a key that is not a str, an int past 64 bits: json writes them
        return json.dumps(doc, separators=(",", ":"), ensure_ascii=False,
                          check_circular=False)


def encode(rows: dict[RowKey, RowValue]) -> Encoded:
    """Rows as the view stores them: the documents as compact JSON (None: delete it)."""
    return [(c, k, key, order, None if doc is None else dump_doc(doc))
            for (c, k, key), (order, doc) in rows.items()]


def split(rows: Encoded) -> tuple[Encoded, list[tuple[str, str, str]]]:
    """The rows to write, and the keys of those to delete (an undo's, see fold_undone)."""
    if all(row[4] is not None for row in rows):
        return rows, []
    return ([row for row in rows if row[4] is not None],
            [row[:3] for row in rows if row[4] is None])


def sealed_row(seal: Seal | None, campaign: str, kind: str, key: str,
               row: Any) -> RowValue | None:
    """A row read as (ord, doc, mac): its order and document (RowUnsealed if its seal
    fails)."""
    if row is None:
        return None
    check_row(seal, campaign, kind, key, row["ord"], row["doc"], row["mac"])
    return row["ord"], json.loads(row["doc"])


def checked_docs(seal: Seal | None, campaign: str, kind: str,
                 rows: Any) -> list[dict[str, Any]]:
    """The documents of a campaign's rows of a kind (key, ord, doc, mac), each seal
    checked (RowUnsealed if one fails)."""
    for row in rows:
        check_row(seal, campaign, kind, row["key"], row["ord"], row["doc"], row["mac"])
    return [json.loads(row["doc"]) for row in rows]


def at_head(seal: Seal | None, campaign: str, found: Any
            ) -> tuple[int | None, list[dict[str, Any]]]:
    """`select_meta_at_head`'s answer from its rows (head, key, ord, doc, mac): one row
    with no key where the campaign has no meta row yet."""
    head = found[0]["head"] if found else None
    return head, checked_docs(seal, campaign, META, [r for r in found if r["key"] is not None])


def latest_sealed(seal: Seal | None, campaign: str, at_most: int,
                  latest: Callable[[str, int], Any]) -> tuple[int, bytes] | None:
    """The latest checkpoint at or before a version whose seal holds (`latest` reads the
    latest at or before a version, whatever its seal)."""
    while (row := latest(campaign, at_most)) is not None:
        version, doc = row["version"], bytes(row["doc"])
        if checkpoint_holds(seal, campaign, version, doc, row["mac"]):
            return version, doc
        at_most = version - 1
    return None


def at_version(seal: Seal | None, campaign: str, meta: Any, version: int) -> bool:
    """Whether a campaign's meta row (ord, doc, mac) is sealed and names `version`."""
    return meta is not None and row_holds(seal, campaign, META, "", meta["ord"], meta["doc"],
                                          meta["mac"]) \
        and json.loads(meta["doc"]).get("version") == version


def sealed_docs(seal: Seal | None, kind: str, rows: Any,
                unsealed: list[str] | None) -> list[dict[str, Any]]:
    """The documents of rows (campaign, key, ord, doc, mac) whose seal holds; the
    campaigns of the others are noted in `unsealed` (or RowUnsealed if not asked)."""
    docs = []
    for campaign, key, order, doc, mac in (tuple(row) for row in rows):
        try:
            check_row(seal, campaign, kind, key, order, doc, mac)
        except RowUnsealed:
            if unsealed is None:
                raise
            unsealed.append(campaign)
            continue
        docs.append(json.loads(doc))
    return docs


def campaign_rows(seal: Seal | None, campaign: str,
                  rows: Any) -> list[tuple[str, str, int, str]]:
    """A campaign's rows (kind, key, ord, doc, mac), each seal checked when `seal`."""
    found = []
    for kind, key, order, doc, mac in (tuple(row) for row in rows):
        check_row(seal, campaign, kind, key, order, doc, mac)
        found.append((kind, key, order, doc))
    return found


def metas_found(seal: Seal | None, campaigns: list[str],
                rows: Any) -> dict[str, tuple[int, str] | None]:
    """Each campaign's meta row (campaign, ord, doc, mac) as (order, JSON), None if it has
    none; a campaign whose meta row's seal fails is left out (its read says so)."""
    found: dict[str, tuple[int, str] | None] = dict.fromkeys(campaigns)
    for campaign, order, doc, mac in (tuple(row) for row in rows):
        if row_holds(seal, campaign, META, "", order, doc, mac):
            found[campaign] = order, doc
        else:
            del found[campaign]
    return found
