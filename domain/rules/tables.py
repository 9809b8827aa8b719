"""Dice tables as data: result bands, targets and the DRM each table lists (drm_specs)."""

from __future__ import annotations

import itertools
import re
from typing import Literal

from pydantic import Field, model_validator

from domain.errors import InvalidCommand
from domain.rules.base import Strict
from domain.rules.drm_specs import DRMSpec

# A result's footnote marks as the charts print them: "Escapes(1)", "Replaced(2,3)",
# "No Shift*", "Shifted with Casualties†"; a note opens with its mark ("(1) An ...").
NUMBER_MARKS = re.compile(r"\((\d+(?:,\d+)*)\)")
SYMBOL_MARKS = "*†‡"
NOTE_MARK = re.compile(r"\s*(?:\((\d+)\)|([*†‡]))")


class Effect(Strict):
    """What a result does to the ledger: ELR, SAN or a level (e.g. CG17) moves by `change`."""

    target: str = Field(pattern=r"^(elr|san|level:[A-Za-z0-9_]+)$")  # ELR, SAN or a level
    change: int
    minimum: int = 0
    maximum: int = 7


class Band(Strict):
    """One result band of a table: Final rolls from `min` to `max` (None = open end)."""

    min: int | None = None
    max: int | None = None
    result: str
    records: str | None = None  # what a roll for an RG writes on its record (e.g. "F")
    effects: list[Effect] = []
    # Who sets up or moves first in the CG Scenario (3.6213, 3.623): role -> side
    order: dict[Literal["sets_up_first", "moves_first"], str] = {}
    # The result instead for an RG whose chart row has the trait (9.6183 dagger: a Hvy
    # Tank Pltn's 8-1 Armor Leader is a 9-1)
    by_trait: dict[str, str] = {}

    def holds(self, final: int) -> bool:
        """True when the Final roll falls in this band."""
        return (self.min is None or final >= self.min) and (self.max is None or final <= self.max)

    def for_traits(self, traits: frozenset[str]) -> str:
        """The band's result for an RG with these chart traits."""
        return next((self.by_trait[t] for t in sorted(traits) if t in self.by_trait),
                    self.result)


class FollowUp(Strict):
    """A roll a result of another calls for (PBr 3.613 †: the dr per unit after an 11)."""

    table: str  # the table whose roll, by the same side on the CG Date, calls for it
    results: list[str] = Field(min_length=1)  # the results of that table that call for it
    also: dict[str, list[str]] = {}  # other tables' results that call for it as well
    # Rolled only for a subject a calling result was rolled for (3.6061: the unit the
    # Escape attempt Eliminated), not for any of the side's.
    same_subject: bool = False

    def callers(self) -> dict[str, list[str]]:
        """Each table whose results call for the roll, with those results."""
        return {self.table: self.results, **self.also}


class Target(Strict):
    """A roll against a number the player supplies (e.g. CG23's circled turn number)."""

    compare: Literal["lt", "le", "ge", "gt"]
    number: str
    hit: str
    miss: str

    def result(self, final: int, target: int) -> str:
        """`hit` when the Final roll compares true against the target number."""
        holds = {
            "lt": final < target,
            "le": final <= target,
            "ge": final >= target,
            "gt": final > target,
        }[self.compare]
        return self.hit if holds else self.miss


class GameEnd(Strict):
    """When a CG Scenario's Game End dr is made (ABtF CG4, KGP CG23): at the end of Game
    Turn `from_turn` and of each turn after it (each Player Turn, where `each` says so), by
    the side named or the ATTACKER; the number circled in each Game Turn's box of the CG
    Turn Record Chart, where the seeds give it (an owner's patch supplies the rest)."""

    rule: str
    from_turn: int = Field(ge=1)
    each: Literal["game_turn", "player_turn"]
    by: str  # a side, or ATTACKER: the side whose Initiative chit was Attack
    circled: dict[str, int] = {}  # Game Turn -> the number circled in its box
    doubts: list[str] = []

    def number(self, turn: int) -> int | None:
        """The circled number of a Game Turn's box, if the data gives it."""
        return self.circled.get(str(turn))


class LossPoints(Strict):
    """Who may roll for CG Scenario Loss Points (3.6162): a side that lost >= `ratio` times,
    and >= `margin` more, CVP than the other in the prior CG Scenario."""

    ratio: int
    margin: int


class Table(Strict):
    """A dice table of a rule, e.g. 9.6101 Wounded Leader Table."""

    id: str
    title: str
    rule: str
    roll: Literal["dr", "DR"]
    secret: bool = False
    from_date: str | None = None  # not rolled before this CG Date (e.g. 9.6201: 19AM)
    side_from: dict[str, str] = {}  # a side's own first CG Date (3.61424: British 15AM)
    not_after_idle: bool = False  # not rolled when the previous CG Date was Idle
    sides: list[str] | None = None  # only these sides roll it (e.g. 9.6201: British)
    once_per_date: bool = False  # one roll per side per CG Date (e.g. 9.6202)
    scenario_types: list[str] | None = None  # only for these scenarios (e.g. Dual Assault)
    # rolled for the CG Scenario the Initiative chits make of the date (9.6216 weather):
    # not before both are revealed, nor on an Idle CG Date, which plays none
    for_scenario: bool = False
    in_scenario: bool = False  # rolled during a CG Scenario (e.g. CG4 Game End)
    min_san: dict[str, int] | None = None  # rolled only at this SAN or more (9.6122)
    credits_cpp: bool = False  # Final roll + the date's CPP Base # is credited (9.616)
    credits_roll: bool = False  # the Final roll alone is credited as CPP (3.6162)
    loss_points: LossPoints | None = None  # who may roll it (3.6162)
    cpp_cost: int = Field(default=0, ge=0)  # CPP spent to roll it (3.620 Recon)
    halved_by_balance: bool = False  # the Balance side's DR is halved, FRD (KGP 8.31)
    open_roll: bool = False  # never secret: the opponent learns it (3.620 Recon, 3.6223)
    counts_against: str | None = None  # an RG row whose maximums count these rolls (M2)
    not_initial: bool = False  # not rolled before an Initial Scenario (its SSR decides)
    after: list[str] = []  # tables rolled first on the CG Date (9.62164 after 9.62161)
    # tables a subject is rolled on instead of this one, not as well, per CG Date: one
    # Escape attempt a unit, on its column's table (3.606, 9.6054)
    one_of: list[str] = []
    follows: FollowUp | None = None  # rolled only after these results of another table
    determines: Literal["strength", "leader", "composition", "sw", "sw_type", "weather", "ec",
                        "wind", "recon"] | None = None
    for_rgs: list[str] | None = None  # only for these RG ids (e.g. 9.6184-A3: A3)
    for_marked_rgs: bool = False  # only for RGs whose chart row names it (9.6183 'indicated')
    game_end: GameEnd | None = None  # a Game End dr: when it is due, the circled numbers
    excluded_kgs: list[str] = []  # not for these KGs' RGs (e.g. 9.6184: KG Graebner)
    bands: list[Band] = []
    target: Target | None = None
    drm: list[DRMSpec] = []
    notes: list[str] = []
    doubts: list[str] = []

    @model_validator(mode="after")
    def _bands_cover_every_final_roll(self) -> Table:
        bands = self.bands
        if (self.target is None) == (not bands):
            raise ValueError(f"table {self.id}: give either result bands or a target, not both")
        if self.game_end is not None and self.target is None:
            raise ValueError(f"table {self.id}: a Game End dr rolls against a circled number")
        if self.determines == "strength" and {b.records for b in bands} != {"F", "D"}:
            raise ValueError(f"table {self.id}: a strength table's bands record F or D")
        ids = [spec.id for spec in self.drm]
        if len(set(ids)) != len(ids):
            raise ValueError(f"table {self.id}: a DRM id appears twice")
        for spec in self.drm:
            if not set(spec.excludes) <= set(ids):
                raise ValueError(f"table {self.id}: DRM {spec.id} excludes an id the table "
                                 f"does not list ({', '.join(set(spec.excludes) - set(ids))})")
        if not bands:
            return self
        if bands[0].min is not None or bands[-1].max is not None:
            raise ValueError(f"table {self.id}: first band needs no min and last no max")
        for band in bands:
            if band.min is not None and band.max is not None and band.min > band.max:
                raise ValueError(f"table {self.id}: a band's min is above its max")
        for low, high in itertools.pairwise(bands):
            if low.max is None or high.min != low.max + 1:
                raise ValueError(f"table {self.id}: bands must be ascending and contiguous")
        return self

    def band(self, final: int) -> Band | None:
        """The band a Final roll falls in (None for a target table)."""
        return next((band for band in self.bands if band.holds(final)), None)

    def footnotes(self, result: str) -> list[str]:
        """The table's notes that a result's footnote marks point to, in the table's order."""
        marks = {number for group in NUMBER_MARKS.findall(result) for number in group.split(",")}
        marks |= {symbol for symbol in result if symbol in SYMBOL_MARKS}
        return [note for note in self.notes
                if (found := NOTE_MARK.match(note)) and (found[1] or found[2]) in marks]

    def result(self, final: int, target: int | None = None) -> str:
        """The result for a Final roll (and the target number, for a target table)."""
        if self.target is not None:
            if target is None:
                raise InvalidCommand(
                    f"table {self.id} rolls against a target: give `target` "
                    f"({self.target.number})",
                    rule=self.rule,
                    field="target",
                )
            return self.target.result(final, target)
        return next(band.result for band in self.bands if band.holds(final))
