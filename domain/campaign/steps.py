"""The RePh step machine: what each step still waits for, leaving a step (CPP credited
and halved, OB-given reinforcements, Walking Wounded), entering one (a SAN floor), an
Idle CG Date, the next CG Date, and CG End."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from domain import commands as cmd
from domain.campaign import guide, reports, results
from domain.campaign.dice import SeedRevealed
from domain.campaign.points import CPPCredited, FPPCredited, PointsAdjusted, SANChanged
from domain.campaign.purchases import RGReceived
from domain.campaign.reph import (
    CGDateStarted,
    CGDecided,
    CGEnded,
    StepAdvanced,
    StepDoneBySide,
)
from domain.campaign.rolls import tells_unannounced_san
from domain.campaign.scenario import ScenarioEnded, WalkingWoundedRecovered
from domain.campaign.schedule import scheduled
from domain.errors import MissingTable, RuleViolation
from domain.rules import CPPForgo, ReinforcementSchedule, ScheduledReinforcement

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign

ANSWERS = frozenset({"confirm_report", "dispute_report"})  # a side done still answers these
SIGNING = frozenset({"register_key", "cosign_checkpoint"})  # no move: sent at a step's end


def advance(campaign: Campaign, command: cmd.Advance, actor: str) -> None:
    """A side's part of the step done (3.6: the sides perform each step simultaneously):
    the step is left once every side's is; the director's advance without a side leaves
    it for all. Refused while a roll is due (for that side; for the director, any)."""
    reph = campaign.reph
    reph.check_not_ended()
    if reph.phase == "scenario":
        raise RuleViolation(f"the {reph.cg_date} CG Scenario is in play: end it first")
    if command.side is None:
        _leave(campaign, actor, None)
        return
    side = campaign.check_side(command.side)
    if side in reph.done:
        raise RuleViolation(f"the {side} side has marked its part of step {reph.step} done",
                            rule=reph.step)
    refusal = guide.due_refusal(campaign, [side], side) or reports.unsettled(campaign, [side])
    if refusal is not None:
        raise RuleViolation(refusal, rule=reph.step)
    _check_chits_chosen(campaign, side)
    campaign._record(StepDoneBySide, actor, side=side, step=reph.step,
                     cg_date=reph.cg_date)
    if set(campaign.sides) <= set(reph.done):
        _leave(campaign, actor, side)


def _check_chits_chosen(campaign: Campaign, side: str) -> None:
    """No side's part of the initiative step is done before every chit is chosen: the
    chits are revealed together (3.6212), and what they reveal may make a roll of the
    step due (3.6213's Dual Attack dr), which a side already done could not make."""
    reph, waiting = campaign.reph, campaign.initiative.waiting()
    if not waiting or reph.phase != "reph" or \
            reph.step not in campaign.rules.command_steps.get("select_initiative", []):
        return
    if side in waiting:
        raise RuleViolation(f"the {side} must choose an Initiative chit before its part of "
                            f"{reph.step} is done", rule=reph.step)
    raise RuleViolation(f"the {', '.join(waiting)} must choose an Initiative chit before the "
                        f"{side} part of {reph.step} is done: the chits are revealed "
                        "together, and what they reveal may call for a roll of this step",
                        rule=reph.step)


def check_not_done(campaign: Campaign, command: cmd.Command, actor: str) -> None:
    """A side that marked its part of the step done sends nothing more in it (the
    director's undo takes a mark back), but still answers the other side's reports."""
    side = getattr(command, "side", None)
    if command.type in ANSWERS or command.type in SIGNING:
        return
    if actor == side and side in campaign.reph.done:
        raise RuleViolation(f"the {side} side has marked its part of step {campaign.reph.step} "
                            "done: it sends nothing more in this step (the director may "
                            "undo the mark)", rule=campaign.reph.step)


def _leave(campaign: Campaign, actor: str, viewer: str | None) -> None:
    """Complete the current RePh step; a step marked new-CG-Date starts the next date."""
    module, reph = campaign.rules, campaign.reph
    sequence = [s for s in module.steps if s.initial or reph.phase != "setup"]
    if not sequence or reph.step is None:
        raise MissingTable(f"the {module.short_name} RePh steps are not supplied; an owner "
                           "loads them with `refit module load FILE`", rule=module.reph_rule)
    rules = [s.rule for s in sequence]
    # An Initial Scenario's OB sets the initiative; every later CG Date needs both chits.
    waiting = campaign.initiative.waiting()
    if reph.phase == "reph" and waiting and \
            reph.step in module.command_steps.get("select_initiative", []):
        raise RuleViolation(f"{', '.join(waiting)} must choose an Initiative chit before "
                            f"the RePh leaves {reph.step}", rule=reph.step)
    if reph.step not in rules:
        raise MissingTable(f"step {reph.step} is no longer among the {module.short_name} RePh "
                           "steps (an owner's file replaced them)", rule=reph.step)
    position = rules.index(reph.step) + 1
    _check_leaving(campaign, viewer)
    # Public, as the step is; not why a roll that would tell an unannounced SAN was not
    # made (3.623): "the SAN is not 4 or more" tells it as well as the roll would.
    skipped = [f"{side}: {why}" for table, side, why in _required(campaign)
               if why is not None and not tells_unannounced_san(campaign,
                                                                module.table(table), side)
               ] or None
    if guide.idle(campaign):
        _idle_date(campaign, actor)
        return
    if position == len(sequence):
        _leave_step(campaign, actor)
        campaign._record(StepAdvanced, actor, phase="scenario", step=None,
                         previous=reph.step, skipped=skipped)
        return
    nxt = sequence[position]
    starts_date = nxt.new_cg_date and reph.phase == "reph"
    new_date = _next_date(campaign, nxt.rule) if starts_date else None
    _leave_step(campaign, actor)
    campaign._record(StepAdvanced, actor, phase=reph.phase, step=nxt.rule,
                     previous=reph.step, skipped=skipped)
    if new_date is not None:
        campaign._record(CGDateStarted, actor, cg_date=new_date, previous=reph.cg_date)
    _enter_step(campaign, actor)


def _required(campaign: Campaign) -> Iterator[tuple[str, str, str | None]]:
    """The step's required rolls not made yet: (table, side, why it does not apply)."""
    module = campaign.rules
    step = campaign.reph.current_step(module)
    for table_id in step.requires if step else []:
        for side in campaign.sides:
            if not campaign.dice.rolled(table_id, side):
                yield table_id, side, guide.why_not(campaign, module.table(table_id), side)


def _check_leaving(campaign: Campaign, viewer: str | None) -> None:
    """Refuse to leave a step before its rolls are made, or whose automatic effects need
    a SAN not yet recorded."""
    module = campaign.rules
    refusal = guide.due_refusal(campaign, campaign.sides, viewer) or \
        reports.unsettled(campaign, None)
    if refusal is not None:
        raise RuleViolation(refusal, rule=campaign.reph.step)
    for line in scheduled(campaign):
        if line.san is not None and campaign.points.san[line.side] is None:
            raise RuleViolation(f"{line.cg_date}: the {line.side} SAN changes by "
                                f"{line.san:+d}: record the {line.side} SAN first "
                                "(change_san)", rule=cast(ReinforcementSchedule,
                                                          module.reinforcements).rule)


def _enter_step(campaign: Campaign, actor: str, left: str | None = None) -> None:
    """A SAN below the floor is raised as the RePh enters its step (e.g. 9.6122); each
    side announces its SAN (3.623)."""
    results.entering(campaign, actor)
    floor = campaign.rules.san_floor
    if floor is None or floor.step != campaign.reph.step:
        return
    # Where an Idle CG Date repeats the step before the SAN is announced (PBr: Idle at
    # 3.621, 3.623 not reached, 3.6212), a secret purchase may have changed a SAN since
    # (3.617). Were the check open only where it raises, whether it raised, and from
    # what, would tell the opponent that SAN: so each side's check is then recorded,
    # raised or not, sealed to the side until the announcement (docs/audit.md). ABtF
    # announces as the RePh enters 9.621, the chits' step, so nothing is secret then.
    sealed = left is not None and _before_announcement(campaign, left)
    for side in campaign.sides:
        san = campaign.points.san[side]
        if san is None or (san >= floor.minimum and not sealed):
            continue
        raised = san < floor.minimum
        campaign._record(SANChanged, actor, side=side, before=san,
                         after=max(san, floor.minimum),
                         secret_for=side if sealed else campaign.points.san_secret_for(side),
                         cause=f"SAN below {floor.minimum} raised" if raised else
                         f"SAN not below {floor.minimum}: unchanged",
                         rule=floor.rule, cg_date=campaign.reph.cg_date)


def _leave_step(campaign: Campaign, actor: str) -> None:
    """What leaving the step does: the CPP Base # credited (3.616), points halved or
    forfeited (9.617), OB-given reinforcements (9.6152), the WW box emptied (CG19)."""
    module, reph = campaign.rules, campaign.reph
    step = module.step(cast(str, reph.step))
    base = module.date(reph.cg_date).cpp_base or {}
    for side in campaign.sides if step.credits_base and reph.phase == "reph" else []:
        if side not in base:
            continue
        less = campaign.points.forgone  # off the forgoing side's and the other's Base # (3.616)
        campaign._record(CPPCredited, actor, secret_for=side, side=side,
                         amount=max(0, base[side] - less),
                         reason="CPP Base #" + (f" less {less} forgone" if less else ""),
                         rule=cast(CPPForgo, module.cpp_forgo).rule if less else step.rule,
                         cg_date=reph.cg_date)
    _points_on_leaving(campaign, actor)
    for line in scheduled(campaign):
        _reinforce(campaign, line, actor)
    box = module.walking_wounded
    ww = campaign.scenario.ww_box
    if box is not None and box.step == reph.step and ww:
        campaign._record(WalkingWoundedRecovered, actor, side=box.side, half_squads=ww,
                         squads=ww // 2, unit=box.unit, rule=box.rule, cg_date=reph.cg_date)


def _reinforce(campaign: Campaign, line: ScheduledReinforcement, actor: str) -> None:
    """Apply one line of the reinforcement schedule: never counted in any RG maximum."""
    rule = cast(ReinforcementSchedule, campaign.rules.reinforcements).rule
    reason = "; ".join(line.notes) or "OB-given"
    cg_date = campaign.reph.cg_date
    if line.rg is not None:
        campaign._record(RGReceived, actor,  # public: the OB is (3.6179)
                         purchase=len(campaign.purchases.lines) + 1, side=line.side,
                         rg=line.rg, kg=None, group_type=cast(str, line.group_type),
                         reason=reason, rule=rule, cg_date=cg_date)
    if line.fpp is not None:
        campaign._record(FPPCredited, actor, secret_for=line.side, side=line.side,
                         amount=line.fpp, reason=reason, rule=rule, cg_date=cg_date)
    if line.san is not None:  # a cap stops the change; it never moves the SAN back
        before = cast(int, campaign.points.san[line.side])
        after = before + line.san
        after = min(max(line.san_maximum, before), after) if line.san > 0 else \
            max(min(line.san_minimum, before), after)
        if after != before:
            campaign._record(SANChanged, actor, side=line.side, before=before, after=after,
                             secret_for=campaign.points.san_secret_for(line.side),
                             cause=f"OB-given SAN {line.san:+d}", rule=rule, cg_date=cg_date)


def _points_on_leaving(campaign: Campaign, actor: str) -> None:
    reph, points = campaign.reph, campaign.points
    for effect in campaign.rules.on_leaving.get(cast(str, reph.step), []):
        if effect.dates is not None and reph.cg_date not in effect.dates:
            continue
        pool = points.cpp if effect.pool == "cpp" else points.fpp
        for side in campaign.sides:  # every side, so the seal hides whether anything was left
            campaign._record(PointsAdjusted, actor, secret_for=side, side=side,
                             pool=effect.pool, before=pool[side],
                             after=effect.after(pool[side]), rule=effect.rule,
                             cg_date=reph.cg_date)


def _idle_date(campaign: Campaign, actor: str) -> None:
    """Repeat the RePh from the step that starts a new CG Date (e.g. 9.612-9.620)."""
    module, reph = campaign.rules, campaign.reph
    repeat = module.step(cast(str, module.idle_repeat))
    if reph.cg_date == last_date(campaign):
        end_cg(campaign, actor)
        return
    left = cast(str, reph.step)
    campaign._record(StepAdvanced, actor, phase="reph", step=repeat.rule, previous=left)
    campaign._record(CGDateStarted, actor, cg_date=_next_date(campaign, repeat.rule),
                     previous=reph.cg_date)
    _enter_step(campaign, actor, left=left)


def _before_announcement(campaign: Campaign, step: str) -> bool:
    """Whether the RePh leaves `step` before it enters the step that announces each SAN
    (3.623): a SAN a secret purchase changed is the side's own until then."""
    announced, rules = campaign.rules.san_announced, [s.rule for s in campaign.rules.steps]
    return announced is not None and step in rules and announced.step in rules and \
        rules.index(step) < rules.index(announced.step)


def last_date(campaign: Campaign) -> str:
    """The CG's last CG Date: from its parameters, else the calendar's last."""
    module = campaign.rules
    params = module.cgs.get(campaign.cg)
    return params.end if params else module.calendar[-1].date


def _next_date(campaign: Campaign, rule: str) -> str:
    module, cg_date = campaign.rules, campaign.reph.cg_date
    index = module.date_index(cg_date) + 1
    if cg_date == last_date(campaign) or index >= len(module.calendar):
        raise RuleViolation(f"{cg_date} is the last CG Date of {module.id}", rule=rule)
    return module.calendar[index].date


def end_scenario(campaign: Campaign, actor: str) -> None:
    """End the CG Scenario; on the CG's last CG Date this is CG End."""
    module, reph = campaign.rules, campaign.reph
    reph.check_not_ended()
    if reph.phase != "scenario":
        where = "the set-up before the Initial Scenario" if reph.phase == "setup" else \
            "the Refit Phase"
        raise RuleViolation(f"no CG Scenario is in play: the campaign is in {where}" +
                            (f", at step {reph.step}" if reph.step else ""))
    open_reports = reports.unsettled(campaign, None)
    if open_reports is not None:  # its casualties and control decide the RePh (3.6162, 8.2)
        raise RuleViolation(f"the {reph.cg_date} CG Scenario cannot end yet: {open_reports}")
    campaign._record(ScenarioEnded, actor, cg_date=reph.cg_date)
    module.scenario_ended(campaign, actor)
    if reph.cg_date == last_date(campaign):
        end_cg(campaign, actor)
        return
    first = module.steps[0].rule if module.steps else None
    campaign._record(StepAdvanced, actor, phase="reph", step=first, previous=None)


def decide_cg(campaign: Campaign, command: cmd.EndCG, actor: str) -> None:
    """A concession (the conceding side) or a Sudden Death Victory (the winner)."""
    module, reph = campaign.rules, campaign.reph
    reph.check_not_ended()
    side = campaign.check_side(command.side)
    if command.reason == "sudden_death":
        rule = module.sudden_death.get(side)
        if rule is None:
            raise RuleViolation(f"{module.short_name} gives the {side} no Sudden Death Victory",
                                rule=command.rule)
        if reph.phase != "scenario":
            raise RuleViolation("a Sudden Death Victory is won during a CG Scenario",
                                rule=rule)
    winner = side if command.reason == "sudden_death" else next(
        other for other in campaign.sides if other != side)
    campaign._record(CGDecided, actor, side=side, reason=command.reason, winner=winner,
                     rule=command.rule, cg_date=reph.cg_date)
    end_cg(campaign, actor)


def end_cg(campaign: Campaign, actor: str) -> None:
    """CG End: recorded, and the seed revealed (unless an import came without it)."""
    campaign._record(CGEnded, actor, cg_date=campaign.reph.cg_date)
    dice = campaign.dice
    if dice.mode == "server" and dice.seed is not None:
        campaign._record(SeedRevealed, actor, **dice.reveal(commit_next=False))
