"""The director's ruling on a roll, from its audit page: the form's choices, each from a
closed list of the campaign's module (the roll's table's results, the sides, the pools,
the kinds of correction, the module's tables and each side's RGs), and the form read back
as the JSON API's RulingBody (api/routes_audit.py). Only the reasons are free text; every
other rule a ruling meets is the domain's (domain/campaign/rulings.py)."""

from __future__ import annotations

import re
from typing import Any
from uuid import UUID

from domain.campaign.rulings import BOUNDS, KINDS
from domain.digits import digits
from domain.errors import InvalidCommand, RefitError
from domain.rules import Module
from infra.application import Refit

VERDICTS = ("upheld", "corrected")
POOLS = tuple(BOUNDS)  # cpp, fpp, elr, san
STRENGTHS = ("F", "D")
REASON = 500  # characters of a ruling's reason, as RulingBody takes
NAME = 200  # characters of a correction's reason (domain.commands.Name)
# The corrections one ruling's form carries, by their fields' prefix: a ruling that both
# adjusts a pool and amends a line is one form, not two rulings (the API takes up to 50).
CORRECTIONS = ("c_", "c2_", "c3_")
KIND_WORDS = {"adjust": "Adjust a side's CPP, FPP, ELR or SAN",
              "void_roll": "Void this roll (its subject may be rolled again)",
              "amend_purchase": "Amend a line of the RG Purchase Record",
              "missed_roll": "Authorize a missed roll"}


def ruling_choices(refit: Refit, ident: UUID, table: str) -> dict[str, Any]:
    """The ruling form's closed lists for a roll on `table`."""
    module = refit.store.campaign(ident).rules
    return {"verdicts": VERDICTS, "results": results_of(module, table),
            "sides": list(module.sides), "strengths": STRENGTHS,
            "pools": [(pool, pool.upper()) for pool in POOLS],
            "kinds": [(kind, KIND_WORDS[kind]) for kind in KINDS],
            "tables": [(t.id, f"{t.id} {t.title}") for t in module.tables], "rgs": _rgs(module),
            "corrections": CORRECTIONS}


def results_of(module: Module, table: str) -> list[str]:
    """Every result the table's rows (or its target) can give, in the table's order."""
    try:
        found = module.table(table)
    except RefitError:
        return []
    if found.target is not None:
        return [found.target.hit, found.target.miss]
    every = [result for band in found.bands
             for result in (band.result, *band.by_trait.values())]
    return list(dict.fromkeys(every))


def _rgs(module: Module) -> list[str]:
    """Every RG id on the sides' charts (an amended line names one of them)."""
    found: list[str] = []
    for side in module.sides:
        try:
            found += [row.id for row in module.rg_chart(side).rows]
        except RefitError:  # a module without this side's chart
            continue
    return list(dict.fromkeys(found))


def ruling_of(form: dict[str, str], choices: dict[str, Any]) -> dict[str, Any]:
    """The ruling a form asks for, as record_ruling takes it; a choice not on its list, or
    a number that is none, refused naming its field."""
    reason = form.get("reason", "").strip()
    if len(reason) > REASON:
        raise InvalidCommand(f"a reason is at most {REASON} characters", field="reason")
    drm_value = _number(form, "drm_value", -20, 20)
    drm = None if drm_value is None else [
        {"value": drm_value, "reason": _text(form, "drm_reason")}]
    return {"verdict": _chosen(form, "verdict", VERDICTS, required=True), "reason": reason,
            "final": _number(form, "final", -100, 100),
            "result": _chosen(form, "result", choices["results"]), "drm": drm,
            "corrections": _corrections(form, choices),
            "disputed_by": _chosen(form, "disputed_by", choices["sides"])}


def relocated(error: RefitError, form: dict[str, str]) -> RefitError:
    """A ruling's refusal naming `corrections[N]` (the API's N-th correction) said as the
    page's field of that correction (its form's c_, c2_ or c3_ fields, blanks skipped)."""
    found = re.match(r"corrections\[(\d+)\](?:\.(\w+))?", error.field or "")
    used = [prefix for prefix in CORRECTIONS if form.get(f"{prefix}kind")]
    if found is None or int(found[1]) >= len(used):
        return error
    field = used[int(found[1])] + (found[2] or "kind")
    message = error.message.removeprefix(f"{found[0]}: ")
    return type(error)(f"{field}: {message}", field=field, rule=error.rule)


def _corrections(form: dict[str, str], choices: dict[str, Any]) -> list[dict[str, Any]]:
    """The corrections the form carries, in its order (a blank one's kind: none)."""
    fixes: list[dict[str, Any]] = []
    for prefix in CORRECTIONS:
        kind = _chosen(form, f"{prefix}kind", KINDS)
        if kind is not None:
            fixes.append(_correction(form, prefix, kind, choices))
    return fixes


def _correction(form: dict[str, str], prefix: str, kind: str,
                choices: dict[str, Any]) -> dict[str, Any]:
    """One correction the form carries, with the fields its kind takes."""
    def field(name: str) -> str:
        return prefix + name

    fix: dict[str, Any] = {"kind": kind, "reason": _text(form, field("reason")),
                           "rule": form.get(field("rule"), "").strip() or None}
    if kind in ("adjust", "amend_purchase", "missed_roll"):
        fix["side"] = _chosen(form, field("side"), choices["sides"], required=True)
    if kind == "adjust":
        fix |= {"pool": _chosen(form, field("pool"), POOLS, required=True),
                "amount": _number(form, field("amount"), -1000, 1000, required=True)}
    elif kind == "amend_purchase":
        fix |= {"purchase": _number(form, field("purchase"), 1, 100_000, required=True),
                "rg": _chosen(form, field("rg"), choices["rgs"]),
                "cost": _number(form, field("cost"), 0, 1000),
                "strength": _chosen(form, field("strength"), STRENGTHS)}
    elif kind == "missed_roll":
        fix |= {"table": _chosen(form, field("table"), [t for t, _ in choices["tables"]],
                                 required=True),
                "subject": form.get(field("subject"), "").strip()[:NAME]}
    return fix


def _chosen(form: dict[str, str], field: str, allowed: Any,
            required: bool = False) -> str | None:
    """A choice from its closed list (none: None, unless one is required)."""
    value = form.get(field, "")
    if not value and not required:
        return None
    if value not in allowed:
        words = ", ".join(str(a) for a in allowed) or "none here"
        raise InvalidCommand(f"{field}: choose one of {words}", field=field)
    return value


def _number(form: dict[str, str], field: str, low: int, high: int,
            required: bool = False) -> int | None:
    """A whole number within its bounds (empty: None, unless one is required)."""
    text = form.get(field, "").strip()
    if not text and not required:
        return None
    unsigned = text[1:] if text[:1] in "+-" else text
    if not (digits(unsigned) and len(unsigned) <= 6) or \
            not low <= int(text) <= high:
        raise InvalidCommand(f"{field}: a whole number from {low} to {high}", field=field)
    return int(text)


def _text(form: dict[str, str], field: str) -> str:
    """A correction's or DRM's reason: free text, required (the page says its label)."""
    text = form.get(field, "").strip()
    if not text or len(text) > NAME:
        raise InvalidCommand(f"{field}: give the reason, at most {NAME} characters",
                             field=field)
    return text


def ruling_form(refit: Refit, ident: UUID, director: bool, found: dict[str, Any]
                ) -> dict[str, Any]:
    """The audit page's ruling form, for the director only, on a roll readable to them."""
    roll = found.get("roll")
    if not director or roll is None or not found["audit"].key:
        return {}
    return {"choices": ruling_choices(refit, ident, roll.table)}
