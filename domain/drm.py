"""DRM for a roll: the ones the ledger derives, plus the situational ones a player gives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.commands import SituationalDRM
from domain.errors import InvalidCommand
from domain.rules import CalendarDate, DRMSpec, Table


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
    previous_scenario: dict[str, str] | None = None  # weather, EC, wind of the last scenario
    this_scenario: dict[str, str] | None = None  # ... and of the one being prepared


def derived_drm(table: Table, side: str, date: CalendarDate | None,
                facts: Facts | None = None) -> list[dict[str, Any]]:
    """The DRM the ledger derives from what it knows: side, Night, Exhaustion, SAN, history."""
    found = []
    for spec in table.drm:
        value = _auto_value(spec, side, date, facts or Facts())
        if value:
            found.append(_item(value, spec, table))
    return found


def _auto_value(spec: DRMSpec, side: str, date: CalendarDate | None, facts: Facts) -> int:
    exhaustion = (date.exhaustion_drm or 0) if date else 0
    if spec.side is not None and side != spec.side:
        return 0
    if spec.auto == "side":
        return spec.value
    if spec.auto == "san_over":
        return max(0, (facts.san or 0) - (spec.over or 0))
    if spec.auto == "level":
        return spec.value * (facts.levels or {}).get(spec.level or "", 0)
    if spec.auto == "enemy_cvp":
        return spec.value * (facts.enemy_cvp // (spec.per or 1))
    if spec.auto == "attack_chits_in_cg_less_one":
        return spec.value * max(0, facts.attack_chits_in_cg - 1)
    if spec.auto in ("idle_dates_since_scenario", "scenarios_since_idle",
                     "attack_chits_since_idle"):
        return spec.value * int(getattr(facts, spec.auto))
    if spec.auto in ("previous_scenario", "this_scenario"):
        conditions = getattr(facts, spec.auto) or {}
        return spec.value if conditions.get(spec.condition or "") in spec.values else 0
    if spec.auto == "night":
        return spec.value if date is not None and date.night else 0
    if spec.auto == "exhaustion":
        return exhaustion
    if spec.auto == "exhaustion_half":
        return exhaustion // 2
    return 0


def _item(value: int, spec: DRMSpec, table: Table) -> dict[str, Any]:
    return {"value": value, "reason": spec.reason, "rule": spec.rule or table.rule, "auto": True}


def situational_drm(table: Table, side: str,
                    given: list[SituationalDRM]) -> list[dict[str, Any]]:
    """A player's DRM, checked against the table's list: a listed one must have its value."""
    items = []
    listed: set[str] = set()
    for index, drm in enumerate(given):
        spec = _listed(table, drm.reason)
        if spec is not None:
            _check_listed(table, spec, side, drm, f"drm[{index}]")
            if spec.reason in listed:  # once: a listed DRM is one fact (and one CPP cost)
                raise InvalidCommand(f"DRM {spec.reason!r} is given more than once",
                                     rule=spec.rule or table.rule, field=f"drm[{index}]")
            listed.add(spec.reason)
        rule = (spec.rule or table.rule) if spec is not None else None
        # A listed DRM is recorded by the table's name for it, however the player wrote it:
        # an alias may say what the roll's record must not (3.620: the CPP spent), and the
        # cost of a DRM (3.620's second CPP) is found by that name.
        reason = spec.reason if spec is not None else drm.reason
        items.append({"value": drm.value, "reason": reason, "rule": rule, "auto": False})
    return items


def _check_listed(table: Table, spec: DRMSpec, side: str, drm: SituationalDRM,
                  field: str) -> None:
    def refuse(message: str) -> None:
        raise InvalidCommand(message, rule=spec.rule or table.rule, field=field)

    if spec.auto is not None:
        refuse(f"DRM {drm.reason!r} is derived by the ledger; do not supply it")
    if spec.side is not None and spec.side != side:
        refuse(f"DRM {drm.reason!r} on table {table.id} is for the {spec.side} only")
    if not spec.variable and spec.value != drm.value:
        refuse(f"DRM {drm.reason!r} is {spec.value:+d} on table {table.id}, not {drm.value:+d}")
    if spec.variable and spec.value * drm.value < 0:
        sign = "+" if spec.value > 0 else "-"
        refuse(f"DRM {drm.reason!r} on table {table.id} is {sign}x, not {drm.value:+d}")
    if spec.variable and spec.value and drm.value % spec.value:
        refuse(f"DRM {drm.reason!r} on table {table.id} counts in steps of {spec.value:+d}, "
               f"so not {drm.value:+d}")


def _key(reason: str) -> str:
    """A reason as compared: case, spacing and punctuation do not make a new DRM."""
    return "".join(char for char in reason.casefold() if char.isalnum())


def _listed(table: Table, reason: str) -> DRMSpec | None:
    wanted = _key(reason)
    return next((s for s in table.drm
                 if wanted in {_key(name) for name in (s.reason, *s.aliases)}), None)
