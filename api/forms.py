"""The paper forms as CSV and as one printable HTML page (Roster, Purchases, CVP, ELR)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from projections.read import (
    CVPAnswer,
    ELRAnswer,
    PaperForms,
    PurchaseRow,
    RetainedRow,
    RosterRow,
)

SECRET = "(secret)"  # a cell the rules let another side keep from this viewer
FORMS = ("roster", "purchases", "cvp", "elr", "retained", "html")


@dataclass(frozen=True)
class Column:
    """A form column: its label, how to read it, whether it may be kept secret or left out."""

    label: str
    get: Callable[[Any], Any]
    secret: bool = False  # None on a hidden line is a secret, not an empty cell
    optional: bool = False  # left out when no line has a value (module-specific columns)


@dataclass
class Grid:
    """A form as text cells: fixed columns, column groups (one per side), body and totals."""

    fixed: list[str]
    groups: list[tuple[str, list[str]]]
    body: list[list[str]]
    foot: list[list[str]] = field(default_factory=list)

    def header(self) -> list[str]:
        """One header line: a group's columns named `SIDE label`."""
        return self.fixed + [f"{side} {label}" for side, labels in self.groups
                             for label in labels]


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    return str(value)


def _cell(column: Column, item: Any, hidden: bool) -> str:
    """A cell's text: `(secret)` where a hidden line's secret column is None."""
    value = None if item is None else column.get(item)
    if value is None and hidden and column.secret:
        return SECRET
    return _text(value)


def _kept(columns: Sequence[Column], items: Iterable[tuple[Any, bool]]) -> list[Column]:
    """The columns to print: every required one, and each optional one some line fills."""
    pairs = list(items)
    return [c for c in columns if not c.optional
            or any(_cell(c, item, hidden) not in ("", SECRET) for item, hidden in pairs)]


def _each(items: list[dict[str, Any]] | None, fmt: Callable[[dict[str, Any]], str]) -> Any:
    return None if items is None else "; ".join(fmt(item) for item in items)


def _withdrawn(withdrawal: dict[str, Any]) -> str:
    """Units withdrawn: each kind with its count (3.60742), or the text recorded before."""
    units = withdrawal.get("units")
    if not isinstance(units, list):
        return str(units)
    return ", ".join(f"{u['count']} {u.get('unit') or u['kind']}"
                     f"{' (captured)' if u.get('captured') else ''}" for u in units)


def bought(rg: dict[str, Any]) -> str:
    """An RG purchased as the CG Roster prints it: `I5 14 CPP`."""
    kg = f"({rg['kg']})" if rg.get("kg") else ""
    return f"{rg.get('rg')}{kg} {_text(rg.get('cpp'))} CPP"


def _fortification(item: dict[str, Any]) -> str:
    count, where = item.get("count", 1), item.get("hex")
    return (f"{item.get('item')}{f' x{count}' if count != 1 else ''}"
            f"{f' in {where}' if where else ''} {_text(item.get('fpp'))} FPP")


ROW_COLUMNS = (
    Column("CG Date", lambda r: r.cg_date),
    Column("Scenario", lambda r: r.scenario_type),
    Column("Weather", lambda r: ", ".join(filter(None, (r.weather, r.ec, r.wind)))),
    Column("Played", lambda r: "yes" if r.scenario_played else "no"),
    Column("Levels", lambda r: "; ".join(f"{k} {v}" for k, v in r.levels.items()),
           optional=True),
    Column("Sets up first", lambda r: r.sets_up_first, optional=True),  # 3.6213
    Column("Moves first", lambda r: r.moves_first, optional=True),  # 3.623
)

# The chit is no column of secrets: a blank chit is all a viewer may know of one not shown.
SIDE_COLUMNS = (
    Column("CPP start", lambda c: c.cpp_start, secret=True),
    Column("+CPP", lambda c: c.cpp_credited, secret=True),
    Column("CPP spent", lambda c: c.cpp_spent, secret=True),
    Column("CPP left", lambda c: c.cpp_left, secret=True),
    # Zero is no entry: the column is printed once some line has one.
    Column("CPP forfeited", lambda c: c.cpp_forfeited or None, secret=True, optional=True),
    Column("CPP forgone", lambda c: c.cpp_forgone or None, optional=True),
    Column("Recon CPP", lambda c: c.recon_cpp or None, secret=True, optional=True),
    Column("RG purchased", lambda c: _each(c.rg_purchased, bought), secret=True),
    Column("FPP", lambda c: c.fpp, secret=True),
    Column("Fortifications", lambda c: _each(c.fortifications, _fortification), secret=True),
    Column("FPP forfeited", lambda c: c.fpp_forfeited or None, secret=True, optional=True),
    Column("ELR", lambda c: c.elr),
    Column("SAN", lambda c: c.san),
    Column("Chit", lambda c: c.chit),
    Column("Recon", lambda c: c.recon, optional=True),
    Column("WW", lambda c: (c.ww_received or {}).get("count"), optional=True),
    Column("Withdrawn", lambda c: _each(c.withdrawn, _withdrawn), optional=True),
    Column("Current-LVP", lambda c: c.lvp_current, optional=True),
    Column("CG-LVP", lambda c: c.lvp_cg, optional=True),
)

PURCHASE_COLUMNS = (
    Column("#", lambda p: p.purchase),
    Column("Side", lambda p: p.side),
    Column("CG Date", lambda p: p.cg_date, secret=True),
    Column("RG", lambda p: p.rg and p.rg + (f"({p.kg})" if p.kg else ""), secret=True),
    Column("Group type", lambda p: p.group_type, secret=True),
    Column("Mode", lambda p: p.mode, secret=True),
    Column("CPP", lambda p: p.cpp, secret=True),
    Column("#P", lambda p: p.p, secret=True),
    Column("#R", lambda p: p.r, secret=True),
    Column("F/D", lambda p: p.strength, secret=True),
    Column("Units", lambda p: p.units, secret=True),
    Column("SW Received", lambda p: _counts(p.sw_received), secret=True),  # 3.6182
    Column("Leader(s)", lambda p: p.leaders, secret=True),  # Strength Factors (3.6183)
    Column("Setup/Entry Area", lambda p: p.setup_area, secret=True),  # 3.6179
    Column("Composition", lambda p: p.composition, optional=True),
    Column("Given", lambda p: p.given, optional=True),
    Column("Option", lambda p: p.option, optional=True),
    Column("Reserve", lambda p: p.reserve, optional=True),
    Column("Removed", lambda p: p.removed, optional=True),
    Column("Casualties", lambda p: _each(p.casualties, lambda c: (
        f"{c.get('unit')} ({_text(c.get('cvp'))} CVP, {c.get('scenario')})")), optional=True),
)

RETAINED_COLUMNS = (
    Column("CG Date", lambda u: u.cg_date),
    Column("Side", lambda u: u.side),
    Column("Unit", lambda u: u.unit),
    Column("Count", lambda u: u.count),
    Column("Setup/Entry Area", lambda u: u.area),
    Column("RG #", lambda u: u.purchase, optional=True),
    Column("Hex", lambda u: u.hex, optional=True),
    Column("HIP", lambda u: u.hip, optional=True),
    Column("Fortification", lambda u: u.fortification, optional=True),
    Column("Off map", lambda u: u.off_map, optional=True),
    Column("Isolated", lambda u: u.isolated, optional=True),
    Column("Shifted from", lambda u: u.shifted_from, optional=True),
)

ELR_HEADER = ["v", "CG Date", "Side", "From", "To", "Cause", "Rule"]


def _counts(received: dict[str, int] | None) -> str | None:
    return None if received is None else ", ".join(f"{n} {sw}" for sw, n in received.items())


def roster_grid(rows: Sequence[RosterRow]) -> Grid:
    """The CG Roster: one line per CG Date, one column group per side."""
    sides = list(dict.fromkeys(side for row in rows for side in row.sides))
    fixed = _kept(ROW_COLUMNS, ((row, False) for row in rows))
    per_side = _kept(SIDE_COLUMNS, ((c, c.hidden) for row in rows for c in row.sides.values()))
    body = []
    for row in rows:
        line = [_cell(col, row, False) for col in fixed]
        for side in sides:
            cell = row.sides.get(side)
            line += [_cell(col, cell, cell is not None and cell.hidden) for col in per_side]
        body.append(line)
    return Grid([c.label for c in fixed], [(s, [c.label for c in per_side]) for s in sides],
                 body)


def purchases_grid(rows: Sequence[PurchaseRow]) -> Grid:
    """The RG Purchase Record: one line per RG, `(secret)` on another side's lines."""
    columns = _kept(PURCHASE_COLUMNS, ((row, row.hidden) for row in rows))
    return Grid([c.label for c in columns], [],
                [[_cell(c, row, row.hidden) for c in columns] for row in rows])


def retained_grid(rows: Sequence[RetainedRow]) -> Grid:
    """The Retained units: one line per unit type, side and CG Date."""
    columns = _kept(RETAINED_COLUMNS, ((row, False) for row in rows))
    return Grid([c.label for c in columns], [],
                [[_cell(c, row, False) for c in columns] for row in rows])


def _casualties(casualties: list[dict[str, Any]]) -> str:
    return "; ".join(f"{c.get('unit')} ({_text(c.get('cvp'))})"
                     + (f" (WW {c['ww_half_squads']} HS)" if c.get("ww_half_squads") else "")
                     for c in casualties)


def cvp_grid(answer: CVPAnswer) -> Grid:
    """CVP per CG Scenario (a line) and side (a column group), then the totals line."""
    sides = list(dict.fromkeys([*answer.totals, *(r.side for r in answer.scenarios)]))
    lines: dict[str, dict[str, list[str]]] = {}
    for row in answer.scenarios:
        lines.setdefault(row.scenario, {})[row.side] = [str(row.cvp),
                                                       _casualties(row.casualties)]
    body = [[scenario, *(v for side in sides for v in by_side.get(side, ["", ""]))]
            for scenario, by_side in lines.items()]
    foot = [["Total", *(v for side in sides for v in (str(answer.totals.get(side, 0)), ""))]]
    return Grid(["Scenario"], [(side, ["CVP", "casualties"]) for side in sides], body, foot)


def elr_grid(answer: ELRAnswer) -> Grid:
    """Each ELR change, with its cause and rule."""
    return Grid(list(ELR_HEADER), [],
                [[str(c.version), c.cg_date, c.side, _text(c.before), str(c.after), c.cause,
                  _text(c.rule)] for c in answer.changes])


def _csv(grid: Grid) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([inert(cell) for cell in grid.header()])
    writer.writerows([inert(cell) for cell in row] for row in grid.body + grid.foot)
    return out.getvalue()


FORMULA = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"^[+-]?[0-9]+(\.[0-9]+)?$")


def inert(cell: str) -> str:
    """A cell a spreadsheet cannot run as a formula (OWASP CSV injection): text that starts
    as one does is prefixed with a single quote; a plain number (-1) stays a number."""
    if cell.startswith(FORMULA) and not NUMBER.match(cell):
        return "'" + cell
    return cell


def roster_csv(rows: Sequence[RosterRow]) -> str:
    """The CG Roster as CSV: a line per CG Date; columns `SIDE CPP start`, ... per side."""
    return _csv(roster_grid(rows))


def purchases_csv(rows: Sequence[PurchaseRow]) -> str:
    """The RG Purchase Record as CSV: a line per RG."""
    return _csv(purchases_grid(rows))


def retained_csv(rows: Sequence[RetainedRow]) -> str:
    """The Retained units as CSV: a line per unit type, side and CG Date."""
    return _csv(retained_grid(rows))


def cvp_csv(answer: CVPAnswer) -> str:
    """CVP as CSV: a line per CG Scenario, `SIDE CVP` and `SIDE casualties`, a Total line."""
    return _csv(cvp_grid(answer))


def elr_csv(answer: ELRAnswer) -> str:
    """The ELR history as CSV: a line per change with its cause."""
    return _csv(elr_grid(answer))


CSS = """
body{font:10pt/1.3 Georgia,"Times New Roman",serif;margin:1.5em;color:#000;background:#fff}
h1{font-size:16pt;margin:0}
p.sub{margin:.2em 0 1em;font-style:italic}
h2{font-size:12pt;border-bottom:2px solid #000;margin:1.4em 0 .4em}
table{border-collapse:collapse;width:100%;font-size:8.5pt}
th,td{border:1px solid #000;padding:2px 4px;text-align:left;vertical-align:top}
thead th{background:#e4e4e4}
th.group{text-align:center}
td.num{text-align:right}
td.secret{color:#555;font-style:italic}
tfoot td{font-weight:bold;border-top:2px solid #000}
@page{size:landscape;margin:10mm}
@media print{
 body{margin:0;font-size:9pt}
 thead{display:table-header-group}
 thead th{background:none}
 h2{break-after:avoid}
 tr{break-inside:avoid}
 section.page{break-before:page}
}
"""


def cell_class(text: str) -> str:
    """A printed cell's class: a secret, a number (right-aligned), or plain text."""
    return "secret" if text == SECRET else "num" if text.lstrip("-").isdigit() else ""


def _td(text: str) -> str:
    cls = cell_class(text)
    return f'<td class="{cls}">{escape(text)}</td>' if cls else f"<td>{escape(text)}</td>"


def _thead(grid: Grid) -> str:
    if not grid.groups:
        return "<tr>" + "".join(f"<th>{escape(h)}</th>" for h in grid.fixed) + "</tr>"
    top = "".join(f'<th rowspan="2">{escape(h)}</th>' for h in grid.fixed)
    top += "".join(f'<th class="group" colspan="{len(labels)}">{escape(side)}</th>'
                   for side, labels in grid.groups)
    under = "".join(f"<th>{escape(label)}</th>" for _, labels in grid.groups
                    for label in labels)
    return f"<tr>{top}</tr><tr>{under}</tr>"


def _table(grid: Grid) -> str:
    width = len(grid.header())
    rows = "\n".join("<tr>" + "".join(_td(c) for c in line) + "</tr>" for line in grid.body)
    rows = rows or f'<tr><td colspan="{width}">(none yet)</td></tr>'
    foot = "".join("<tr>" + "".join(_td(c) for c in line) + "</tr>" for line in grid.foot)
    return (f"<table>\n<thead>{_thead(grid)}</thead>\n<tbody>\n{rows}\n</tbody>"
            + (f"<tfoot>{foot}</tfoot>" if foot else "") + "</table>")


def _section(title: str, grid: Grid, before: str = "", page: bool = False) -> str:
    """A form under its heading; `page` starts it on a new printed page."""
    opening = '<section class="page">' if page else "<section>"
    return f"{opening}<h2>{escape(title)}</h2>{before}{_table(grid)}</section>"


def _elr_now(answer: ELRAnswer) -> str:
    now = ", ".join(f"{side} {_text(v) or '-'}" for side, v in answer.current.items())
    return f"<p>ELR now: {escape(now)}</p>"


def forms_html(title: str, roster: Sequence[RosterRow], purchases: Sequence[PurchaseRow],
               cvp: CVPAnswer, elr: ELRAnswer, subtitle: str = "",
               retained: Sequence[RetainedRow] = ()) -> str:
    """One self-contained printable page: CG Roster, RG Purchase Record, Retained units,
    CVP, ELR history."""
    sub = f'<p class="sub">{escape(subtitle)}</p>' if subtitle else ""
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
        f"<header><h1>{escape(title)}</h1>{sub}</header>",
        _section("CG Roster", roster_grid(roster)),
        _section("RG Purchase Record", purchases_grid(purchases), page=True),
        _section("Retained units", retained_grid(retained), page=True),
        _section("CVP", cvp_grid(cvp), page=True),
        _section("ELR history", elr_grid(elr), _elr_now(elr)),
        "</body></html>", ""])


def check_form(form: str) -> None:
    """Refuse a form that is none of FORMS."""
    if form not in FORMS:
        raise ValueError(f"form is roster, purchases, cvp, elr, retained or html, not "
                         f"{form!r}")


def render_form(forms: PaperForms, form: str) -> str:
    """One paper form as CSV, or all of them as a printable HTML page."""
    check_form(form)
    if form == "roster":
        return roster_csv(forms.roster)
    if form == "purchases":
        return purchases_csv(forms.purchases)
    if form == "cvp":
        return cvp_csv(forms.cvp)
    if form == "elr":
        return elr_csv(forms.elr)
    if form == "retained":
        return retained_csv(forms.retained)
    return forms_html(forms.name, forms.roster, forms.purchases, forms.cvp, forms.elr,
                      subtitle=f"{forms.module_name or forms.module.upper()} CG {forms.cg}, "
                               f"as of version {forms.version}", retained=forms.retained)
