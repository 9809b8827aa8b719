"""What changed between two points of a campaign, form by form (issue 6, time travel)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from projections import read
from projections.read import RowSource


class Change(BaseModel):
    """One line of a form that differs: added, removed, or a field changed."""

    form: str  # roster, purchase_record, cvp, elr
    line: str  # the CG Date, RG #, scenario/side, or ELR change
    field: str | None = None  # e.g. "British.cpp_spent"; None for a whole line
    before: Any = None
    after: Any = None
    change: str  # added, removed, changed


def _lines(source: RowSource, viewer: str | None) -> dict[str, dict[str, Any]]:
    """Each form as line -> its fields, as the viewer may read them."""
    forms = read.paper_forms(source, viewer)
    return {
        "roster": {row.cg_date: row.model_dump() for row in forms.roster},
        "purchase_record": {f"#{row.purchase}": row.model_dump() for row in forms.purchases},
        "cvp": {f"{row.scenario} {row.side}": row.model_dump() for row in forms.cvp.scenarios}
        | {"totals": forms.cvp.totals},
        "elr": {f"v{change.version} {change.side}": change.model_dump()
                for change in forms.elr.changes}
        | {"current": forms.elr.current},
    }


def _flat(doc: Any, prefix: str = "") -> dict[str, Any]:
    """Nested fields as dotted names (a roster cell's fields under its side)."""
    if not isinstance(doc, dict):
        return {prefix: doc}
    flat: dict[str, Any] = {}
    for key, value in doc.items():
        flat |= _flat(value, f"{prefix}.{key}" if prefix else str(key))
    return flat


def diff(before: RowSource, after: RowSource, viewer: str | None) -> list[Change]:
    """The changes from `before` to `after` in the roster, purchase record, CVP and ELR."""
    old, new = _lines(before, viewer), _lines(after, viewer)
    changes: list[Change] = []
    for form, lines in new.items():
        was = old[form]
        for line in sorted(set(was) - set(lines)):
            changes.append(Change(form=form, line=line, before=was[line], change="removed"))
        for line, doc in lines.items():
            if line not in was:
                changes.append(Change(form=form, line=line, after=doc, change="added"))
                continue
            a, b = _flat(was[line]), _flat(doc)
            changes.extend(Change(form=form, line=line, field=name, before=a.get(name),
                                  after=b.get(name), change="changed")
                           for name in sorted(set(a) | set(b)) if a.get(name) != b.get(name))
    return changes
