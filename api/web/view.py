"""What a campaign's home page shows a role, read from the same reads the JSON routes answer
(infra/queries.py) for that role: the page adds nothing a role's JSON read does not carry."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from api.access import DIRECTOR, OBSERVER, Caller
from api.report import in_words
from api.web.actions import BLANK_ROWS, MAX_ROWS
from api.web.kgp_view import kgp_parts
from api.web.retained_form import listed, retained_open, retained_rule
from api.web.undo_view import last_undo
from api.web.withdrawal_view import withdrawal_parts
from domain.campaign import turns
from domain.campaign.scenario import CONDITIONS, spellings
from domain.rules import Module
from domain.subjects import parse_subject
from infra.application import Refit
from infra.queries_at_head import AtHead
from projections import read

RECENT = 8  # rolls listed under the guide
SETTLED = ("confirmed", "withdrawn", "rejected")  # a report's answers that end it
JUST_DONE = 20  # records a form may append, said back on the page (a casualty: two)


def home(refit: Refit, ident: UUID, caller: Caller, rolled: range | None,
         bought: int | None = None, done: range | None = None) -> dict[str, Any]:
    """The guide page's reads for the caller: status, guide, the others' public progress,
    the latest rolls (and the one just made), what a form just recorded."""
    viewer = caller.viewer
    reads = AtHead(refit.reads, ident)  # the page's reads share one read of the campaign
    status = reads.status(ident, None, viewer)
    guide = reads.guide(ident, None, viewer)
    mine = list(guide["sides"])
    rules = reads.rules(ident)  # the data the campaign is pinned to, as its commands are
    # What another side is doing, as an observer reads it: its public rolls, no RG line.
    public = reads.guide(ident, None, OBSERVER) if caller.role != DIRECTOR else guide
    others = {side: part for side, part in public["sides"].items() if side not in mine}
    record = reads.purchase_record(ident, None, viewer)
    # the latest rolls only (a long campaign has thousands), and those just made
    rolls = reads.recent_rolls(ident, viewer, max(RECENT, len(rolled or ())))
    just_rolled = [row for row in rolls if rolled is not None and row.version in rolled]
    roster = reads.roster(ident, None, viewer)
    return {"status": status, "guide": guide, "others": others,
            "recent": list(reversed(rolls[-RECENT:])),
            "rolled": just_rolled,
            "footnotes": footnotes(rules, just_rolled),
            "bought": purchase_at(refit, ident, viewer, bought, status.version),
            "bought_now": bought_now(record, mine, guide["cg_date"]),
            "forts_now": forts_now(roster, mine, guide["cg_date"]),
            "withdrawn": withdrawn_now(roster, guide["cg_date"]),
            "done": recorded(refit, ident, viewer, done, status.version),
            "notes": option_notes(refit, status.module, mine),
            "control": control_choices(refit, status, caller.role == DIRECTOR),
            "area_form": area_form(rules, mine, status.phase, status.step),
            "module_name": rules.short_name,
            "priced_ways": [side for side, chart in rules.rg_charts.items() if chart.modes],
            "walking_wounded": rules.walking_wounded,  # its side's casualty form asks (CG19)
            # the weather, EC and wind as the module's tables word them (9.6216)
            "conditions": {name: spellings(rules, name) for name in CONDITIONS},
            "chits": chits_here(refit, status.module, status.phase, status.step),
            # the Retained units form: where, under which rules, the list each side shows
            "retained": {"open": retained_open(rules, status.phase, status.step),
                         "blank": BLANK_ROWS, "most": MAX_ROWS,
                         "rule": retained_rule(rules),
                         "items": fortification_items(rules, mine),
                         "listed": {side: listed(part.get("retained", []))
                                    for side, part in guide["sides"].items()}},
            # the reports settled on this CG Date, newest first (public, as casualties are)
            "settled": [r for r in reversed(reads.report_log(ident)) if r.cg_date ==
                        status.cg_date and r.status in SETTLED],
            "sealed": {side: sum(1 for row in record if row.side == side and row.hidden)
                       for side in others},
            # KGP's own parts: each side's Objective Hexes, Holding Box, PF, Fanaticism
            "kgp": kgp_parts(reads, ident, status, rules, mine, viewer, record),
            # the director's 3.607 forms (PBr 3.6074 withdrawals, 3.6212 * on-map units)
            "withdrawal": withdrawal_parts(rules, status, caller.role == DIRECTOR),
            "acts": caller.role != OBSERVER, "director": caller.role == DIRECTOR,
            "entered": status.dice == "entered",
            "nothing_due": not any(part["due"] for part in guide["sides"].values()),
            # the director's undo choices are on their own page (they read the history)
            "undo": {"last_undo": last_undo(reads, ident, status.version)}
            if caller.role == DIRECTOR else None}


def option_notes(refit: Refit, module: str, sides: list[str]) -> dict[str, str]:
    """A chart note's option (PBr a, e, r) as a player names it: `note a (-2 drm to the E7.2
    arrival dr)`, by the option's name, for the viewer's sides (none where the module's
    chart is not loaded)."""
    rules = refit.store.module(module)
    charts = [rules.rg_charts[side] for side in sides if side in rules.rg_charts]
    return {option.name: f"note {option.note} ({option.effect})"
            for chart in charts for option in chart.options}


def footnotes(rules: Module, rows: list[read.RollRow]) -> dict[int, list[str]]:
    """The table's notes each result shown points to ("Escapes(1)": note (1)), by version."""
    tables = {table.id: table for table in rules.tables}
    return {row.version: tables[row.table].footnotes(row.result) for row in rows
            if row.table in tables and row.result and not row.hidden}


def fortification_items(rules: Module, sides: list[str]) -> dict[str, list[str]]:
    """The Fortification Purchase Table's lines each side may buy, for a Retained
    Fortification's item (a later purchase reads it: PBr 3.619 e's Trench in a hex that
    held a Foxhole)."""
    chart = rules.fortification_chart
    return {side: [row.item for row in chart.rows if side in row.cost] if chart else []
            for side in sides}


def area_form(rules: Module, sides: list[str], phase: str, step: str | None
              ) -> dict[str, Any]:
    """What the Setup/Entry Area form on an RG's line cites (the RG Purchase Record, PBr
    3.6179), whether it is open (before the CG Date's scenario sets up), and the RG it is
    not offered for: those that bring no units to place."""
    return {"rule": rules.rg_record_rule or rules.rg_chart_rule,
            "open": rules.before_setup(phase, step),
            "unplaced": {side: {row.id for row in rules.rg_charts[side].rows if not row.placed}
                         for side in sides if side in rules.rg_charts}}


def control_choices(refit: Refit, status: read.CampaignStatus, director: bool
                    ) -> dict[str, Any]:
    """What the Control form offers now: the kinds of Location the module records Control
    of that may change now (in the CG Scenario and the RePh; a Block's only in its step,
    save by the director: ABtF 9.605, 9.6051), whether it is open (the scenario and the
    Setup Area step) or folded, and (KGP 8.2) its Map Groups for an LVP Location."""
    rules = refit.store.module(status.module)
    rule = rules.control_rule or "A26.11"
    now = status.phase in ("scenario", "reph")  # PBr 3.605: "at any time during/after"
    step = status.step if status.phase == "reph" else None
    kinds = rules.control_kinds_at(step, not director) if now else []
    groups: dict[str, str] = getattr(rules, "map_groups", {})
    return {"kinds": kinds, "rule": rule, "lvp_rule": getattr(rules, "lvp_rule", ""),
            "open": status.phase == "scenario" or status.step == rule,
            "map_groups": [(group, f"{group}: {name}") for group, name in groups.items()]}


def recorded(refit: Refit, ident: UUID, viewer: str | None, done: range | None,
             head: int) -> list[str]:
    """What the versions a form just appended recorded, in words, as the viewer reads them
    (another side's secret: a sealed fact); none for versions not in the campaign."""
    if done is None or not 0 < len(done) <= JUST_DONE or done.start < 1 \
            or done.stop - 1 > head:
        return []
    records = refit.reads.history(ident, viewer, lte=done.stop - 1, gt=done.start - 1)
    return [in_words(record) for record in records]


def bought_now(record: list[read.PurchaseRow], sides: list[str], cg_date: str
               ) -> dict[str, list[read.PurchaseRow]]:
    """What each of the viewer's sides bought this RePh (its CG Date), as its RG Purchase
    Record reads it: its own lines only (another side's are sealed, with no CG Date)."""
    return {side: [row for row in record if row.side == side and not row.hidden
                   and row.cg_date == cg_date and not row.given] for side in sides}


def forts_now(roster: list[read.RosterRow], sides: list[str], cg_date: str
              ) -> dict[str, list[dict[str, Any]]]:
    """The Fortifications each of the viewer's sides bought with FPP for this CG Date
    (3.619), as its CG Roster line reads them (another side's are sealed: none)."""
    line = next((row for row in roster if row.cg_date == cg_date), None)
    if line is None:
        return {}
    return {side: list(cell.fortifications) for side, cell in line.sides.items()
            if side in sides and cell.fortifications}


def withdrawn_now(roster: list[read.RosterRow], cg_date: str) -> dict[str, list[Any]]:
    """Each side's withdrawals on this CG Date (PBr 3.6074), as the CG Roster reads them:
    public, as the units leave the map in view."""
    line = next((row for row in roster if row.cg_date == cg_date), None)
    return {} if line is None else {side: list(cell.withdrawn)
                                    for side, cell in line.sides.items() if cell.withdrawn}


def purchase_at(refit: Refit, ident: UUID, viewer: str | None, version: int | None,
                head: int) -> dict[str, Any] | None:
    """The RG purchase recorded at `version`, as the viewer reads it (another side's is
    sealed: none), for the page to confirm what was just bought."""
    if version is None or not 1 <= version <= head:
        return None
    found = next(iter(refit.reads.history(ident, viewer, gt=version - 1)), None)
    return found["data"] if found and found["type"] == "RGPurchased" else None


def subject_label(subject: str | None) -> str:
    """A guide subject said for a person: `rg:2/sw:1` is RG line 2, SW 1."""
    if not subject or subject == "step":
        return ""
    if subject == "unit:LABEL":
        return "a unit you name"
    if subject.startswith("turn:"):  # a Game End dr's (CG4, CG23): the turn just ended
        return turns.named(parse_subject(subject))
    words = {"rg": "RG line", "sw": "SW", "leader": "leader", "unit": "unit"}
    parts = []
    for part in subject.split("/"):
        kind, _, rest = part.partition(":")
        parts.append(f"{words.get(kind, kind)} {rest}".strip())
    return ", ".join(parts)


def chits_here(refit: Refit, module_id: str, phase: str, step: str | None) -> str | None:
    """The Initiative rule, where the step is the chits' but an Initial Scenario gives
    the initiative (no chit chosen: the page says why)."""
    module = refit.store.module(module_id)
    if phase != "setup" or step not in module.command_steps.get("select_initiative", []):
        return None
    return module.initiative_rule or step


def signed(value: Any) -> str:
    """A DRM value as the rules print one: +1, -2, 0."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        return str(value)
    return f"{number:+d}" if number else "0"
