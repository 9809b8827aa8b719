"""The charts' series and the dice statistics, from the reads as one role sees them: CPP
Start/Spent/Left, CVP, ELR and SAN from the CG Roster (the campaign's record) and the CVP
read, and each side's dr and DR against fair dice, counting only the rolls the role may see."""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel

from projections import read
from projections.read import DIRECTOR, RollRow, RowSource

DR_WAYS = {total: 6 - abs(total - 7) for total in range(2, 13)}  # of 36: two fair dice
SPARSE = 5  # an expected count below this makes the chi-square figure a rough one


class CPPPoint(BaseModel):
    """A side's CPP on one CG Date as the CG Roster records them (None: kept secret)."""

    cg_date: str
    start: int | None
    spent: int | None
    left: int | None
    hidden: bool
    received: int | None = None  # the CG Roster's +CPP (credited on the CG Date)
    forfeited: int | None = None  # lost as a step was left (3.617 on 14PM; 9.617)


class RatingPoint(BaseModel):
    """A side's ELR and SAN on one CG Date, as the CG Roster shows them to the viewer."""

    cg_date: str
    elr: int | None
    san: int | None


class CVPBar(BaseModel):
    """CVP each side lost in one CG Scenario (casualties are public)."""

    scenario: str
    cvp: dict[str, int]


class CVPSeries(BaseModel):
    """CVP per scenario and side, and each side's total."""

    scenarios: list[CVPBar]
    totals: dict[str, int]


class Distribution(BaseModel):
    """Original dr (1-6) or DR (2-12, the dice's sum before any DRM) against fair dice."""

    kind: str
    faces: list[int]
    observed: list[int]
    expected: list[float]
    rolls: int
    chi2: float | None  # Pearson's figure; None before any roll
    df: int
    p_value: float | None  # the chance of a figure this large from fair dice
    sparse: bool  # an expected count under 5: the chi-square approximation is rough


class SideDice(BaseModel):
    """One side's dice as the viewer may see them."""

    dr: Distribution
    DR: Distribution


class Statistics(BaseModel):
    """Every chart's series and the dice statistics, read at one point for one viewer."""

    version: int
    sides: list[str]
    cg_dates: list[str]
    cpp: dict[str, list[CPPPoint]]
    ratings: dict[str, list[RatingPoint]]
    cvp: CVPSeries
    dice: dict[str, SideDice]
    rules: dict[str, str]  # where each figure comes from, by rule number


def statistics(source: RowSource, viewer: str | None = DIRECTOR,
               purchase_rule: str | None = None) -> Statistics:
    """The series and dice statistics as `viewer` may read them; `purchase_rule` is the
    module's RG purchase rule (3.617, 9.617, ...) that lets a side keep its CPP secret."""
    source = read.read_once(source)
    status = read.status(source, viewer)
    sides = list(status.sides)
    roster = read.roster(source, viewer)
    return Statistics(
        version=status.version, sides=sides, cg_dates=[row.cg_date for row in roster],
        cpp={side: [_cpp(row, side) for row in roster] for side in sides},
        ratings={side: [RatingPoint(cg_date=row.cg_date, elr=row.sides[side].elr,
                                    san=row.sides[side].san) for row in roster]
                 for side in sides},
        cvp=_cvp(read.cvp(source), sides),
        dice=dice_by_side(read.rolls(source, viewer), sides),
        rules=_rules(purchase_rule))


def _cpp(row: read.RosterRow, side: str) -> CPPPoint:
    cell = row.sides[side]
    # Forfeited is as secret as Left (read.roster): none forfeited reads 0 where Left shows.
    forfeited = None if cell.cpp_left is None else cell.cpp_forfeited or 0
    return CPPPoint(cg_date=row.cg_date, start=cell.cpp_start, spent=cell.cpp_spent,
                    left=cell.cpp_left, hidden=cell.hidden, received=cell.cpp_credited,
                    forfeited=forfeited)


def _cvp(answer: read.CVPAnswer, sides: list[str]) -> CVPSeries:
    """One bar group per CG Scenario, in the order they were played; zero where a side
    lost nothing in it."""
    bars: dict[str, dict[str, int]] = {}
    for row in answer.scenarios:
        bars.setdefault(row.scenario, dict.fromkeys(sides, 0))[row.side] = row.cvp
    return CVPSeries(scenarios=[CVPBar(scenario=s, cvp=c) for s, c in bars.items()],
                     totals=answer.totals)


def _rules(purchase_rule: str | None) -> dict[str, str]:
    secret = f" (a side may keep Spent and Left secret, {purchase_rule})" \
        if purchase_rule else " (a side may keep Spent and Left secret)"
    return {"cpp": "CG Roster: Start, +CPP, Spent, Forfeited and Left per CG Date" + secret,
            "ratings": "CG Roster: ELR and SAN per CG Date, as announced",
            "cvp": "CVP per CG Scenario and side (casualties are public)",
            "dice": "Original dr and DR (before DRM) of every roll whose dice the reader "
                    "may see (another side's secret rolls only once revealed), against fair "
                    "dice (Pearson's chi-square)"}


def dice_by_side(rolls: list[RollRow], sides: list[str]) -> dict[str, SideDice]:
    """Each side's dr and DR distributions from the rolls a viewer reads: a roll hidden
    from it is left out altogether, so a secret roll changes nothing the opponent reads
    here. A roll a ruling voided counts: its dice fell all the same."""
    seen: dict[str, dict[str, list[int]]] = {side: {"dr": [], "DR": []} for side in sides}
    for roll in rolls:
        if not roll.hidden and roll.dice is not None and roll.kind in ("dr", "DR"):
            seen[roll.side][roll.kind].append(sum(roll.dice))
    return {side: SideDice(dr=distribution("dr", seen[side]["dr"]),
                           DR=distribution("DR", seen[side]["DR"])) for side in sides}


def distribution(kind: str, values: Sequence[int]) -> Distribution:
    """Observed counts of each face against fair dice's expectation, with Pearson's
    chi-square, its degrees of freedom (faces - 1) and p-value."""
    ways = dict.fromkeys(range(1, 7), 6) if kind == "dr" else DR_WAYS
    faces = list(ways)
    observed = [sum(1 for v in values if v == face) for face in faces]
    rolls = len(values)
    expected = [rolls * ways[face] / 36 for face in faces]
    df = len(faces) - 1
    chi2 = chi_square(observed, expected) if rolls else None
    return Distribution(kind=kind, faces=faces, observed=observed, expected=expected,
                        rolls=rolls, chi2=chi2, df=df,
                        p_value=None if chi2 is None else chi2_sf(chi2, df),
                        sparse=rolls > 0 and min(expected) < SPARSE)


def chi_square(observed: Sequence[int], expected: Sequence[float]) -> float:
    """Pearson's figure: the sum of (O - E)² / E."""
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))


def chi2_sf(x: float, df: int) -> float:
    """P(X ≥ x) for X chi-square with `df` degrees of freedom: the regularized upper
    incomplete gamma Q(df/2, x/2), summed exactly (half-integer shape: from erfc)."""
    if df < 1:
        raise ValueError("a chi-square needs at least one degree of freedom")
    if x <= 0:
        return 1.0
    half = x / 2
    if df % 2 == 0:  # Q(1, h) = e^-h; Q(s+1, h) = Q(s, h) + h^s e^-h / s!
        shape, term = 1.0, math.exp(-half)
        total = term
    else:  # Q(1/2, h) = erfc(√h); Q(s+1, h) = Q(s, h) + h^s e^-h / Γ(s+1)
        shape, term = 0.5, 0.0
        total = math.erfc(math.sqrt(half))
        if df > 1:
            term = math.exp(math.log(half) * 0.5 - half - math.lgamma(1.5))
            total += term
            shape = 1.5
    while shape < df / 2:
        term *= half / shape
        total += term
        shape += 1
    return min(1.0, total)
