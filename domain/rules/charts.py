"""Purchase charts: the sides' RG charts with their notes and prices, the SW and
Fortification charts."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from domain.errors import InvalidCommand
from domain.rules.base import Strict


class RGEffect(Strict):
    """What buying an RG does to the record at once (PBr M3: 20 FPP; M1: SAN +1)."""

    target: Literal["fpp", "cpp", "san", "elr"]
    change: int
    rule: str
    maximum: int | None = None  # a rating is never raised above it
    doubt: str | None = None


class RGRow(Strict):
    """One line of an RG chart."""

    id: str
    group_type: str
    cost: int = Field(ge=0)
    units_full: str = ""
    units_depleted: str = ""
    cg_date_max: int | None = None
    cg_max: dict[str, int | None] = {}
    kgs: list[str] | None = None  # KGs that may buy it (ABtF German); None: any
    leader_rolls: int = Field(default=1, ge=1)  # Leader Table rolls it makes (PBr coy: 3)
    leader_table: str | None = None  # the Leader Table column it rolls on (9.6183 'indicated')
    bought_by: str | None = None  # bought by rolling this table, not in 3.617 (PBr M2)
    traits: list[str] = []  # what its DRM qualify on (e.g. "Airborne", "Italian", "VG")
    effects: list[RGEffect] = []  # applied as it is bought (PBr M1, M3)
    # Its units set up in a Setup Area or enter from an Entry Area, recorded on its line
    # (3.6179). False: it brings none to place (PBr M1 Sniper, M2 Recon, M3 FPP; F1's
    # aircraft arrive per E7), and no Setup/Entry Area is recorded for it.
    placed: bool = True
    notes: list[str] = []
    doubt: str | None = None  # what the printed text leaves in doubt, and how it is read


class PurchaseLimit(Strict):
    """A chart note that limits purchases of some rows (e.g. PBr 3.6178 notes k, l, m, n)."""

    note: str
    rule: str
    kind: Literal["date_window", "per_cg_date", "per_calendar_day", "after_cg_max_reached",
                  "max_held", "per_held"]
    rows: list[str]
    per: list[str] = []  # per_held: one of `rows` held per RG of these rows (note j)
    limit: int | None = Field(default=None, ge=0)
    from_date: str | None = None  # date_window: first CG Date it may be bought
    until: str | None = None  # date_window: last CG Date it may be bought
    requires: list[str] = []  # after_cg_max_reached: rows whose CG max must be reached
    text: str = ""


def rg_letters(rg_id: str) -> str:
    """An RG id's type letters: "I1" -> "I", "HW2" -> "HW" (the charts' RG types)."""
    return rg_id.rstrip("0123456789")


class PriceMode(Strict):
    """A way to buy an RG at another price (3.6175): percent of the printed cost, rounded."""

    percent: int = Field(gt=0)
    round: Literal["down", "up"]
    prefixes: list[str]  # RG ids it applies to, by letter (e.g. "I", "G")
    printed_price_rows: list[str] = []  # rows bought this way at the printed price (note g)

    def offers(self, row_id: str) -> bool:
        """True when an RG may be bought this way (by its letter, or by a chart note)."""
        return rg_letters(row_id) in self.prefixes or row_id in self.printed_price_rows

    def price(self, row_id: str, cost: int) -> int:
        """The price of a row bought this way."""
        if row_id in self.printed_price_rows:
            return cost
        scaled, rest = divmod(cost * self.percent, 100)
        return scaled + (1 if rest and self.round == "up" else 0)


class PriceOption(Strict):
    """A chart note's option bought with an RG (PBr a, e, r): its price and what it gives."""

    name: str
    note: str
    rows: list[str]
    price: int | None = Field(default=None, ge=0)  # the RG's price with it
    percent: int | None = Field(default=None, gt=0)  # or this percent of the cost, FRU
    effect: str

    def cost(self, printed: int) -> int:
        """The RG's price bought with this option."""
        if self.price is not None:
            return self.price
        scaled, rest = divmod(printed * (self.percent or 100), 100)
        return scaled + (1 if rest else 0)


class RGChart(Strict):
    """A side's Reinforcement Group chart."""

    rule: str
    rows: list[RGRow]
    max_per_kg: bool = False  # CG Date and CG maximums count per KG (ABtF German)
    limits: list[PurchaseLimit] = []
    modes: dict[str, PriceMode] = {}  # e.g. "reserve", "on_map"; "entry" is the printed cost
    options: list[PriceOption] = []
    pricing_rule: str = ""

    def row(self, rg: str) -> RGRow:
        """The chart line for an RG id, or a clear error."""
        for row in self.rows:
            if row.id == rg:
                return row
        raise InvalidCommand(f"RG {rg!r} is not on the RG chart", rule=self.rule, field="rg")


class SWAllotment(Strict):
    """SW an Infantry-type RG receives (9.6182): all when Full; each on a dr <= `depleted`
    when Depleted. `choose` names a table that first decides which SW it is."""

    sw: str
    count: int = Field(ge=1)
    depleted: int = Field(ge=1, le=6)
    full: int | None = Field(default=None, ge=1, le=6)  # a Full RG too rolls, dr <= this
    choose: str | None = None


class SWChart(Strict):
    """A side's Infantry-Type SW Chart (e.g. 9.6182): RG id to its SW."""

    rule: str
    rows: dict[str, list[SWAllotment]]
    minimum: dict[str, int] = {}  # RG that roll all their SW again until this many (3.6182)
    doubts: list[str] = []


class FortificationNeed(Strict):
    """A Fortification's precondition, from its table note: a unit Retained now (3.619 d:
    an airborne MMC), or another Fortification in its hex on the previous CG Date (e)."""

    note: str
    retained_kinds: list[str] = []  # one Retained unit of these kinds ...
    airborne: bool = False  # ... that is airborne
    previous_in_hex: list[str] = []  # one of these items in the hex on an earlier CG Date


class FortificationRow(Strict):
    """A line of a Fortification Purchase Table (e.g. 9.619): FPP per side, limits."""

    item: str
    cost: dict[str, int]  # FPP per side; a side not listed may not buy it
    per_cg_date: int | None = None
    per_cg: int | None = None
    per_cg_by_side: dict[str, int] = {}  # a limit for one side only (3.619 f: Axis 5)
    front_line: bool = False  # "F": may be set up in a Front Line Location
    notes: list[str] = []
    needs: FortificationNeed | None = None  # what the side must hold first (3.619 d, e)


class FortificationChart(Strict):
    """A module's Fortification Purchase Table."""

    rule: str
    rows: list[FortificationRow]

    def row(self, item: str) -> FortificationRow:
        """The line for an item, or an error naming what the table has."""
        wanted = item.strip().casefold()
        for row in self.rows:
            if row.item.casefold() == wanted:
                return row
        names = ", ".join(row.item for row in self.rows)
        raise InvalidCommand(f"{item!r} is not on the Fortification Purchase Table ({names})",
                             rule=self.rule, field="reason")
