"""Export and import (issue 6): a campaign's history as JSON lines, and a campaign rebuilt
from one, verified first, so that export -> import -> export gives the same bytes."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from itertools import chain
from typing import Any, cast
from uuid import UUID

import orjson
from eventsourcing.utils import get_topic

from domain.campaign import EVENTS, Campaign, CampaignEvent
from domain.campaign.audit import undo_state
from domain.cosigned import CosignWatch, verify_cosigned_export
from domain.errors import CampaignExists, CampaignNotFound, ImportRefused
from domain.hashing import canonical, data_hash, is_plain, sha256_hex, sorted_json
from domain.history import malformed
from domain.verify import VerifyReport, header_problem
from infra.cosigning import check_held, check_own, held_checkpoints
from infra.exporting import Export, Item, Signer, line_bytes
from infra.importing import Rebuild
from infra.results import Imported
from infra.staging import Staging
from infra.store import CampaignStore, dice_of

FORMAT = "refit-export/1"
# The shape of the events an export carries. The campaign's state layout (its
# class_version, 6 since it was split into parts) is never exported: its Undone states are
# worked out again on import, so an export stays readable by any service of this schema.
# 6: `Created` names the module data it pins, and the tail carries that data (and any
# upgrade's) by hash; a schema 5 export (no pins) still imports, unpinned.
SCHEMA = 6
PRIVATE = {"Created": "seed", "SeedRevealed": "next_seed"}  # the server's own secret


def parse_lines(lines: Iterable[str | bytes]) -> Iterator[dict[str, Any]]:
    """An export's lines as JSON objects (blank lines skipped); a bad one is refused by
    its line number."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            parsed = _loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
            raise ImportRefused(f"line {number} of the export is not JSON: {error}",
                                field="export") from None
        if not isinstance(parsed, dict):
            raise ImportRefused(f"line {number} of the export is not a JSON object",
                                field="export")
        yield parsed


def _loads(line: str | bytes) -> Any:
    """json.loads's value, read by orjson where it reads the very same."""
    # Not where orjson makes a float (of a float, or of an int past 64 bits), nor what it
    # refuses: the stdlib then accepts it (NaN, say) or refuses it with its own message.
    try:
        value = orjson.loads(line)
        if is_plain(value):
            return value
    except (orjson.JSONDecodeError, RecursionError):
        pass
    return json.loads(line)


def dump_line(line: dict[str, Any]) -> str:
    """One export line: canonical JSON, so the same history gives the same bytes."""
    return sorted_json(line) + "\n"


def header_of(state: Campaign, commitment: str | None, viewer: str | None,
              private: bool) -> dict[str, Any]:
    """The export's first line: what campaign, whose view, which schema."""
    return {"format": FORMAT, "campaign": str(state.id), "module": state.module_id,
            "cg": state.cg, "name": state.name, "schema_version": SCHEMA,
            "seed_commitment": commitment, "view": viewer or "director",
            "private_seed": private}


class Transfer:
    """Export and import of whole campaigns."""

    def __init__(self, store: CampaignStore, sign: Signer | None = None,
                 own_keys: Callable[[], Sequence[str]] = tuple) -> None:
        self.store, self.sign = store, sign
        self.own_keys = own_keys  # the verifier keys this service signs with, when asked

    def export(self, campaign_id: UUID, viewer: str | None = None,
               private: bool = False) -> Iterator[dict[str, Any]]:
        """The history as lines: a header, every event (as `history` shows it), the tail
        naming the head hash. `private` (the operator's, for moving a campaign) adds the
        dice seed, so server rolls can go on after an import. A campaign that does not
        exist fails here, before any line."""
        return (line for line, _ in self._items(campaign_id, viewer, private))

    def export_text(self, campaign_id: UUID, viewer: str | None = None,
                    private: bool = False) -> Iterator[bytes]:
        """`export`'s lines as the bytes `dump_line` writes, each encoded once."""
        return map(line_bytes, self._items(campaign_id, viewer, private))

    def _items(self, campaign_id: UUID, viewer: str | None,
               private: bool) -> Iterator[Item]:
        state = self.store.campaign(campaign_id)  # a campaign that does not exist: here
        return self._export_items(state, viewer, private and viewer is None)

    def _export_items(self, state: Campaign, viewer: str | None,
                      private: bool) -> Iterator[Item]:
        export = Export(self.store, state, viewer,
                        lambda record, fields: _private(record["type"], fields, private))
        events = export.events()
        created = next(events)
        yield header_of(state, created[0]["data"]["seed_commitment"], viewer, private), False
        yield created
        yield from events
        yield export.tail(self.sign), False

    def import_export(self, lines: Callable[[], Iterable[dict[str, Any]]],
                      checkpoints: Sequence[str] = ()) -> Imported:
        """Rebuild a campaign from an export: verified in full (its co-signatures too, and
        against the `checkpoints` the importer holds), every event rebuilt to its exact
        record; staged and folded as it is read, and switched in only once all of it
        verified (infra/importing.py)."""
        held = held_checkpoints(checkpoints)
        iterator = iter(lines())
        header = next(iterator, None)
        ident = self._header_ident(header)
        restored = chain([] if header is None else [header], iterator)
        kept: dict[str, Any] = {}  # the tail's module data, by hash
        if ident is None:  # not an export's header: refused by the verifier
            self._verified(restored, kept, None)
            raise ImportRefused("the first line is not a refit-export/1 header", field="export")
        with self.store.staged_import(ident) as staged:
            rebuild = Rebuild(self.store, ident, staged, self._event)
            report, cosigns = self._verified(restored, kept, rebuild)
            check_held(cosigns, held)
            check_own(cosigns, self.own_keys())
            rebuild.finish(_pin_rows(kept), report.head_hash)
        if rebuild.campaign is not None:  # committed: its live streams hear of it
            self.store.tell(ident, rebuild.campaign.version)
        return Imported(str(ident), report.events, report.head_hash, report.rolls_verified,
                        rebuild.seed)

    def _header_ident(self, header: Any) -> UUID | None:
        """The campaign an export's header names, once checked; None if it is none."""
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            return None
        return self._check_header(header)

    def _verified(self, lines: Iterable[dict[str, Any]], kept: dict[str, Any],
                  rebuild: Rebuild | None) -> tuple[VerifyReport, CosignWatch]:
        """The export verified, each event rebuilt (and staged) as it passes; refused
        unless it verifies, naming where."""
        try:
            report, cosigns = verify_cosigned_export(self._rebuildable(lines, kept, rebuild))
        except KeyError as error:
            raise ImportRefused(f"the export is malformed: a line has no {error.args[0]!r}",
                                field="export") from None
        except (TypeError, AttributeError, ValueError, OverflowError,
                RecursionError) as error:
            raise ImportRefused(f"the export is malformed: {error}", field="export") from None
        if not report.ok:
            where = f" at version {report.first_bad_version}" if report.first_bad_version else ""
            raise ImportRefused(f"the export does not verify{where}: {report.problem}",
                                field="export")
        return report, cosigns

    def _rebuildable(self, lines: Iterable[dict[str, Any]], kept: dict[str, Any],
                     rebuild: Rebuild | None) -> Iterator[dict[str, Any]]:
        """The lines, each event first rebuilt to the very same record (a refusal names
        its version) and handed to `rebuild`. The tail's module data is noted in `kept`."""
        iterator = iter(lines)
        header = next(iterator, None)
        if header is not None:
            yield header
        ident = None if rebuild is None else rebuild.ident  # else read at the first event
        for line in iterator:
            if "version" in line:
                if (problem := malformed(line)) is not None:
                    raise ImportRefused(f"the export's event at version {line['version']!r} "
                                        f"is not an event record: {problem}", field="export")
                if ident is None:
                    ident = UUID(str(header.get("campaign") if header else ""))
                if line["version"] == 1 and isinstance(header, dict) and \
                        (problem := header_problem(header, line)) is not None:
                    raise ImportRefused(problem, field="export")  # before it is rebuilt
                event = self._event(ident, line)
                if rebuild is not None:
                    rebuild.see(line, event)
            elif isinstance(line.get("module_data"), dict):
                kept.update(line["module_data"])
            yield line

    def _check_header(self, header: dict[str, Any]) -> UUID:
        view = header.get("view", "director")
        if view != "director":
            whose = f"the {view}'s" if isinstance(view, str) and view else "a"
            raise ImportRefused(f"this is {whose} redacted export: only the director's "
                                "complete export rebuilds a campaign", field="view")
        if type(header.get("private_seed", False)) is not bool:
            raise ImportRefused("the header's private_seed is true or false", field="private_seed")
        schema = header.get("schema_version")
        if type(schema) is not int:
            raise ImportRefused("the header's schema_version is not a number",
                                field="schema_version")
        if schema > SCHEMA:
            raise ImportRefused(f"schema {header['schema_version']} is newer than this "
                                f"service's {SCHEMA}", field="schema_version")
        try:
            ident = UUID(str(header.get("campaign")))
        except ValueError:
            raise ImportRefused("the header names no campaign id", field="campaign") from None
        try:
            self.store.campaign(ident)
        except CampaignNotFound:
            return ident
        raise CampaignExists(f"campaign {ident} is already here", field="campaign")

    def _event(self, ident: UUID, line: dict[str, Any], staged: Staging | None = None) -> Any:
        """The domain event a record was made from; refused unless it gives the record back
        exactly, byte for byte (so a re-export gives the same bytes). Without `staged` (the
        events written so far) only checked, an undo's state left out (it is worked out
        from what is written)."""
        dry = staged is None
        if line.get("redacted"):
            raise ImportRefused(f"version {line['version']} is redacted: only the "
                                "director's complete export rebuilds a campaign",
                                field="export")
        kind = line["type"]
        cls = EVENTS.get(kind)
        if cls is None:
            raise ImportRefused(f"version {line['version']}: no event type {kind!r}",
                                field="type")
        fields: dict[str, Any] = dict(line["data"])
        fields |= {"originator_id": ident, "originator_version": line["version"],
                   "timestamp": _moment(line),
                   "prev_hash": line["prev_hash"], "sealed": line["sealed"],
                   "salt": line["salt"]}
        if line.get("neutral") is True:  # sealed neutrally (unset on an older event)
            fields["neutral"] = True
        fields |= _hidden(kind, line, staged)
        try:
            event = cls(**fields)
        except TypeError:
            raise ImportRefused(f"version {line['version']} ({kind}) cannot be rebuilt: "
                                f"{_misfit(cls, fields)}", field="data") from None
        for name in _unset(cls, fields):  # as the store keeps an event older than the field
            del event.__dict__[name]
        # Checked once, in the verifying pass. Values are carried as they are (true stays
        # true), so equal records give equal bytes; a version must be a plain int, since
        # the store keeps true as 1.
        if dry and (type(line["version"]) is not int or cast(CampaignEvent, event).record()
                    != {k: v for k, v in line.items() if k != "private"}):
            raise ImportRefused(f"version {line['version']} ({kind}) does not rebuild to "
                                "the same record", field="data")
        return event


def _hidden(kind: str, line: dict[str, Any], staged: Staging | None) -> dict[str, Any]:
    """The fields an event keeps out of its record: the private seed (if exported), the
    Created topic and role tokens, and an undo's state (worked out again from the staged
    log; left out without it)."""
    private = line.get("private") or {}
    if kind == "Created":
        seed = _seed(private.get("seed"), line["data"]["seed_commitment"])
        return {"originator_topic": get_topic(Campaign), "seed": seed} | (
            {"tokens": line["tokens"]} if "tokens" in line else {})
    if kind == "SeedRevealed":
        return {"next_seed": _seed(private.get("next_seed"), line["data"]["next_commitment"])}
    if kind != "Undone":
        return {}
    if staged is None:
        return {"state": {}, "state_version": Campaign.class_version, "redo_dice": {}}
    target = line["data"]["to_version"]
    before = None
    for event in staged.events(lte=target):
        before = event.mutate(before)
    return undo_state(before) | {"redo_dice": dice_of(staged.events(gt=target))}


def _moment(line: dict[str, Any]) -> datetime:
    """An event's timestamp, refused naming its version unless it is ISO 8601 text."""
    try:
        return datetime.fromisoformat(line["timestamp"])
    except (TypeError, ValueError):
        raise ImportRefused(f"version {line['version']}: its timestamp "
                            f"{line['timestamp']!r} is not an ISO 8601 time",
                            field="timestamp") from None


def _misfit(cls: type[Any], fields: dict[str, Any]) -> str:
    """Why an event's data does not make its class: the fields it has that the class does
    not take, or those the class needs that it lacks."""
    known = {f.name: f for f in dataclasses.fields(cls)}
    extra = sorted(name for name in fields if name not in known)
    if extra:
        return f"its data has {', '.join(extra)}, which a {cls.__name__} does not"
    lacking = sorted(name for name, f in known.items() if name not in fields and f.init
                     and f.default is dataclasses.MISSING
                     and f.default_factory is dataclasses.MISSING)
    return f"its data lacks {', '.join(lacking) or 'a field its type needs'}"


def _unset(cls: type[Any], fields: dict[str, Any]) -> list[str]:
    """The content fields an event's record did not carry (it was recorded before they
    existed, e.g. a schema 5 `Created` without `module_hash`): left unset, not defaulted."""
    return [name for name in _defaulted(cls) if name not in fields]


def _defaulted(cls: type[Any]) -> tuple[str, ...]:
    """An event class's content fields that have a default (worked out once a class)."""
    found = _DEFAULTED.get(cls)
    if found is None:
        found = _DEFAULTED[cls] = tuple(
            f.name for f in dataclasses.fields(cls)
            if f.name not in cls.not_data and f.default is not dataclasses.MISSING)
    return found


_DEFAULTED: dict[type, tuple[str, ...]] = {}


def _pin_rows(kept: dict[str, Any]) -> list[tuple[str, str, str]]:
    """An export's module data as the store keeps it; only documents that hash to the hash
    they are kept under (the history's pins were verified so)."""
    return [(pin, str(doc.get("id")), canonical(doc).decode("utf-8"))
            for pin, doc in kept.items() if isinstance(doc, dict) and _hashes_to(doc, pin)]


def _hashes_to(doc: dict[str, Any], pin: str) -> bool:
    try:
        return data_hash(doc) == pin
    except ValueError:  # NaN: no canonical form, so no hash
        return False


def _seed(seed: Any, commitment: Any) -> str | None:
    """A private seed from an export, checked against the commitment it must open."""
    if seed is None:
        return None
    try:
        opens = sha256_hex(bytes.fromhex(seed)) == commitment
    except (TypeError, ValueError):
        opens = False
    if not opens:
        raise ImportRefused("the private seed does not match its commitment", field="private")
    return str(seed)


def _private(kind: str, fields: dict[str, Any], private: bool) -> dict[str, Any]:
    """The server's own secret beside the record, for the operator's export only."""
    name = PRIVATE.get(kind)
    if not private or name is None or fields.get(name) is None:
        return {}
    return {"private": {name: fields[name]}}
