"""DRM for a roll: the ledger derives every automatic DRM the table lists from the record,
and checks each optional one a side claims by id against the roll's subject."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from domain.commands import DRMClaim
from domain.errors import InvalidCommand, RuleViolation
from domain.rules import CalendarDate, DRMSpec, Qualifies, Table


@dataclass(frozen=True)
class Facts:
    """What the ledger knows of a side when it rolls (for the DRM it derives)."""

    san: int | None = None
    levels: dict[str, int] | None = None
    enemy_cvp: int = 0  # CVP the side inflicted in the last CG Scenario (and its RePh)
    idle_dates_since_scenario: int = 0
    scenarios_since_idle: int = 0
    attack_chits_since_idle: int = 0
    attack_chits_in_cg: int = 0
    previous_date_idle: bool = False  # the CG Date before this one was Idle (9.613)
    previous_scenario: dict[str, str] | None = None  # weather, EC, wind of the last scenario
    this_scenario: dict[str, str] | None = None  # ... and of the one being prepared


@dataclass(frozen=True)
class SubjectFacts:
    """What a roll is about, as its DRM qualify on it: the side and its record, and for a
    roll for an RG of the Purchase Record, that RG as the record and its chart row say."""

    side: str
    cg_date: str | None = None
    date: CalendarDate | None = None
    facts: Facts = field(default_factory=Facts)
    line: int | None = None  # the RG Purchase Record line (1-based)
    rg: str | None = None  # its RG id, e.g. "I4"
    rg_type: str | None = None  # its type letters, e.g. "I", "HW"
    group_type: str | None = None  # e.g. "Fallschirmjäger Signal Coy"
    kg: str | None = None
    strength: str | None = None  # "F" or "D" once 3.6181/9.6181 is rolled
    traits: frozenset[str] = frozenset()  # from its RG chart row (Airborne, Italian...)
    leader_roll: int | None = None  # the number of this leader roll of the RG (3.6183)


def qualifies(rule: Qualifies, subject: SubjectFacts) -> str | None:
    """None when the subject qualifies; else why not, in ASL terms."""
    rg = subject.rg or "no RG"
    checks = [
        (rule.sides is None or subject.side in rule.sides,
         f"it is for the {' or '.join(rule.sides or [])} only, not the {subject.side}"),
        (not rule.needs_rg() or subject.rg is not None,
         "it is for a roll made for an RG: name its Purchase Record line"),
        (rule.rgs is None or subject.rg in rule.rgs,
         f"it is for {', '.join(rule.rgs or [])}, not {rg}"),
        (rule.rg_types is None or subject.rg_type in rule.rg_types,
         f"it is for {'/'.join(rule.rg_types or [])} type RG, not {rg}"),
        (set(rule.traits) <= subject.traits,
         f"{rg} is not {' '.join(rule.traits)} on its RG chart"),
        (not rule.any_traits or bool(set(rule.any_traits) & subject.traits),
         f"{rg} is not {' or '.join(rule.any_traits)} on its RG chart"),
        (not set(rule.not_traits) & subject.traits,
         f"{rg} is {' or '.join(sorted(set(rule.not_traits) & subject.traits))}"),
        (rule.strength is None or subject.strength == rule.strength,
         f"{rg}'s strength is {subject.strength or 'not rolled'}, not {rule.strength}"),
        (rule.leader_rolls is None or subject.leader_roll in rule.leader_rolls,
         f"it is for leader roll {' or '.join(map(str, rule.leader_rolls or []))}, not "
         f"roll {subject.leader_roll}"),
    ]
    return next((why for holds, why in checks if not holds), None)


def derived_drm(table: Table, subject: SubjectFacts) -> list[dict[str, Any]]:
    """Every automatic DRM of the table that the subject qualifies for, with its value."""
    found = []
    for spec in table.drm:
        if spec.kind != "automatic" or qualifies(spec.qualifies, subject) is not None:
            continue
        value = _derived_value(spec, subject)
        if value:
            found.append(_item(spec, table, value, auto=True))
    return found


def _derived_value(spec: DRMSpec, subject: SubjectFacts) -> int:
    facts, date = subject.facts, subject.date
    exhaustion = (date.exhaustion_drm or 0) if date else 0
    how = spec.derive
    if how is None:
        return spec.value
    if how == "san_over":
        return max(0, (facts.san or 0) - (spec.over or 0))
    if how == "level":
        return spec.value * (facts.levels or {}).get(spec.level or "", 0)
    if how == "enemy_cvp":
        return spec.value * (facts.enemy_cvp // (spec.per or 1))
    if how == "attack_chits_in_cg_less_one":
        return spec.value * max(0, facts.attack_chits_in_cg - 1)
    if how in ("idle_dates_since_scenario", "scenarios_since_idle", "attack_chits_since_idle",
               "previous_date_idle"):
        return spec.value * int(getattr(facts, how))
    if how in ("previous_scenario", "this_scenario"):
        conditions = getattr(facts, how) or {}
        return spec.value if conditions.get(spec.condition or "") in spec.values else 0
    if how == "night":
        return spec.value if date is not None and date.night else 0
    return exhaustion if how == "exhaustion" else exhaustion // 2


def _item(spec: DRMSpec, table: Table, value: int, *, auto: bool,
          count: int | None = None) -> dict[str, Any]:
    item = {"id": spec.id, "value": value, "reason": spec.reason,
            "rule": spec.rule or table.rule, "auto": auto}
    return item if count is None else item | {"count": count}


def claimable(table: Table, subject: SubjectFacts) -> list[DRMSpec]:
    """The optional DRM a side may claim on this roll (for the guide): those the subject
    qualifies for and no derived DRM excludes."""
    derived = {item["id"] for item in derived_drm(table, subject)}
    return [spec for spec in table.drm if spec.kind == "optional"
            and qualifies(spec.qualifies, subject) is None
            and not derived & {*spec.excludes}
            and not any(spec.id in _excludes(table, other) for other in derived)]


def claimed_drm(table: Table, subject: SubjectFacts, claims: list[DRMClaim],
                derived: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The optional DRM a side claims by id, each checked against the table's list, the
    subject and the DRM it cannot be combined with."""
    specs = {spec.id: spec for spec in table.drm}
    taken: dict[str, str] = {item["id"]: "derived" for item in derived}
    items = []
    for index, claim in enumerate(claims):
        where = f"drm[{index}]"
        spec = specs.get(claim.id)
        if spec is None:
            listed = ", ".join(s.id for s in table.drm if s.kind == "optional") or "none"
            raise InvalidCommand(f"table {table.id} lists no DRM {claim.id!r} (a side may "
                                 f"claim: {listed}); a DRM outside the list exists only "
                                 "in a director's ruling", rule=table.rule, field=where)
        _check_claim(table, spec, subject, claim, where, taken)
        taken[spec.id] = where
        value = spec.value if spec.count is None else \
            spec.value * spec.count.units(claim.count or 0)
        items.append(_item(spec, table, value, auto=False, count=claim.count))
    return items


def _check_claim(table: Table, spec: DRMSpec, subject: SubjectFacts, claim: DRMClaim,
                 where: str, taken: dict[str, str]) -> None:
    rule = spec.rule or table.rule
    name = f"DRM {spec.id} ({spec.reason})"

    def refuse(why: str, error: type[InvalidCommand | RuleViolation] = RuleViolation,
               cited: str | None = None) -> None:
        raise error(f"{name}: {why}", rule=cited or rule, field=where)

    if spec.kind == "automatic":
        refuse("the ledger derives it from the record: do not claim it", InvalidCommand)
    if taken.get(spec.id):
        refuse(f"is claimed twice ({taken[spec.id]} and {where})", InvalidCommand)
    _check_count(spec, claim, refuse)
    why = qualifies(spec.qualifies, subject)
    if why is not None:
        refuse(f"does not apply: {why}")
    for other, by in taken.items():
        if other in spec.excludes or spec.id in _excludes(table, other):
            found = next(s for s in table.drm if s.id == other)
            how = "which the ledger derives here" if by == "derived" else "claimed with it"
            # The rule that says so: the DRM that lists the other, not the other's own
            # rule (a DRM of another rule listed on the table, CG19's say, cites it).
            says = spec if other in spec.excludes else found
            refuse(f"is not combined with DRM {other} ({found.reason}), {how}",
                   cited=says.rule or table.rule)


def _check_count(spec: DRMSpec, claim: DRMClaim, refuse: Any) -> None:
    counted = spec.count
    if counted is None:
        if claim.count is not None:
            refuse("has a fixed value: give no `count`", InvalidCommand)
        return
    if claim.count is None:
        refuse(f"is computed from a count: give `count` ({counted.of})", InvalidCommand)
    elif claim.count < counted.min or (counted.max is not None and claim.count > counted.max):
        most = "" if counted.max is None else f" to {counted.max}"
        refuse(f"`count` ({counted.of}) is {counted.min}{most or ' or more'}, "
               f"not {claim.count}", InvalidCommand)


def _excludes(table: Table, drm_id: str) -> list[str]:
    return next((spec.excludes for spec in table.drm if spec.id == drm_id), [])
