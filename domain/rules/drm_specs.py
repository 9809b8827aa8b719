"""The DRM a table lists, as data: each with its id, value (or how it is computed), rule,
whether the ledger derives it or a side claims it, whom it qualifies and what excludes it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from domain.rules.base import Strict

DeriveDRM = Literal["night", "exhaustion", "exhaustion_half", "san_over", "level",
                    "enemy_cvp", "previous_date_idle",
                    "idle_dates_since_scenario", "scenarios_since_idle",
                    "attack_chits_since_idle", "attack_chits_in_cg_less_one",
                    "previous_scenario", "this_scenario"]

Condition = Literal["weather", "ec", "wind"]

DRM_ID = r"^[A-Za-z0-9][A-Za-z0-9.\-_/]{0,39}$"


class Qualifies(Strict):
    """Who a DRM applies to: every condition given must hold for the roll's subject."""

    sides: list[str] | None = None  # the rolling side is one of these
    rgs: list[str] | None = None  # the subject RG's id is one of these (e.g. "I4")
    rg_types: list[str] | None = None  # ... or its type letters are (e.g. "G", "V")
    traits: list[str] = []  # its RG chart row has every one of these (e.g. "Italian")
    any_traits: list[str] = []  # ... at least one of these
    not_traits: list[str] = []  # ... none of these (PBr 3.6181: not Airlanding)
    strength: Literal["F", "D"] | None = None  # its recorded 3.6181/9.6181 strength
    leader_rolls: list[int] | None = None  # the RG's leader roll number (3.6183: 1st)

    def needs_rg(self) -> bool:
        """True when only a roll for an RG of the Purchase Record can qualify."""
        return any((self.rgs is not None, self.rg_types is not None, self.traits,
                    self.any_traits, self.not_traits, self.strength is not None,
                    self.leader_rolls is not None))


class Count(Strict):
    """A DRM whose value the rules compute from a count the side states (3.613: per five
    hexes, FRD): value x rounded((count - less) / per)."""

    of: str  # what is counted, in the rule's words
    per: int = Field(default=1, ge=1)
    round: Literal["down", "up"] = "down"
    less: int = 0  # taken off first (per HS-equivalent > one HS: less 1)
    min: int = 0
    max: int | None = None

    def units(self, count: int) -> int:
        """How many times the DRM's value applies for this count."""
        whole, rest = divmod(count - self.less, self.per)
        return whole + (1 if rest and self.round == "up" else 0)


class DRMSpec(Strict):
    """A DRM a table lists: automatic ones the ledger derives, optional ones a side claims."""

    id: str = Field(pattern=DRM_ID)  # unique in the module, e.g. "3.6181-gv"
    kind: Literal["automatic", "optional"]
    value: int = 0  # the DRM, or per unit (derive, count)
    reason: str
    rule: str | None = None  # the table's rule when absent
    derive: DeriveDRM | None = None  # how an automatic DRM's value comes from the record
    qualifies: Qualifies = Qualifies()
    excludes: list[str] = []  # ids of the table's DRM it is never combined with
    count: Count | None = None  # an optional DRM computed from a stated count
    over: int | None = None
    per: int | None = None
    level: str | None = None
    cpp_cost: int = Field(default=0, ge=0)  # CPP spent when a side claims it (3.620 +5)
    condition: Condition | None = None  # weather, EC or wind of the previous/this scenario
    values: list[str] = []  # ... when it is one of these (e.g. "Wet", "Moist")
    doubt: str | None = None

    @model_validator(mode="after")
    def _has_what_it_needs(self) -> DRMSpec:
        def refuse(why: str) -> None:
            raise ValueError(f"DRM {self.id!r}: {why}")

        if self.kind == "optional" and self.derive is not None:
            refuse("an optional DRM is claimed, not derived: drop `derive`")
        if self.kind == "automatic" and (self.count is not None or self.cpp_cost):
            refuse("an automatic DRM has no stated count and costs nothing")
        if self.derive == "san_over" and self.over is None:
            refuse("derive 'san_over' needs `over`")
        if self.derive == "level" and not self.level:
            refuse("derive 'level' needs `level`")
        if self.derive == "enemy_cvp" and not self.per:
            refuse("derive 'enemy_cvp' needs `per`")
        if self.derive in ("previous_scenario", "this_scenario") and \
                (self.condition is None or not self.values):
            refuse(f"derive {self.derive!r} needs `condition` and `values`")
        if self.id in self.excludes:
            refuse("a DRM does not exclude itself")
        return self
