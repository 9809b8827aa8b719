"""A roll on a module table: when the table may be rolled, its DRM (derived and
claimed), what it costs, and what its result does to the record."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import commands as cmd
from domain.campaign import determination, results, slots
from domain.campaign.dice import DiceRolled
from domain.campaign.points import CPPCredited, CPPSpent, SANChanged
from domain.campaign.scenario import CONDITIONS, ReconRolled, ScenarioRecorded
from domain.campaign.subject_facts import subject_facts
from domain.drm import claimed_drm, derived_drm
from domain.errors import InvalidCommand, RuleViolation
from domain.rules import Table

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


def roll(campaign: Campaign, command: cmd.Roll, actor: str) -> None:
    """Roll on a table: server dice from the seed, or the physical dice entered."""
    module, reph = campaign.rules, campaign.reph
    reph.check_not_ended()
    side = campaign.check_side(command.side)
    table = module.table(command.table)
    step = reph.step or reph.phase
    # A roll a director's ruling authorized (a voided roll's re-roll, a missed one) is
    # made now, outside its step.
    allowed = campaign.dice.authorization(table.id, side, command.subject)
    checked = slots.check_subject(campaign, table, side, command.subject,
                                  again=allowed is not None)
    key = campaign.dice.key(checked.slot)
    step = allowed["step"] if allowed is not None else step
    dice = campaign.dice.dice(key, table.roll, command.dice)
    leader = checked.subject.slot if checked.subject.kind == "leader" else None
    subject = subject_facts(campaign, side, checked.number, leader)
    derived = derived_drm(table, subject)
    drm = derived + claimed_drm(table, subject, command.drm, derived)
    if table.halved_by_balance and side == campaign.balance:  # the DR halved, FRD (8.31)
        drm.append({"id": None, "value": sum(dice) // 2 - sum(dice),
                    "reason": "CG Balance: DR halved (FRD)", "rule": module.balance_rule,
                    "auto": True})
    if allowed is None:  # an authorized roll belongs to its ruling's step, not this one
        _check_step(campaign, table)
        check_step_only(campaign, table, side)
    check_when(campaign, table, side, command.subject)
    base = cpp_base(campaign, table, side)
    cost = _cost(campaign, table, side, drm)
    target = slots.sw_target(campaign, table, checked, command.target)
    final = sum(dice) + sum(item["value"] for item in drm)
    band = table.band(final)
    result = band.for_traits(subject.traits) if band is not None else \
        table.result(final, target)
    effects = [campaign.points.effect(module.levels, effect, side, table) for effect in
               (band.effects if band is not None else [])]
    secret_for = side if _secret(campaign, table, command, checked) else None
    campaign._record(
        DiceRolled, actor, secret_for=secret_for,
        side=side, key=key, table=table.id, rule=table.rule, title=table.title,
        kind=table.roll, subject=command.subject, dice=dice, original=sum(dice), drm=drm,
        final=final, target=target, result=result, cg_date=reph.cg_date, step=step,
        entered_by=actor if campaign.dice.mode == "entered" else None,
    )
    _credit_and_spend(campaign, table, side, base, final, cost, actor)
    _write_result(campaign, table, side, final, result, command, actor)
    value = band.records if band is not None and band.records is not None else result
    if checked.number is not None:
        line = campaign.purchases.lines[checked.number - 1]
        campaign._record(determination.RGDetermined, actor, secret_for=line["side"],
                         side=line["side"], purchase=checked.number,
                         **determination.by_roll(module, table, line, checked.item, value))
    # ELR, SAN and levels are public: a secret roll's effect names its table, not its dice;
    # a SAN a secret purchase changed stays sealed until it is announced (3.623).
    cause = f"{table.id} {table.title}" + ("" if secret_for else f": Final {final}, {result}")
    for event_class, fields in effects:
        if fields["after"] != fields["before"]:
            sealed = campaign.points.san_secret_for(side) if event_class is SANChanged else None
            campaign._record(event_class, actor, cause=cause, rule=table.rule,
                             cg_date=reph.cg_date, secret_for=sealed, **fields)
    results.rolled(campaign, table, final, actor)  # who sets up, moves first (3.6213, 3.623)


def _check_step(campaign: Campaign, table: Table) -> None:
    """A table is rolled in its step, after the tables it follows on this CG Date."""
    campaign.reph.check_in_step([s for s in campaign.rules.steps if table.id in s.tables],
                                f"table {table.id} ({table.title})")
    for first in table.after:  # an order within the step, not a reason to skip the roll
        if not any(campaign.dice.rolled(first, other) for other in campaign.sides):
            raise RuleViolation(f"table {table.id} is rolled after table {first} on "
                                "this CG Date", rule=table.rule)
    # A DRM read off the previous CG Scenario's weather or EC (9.6216) is derived from its
    # record: the roll waits for it rather than go without the DRM unsaid. (Not a reason
    # the roll is not due: the guide still asks for it, saying what it waits for.)
    waits = waits_for_notes(campaign, table)
    if waits is not None:
        raise RuleViolation(waits, rule=table.rule)


NAMES = {"weather": "weather", "ec": "EC", "wind": "wind"}


def waits_for_notes(campaign: Campaign, table: Table) -> str | None:
    """What a roll waits for: the previous CG Scenario's notes its DRM read (None: none)."""
    scenario = campaign.scenario
    wanted = sorted({NAMES[spec.condition] for spec in table.drm
                     if spec.derive == "previous_scenario" and spec.condition is not None
                     and spec.condition not in scenario.previous_conditions})
    if not wanted or scenario.previous_date is None:
        return None
    said = " and ".join(wanted)
    return (f"table {table.id}'s DRM for the previous CG Scenario's {said} are derived from "
            f"its record: the director records the {scenario.previous_date} CG Scenario's "
            f"{said} first (its notes, as its SSR or play set them)")


def _secret(campaign: Campaign, table: Table, command: cmd.Roll,
            checked: slots.Checked) -> bool:
    """Whether the roll is sealed: a secret table, or one that tells a secret."""
    # A roll for an RG tells of a secret purchase (9.617): it is as secret as the RG.
    if table.open_roll and command.secret:
        raise InvalidCommand(f"table {table.id} is rolled openly: the opponent learns it",
                             rule=table.rule, field="secret")
    # A roll for an RG tells of a secret purchase (the guide says so alike: guide.py)
    return campaign.rules.seals(table) or command.secret or checked.number is not None or \
        tells_unannounced_san(campaign, table, command.side)


def tells_unannounced_san(campaign: Campaign, table: Table, side: str) -> bool:
    """Whether a roll of the table would tell the side's SAN (rolled only from a SAN, a
    DRM from it, a result that moves it) while a secret purchase's change of that SAN is
    not announced yet (3.617, 3.623): after an Idle CG Date the RePh repeats 3.612 before
    any announcement (3.6212), so the roll, its result and whether it is due at all are
    the side's own until then."""
    if campaign.points.san_secret_for(side) is None:
        return False
    return side in (table.min_san or {}) or \
        any(spec.derive == "san_over" for spec in table.drm) or \
        any(effect.target == "san" for band in table.bands for effect in band.effects)


def _credit_and_spend(campaign: Campaign, table: Table, side: str, base: int | None,
                      final: int, cost: int, actor: str) -> None:
    """The CPP a roll credits (9.616, 3.6162) or costs (3.620), sealed to its side."""
    cg_date = campaign.reph.cg_date
    if base is not None:
        campaign._record(CPPCredited, actor, secret_for=side, side=side,
                         amount=base + final, reason=f"CPP Base # {base} + DR {final}",
                         rule=table.rule, cg_date=cg_date)
    if table.credits_roll and final > 0:
        campaign._record(CPPCredited, actor, secret_for=side, side=side, amount=final,
                         reason=f"{table.title}: dr {final}", rule=table.rule,
                         cg_date=cg_date)
    if cost:  # 3.620: Recon CPP come off the Left total, not into Spent
        campaign._record(CPPSpent, actor, secret_for=side, side=side, amount=cost,
                         reason=table.title, rule=table.rule, cg_date=cg_date,
                         column="recon" if table.determines == "recon" else "spent")


def _write_result(campaign: Campaign, table: Table, side: str, final: int, result: str,
                  command: cmd.Roll, actor: str) -> None:
    """What the result puts on the CG Roster: Recon Locations (3.620) or the scenario's
    weather, EC or wind (9.6216)."""
    cg_date = campaign.reph.cg_date
    if table.determines == "recon":
        campaign._record(ReconRolled, actor, side=side, locations=max(0, final),
                         rule=table.rule, cg_date=cg_date)
    if table.determines in CONDITIONS:
        conditions = dict.fromkeys(CONDITIONS) | {table.determines: result}
        campaign._record(ScenarioRecorded, actor, cg_date=cg_date, scenario_type=None,
                         **conditions)


def _cost(campaign: Campaign, table: Table, side: str, drm: list[dict[str, Any]]) -> int:
    """CPP a roll costs (3.620 Recon: 1, or 2 for its +5), checked against the side's."""
    taken = {item["id"] for item in drm if not item["auto"]}
    cost = table.cpp_cost + sum(spec.cpp_cost for spec in table.drm if spec.id in taken)
    have = campaign.points.cpp[side]
    if cost > have:
        raise RuleViolation(f"table {table.id} costs {cost} CPP; the {side} side has {have}",
                            rule=table.rule)
    return cost


def cpp_base(campaign: Campaign, table: Table, side: str) -> int | None:
    """The CPP Base # a replenishment roll adds to (9.616), or None for other tables."""
    if not table.credits_cpp:
        return None
    cg_date = campaign.reph.cg_date
    base = (campaign.rules.date(cg_date).cpp_base or {}).get(side)
    if base is None:
        raise RuleViolation(f"the CPP Base Number Chart gives the {side} no CPP on "
                            f"{cg_date}", rule=table.rule)
    return base


def check_when(campaign: Campaign, table: Table, side: str,
               subject: str | None = None) -> None:
    """Refuse a roll the table's own conditions rule out now (who, when, how often; for
    the subject, if one is named)."""
    def refuse(why: str) -> None:
        raise RuleViolation(f"table {table.id} {why}", rule=table.rule)

    module, reph, dice = campaign.rules, campaign.reph, campaign.dice
    initiative = campaign.initiative
    if table.sides is not None and side not in table.sides:
        refuse(f"is rolled by the {' or '.join(table.sides)} only")
    if table.once_per_date and dice.rolled(table.id, side):
        refuse(f"is rolled once per CG Date: {side} has rolled it on {reph.cg_date}")
    if table.scenario_types is not None and \
            initiative.date_scenario not in table.scenario_types:
        refuse(f"is rolled for a {' or '.join(table.scenario_types)} only")
    if table.in_scenario and reph.phase != "scenario":
        refuse("is rolled during a CG Scenario")
    floor = (table.min_san or {}).get(side)
    if floor is not None and (campaign.points.san[side] or 0) < floor:
        refuse(f"is rolled only when the {side} SAN is {floor} or more")
    if table.counts_against is not None:
        row = module.rg_chart(side).row(table.counts_against)
        most = row.cg_max.get(campaign.cg)
        if most is not None and dice.rolled_in_cg(table.id, side) >= most:
            refuse(f"counts against {row.id} ({row.group_type}): CG max {most} for CG "
                   f"{campaign.cg} reached")
    if table.loss_points is not None and \
            not campaign.scenario.lost_heavily(side, table.loss_points):
        refuse(f"is rolled by a side that lost >= {table.loss_points.ratio}x and >= "
               f"{table.loss_points.margin} more CVP than the other in the prior scenario")
    _check_dates(campaign, table, side)
    if table.for_scenario and (initiative.date_scenario is None or initiative.all_idle()):
        refuse(f"is rolled for the CG Scenario the Initiative chits make of {reph.cg_date} "
               f"({module.initiative_rule}): " +
               ("not before both are revealed" if initiative.date_scenario is None
                else f"an {initiative.date_scenario} plays none"))
    follows = table.follows
    if follows is None:
        return
    whose = subject if follows.same_subject else None
    if not any(dice.gave(first, side, result, whose)
               for first, results in follows.callers().items() for result in results):
        called = " or ".join(  # each table by its title and rule, as the page shows it
            f"a roll on the {module.table(first).title} ({module.table(first).rule}) gave "
            f"{' or '.join(map(repr, results))}" for first, results in follows.callers().items())
        of = f" for {whose}" if whose is not None else ""
        refuse(f"is rolled only after {called}, by the {side}{of} on {reph.cg_date}; "
               "none did")


def check_step_only(campaign: Campaign, table: Table, side: str) -> None:
    """A table the current step offers only at night, or to some sides (its `only`)."""
    step = campaign.reph.current_step(campaign.rules)
    only = step.only.get(table.id) if step is not None else None
    if step is None or only is None:
        return
    cg_date = campaign.reph.cg_date
    if only.night and not campaign.rules.date(cg_date).night:
        raise RuleViolation(f"table {table.id} is rolled in {step.rule} on a Night CG Date "
                            f"only, not on {cg_date}", rule=only.rule)
    if only.sides is not None and side not in only.sides:
        raise RuleViolation(f"table {table.id} is rolled in {step.rule} by the "
                            f"{' or '.join(only.sides)} only", rule=only.rule)


def _check_dates(campaign: Campaign, table: Table, side: str) -> None:
    """The CG Dates a table is rolled on: from a date, for a side, not at setup or after
    an Idle CG Date."""
    def refuse(why: str) -> None:
        raise RuleViolation(f"table {table.id} {why}", rule=table.rule)

    module, cg_date = campaign.rules, campaign.reph.cg_date
    first = table.side_from.get(side)
    if first is not None and module.date_index(cg_date) < module.date_index(first):
        refuse(f"is rolled by the {side} from {first} on, not on {cg_date}")
    if table.not_initial and campaign.reph.phase == "setup":
        refuse("is not rolled for an Initial Scenario: its SSR gives it")
    if table.from_date is not None and \
            module.date_index(cg_date) < module.date_index(table.from_date):
        refuse(f"is rolled from {table.from_date} on, not on {cg_date}")
    if table.not_after_idle and campaign.initiative.previous_date_idle:
        refuse("is not rolled when the previous CG Date was Idle")
