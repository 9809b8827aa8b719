"""Closed DRM lists, table by table in all three modules: the ledger derives each automatic
DRM for a subject that qualifies and never for one that does not; a side claims an optional
one by id, and an unlisted id, a subject that does not qualify and an excluded pair are
refused with the rule."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.commands import DRMClaim
from domain.drm import Facts, SubjectFacts, claimable, claimed_drm, derived_drm
from domain.errors import InvalidCommand, RuleViolation
from domain.rules import CalendarDate, DRMSpec, Module, Table
from infra.modules import packaged_modules

MODULES = packaged_modules()
LISTED = [(module, table, spec) for module in MODULES.values() for table in module.tables
          for spec in table.drm]
TABLES = [(module, table) for module in MODULES.values() for table in module.tables
          if table.drm]


def name(item: object) -> str:
    """A readable test id: the module's, the table's or the DRM's own."""
    return str(getattr(item, "id", item))


def qualifying(module: Module, spec: DRMSpec) -> SubjectFacts:
    """A subject every condition of the DRM holds for, with a record that gives it a value."""
    rule = spec.qualifies
    side = (rule.sides or module.sides)[0]
    rg = (rule.rgs or [f"{(rule.rg_types or ['I'])[0]}1"])[0]
    traits = frozenset({*rule.traits, *rule.any_traits[:1]})
    facts = Facts(san=(spec.over or 0) + 2, levels={spec.level or "": 2}, enemy_cvp=spec.per or 0,
                  idle_dates_since_scenario=1, scenarios_since_idle=1,
                  attack_chits_since_idle=1, attack_chits_in_cg=2, previous_date_idle=True,
                  previous_scenario={spec.condition or "": (spec.values or [""])[0]},
                  this_scenario={spec.condition or "": (spec.values or [""])[0]})
    date = CalendarDate(date="20N", night=True, exhaustion_drm=2)
    return SubjectFacts(side=side, cg_date=date.date, date=date, facts=facts, line=1, rg=rg,
                        rg_type=rg.rstrip("0123456789"), traits=traits,
                        strength=rule.strength or "F",
                        leader_roll=(rule.leader_rolls or [1])[0])


def spoiled(module: Module, spec: DRMSpec) -> list[SubjectFacts]:
    """Subjects that each break one of the DRM's conditions (or leave its record empty)."""
    rule, good = spec.qualifies, qualifying(module, spec)
    found = []
    other = [side for side in module.sides if side not in (rule.sides or module.sides)]
    if other:
        found.append(replace(good, side=other[0]))
    if rule.needs_rg():
        found.append(replace(good, line=None, rg=None, rg_type=None, traits=frozenset(),
                             strength=None, leader_roll=None))
    if rule.rgs is not None:
        found.append(replace(good, rg="Z9"))
    if rule.rg_types is not None:
        found.append(replace(good, rg="Z9", rg_type="Z"))
    if rule.traits:
        found.append(replace(good, traits=good.traits - {rule.traits[0]}))
    if rule.any_traits:
        found.append(replace(good, traits=good.traits - set(rule.any_traits)))
    if rule.not_traits:
        found.append(replace(good, traits=good.traits | {rule.not_traits[0]}))
    if rule.strength is not None:
        found.append(replace(good, strength="F" if rule.strength == "D" else "D"))
    if rule.leader_rolls is not None:
        found.append(replace(good, leader_roll=max(rule.leader_rolls) + 1))
    if spec.derive is not None:
        found.append(replace(good, facts=Facts(), date=CalendarDate(date="20AM")))
    return found


def claim(spec: DRMSpec) -> DRMClaim:
    """The claim of an optional DRM, with the least count it takes."""
    if spec.count is None:
        return DRMClaim(id=spec.id)
    most = 99 if spec.count.max is None else spec.count.max
    return DRMClaim(id=spec.id, count=min(max(spec.count.min, 1), most))


def test_every_drm_either_has_a_condition_or_a_record_to_come_from() -> None:
    automatic = [spec for _, _, spec in LISTED if spec.kind == "automatic"]
    assert len(automatic) > 40
    for spec in automatic:
        assert spec.derive is not None or spec.qualifies.model_dump(exclude_defaults=True), \
            spec.id


@pytest.mark.parametrize("module,table,spec",
                         [x for x in LISTED if x[2].kind == "automatic"], ids=name)
def test_an_automatic_drm_is_derived_for_a_subject_that_qualifies_and_no_other(
        module: Module, table: Table, spec: DRMSpec) -> None:
    derived = {item["id"]: item for item in derived_drm(table, qualifying(module, spec))}
    assert spec.id in derived
    assert derived[spec.id]["rule"] == (spec.rule or table.rule)
    assert derived[spec.id]["auto"] is True
    for subject in spoiled(module, spec):
        assert spec.id not in [item["id"] for item in derived_drm(table, subject)], subject


@pytest.mark.parametrize("module,table,spec",
                         [x for x in LISTED if x[2].kind == "automatic"], ids=name)
def test_an_automatic_drm_claimed_by_hand_is_refused(
        module: Module, table: Table, spec: DRMSpec) -> None:
    with pytest.raises(InvalidCommand) as refused:
        claimed_drm(table, qualifying(module, spec), [DRMClaim(id=spec.id)], [])
    assert refused.value.rule == (spec.rule or table.rule)
    assert "the ledger derives it" in refused.value.message


@pytest.mark.parametrize("module,table,spec",
                         [x for x in LISTED if x[2].kind == "optional"], ids=name)
def test_an_optional_drm_is_claimed_by_a_subject_that_qualifies_and_refused_to_others(
        module: Module, table: Table, spec: DRMSpec) -> None:
    (item,) = claimed_drm(table, qualifying(module, spec), [claim(spec)], [])
    assert (item["id"], item["auto"]) == (spec.id, False)
    for subject in spoiled(module, spec):
        with pytest.raises(RuleViolation) as refused:
            claimed_drm(table, subject, [claim(spec)], [])
        assert refused.value.rule == (spec.rule or table.rule)
        assert refused.value.field == "drm[0]"


@pytest.mark.parametrize("module,table", TABLES, ids=name)
def test_an_unlisted_drm_is_refused_on_every_table(module: Module, table: Table) -> None:
    subject = SubjectFacts(side=module.sides[0])
    with pytest.raises(InvalidCommand) as refused:
        claimed_drm(table, subject, [DRMClaim(id="lucky-charm")], [])
    assert (refused.value.rule, refused.value.field) == (table.rule, "drm[0]")
    assert "director's ruling" in refused.value.message


EXCLUDED = [(module, table, spec, other) for module, table, spec in LISTED
            for other in spec.excludes]


@pytest.mark.parametrize("module,table,spec,other", EXCLUDED, ids=name)
def test_two_drm_that_exclude_each_other_are_refused_together(
        module: Module, table: Table, spec: DRMSpec, other: str) -> None:
    subject = qualifying(module, spec)
    excluded = next(each for each in table.drm if each.id == other)
    with pytest.raises(RuleViolation) as refused:
        claimed_drm(table, subject, [claim(spec), claim(excluded)], [])
    assert refused.value.rule == (spec.rule or table.rule) and refused.value.field == "drm[1]"
    assert f"not combined with DRM {spec.id}" in refused.value.message


def test_the_excluded_pairs_include_the_setup_area_and_ct_afv_drm() -> None:
    pairs = {(spec.id, other) for _, _, spec, other in EXCLUDED}
    assert {("3.606-p-adjacent", "3.606-p-two-hexes"), ("3.606-v-two-hexes", "3.606-v-adjacent"),
            ("9.6054-v-ct-afv", "9.6054-v-vehicle")} <= pairs


def test_9_6054_dagger_drm_are_na_to_a_vehicle_and_a_leader_alone_gets_no_leader_drm() -> None:
    # 9.6054: "+2 Encircled†" ... "† NA to vehicle Escape attempt"; "+x (Armor)Leader/Hero
    # DRM (NA to Leader/Heroes escaping alone)", beside "-1 lone unwounded SMC". The two
    # columns are two tables, as PBr's 3.606: a vehicle's lists no dagger DRM at all.
    module = MODULES["abtf"]
    personnel, vehicle = (module.table(f"9.6054-{column}") for column in ("personnel", "vehicle"))
    dagger = {"hs", "pp", "unarmed", "wounded", "walking-wounded", "encircled"}
    assert {spec.id.removeprefix("9.6054-p-") for spec in personnel.drm} >= dagger
    assert {spec.id.removeprefix("9.6054-v-") for spec in vehicle.drm} == {
        "vehicle", "ct-afv", "night", "leader", "hexes", "captured"}  # no dagger, no lone SMC
    pairs = {(spec.id, other) for _, _, spec, other in EXCLUDED}
    assert ("9.6054-p-lone-smc", "9.6054-p-leader") in pairs


def test_a_drm_claimed_twice_is_refused() -> None:
    table = MODULES["pbr"].table("3.610")
    with pytest.raises(InvalidCommand) as refused:
        claimed_drm(table, SubjectFacts(side="Axis"),
                    [DRMClaim(id="3.610-heroic"), DRMClaim(id="3.610-heroic")], [])
    assert refused.value.field == "drm[1]" and "claimed twice" in refused.value.message


def test_a_claim_a_derived_drm_excludes_is_refused_and_not_offered() -> None:
    table = Table(id="T", title="t", rule="T", roll="dr", bands=[{"result": "x"}], drm=[
        {"id": "t-night", "kind": "automatic", "derive": "night", "value": -1,
         "reason": "Night", "excludes": ["t-flare"]},
        {"id": "t-flare", "kind": "optional", "value": 1, "reason": "Flare"}])
    night = SubjectFacts(side="Axis", date=CalendarDate(date="14N", night=True))
    derived = derived_drm(table, night)
    with pytest.raises(RuleViolation) as refused:
        claimed_drm(table, night, [DRMClaim(id="t-flare")], derived)
    assert "not combined with DRM t-night (Night), which the ledger derives here" in \
        refused.value.message
    assert claimable(table, night) == []
    assert [spec.id for spec in claimable(table, SubjectFacts(side="Axis"))] == ["t-flare"]


def test_the_guide_offers_a_british_roll_3_610s_airborne_drm_and_an_axis_roll_not() -> None:
    table = MODULES["pbr"].table("3.610")
    offered = {side: [spec.id for spec in claimable(table, SubjectFacts(side=side))]
               for side in ("Axis", "British")}
    assert offered == {"Axis": ["3.610-isolated", "3.610-heroic"],
                       "British": ["3.610-isolated", "3.610-heroic", "3.610-british-airborne"]}
