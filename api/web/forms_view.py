"""What the forms page shows a role: the paper forms (CG Roster, RG Purchase Record, Retained
units, CVP, ELR, SAN) as of a point, and what changed between two points, read with the
JSON API's reads for that role (`/forms`, `/san`, `/steps`, `/diff`): the page adds
nothing a role's JSON reads do not carry."""

from __future__ import annotations

from itertools import groupby
from typing import Any
from uuid import UUID

from api.forms import (
    Grid,
    bought,
    cell_class,
    cvp_grid,
    elr_grid,
    purchases_grid,
    retained_grid,
    roster_grid,
)
from api.report import mode_words
from domain.digits import digits
from domain.errors import InvalidCommand
from infra.application import Refit
from projections import read
from projections.diff import Change

LONGEST = 40  # characters of a point: longer is none the service names
FORM_TITLES = {"roster": "CG Roster", "purchase_record": "RG Purchase Record", "cvp": "CVP",
               "elr": "ELR"}
# The paper's words for a field of a form line (the rest read as they are named).
FIELD_WORDS = {
    "cpp_start": "CPP start", "cpp_credited": "+CPP", "cpp_spent": "CPP spent",
    "cpp_left": "CPP left", "cpp_forfeited": "CPP forfeited", "cpp_forgone": "CPP forgone",
    "recon_cpp": "Recon CPP", "rg_purchased": "RG purchased", "fpp": "FPP",
    "fortifications": "Fortifications", "fpp_forfeited": "FPP forfeited", "elr": "ELR",
    "san": "SAN", "chit": "Initiative chit", "ww_received": "WW", "withdrawn": "Withdrawn",
    "lvp_current": "Current-LVP", "lvp_cg": "CG-LVP", "hidden": "kept secret",
    "scenario_type": "Scenario", "scenario_played": "Played", "weather": "Weather",
    "ec": "EC", "wind": "Wind", "sets_up_first": "Sets up first",
    "moves_first": "Moves first", "cg_date": "CG Date", "rg": "RG", "kg": "KG",
    "group_type": "Group type", "cpp": "CPP", "p": "#P", "r": "#R", "strength": "F/D",
    "units": "Units", "sw": "SW", "sw_received": "SW received", "leader": "Leader",
    "leaders": "Leader(s)", "setup_area": "Setup/Entry Area", "mode": "Mode",
    "removed": "Removed", "casualties": "Casualties", "amended": "Amended by ruling",
    "cvp": "CVP", "before": "From", "after": "To", "cause": "Cause", "rule": "Rule",
    "side": "Side", "scenario": "Scenario",
}
UNSAID = ("hidden", "purchase", "version")  # the line's own name says these


def point_of(text: str | None, field: str) -> str | None:
    """A point as the page's form gives it (a version or CGDATE/STEP; blank for none), no
    longer than any the service names."""
    given = (text or "").strip()
    if len(given) > LONGEST:
        raise InvalidCommand(f"{field}: a version number or a CG Date and step (e.g. "
                             f"14AM/3.618), not {len(given)} characters", field=field)
    return given or None


def point_field(version: str | None) -> str:
    """The field the chosen point came from."""
    return "version" if (version or "").strip() else "as_of"


def chosen_point(as_of: str | None, version: str | None) -> str | None:
    """The point asked for: a version typed in (a whole number), else a step chosen."""
    typed = (version or "").strip()
    if not typed:
        return point_of(as_of, "as_of")
    if not (digits(typed)) or len(typed) > 10:
        raise InvalidCommand(f"version: give a version number (a whole number such as 12), "
                             f"not {typed[:12]!r}", field="version")
    return typed


def version_of(refit: Refit, ident: UUID, point: str | None, field: str) -> int | None:
    """The version a point names (None: now), refused in words naming the field: a version
    past the head, text that names none, a step the RePh has not done."""
    found = refit.views.version_at(ident, point, field=field)
    head = refit.views.head(ident)
    if found is not None and not 1 <= found <= head:
        raise InvalidCommand(f"{field}: there is no version {found}: this campaign's versions "
                             f"run from 1 to {head} (now)", field=field)
    return found


def points(refit: Refit, ident: UUID) -> list[dict[str, Any]]:
    """The steps done, as points to choose, a group per CG Date (public: the RePh's pace)."""
    steps = refit.reads.steps(ident)
    return [{"cg_date": date, "steps": [{"value": f"{s.cg_date}/{s.step}", "step": s.step,
                                         "left": s.left} for s in done]}
            for date, done in groupby(steps, key=lambda s: s.cg_date)]


def table(grid: Grid) -> dict[str, Any]:
    """A form's grid for the template: each cell's text with its class."""
    def line(cells: list[str]) -> list[tuple[str, str]]:
        return [(text, cell_class(text)) for text in cells]
    return {"fixed": grid.fixed, "groups": grid.groups, "width": len(grid.header()),
            "body": [line(row) for row in grid.body], "foot": [line(r) for r in grid.foot]}


def sheets(refit: Refit, ident: UUID, version: int | None, viewer: str | None
           ) -> dict[str, Any]:
    """The paper forms as of `version` (None: now), as the viewer reads them."""
    forms = refit.reads.paper_forms(ident, version, viewer)
    san = refit.reads.san(ident, version, viewer)
    return {"forms": forms, "sheets": [
        ("roster", "CG Roster", table(roster_grid(forms.roster)), None),
        ("purchases", "RG Purchase Record", table(purchases_grid(forms.purchases)), None),
        ("retained", "Retained units", table(retained_grid(forms.retained)), None),
        ("cvp", "CVP", table(cvp_grid(forms.cvp)), None),
        ("elr", "ELR", table(elr_grid(forms.elr)), forms.elr.current),
        ("san", "SAN", table(elr_grid(read.ELRAnswer(current={}, changes=san))), None)]}


def changes(found: list[Change]) -> list[dict[str, Any]]:
    """The diff's changes, a group per form in the paper's order, each said in words."""
    grouped = []
    for form, title in FORM_TITLES.items():
        lines = [_said(change) for change in found if change.form == form]
        if lines:
            grouped.append({"form": form, "title": title, "lines": lines})
    return grouped


def _said(change: Change) -> dict[str, Any]:
    """One change as the page says it: the line, what of it, before and after."""
    line = change.line
    if change.form == "elr" and line == "current":
        line = "ELR now"
    elif change.form == "cvp" and line == "totals":
        line = "Total CVP"
    key = (change.field or "").rpartition(".")[2]
    return {"change": change.change, "line": line, "what": _field_words(change.field),
            "before": worded(change.before, key), "after": worded(change.after, key)}


def _field_words(field: str | None) -> str:
    """A changed field in the paper's words: `sides.Axis.cpp_spent` is `Axis CPP spent`."""
    if field is None:
        return "the whole line"
    parts = field.split(".")
    if parts[0] == "sides":  # a roster line's side: `Axis CPP spent`
        parts = parts[1:]
    at = next((i for i, part in enumerate(parts) if part in FIELD_WORDS), len(parts) - 1)
    parts[at] = FIELD_WORDS.get(parts[at], parts[at].replace("_", " "))
    return " ".join(parts)


def worded(value: Any, key: str | None = None) -> str:
    """A value as a form prints it: a line's fields as `label value` pairs, lists joined,
    an empty cell a dash, a secret cell `(secret)`, a purchase's mode in words (`key`: the
    field the value is of)."""
    if key == "mode" and isinstance(value, str):
        return mode_words(value)
    if value is None or value == [] or value == {}:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(worded(item) for item in value)
    if isinstance(value, dict):
        if value.get("hidden"):  # another side's line: whose it is, and no more
            return " ".join(filter(None, [str(value.get("side") or ""), "(secret)"]))
        if "rg" in value and "cpp" in value and len(value) <= 3:  # an RG the roster lists
            return bought(value)
        return "; ".join(f"{FIELD_WORDS.get(k, k)} {worded(v, k)}" for k, v in value.items()
                         if v not in (None, [], {}, False) and k not in UNSAID)
    return str(value)
