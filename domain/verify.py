"""Verify a history: the hash chain, the secrets' seals, and every roll.

Every roll's arithmetic and key are checked as the history is walked; a server roll's
dice are recomputed once the seed it was rolled with has been revealed.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, replace
from typing import Any

from domain.dice import (
    DICE_PER_KIND,
    dice_from_seed,
    effective_seed,
    ordered_shares,
    ordinal_key,
    subject_key,
)
from domain.digits import digits
from domain.hashing import GENESIS_HASH, sha256_hex
from domain.history import (
    NEUTRAL,
    HashOf,
    first_bad_version,
    is_undone,
    malformed,
    undone_ranges,
)
from domain.pins import PinWatch


@dataclass(frozen=True)
class VerifyReport:
    """CONTRACT: `{ok, events, rolls_verified, first_bad_version}` plus the head hash."""

    ok: bool
    events: int
    rolls_verified: int
    first_bad_version: int | None
    head_hash: str
    problem: str | None = None
    note: str | None = None  # e.g. that the history pins no module data (made before pins)
    # The checkpoints the sides co-signed: {size, root, sides, keys, all_sides} each
    # (domain/cosigned.py; filled in by the callers that check them)
    cosigned: tuple[dict[str, Any], ...] = ()
    # The caches (snapshots, view rows) that differ from the events, each named; they are
    # no event version, so they fail the report and leave first_bad_version as it is.
    caches: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-able data."""
        return asdict(self) | {"caches": list(self.caches)}

    def with_caches(self, problems: list[str]) -> VerifyReport:
        """This report, failing if any cache differs from the events (its problem the
        events' own if they have one, else the first cache's)."""
        if not problems:
            return self
        return replace(self, ok=False, problem=self.problem or problems[0],
                       caches=tuple(problems))

    def with_pins(self, watch: PinWatch, lookup: Any) -> VerifyReport:
        """This report, failing at the first version whose pinned module data is missing
        or altered if that comes first; noting a history that pins none."""
        found = watch.problem(lookup)
        if found is not None and (self.first_bad_version is None
                                  or found[0] < self.first_bad_version):
            return VerifyReport(False, self.events, self.rolls_verified, found[0],
                                self.head_hash, found[1])
        return VerifyReport(self.ok, self.events, self.rolls_verified, self.first_bad_version,
                            self.head_hash, self.problem, watch.note)


HEADER_FIELDS = ("module", "cg", "name", "seed_commitment")  # the header repeats Created's
_ROLL_FIELDS = ("dice", "key", "kind", "original", "final", "drm", "cg_date", "step", "table",
                "side")


class _RollWatch:
    """What the roll checks need, gathered while the chain is walked (keys and dice only).

    After an undo the undone rolls' bookkeeping is dropped, so a redo counts its ordinals
    again; a redo must show the dice its key showed before (CONTRACT "Dice"). What is kept
    grows with the rolls, so it is kept small: one tuple a key, two machine ints an ordinal.
    """

    def __init__(self) -> None:
        self.server = True
        self.commitments: list[str | None] = []
        self.seeds: dict[int, str] = {}
        self.private: dict[int, str] = {}  # seeds an operator's export carries unrevealed
        self.sides: list[str] = []  # the module's side order, which the shares are mixed in
        self.shares: dict[int, dict[str, str]] = {}  # seed index -> side -> its share
        self.rolled_on: set[int] = set()  # seed indexes server dice were read from
        # key -> its dice, version, and the index of the seed that rolled it (-1: no check)
        self.keys: dict[str, tuple[tuple[int, ...], int, int]] = {}
        self.dice: dict[tuple[int, ...], tuple[int, ...]] = {}  # one tuple per dice shown
        # prefix -> the versions of its rolls, and their ordinals
        self.ordinals: dict[str, tuple[array[int], array[int]]] = {}
        self.hidden: dict[str, list[int]] = {}  # versions of sealed rolls this viewer can't see
        self.steps: list[int] = [0]  # versions at which the RePh entered a step
        self.undos: list[tuple[int, int]] = []  # (Undone's version, its target)
        self.authorized: set[str] = set()  # slot/epoch a director's re-roll allowed
        self.voided: set[str] = set()  # slot/epoch a ruling's void allowed
        self.ranges: list[tuple[int, int]] = []  # versions undone, as of the last undo
        self.version = 0  # the record being checked
        self.bad: tuple[int, str] | None = None

    def see(self, record: dict[str, Any]) -> dict[str, Any]:
        if self.bad is None:
            try:
                problem = self._check(record)
            except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as error:
                problem = f"a malformed {record.get('type')} record ({error!r})"
            if problem is not None:
                self.bad = (record["version"], problem)
        return record

    def _check(self, record: dict[str, Any]) -> str | None:
        data, kind, version = record["data"], record["type"], record["version"]
        self.version = version
        if record.get("sealed") is not None and not set(data) - {"side", "actor",
                                                                "secret_for"}:
            if kind in ("DiceRolled", NEUTRAL):  # a roll this viewer may not see (or may be)
                self.hidden.setdefault(data.get("side", data["secret_for"]), []).append(version)
            return None  # a redacted secret: its seal was checked with the chain
        if kind == "Created":
            self.server = data.get("dice") == "server"
            self.sides = list(data.get("sides") or [])
            self.commitments.append(data.get("seed_commitment"))
            if not self.server and data.get("seed_commitment") is not None:
                return "an entered-dice campaign commits to a dice seed"
            return self._private_seed(record, "seed", 0)
        elif kind == "SeedShareContributed":
            return self._share(data)
        elif kind == "SeedRevealed":
            return self._revealed(record)
        elif kind == "StepAdvanced":
            self.steps.append(version)
        elif kind == "Undone":
            if type(data["to_version"]) is not int:
                raise TypeError("to_version is not a whole number")
            self._undone(version, data["to_version"])
        elif kind == "RerollAuthorized":
            self.authorized.add(f"{data['slot']}/{data['epoch']}")
        elif kind == "RollVoided":  # re-rolled in its slot, its ordinal already counted
            self.authorized.add(f"{data['slot']}/{data['epoch']}")
            self.voided.add(f"{data['slot']}/{data['epoch']}")
        elif kind == "DiceRolled":
            missing = [field for field in _ROLL_FIELDS if field not in data]
            if missing:
                return f"a roll without {', '.join(missing)}"
            return self._rolled(version, data)
        return None

    def _undone(self, version: int, target: int) -> None:
        """What is live changes: rolls, steps and hidden rolls count only while live (an
        undo of an undo makes the undone live again)."""
        if not 1 <= target < version:
            raise ValueError(f"an undo to version {target} at version {version}")
        self.undos.append((version, target))
        self.ranges = undone_ranges(dict(self.undos), version)

    def _live(self, version: int) -> bool:
        return not self.ranges or not is_undone(version, self.ranges)

    def _step_start(self) -> int:
        return next((v for v in reversed(self.steps) if self._live(v)), 0)

    def _private_seed(self, record: dict[str, Any], name: str, index: int) -> str | None:
        """An operator's export carries the seeds not yet revealed (`private`): each must
        open its commitment, and then every roll made with it is checked as if revealed."""
        seed = (record.get("private") or {}).get(name)
        if seed is None:
            return None
        if sha256_hex(bytes.fromhex(seed)) != self.commitments[index]:
            return f"the private {name.replace('_', ' ')} does not match its commitment"
        self.private[index] = seed
        return None

    def _revealed(self, record: dict[str, Any]) -> str | None:
        data = record["data"]
        if not self.server:
            return "a seed revealed in an entered-dice campaign"
        index = len(self.commitments) - 1
        if sha256_hex(bytes.fromhex(data["seed"])) != self.commitments[index]:
            return "the revealed seed does not match its commitment"
        self.seeds[index] = data["seed"]
        if data.get("next_commitment"):
            self.commitments.append(data["next_commitment"])
            return self._private_seed(record, "next_seed", index + 1)
        return None

    def _share(self, data: dict[str, Any]) -> str | None:
        """A share is mixed into the seed in force: once per side, before any server roll
        was read from that seed and before it is revealed (CONTRACT 'Dice')."""
        index = len(self.commitments) - 1
        given = self.shares.setdefault(index, {})
        if not self.server or index in self.rolled_on or index in self.seeds:
            return f"{data['side']}'s seed share comes after dice were read from the seed"
        if data["side"] in given or data["side"] not in self.sides:
            return f"a second seed share from {data['side']}, or from no side"
        bytes.fromhex(data["share"])  # a share that is not hex is a malformed record
        given[data["side"]] = data["share"]
        return None

    def _rolled(self, version: int, data: dict[str, Any]) -> str | None:
        dice, key = list(data["dice"]), data["key"]
        ordinal = not _by_subject(data, key)  # a key made before subjects (kept as stored)
        problem = _roll_problem(data, dice, key, self.server) or self._epoch_problem(key) \
            or (self._ordinal_problem(version, data, key)
                if ordinal and key not in self.voided else None) \
            or self._repeat_problem(key, dice)
        if key not in self.keys:
            shown = tuple(dice)
            if problem is None:  # sound dice, shared by every key that shows them
                shown = self.dice.setdefault(shown, shown)
            seed_index = len(self.commitments) - 1 if problem is None and self.server else -1
            if self.server:
                self.rolled_on.add(len(self.commitments) - 1)
            self.keys[key] = (shown, version, seed_index)
        return problem

    def _epoch_problem(self, key: str) -> str | None:
        epoch = key.rsplit("/", 1)[1]
        if epoch != "0" and key not in self.authorized:
            return f"roll key {key} has re-roll epoch {epoch}, which no director authorized"
        return None

    def _repeat_problem(self, key: str, dice: list[int]) -> str | None:
        """A key is rolled again only after an undo undid it, and shows the same dice."""
        if key not in self.keys:
            return None
        before, version, seed_index = self.keys[key]
        if self._live(version):  # its first roll still stands: this one is a second roll
            return f"roll key {key} is used twice"
        self.keys[key] = (before, self.version, seed_index)  # the standing roll now
        if tuple(dice) != before:
            return f"roll {key} was redone after an undo with dice {dice}, not its " \
                   f"{list(before)}"
        return None

    def _ordinal_problem(self, version: int, data: dict[str, Any], key: str) -> str | None:
        """Ordinals count up from 1 within a step: a skipped one would be a shopped-for key."""
        prefix, ordinal = key.rsplit("/", 2)[0], int(key.rsplit("/", 2)[1])
        if prefix not in self.ordinals:
            self.ordinals[prefix] = (array("q"), array("q"))
        versions, ordinals = self.ordinals[prefix]
        last = next((ordinals[i] for i in range(len(versions) - 1, -1, -1)
                     if self._live(versions[i])), 0)
        expected = last + 1
        hidden = self.hidden.get(data["side"], [])
        start = self._step_start()
        unseen = [v for v in hidden if v > start and self._live(v)]  # may fill the gap
        if not expected <= ordinal <= expected + len(unseen):
            return f"roll key {key} skips ahead of ordinal {expected}"
        versions.append(version)
        ordinals.append(ordinal)
        for used in unseen[:ordinal - expected]:
            hidden.remove(used)
        return None

    def first_bad_roll(self) -> tuple[int | None, int, str | None]:
        checked = 0
        for key, (dice, version, seed_index) in self.keys.items():
            seed = self.seeds.get(seed_index, self.private.get(seed_index)) \
                if seed_index >= 0 else None
            if seed is None:
                continue
            mixed = effective_seed(bytes.fromhex(seed), ordered_shares(
                self.shares.get(seed_index, {}), self.sides))
            if dice_from_seed(mixed, key, len(dice)) != list(dice):
                return version, checked, f"roll {key} does not match its seed's dice"
            checked += 1
        return None, checked, None


def _roll_problem(data: dict[str, Any], dice: list[int], key: str, server: bool) -> str | None:
    """What is wrong with a roll's own record, if anything."""
    if len(dice) != DICE_PER_KIND.get(data["kind"], -1) or not all(1 <= d <= 6 for d in dice):
        return f"roll {key} has impossible dice {dice} for a {data['kind']}"
    if data["original"] != sum(dice):
        return f"roll {key}: Original {data['original']} is not the dice's sum"
    if data["final"] != data["original"] + sum(item["value"] for item in data["drm"]):
        return f"roll {key}: Final {data['final']} is not the Original plus its DRM"
    _, ordinal, epoch = key.rsplit("/", 2)
    named = ordinal_key(data["cg_date"], data["step"], data["table"], data["side"],
                        _number(ordinal), _number(epoch))
    if key != named and not _by_subject(data, key):
        return f"roll key {key} does not name its CG Date, table, side, subject and epoch"
    if server and data.get("entered_by"):
        return f"roll {key} claims entered dice in a server-dice campaign"
    if not server and not data.get("entered_by"):
        return f"roll {key} names no one who entered its dice in an entered-dice campaign"
    return None


def _by_subject(data: dict[str, Any], key: str) -> bool:
    """Whether the key is the one its CG Date, table, side, subject and epoch make."""
    epoch = key.rsplit("/", 1)[1]
    return _number(epoch) >= 0 and key == subject_key(
        data["cg_date"], data["table"], data["side"], str(data.get("subject")), int(epoch))


def verify_records(records: Iterable[dict[str, Any]],
                   hash_of: HashOf | None = None) -> VerifyReport:
    """Walk the records once; name the first bad version, if any (`hash_of`: each
    record's hash, where the caller has it already)."""
    watch = _RollWatch()
    bad, count, head, problem = first_bad_version((watch.see(r) for r in records), hash_of)
    found = [(bad, problem)] if bad is not None else []
    if watch.bad is not None:
        found.append(watch.bad)
    bad_roll, rolls, roll_problem = watch.first_bad_roll()
    if bad_roll is not None:
        found.append((bad_roll, roll_problem or ""))
    if found:
        version, why = min(found, key=lambda item: item[0])
        return VerifyReport(False, count, rolls, version, head, why)
    return VerifyReport(True, count, rolls, None, head, None)


def header_problem(header: dict[str, Any], first: dict[str, Any]) -> str | None:
    """Where the export's header says otherwise than its Created event (None: it agrees);
    no hash covers the header, so an edit of it shows only here."""
    if first.get("type") != "Created" or not isinstance(first.get("data"), dict):
        return None  # the chain check names what is wrong with the first event
    stated = {"campaign": first.get("campaign")} | {
        name: first["data"][name] for name in HEADER_FIELDS if name in first["data"]}
    for name, value in stated.items():
        if header.get(name) != value:
            return (f"the header's {name} {header.get(name)!r} is not the campaign's: its "
                    f"Created event says {value!r}")
    return None


def verify_export(lines: Iterable[dict[str, Any]],
                  hash_of: HashOf | None = None) -> VerifyReport:
    """Verify an export (a header, the events, a tail naming the head hash and count),
    reading one line at a time."""
    events = iter(lines)
    header = next(events, None)
    if not isinstance(header, dict) or header.get("format") != "refit-export/1":
        return VerifyReport(False, 0, 0, None, GENESIS_HASH,
                            "the first line is not a refit-export/1 header")
    tail: dict[str, Any] = {}
    pins = PinWatch()

    bad: list[tuple[int, str]] = []  # a line that is not an event's shape, and why
    contradicted: list[str] = []  # how the header contradicts the Created event
    at_tail: list[int] = []  # the tail's line number

    def records() -> Iterator[dict[str, Any]]:
        for number, line in enumerate(events, start=2):
            if "head_hash" in line and "events" in line and "version" not in line:
                tail.update(line)
                at_tail.append(number)
                return
            if (problem := malformed(line)) is not None:
                bad.append((number, problem))
                return
            if number == 2 and (problem := header_problem(header, line)) is not None:
                contradicted.append(problem)
                return
            yield pins.see(line)

    report = verify_records(records(), hash_of)
    if contradicted:  # the header, which no hash covers, says otherwise
        return VerifyReport(False, 0, 0, None, GENESIS_HASH, contradicted[0])
    if bad:
        (number, problem), version = bad[0], report.events + 1
        return VerifyReport(False, report.events, report.rolls_verified, version,
                            report.head_hash, f"line {number} of the export (version "
                            f"{version}) is not an event record: {problem}")
    if report.ok and tail:  # the module data it pins travels in the tail, by hash
        kept = tail.get("module_data")
        report = report.with_pins(pins, (kept if isinstance(kept, dict) else {}).get)
    if not report.ok:
        return report
    if not tail:
        return VerifyReport(False, report.events, report.rolls_verified, None,
                            report.head_hash, "the export has no tail line: it was cut short")
    if next(events, None) is not None:  # nothing is signed or chained after the tail
        return VerifyReport(False, report.events, report.rolls_verified, None,
                            report.head_hash, f"line {at_tail[0] + 1} of the export comes "
                            "after its tail line: the tail is the last line")
    if report.ok and (tail["head_hash"], tail["events"]) != (report.head_hash, report.events):
        # Nothing links after the last event: only the tail shows it was altered.
        said = (f"the tail counts {tail['events']} events; the export holds {report.events}"
                if tail["head_hash"] == report.head_hash else
                f"the tail names head {tail['head_hash']} of {tail['events']} events; the "
                f"events give {report.head_hash}")
        return VerifyReport(False, report.events, report.rolls_verified, report.events,
                            report.head_hash, said)
    return report


def _number(text: str) -> int:
    """A key's number (an ordinal, an epoch), or -1 for what is not ASCII digits (int()
    reads '²' as no number at all, and a file may hold anything)."""
    return int(text) if digits(text) else -1
