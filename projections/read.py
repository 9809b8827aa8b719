"""Reading the projections: answer models, and what a viewer may see of each row."""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from domain.modules.kgp.rules import pf_text
from projections.rows import (
    CASUALTY,
    CONTROL,
    CVP,
    ELR,
    HOLDING,
    LVP,
    META,
    OBJECTIVE,
    PURCHASE,
    REPORT,
    RETAINED,
    ROLL,
    ROSTER,
    SAN,
    STEP,
)

DIRECTOR = None  # a viewer of None sees everything (director, or the operator's CLI)


class RowSource(Protocol):
    """Rows of one campaign, from the view or from memory."""

    def select_rows(self, kind: str) -> list[dict[str, Any]]:
        """The rows of a kind, in order."""


class RosterCell(BaseModel):
    """One side's part of a CG Roster line (None where hidden from the viewer)."""

    cpp_start: int | None
    cpp_credited: int | None
    cpp_spent: int | None
    cpp_left: int | None
    rg_purchased: list[dict[str, Any]] | None
    fpp: int | None
    fortifications: list[dict[str, Any]] | None
    elr: int | None
    san: int | None
    chit: str | None
    ww_received: dict[str, Any] | None = None  # CG19 Walking Wounded MMC (public)
    recon: int | None = None  # Locations to reconnoitre next scenario (3.620, public)
    recon_cpp: int | None = None  # CPP spent on Recon: off Left into the next Start (3.620)
    cpp_forfeited: int | None = None  # CPP lost as a step was left (3.617 on 14PM; 9.617)
    fpp_forfeited: int | None = None  # FPP unspent as 3.619 / 9.619 ended
    cpp_forgone: int | None = None  # CPP forgone (3.616 EXC), open to both sides
    withdrawn: list[dict[str, Any]] = []  # units a rule removed from play (PBr 3.6074)
    lvp_current: int | None = None  # KGP 8.2: Current-LVP Total at CG-Scenario End
    lvp_cg: int | None = None  # KGP 8.2: CG-LVP Total
    hidden: bool


class RosterRow(BaseModel):
    """One CG Date of the CG Roster."""

    cg_date: str
    scenario_type: str | None
    weather: str | None
    ec: str | None = None
    wind: str | None = None
    scenario_played: bool
    levels: dict[str, int] = {}
    sets_up_first: str | None = None  # 3.6213 (a dr in a Dual Attack; else the matrix)
    moves_first: str | None = None  # 3.623
    sides: dict[str, RosterCell]


class PurchaseRow(BaseModel):
    """One RG of the RG Purchase Record (#P purchased so far, #R remaining)."""

    purchase: int
    side: str
    hidden: bool = False
    cg_date: str | None = None
    rg: str | None = None
    kg: str | None = None
    group_type: str | None = None
    cpp: int | None = None
    p: int | None = None
    r: int | None = None
    strength: str | None = None
    units: str | None = None
    sw: list[str] | None = None
    leader: str | None = None
    composition: str | None = None
    given: str | None = None
    mode: str | None = None  # entry, reserve, on_map (PBr 3.6175); paradrop (OB-given)
    setup_area: str | None = None  # Setup/Entry Area ID: the OB's, or the side's (3.6179)
    reserve: bool = False  # sets up in Reserve (KGP CG7a)
    option: str | None = None  # a chart note's option (PBr a, e)
    removed: str | None = None  # when and why it left the OB
    sw_received: dict[str, int] | None = None  # the number of each SW type (3.6182)
    leaders: list[str] | None = None  # each leader's Strength Factor, e.g. "9-1" (3.6183)
    casualties: list[dict[str, Any]] | None = None  # its units lost: unit, CVP, scenario
    amended: list[dict[str, Any]] = []  # a director's rulings that amended the line


class RetainedRow(BaseModel):
    """One line of a side's Retained units on a CG Date (3.6055, 3.613, 3.619)."""

    cg_date: str
    side: str
    unit: str
    count: int
    area: str
    purchase: int | None = None  # its RG line: only its own side sees it (3.6179)
    hex: str | None = None
    fortification: bool = False
    hip: bool = False
    off_map: bool = False
    isolated: bool = False
    shifted_from: str | None = None
    kind: str | None = None  # squad, HS, crew, leader, SMC, SW, gun, vehicle (the limits')
    elite: bool = False
    airborne: bool = False
    weapon: str | None = None  # FT or DC (3.61427)
    usage_dr: int | None = None  # the usage DR that removed it, kept by 3.61427
    item: str | None = None  # a Fortification's table item (3.619)
    secret: bool = False  # sealed to its side (HIP, Fortifications, off map)


class CVPRow(BaseModel):
    """CVP lost by a side in one CG Scenario (and its RePh)."""

    scenario: str
    side: str
    cvp: int
    casualties: list[dict[str, Any]]


class CVPAnswer(BaseModel):
    """CVP per scenario and side, and each side's total lost."""

    scenarios: list[CVPRow]
    totals: dict[str, int]


class RatingChange(BaseModel):
    """One ELR (or SAN) change with its cause."""

    version: int
    cg_date: str
    side: str
    before: int | None
    after: int
    cause: str
    rule: str | None


class ReportRow(BaseModel):
    """A report between the sides and how it was answered, public as casualties and
    control are: `status` awaiting, disputed, confirmed, withdrawn (by its side) or
    rejected (by the director), `answered_by` a side or the director."""

    report: int
    kind: str
    by: str
    what: str
    cg_date: str
    status: str
    answered_by: str | None
    reason: str | None
    version: int
    answered_at: int | None


class ELRAnswer(BaseModel):
    """ELR per side now, and each change with its cause."""

    current: dict[str, int | None]
    changes: list[RatingChange]


class RollRow(BaseModel):
    """One roll as the viewer may see it (CONTRACT `/rolls`)."""

    version: int
    timestamp: str
    side: str
    secret: bool
    hidden: bool = False
    key: str | None = None
    rule: str | None = None
    table: str | None = None
    title: str | None = None
    kind: str | None = None
    subject: str | None = None
    dice: list[int] | None = None
    original: int | None = None
    drm: list[dict[str, Any]] | None = None
    final: int | None = None
    target: int | None = None
    result: str | None = None
    cg_date: str | None = None
    step: str | None = None
    entered_by: str | None = None
    actor: str | None = None
    rulings: list[dict[str, Any]] = []  # the director's rulings on this roll
    voided: dict[str, Any] | None = None  # the ruling that voided it, if one did
    reroll: dict[str, Any] | None = None  # the director's re-roll this roll was made under


class CampaignStatus(BaseModel):
    """Where the campaign stands: CG Date, RePh step, and each side's points and ratings."""

    id: str
    module: str
    cg: str
    name: str
    dice: str
    cg_date: str
    phase: str
    step: str | None
    version: int
    seed_commitment: str | None
    seed: str | None
    levels: dict[str, int] = {}
    sides: dict[str, dict[str, int | None]]
    to_roll: list[str] = []  # rolls the current RePh step waits for (e.g. "9.6162 German")
    reports: list[dict[str, Any]] = []  # casualty/control reports awaiting an answer
    disputes: list[dict[str, Any]] = []  # the sides' roll disputes awaiting a ruling
    head_hash: str | None = None  # the hash the next event will name
    module_data: str | None = None  # the content hash of the module data it plays (pinned)
    balance: str | None = None  # the side given the CG Balance (KGP 8.31)
    pf: dict[str, str] = {}  # KGP CG13: PF available, e.g. "7½"
    fanaticism: list[str] = []  # KGP CG14: the scenarios declared Fanatic
    massacre: str | None = None  # KGP CG4: the side that massacred
    entry_areas: dict[str, list[str]] = {}  # Eligible Entry Areas per side (KGP CG6c)
    off_map: list[str] = []  # the sides recorded with no on-map Retained units (3.6212 *)


class LVPRow(BaseModel):
    """KGP 8.2: LVP totals at one CG-Scenario End."""

    cg_date: str
    current: dict[str, int]
    by_map_group: dict[str, dict[str, int]]
    cg_total: dict[str, int]
    rule: str


class HoldingRow(BaseModel):
    """A Holding Box entry (KGP 8.15): units held in an Entry Area's box, or leaving it."""

    version: int
    cg_date: str
    side: str
    entry_area: str
    units: str
    held: bool  # False: they left the Holding Box (entered play)


class ObjectiveRow(BaseModel):
    """An Objective Hex (KGP 8.6198): secret to its side until revealed."""

    side: str
    hex: str | None = None
    purchase: int | None = None
    cg_date: str | None = None
    revealed: bool = False
    revealed_on: str | None = None


def _meta(source: RowSource) -> dict[str, Any]:
    rows = source.select_rows(META)
    if not rows:
        raise LookupError("no such campaign in the projection")
    return rows[0]


def _sees(meta: dict[str, Any], viewer: str | None, owner: str | None) -> bool:
    return viewer is DIRECTOR or meta["all_revealed"] or owner == viewer


def status(source: RowSource, viewer: str | None = DIRECTOR) -> CampaignStatus:
    """The campaign's state as the projection holds it."""
    meta = _meta(source)
    sides = {
        side: {
            "cpp": meta["cpp"][side] if _sees(meta, viewer, side) else None,
            "fpp": meta["fpp"][side] if _sees(meta, viewer, side) else None,
            "elr": _rating(meta, "elr", side, viewer),
            "san": _rating(meta, "san", side, viewer),
        }
        for side in meta["sides"]
    }
    return CampaignStatus(
        id=meta["campaign"], module=meta["module"], cg=meta["cg"], name=meta["name"],
        dice=meta["dice"], cg_date=meta["cg_date"], phase=meta["phase"], step=meta["step"],
        version=meta["version"], seed_commitment=meta["seed_commitment"], seed=meta["seed"],
        levels=meta.get("levels", {}), sides=sides, balance=meta.get("balance"),
        pf={side: pf_text(h) for side, h in meta.get("pf_halves", {}).items()
            if h and meta.get("pf_date", {}).get(side) == meta["cg_date"]},  # CG13
        fanaticism=meta.get("fanaticism", []), massacre=meta.get("massacre"),
    )


def _rating(meta: dict[str, Any], kind: str, side: str, viewer: str | None) -> int | None:
    """A side's ELR or SAN as the viewer may know it: while a change a secret purchase made
    waits to be announced (3.623), others see the value before it."""
    shown: dict[str, int | None] = meta.get(f"shown_{kind}", {})
    if side in shown and not _sees(meta, viewer, side):
        return shown[side]
    rating: int | None = meta[kind][side]
    return rating


def roster(source: RowSource, viewer: str | None = DIRECTOR) -> list[RosterRow]:
    """The CG Roster, one row per CG Date."""
    meta = _meta(source)
    return [_roster_row(meta, row, viewer) for row in source.select_rows(ROSTER)]


def _roster_row(meta: dict[str, Any], row: dict[str, Any], viewer: str | None) -> RosterRow:
    cells = {}
    for side, cell in row["sides"].items():
        shown = dict(cell)
        # CPP spent and left, RG and Fortifications bought may all be kept secret (9.617):
        # the other side never sees a side's points, whatever made them move.
        hide = not _sees(meta, viewer, side)
        if hide:
            for field in ("cpp_start", "cpp_credited", "cpp_spent", "cpp_left",
                          "rg_purchased", "fpp", "fortifications", "recon_cpp",
                          "cpp_forfeited", "fpp_forfeited"):
                shown[field] = None
            shown |= cell.get("shown", {})  # a SAN not announced yet (3.623)
        if not row["chits_revealed"] and not _sees(meta, viewer, side):
            shown["chit"] = None
        shown["hidden"] = hide
        cells[side] = RosterCell.model_validate(shown)
    return RosterRow(cg_date=row["cg_date"], scenario_type=row["scenario_type"],
                     weather=row["weather"], ec=row.get("ec"), wind=row.get("wind"),
                     scenario_played=row["scenario_played"],
                     levels=row.get("levels", {}), sets_up_first=row.get("sets_up_first"),
                     moves_first=row.get("moves_first"), sides=cells)


def purchases(source: RowSource, viewer: str | None = DIRECTOR) -> list[PurchaseRow]:
    """The RG Purchase Record, one row per RG."""
    meta = _meta(source)
    out = []
    for row in source.select_rows(PURCHASE):
        if _sees(meta, viewer, row["side"]):
            out.append(PurchaseRow.model_validate(row | _received(row)))
        elif row["secret_for"] is None:  # OB-given: the OB is public, the side's rolls not
            out.append(PurchaseRow.model_validate(
                {k: v for k, v in row.items() if k in _PUBLIC_LINE}))
        else:
            out.append(PurchaseRow(purchase=row["purchase"], side=row["side"], hidden=True))
    return out


_PUBLIC_LINE = {"purchase", "side", "cg_date", "rg", "kg", "group_type", "given", "mode",
                "setup_area"}  # what an OB prints of a given RG (3.6179)


def _received(row: dict[str, Any]) -> dict[str, Any]:
    """3.6179's SW Received (the number of each type), Leader(s) (each one's Strength
    Factor) and Setup/Entry Area (the side's, secret, else the OB's), for its side."""
    counted: dict[str, int] = {}
    for weapon in row.get("sw") or []:
        counted[weapon] = counted.get(weapon, 0) + 1
    leader = row.get("leader")
    return {"sw_received": counted or None,
            "leaders": leader.split(", ") if leader else None,
            "setup_area": row.get("recorded_area") or row.get("setup_area")}


def retained(source: RowSource, viewer: str | None = DIRECTOR) -> list[RetainedRow]:
    """Each side's Retained units per CG Date; of another side's, only the open part, and
    not the RG line each came with (the RG Purchase Record is secret, 3.6172)."""
    meta, out = _meta(source), []
    for row in source.select_rows(RETAINED):
        sees = _sees(meta, viewer, row["side"])
        if row["secret_for"] is not None and not sees:
            continue
        for unit in row["units"]:
            line = unit | {"cg_date": row["cg_date"], "side": row["side"],
                           "secret": row["secret_for"] is not None}
            out.append(RetainedRow.model_validate(line if sees else line | {"purchase": None}))
    return out


def cvp(source: RowSource) -> CVPAnswer:
    """CVP per scenario and side, with totals (casualties are public)."""
    meta = _meta(source)
    lost: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for one in source.select_rows(CASUALTY):  # in the order they were recorded
        lost.setdefault((one["scenario"], one["side"]), []).append(
            {name: one[name] for name in ("unit", "cvp", "ww_half_squads", "version")})
    rows = [CVPRow.model_validate(row | {"casualties": lost.get((row["scenario"],
                                                                  row["side"]), [])})
            for row in source.select_rows(CVP)]
    totals = dict.fromkeys(meta["sides"], 0)
    for row in rows:
        totals[row.side] += row.cvp
    return CVPAnswer(scenarios=rows, totals=totals)


def elr(source: RowSource) -> ELRAnswer:
    """ELR per side now, and each change with its cause."""
    meta = _meta(source)
    changes = [RatingChange.model_validate(row) for row in source.select_rows(ELR)]
    return ELRAnswer(current=meta["elr"], changes=changes)


def san(source: RowSource, viewer: str | None = DIRECTOR) -> list[RatingChange]:
    """Each SAN change with its cause; one a secret purchase made (M1) only to its side,
    the others reading its announcement (3.623) in its place."""
    meta = _meta(source)
    return [RatingChange.model_validate(row) for row in source.select_rows(SAN)
            if (row.get("secret_for") is None or _sees(meta, viewer, row["secret_for"]))
            and not (row.get("others_of") and _sees(meta, viewer, row["others_of"]))]


def reports(source: RowSource) -> list[ReportRow]:
    """Every report between the sides, oldest first, with how it was answered."""
    return [ReportRow.model_validate(row) for row in source.select_rows(REPORT)]


def rolls(source: RowSource, viewer: str | None = DIRECTOR,
          last: int | None = None) -> list[RollRow]:
    """Every roll (or the `last` ones); a secret one shows only its side and time to those
    it is kept from."""
    meta = _meta(source)
    out = []
    for row in _rows(source, ROLL, last):
        if not row["secret"] or _sees(meta, viewer, row["secret_for"]):
            out.append(RollRow.model_validate(row))
        else:
            out.append(RollRow(version=row["version"], timestamp=row["timestamp"],
                               side=row["side"], secret=True, hidden=True,
                               rulings=[public_ruling(r) for r in row.get("rulings", [])]))
    return out


def _rows(source: RowSource, kind: str, last: int | None) -> list[dict[str, Any]]:
    """A kind's rows, or its `last` ones, read alone where the source can."""
    if last is None:
        return source.select_rows(kind)
    pick = getattr(source, "select_last_rows", None)
    return pick(kind, last) if pick is not None else source.select_rows(kind)[-last:]


def public_ruling(ruling: dict[str, Any]) -> dict[str, Any]:
    """A ruling on a secret roll as those it is kept from read it: its verdict, reason
    and the kinds of its corrections, not the figures that would tell the secret."""
    return {k: v for k, v in ruling.items() if k not in ("final", "result", "drm")}


def lvp(source: RowSource) -> list[LVPRow]:
    """LVP totals at each CG-Scenario End (public)."""
    return [LVPRow.model_validate(row) for row in source.select_rows(LVP)]


def objectives(source: RowSource, viewer: str | None = DIRECTOR) -> list[ObjectiveRow]:
    """Objective Hexes; another side sees one only once it is revealed (8.2). Not even that
    one was designated: each "I"/"HW" RG allows one, so a count would tell the opponent
    what the side's secret RG purchases were (3.617, 8.6198)."""
    meta, out = _meta(source), []
    for row in source.select_rows(OBJECTIVE):
        if _sees(meta, viewer, row["side"]):
            out.append(ObjectiveRow.model_validate(row))
        elif row["secret_for"] is None:  # revealed: where, not which RG designated it
            out.append(ObjectiveRow.model_validate(row | {"purchase": None, "cg_date": None}))
    return out


def holding(source: RowSource, viewer: str | None = DIRECTOR) -> list[HoldingRow]:
    """Holding Box entries, each side's own (KGP 8.15): another side's are secret, not
    even counted (8.15: "can be kept secret")."""
    meta = _meta(source)
    return [HoldingRow.model_validate(row) for row in source.select_rows(HOLDING)
            if _sees(meta, viewer, row["side"])]


def control(source: RowSource) -> list[dict[str, Any]]:
    """Who controls each Location whose control was recorded."""
    return source.select_rows(CONTROL)


class PaperForms(BaseModel):
    """What the paper forms print, read at one point for one viewer."""

    model_config = ConfigDict(frozen=True)

    name: str
    module: str
    cg: str
    version: int
    roster: list[RosterRow]
    module_name: str = ""  # as players write it ("PBr"), where the reader knows the module
    purchases: list[PurchaseRow]
    cvp: CVPAnswer
    elr: ELRAnswer
    retained: list[RetainedRow] = []


class _Once:
    """A row source that selects each kind of row once (each form reads the meta row)."""

    def __init__(self, source: RowSource) -> None:
        self.source = source
        self.kept: dict[str, list[dict[str, Any]]] = {}

    def select_rows(self, kind: str) -> list[dict[str, Any]]:
        if kind not in self.kept:
            self.kept[kind] = self.source.select_rows(kind)
        return self.kept[kind]


def read_once(source: RowSource) -> RowSource:
    """A row source that selects each kind of row once, for an answer made of several reads."""
    return _Once(source)


def paper_forms(source: RowSource, viewer: str | None = DIRECTOR) -> PaperForms:
    """The CG Roster, RG Purchase Record, CVP, ELR and Retained units, as the viewer may
    read them."""
    rows = _Once(source)
    meta = _meta(rows)
    return PaperForms(name=meta["name"], module=meta["module"], cg=meta["cg"],
                      version=meta["version"], roster=roster(rows, viewer),
                      purchases=purchases(rows, viewer), cvp=cvp(rows), elr=elr(rows),
                      retained=retained(rows, viewer))


class StepRow(BaseModel):
    """A RePh step (or CG Scenario) done: the versions it began and ended at."""

    cg_date: str
    step: str
    entered: int
    left: int


def steps(source: RowSource) -> list[StepRow]:
    """Every step done, in order (public: the RePh's pace is open to both sides)."""
    return [StepRow.model_validate(row) for row in source.select_rows(STEP)]
