"""The seam between a roll's subject and its DRM: what the record says of the side and,
for a roll made for an RG of the Purchase Record, of that RG (its chart row's traits, its
recorded strength, which of its leader rolls this is)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from domain.drm import Facts, SubjectFacts
from domain.rules import rg_letters

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


def side_facts(campaign: Campaign, side: str) -> Facts:
    """What the ledger knows of a side, for the DRM it derives (e.g. 9.6202)."""
    initiative, scenario, points = campaign.initiative, campaign.scenario, campaign.points
    return Facts(san=points.san[side], levels=dict(points.levels),
                 enemy_cvp=scenario.inflicted(side),
                 idle_dates_since_scenario=initiative.idle_dates_since_scenario,
                 scenarios_since_idle=initiative.scenarios_since_idle,
                 attack_chits_since_idle=initiative.attack_chits_since_idle[side],
                 attack_chits_in_cg=initiative.attack_chits_in_cg[side],
                 previous_date_idle=initiative.previous_date_idle,
                 previous_scenario=dict(scenario.previous_conditions),
                 this_scenario=dict(scenario.conditions))


def subject_facts(campaign: Campaign, side: str, line: int | None,
                  slot: int | None) -> SubjectFacts:
    """The facts a roll's DRM qualify on: the side's, and RG Purchase Record line `line`'s
    (which must be the side's); `slot` is the leader roll's number (rg:N/leader:K), or the
    next one the RG makes when None."""
    cg_date = campaign.reph.cg_date
    module = campaign.rules
    known = {entry.date for entry in module.calendar}
    facts = SubjectFacts(side=side, cg_date=cg_date, facts=side_facts(campaign, side),
                         date=module.date(cg_date) if cg_date in known else None)
    if line is None:
        return facts
    record = campaign.purchases.line(line, side)
    row = module.chart_row(side, record["rg"])
    leader_roll = slot if slot is not None else record.get("leader_rolls", 0) + 1
    return replace(facts, line=line, rg=record["rg"], rg_type=rg_letters(record["rg"]),
                   group_type=row.group_type if row is not None else None,
                   kg=record["kg"], strength=record["strength"],
                   traits=frozenset(row.traits if row is not None else ()),
                   leader_roll=leader_roll)
