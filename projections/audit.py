"""The roll audit: one roll's whole story, read from the log in one pass."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from domain.dice import dice_from_seed, effective_seed, ordered_shares
from domain.history import NEUTRAL, is_undone, undone_ranges


class SeedCheck(BaseModel):
    """The server dice recomputed from the revealed seed: HMAC-SHA256(E, key), where E is
    the seed mixed with the sides' shares (CONTRACT 'Dice'), or the seed when none."""

    seed: str
    revealed_at: int
    dice: list[int]
    matches: bool
    shares: list[str] = []  # the sides' shares mixed in, in side order (hex)


class RollMade(BaseModel):
    """One time the key was rolled (a redo after an undo rolls it again, same dice)."""

    version: int
    timestamp: str
    asked_by: str
    side: str
    rule: str
    table: str
    title: str
    subject: str
    kind: str
    dice: list[int]
    original: int
    drm: list[dict[str, Any]]
    final: int
    target: int | None
    result: str
    cg_date: str
    step: str
    entered_by: str | None
    secret: bool
    revealed_at: int | None  # the version that opened it (CG End), if secret
    standing: bool  # False: an undo undid it (it stays in the log)
    undone_by: int | None
    seed_check: SeedCheck | None


class SealedRoll(BaseModel):
    """A roll kept from this viewer (another side's secret): only that it was made."""

    version: int
    timestamp: str
    side: str
    standing: bool
    undone_by: int | None


class RollAudit(BaseModel):
    """A roll's key, each time it was rolled, the director's rulings (each with what its
    corrections changed) and re-rolls; `sealed` a secret roll the viewer may not see."""

    key: str | None
    rolls: list[RollMade]
    rulings: list[dict[str, Any]]
    rerolls: list[dict[str, Any]]
    sealed: list[SealedRoll] = []
    disputes: list[dict[str, Any]] = []  # each side's dispute of it: who, why, when


# A ruling's corrections, by event type: the kind each applies (domain/campaign/rulings.py).
CORRECTED_BY = {"PointsCorrected": "adjust", "RollVoided": "void_roll",
                "PurchaseAmended": "amend_purchase", "RollAuthorized": "missed_roll"}
_ENVELOPE = ("actor", "secret_for")


class UndoPlan(BaseModel):
    """What an undo would remove (a dry run): nothing is appended."""

    to_version: int
    head: int
    events: int  # how many live events it would undo
    versions: list[int]
    event_types: dict[str, int]  # each event type, and how many of it
    rolls: list[dict[str, Any]]  # each roll undone: version, key, rule, side, subject


def undo_plan(target: int, head: int, records: list[dict[str, Any]]) -> UndoPlan:
    """The plan of an undo to `target` from the live records after it (as the asker reads
    them: another side's secret roll shows only its side and version)."""
    types: dict[str, int] = {}
    for record in records:
        types[record["type"]] = types.get(record["type"], 0) + 1
    rolls = [{"version": r["version"], "side": r["data"].get("side")} | {
        name: r["data"].get(name) for name in ("key", "rule", "table", "subject", "cg_date")
        if name in r["data"]} for r in records if r["type"] == "DiceRolled"]
    return UndoPlan(to_version=target, head=head, events=len(records),
                    versions=[r["version"] for r in records], event_types=types,
                    rolls=rolls)


class _Walk:
    """What the pass over the log gathers."""

    def __init__(self, key: str | None, version: int | None) -> None:
        self.key, self.version = key, version
        self.made: list[tuple[dict[str, Any], int]] = []  # the roll's records, seed index
        self.sealed: list[dict[str, Any]] = []  # its records this viewer may not read
        self.ruling: dict[str, Any] | None = None  # the last ruling on it, and its instant
        self.jumps: dict[int, int] = {}
        self.seeds: list[tuple[str, int]] = []  # each revealed seed, with its version
        self.sides: list[str] = []
        self.shares: dict[int, dict[str, str]] = {}  # seed index -> side -> its share
        self.ended: int | None = None
        self.rulings: list[dict[str, Any]] = []
        self.disputes: list[dict[str, Any]] = []
        self.rerolls: list[dict[str, Any]] = []
        self.head = 0

    def see(self, record: dict[str, Any]) -> None:
        data, kind, version = record["data"], record["type"], record["version"]
        self.head = version
        if kind in ("DiceRolled", NEUTRAL) and self._rolls_it(record):
            if "key" in data:
                self.made.append((record, len(self.seeds)))
            else:
                self.sealed.append(record)
        elif self.ruling is not None and kind in ("RulingSealed", NEUTRAL, *CORRECTED_BY) and \
                record["timestamp"] == self.ruling["timestamp"]:
            _changed(self.ruling, record)  # recorded by the ruling's own command
        elif kind == "Undone":
            self.jumps[version] = data["to_version"]
        elif kind == "SeedRevealed":
            self.seeds.append((data["seed"], version))
        elif kind == "Created":
            self.sides = list(data.get("sides") or [])
        elif kind == "SeedShareContributed":
            self.shares.setdefault(len(self.seeds), {})[data["side"]] = data["share"]
        elif kind == "CGEnded":
            self.ended = version
        elif kind == "RulingRecorded" and self._rules_on(data):
            self.ruling = _act(record, "verdict", "reason", "final", "result", "drm",
                               "disputed_by") | {"corrections": data.get("corrections") or [],
                                                 "changed": []}
            self.rulings.append(self.ruling)
        elif kind == "RollDisputed" and self._rules_on(data):
            self.disputes.append(_act(record, "side", "reason", "cg_date"))
        elif kind == "RerollAuthorized" and data.get("key") == self.key:
            self.rerolls.append(_act(record, "reason", "epoch"))


    def _rolls_it(self, record: dict[str, Any]) -> bool:
        key = record["data"].get("key")
        return (key is not None and key == self.key) or record["version"] == self.version

    def _rules_on(self, data: dict[str, Any]) -> bool:
        """A ruling on this roll: by its key, or (a secret roll's) by its version."""
        versions = {r["version"] for r, _ in self.made} | {r["version"] for r in self.sealed}
        key = data.get("key")
        return (key is not None and key == self.key) or data.get("roll_version") in versions


def _changed(ruling: dict[str, Any], record: dict[str, Any]) -> None:
    """Note on the ruling what one of its events changed, as the viewer may read it."""
    data = record["data"]
    if record["type"] == NEUTRAL:  # sealed neutrally: the others see that, not what
        ruling["changed"].append({"kind": "sealed", "version": record["version"],
                                  "side": data.get("secret_for"), "sealed": True})
        return
    if record["type"] == "RulingSealed":
        if "key" in data:  # the secret roll's corrected figures, to those who see it
            ruling |= {name: data[name] for name in ("final", "result", "drm")}
            if data.get("disputed_by"):  # its own side's dispute, sealed with the roll
                ruling["disputed_by"] = data["disputed_by"]
        return
    change = {"kind": CORRECTED_BY[record["type"]], "version": record["version"],
              "side": data.get("side")}
    if set(data) <= {"side", *_ENVELOPE}:  # sealed: the others see that, not what
        ruling["changed"].append(change | {"sealed": True})
    else:
        ruling["changed"].append(change | {k: v for k, v in data.items()
                                           if k not in _ENVELOPE})


def _act(record: dict[str, Any], *fields: str) -> dict[str, Any]:
    data = record["data"]
    return {"version": record["version"], "timestamp": record["timestamp"],
            "actor": data["actor"]} | {name: data.get(name) for name in fields}


def roll_audit(key: str | None, records: Iterable[dict[str, Any]],
               version: int | None = None) -> RollAudit | None:
    """The audit of the roll `key` (or the roll made at `version`) from a history as its
    viewer reads it (None: no such roll)."""
    walk = _Walk(key, version)
    for record in records:
        walk.see(record)
    if not walk.made and not walk.sealed:
        return None
    ranges = undone_ranges(walk.jumps, walk.head)
    first_seed = walk.made[0][1] if walk.made else 0  # a redo keeps the dice first shown
    made = [_made(walk, record, first_seed, ranges) for record, _ in walk.made]
    sealed = [SealedRoll(version=r["version"], timestamp=r["timestamp"],
                         side=r["data"].get("side", r["data"].get("secret_for")),
                         standing=not is_undone(r["version"], ranges),
                         undone_by=_undone_by(walk, r["version"])) for r in walk.sealed]
    found = key if key is not None else \
        (walk.made[0][0]["data"]["key"] if walk.made else None)
    return RollAudit(key=found, rolls=made, rulings=walk.rulings, rerolls=walk.rerolls,
                     sealed=sealed, disputes=[d | {"standing": not is_undone(d["version"], ranges)}
                                              for d in walk.disputes])


def _undone_by(walk: _Walk, version: int) -> int | None:
    return next((undo for undo, target in sorted(walk.jumps.items())
                 if undo > version and target < version), None)


def _made(walk: _Walk, record: dict[str, Any], seed_index: int,
          ranges: list[tuple[int, int]]) -> RollMade:
    data, version = record["data"], record["version"]
    secret = record.get("sealed") is not None
    undone_by = _undone_by(walk, version)
    return RollMade(
        version=version, timestamp=record["timestamp"], asked_by=data["actor"],
        **{name: data[name] for name in (
            "side", "rule", "table", "title", "subject", "kind", "dice", "original", "drm",
            "final", "target", "result", "cg_date", "step", "entered_by")},
        secret=secret, revealed_at=walk.ended if secret else None,
        standing=not is_undone(version, ranges), undone_by=undone_by,
        seed_check=_seed_check(walk, data, seed_index))


def _seed_check(walk: _Walk, data: dict[str, Any], seed_index: int) -> SeedCheck | None:
    if data["entered_by"] is not None or seed_index >= len(walk.seeds):
        return None
    seed, revealed_at = walk.seeds[seed_index]
    shares = ordered_shares(walk.shares.get(seed_index, {}), walk.sides)
    dice = dice_from_seed(effective_seed(bytes.fromhex(seed), shares), data["key"],
                          len(data["dice"]))
    return SeedCheck(seed=seed, revealed_at=revealed_at, dice=dice,
                     matches=dice == list(data["dice"]), shares=[s.hex() for s in shares])
