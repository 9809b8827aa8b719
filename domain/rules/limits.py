"""Numeric limits on what a side Retains, withdraws or uses, each citing its rule: HIP
(9.619 note 5, 3.619 note b), FT/DC retention (3.61427), the 3.60742 withdrawal and the
Bombardments usable per CG Scenario (PBr RG chart note i)."""

from __future__ import annotations

from typing import Literal

from domain.rules.base import Strict

# Half-squads per MMC, as "squad-equivalents" count them: a HS and a crew are half a squad.
HALVES = {"squad": 2, "HS": 1, "crew": 1}


class HIPLimit(Strict):
    """No more than `percent`% (rounded `rounding`) of a side's Retained Infantry squads
    may use HIP in a daytime CG Scenario (per Setup Area where `per_area`)."""

    rule: str
    percent: int
    rounding: Literal["FRU", "FRD"]
    per_area: bool = False
    daytime_only: bool = True
    counts: list[str] = ["squad", "HS"]  # MMC kinds counted, in squad-equivalents
    doubt: str | None = None

    def most(self, halves: int) -> int:
        """The HIP squad-equivalents allowed, in half-squads, for `halves` Retained."""
        tenths = halves * self.percent  # x100 percent, x2 halves
        whole = -(-tenths // 200) if self.rounding == "FRU" else tenths // 200
        return whole * 2


class FTDCRetention(Strict):
    """3.61427: an FT/DC removed in the scenario is Retained if its usage DR was at most
    `max_usage_dr`; per Setup/Entry Area at most one per so many elite squads."""

    rule: str
    max_usage_dr: int
    elite_squads_per: dict[str, int]  # weapon -> elite squads needed for each one
    doubt: str | None = None


class WithdrawalLimit(Strict):
    """What a side may Retain off map from a withdrawal (3.60742): leaders, squad-equivalents
    of MMC, non-captured SW; any excess is removed from play."""

    rule: str
    side: str
    leaders: int
    squad_equivalents: int
    support_weapons: int
    doubt: str | None = None


class WithdrawalOrder(Strict):
    """A withdrawal a rule orders (PBr 3.60741, 3.60742): whose units, and the CG Dates in
    whose RePh it is made (after that date's CG Scenario)."""

    rule: str
    side: str
    after: list[str]
    doubt: str | None = None


class BombardmentLimit(Strict):
    """PBr note i: the Bombardments usable per CG Scenario are as many as the new CG Dates
    since the last CG-Scenario End; none is resolved on an Idle Date."""

    rule: str
    note: str
    side: str
    rows: list[str]
    per_new_cg_date: int = 1
    doubt: str | None = None


class UnitLimits(Strict):
    """A module's limits on Retained, withdrawn and used units (each optional)."""

    hip: HIPLimit | None = None
    ft_dc: FTDCRetention | None = None
    withdrawal: list[WithdrawalLimit] = []
    withdrawal_orders: list[WithdrawalOrder] = []
    bombardment: BombardmentLimit | None = None
