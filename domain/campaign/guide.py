"""What each side must and may do now (CONTRACT 'Guide'): the rolls due per subject and
the optional ones, each with the DRM the ledger will derive and those a side may claim;
the purchases still open; which sides have done their part of the step; what leaving the
step does; the reports awaiting each side (reports.py). A pure function of the campaign:
`advance` is refused while a roll is due, and a roll for a subject it does not list is
refused by the same checks (slots.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from domain.campaign import reports, slots, turns
from domain.campaign.bombardment import open_bombardments
from domain.campaign.guide_purchases import purchases_open, purchases_refused
from domain.campaign.initiative import check_selection
from domain.campaign.retained import recorded_before, recorded_now
from domain.campaign.rolls import (
    check_step_only,
    check_when,
    cpp_base,
    tells_unannounced_san,
    waits_for_notes,
)
from domain.campaign.schedule import said, scheduled
from domain.campaign.subject_facts import subject_facts
from domain.drm import claimable, derived_drm
from domain.errors import RefitError
from domain.rules import Step, Table
from domain.subjects import LABEL, Subject, kind_of, parse_subject

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign

Work = dict[str, Any]  # one roll or purchase, as the guide answers it
UNIT = "unit:LABEL"  # an optional roll per unit: the side names the unit (LABEL)


def guide(campaign: Campaign, viewer: str | None) -> dict[str, Any]:
    """The guide as `viewer` may read it: a side its own part, the director every side's,
    anyone else every side's public due rolls (no RG line, purchase or CPP)."""
    reph = campaign.reph
    sides = [viewer] if viewer in campaign.sides else campaign.sides
    public = viewer is not None and viewer not in campaign.sides
    step = reph.current_step(campaign.rules) if reph.phase in ("setup", "reph") else None
    # Reports are public, as casualties and control are: every role reads them all.
    answer: dict[str, Any] = {"cg_date": reph.cg_date, "step": reph.step,
                              "title": step.title if step else None,
                              "phase": reph.phase, "sides": {},
                              "reports": reports.listed(campaign),
                              "initiative": initiative_shown(campaign),
                              # the CG Scenario's next turn to end (CG4, CG23), public
                              "turn": turns.to_end(campaign),
                              "stalled": _stalled(campaign)}
    for side in sides:
        due, optional = due_rolls(campaign, side), optional_work(campaign, side)
        if public:  # the step's and the turn's rolls are public; an RG line's are not
            due = [w for w in due if is_public(campaign, side, w)]
            optional = [w for w in optional
                        if w.get("subject") == "step" and is_public(campaign, side, w)]
        else:  # what the side's CPP pay for is its own to know (3.620 Recon: 1 or 2 CPP)
            optional = affordable(campaign, side, optional)
        if side in reph.done:  # it sends nothing more in this step (steps.check_not_done)
            optional = []
        answer["sides"][side] = {"due": due + reports.due(campaign, side),
                                 "optional": optional,
                                 "chit": None if public else chit_due(campaign, side),
                                 "done": side in reph.done,
                                 # the RG it may not buy now, each with the rule why
                                 "refused": [] if public or side in reph.done
                                 else purchases_refused(campaign, side),
                                 # the step's tables it does not roll now, each with why
                                 "not_now": [] if public or side in reph.done
                                 else not_now(campaign, side),
                                 "on_leaving": leaving(campaign, side, not public),
                                 # its Retained units recorded on the CG Date (its
                                 # secret ones too), as retain_units takes them
                                 "retained": [] if public else
                                 [u.model_dump() for u in recorded_now(campaign, side)],
                                 # ... and as last recorded on an earlier CG Date
                                 "retained_before": [] if public else
                                 [u.model_dump() for u in recorded_before(campaign, side)]}
    return answer


def initiative_shown(campaign: Campaign) -> dict[str, Any] | None:
    """The CG Date's chits and what the Initiative Matrix made of them (3.6212), once every
    side has chosen and they are shown together; None before (each chit is secret)."""
    initiative = campaign.initiative
    if initiative.waiting() or campaign.reph.phase == "setup":
        return None
    return {"chits": dict(initiative.chits), "scenario_type": initiative.date_scenario,
            "rule": campaign.rules.initiative_rule}


def chit_due(campaign: Campaign, side: str) -> Work | None:
    """The Initiative chits of this step (e.g. 3.6212) while any is still to be chosen:
    those the side may choose (the CG's Attack-Chit limit, 3.6211; Attack only against an
    enemy on the map), or that it has chosen and waits for the other side's, since no
    side is done with the step before the chits are revealed together (steps.py)."""
    module, reph, initiative = campaign.rules, campaign.reph, campaign.initiative
    waiting = initiative.waiting()
    if reph.phase != "reph" or not waiting or \
            reph.step not in module.command_steps.get("select_initiative", []):
        return None
    chits, refused = [], []
    for chit in ("attack", "idle") if side in waiting else ():
        try:
            check_selection(campaign, side, chit)
        except RefitError as error:  # said on the page, with its rule (3.6211, 3.6212 *)
            refused.append({"chit": chit, "why": error.message, "rule": error.rule})
            continue
        chits.append(chit)
    return {"select": "initiative", "rule": module.initiative_rule or reph.step,
            "chosen": side not in waiting, "chits": chits, "refused": refused,
            "waiting_for": [other for other in waiting if other != side]}


def affordable(campaign: Campaign, side: str, work: list[Work]) -> list[Work]:
    """The optional rolls the side's CPP pay for, each with the claims they still pay for
    (3.620: the dr costs 1 CPP, its +5 one more)."""
    have = campaign.points.cpp.get(side) or 0
    kept = []
    for item in work:
        if "table" not in item:  # a purchase: listed only if affordable already
            kept.append(item)
            continue
        table = campaign.rules.table(item["table"])
        if table.cpp_cost > have:
            continue
        costs = {spec.id: spec.cpp_cost for spec in table.drm}
        kept.append(item | {"claims": [c for c in item["claims"]
                                       if table.cpp_cost + costs.get(c["id"], 0) <= have]})
    return kept


def _step(campaign: Campaign) -> Step | None:
    """The step whose rolls are due now (None in a scenario, at CG End, on an Idle date)."""
    reph = campaign.reph
    step = reph.current_step(campaign.rules)
    if step is None or reph.phase in ("scenario", "ended") or idle(campaign):
        return None
    return step


def idle(campaign: Campaign) -> bool:
    """Both sides chose Idle at the initiative step: an Idle CG Date, no scenario."""
    module, reph = campaign.rules, campaign.reph
    return (reph.phase == "reph" and module.idle_repeat is not None
            and reph.step in module.command_steps.get("select_initiative", [])
            and campaign.initiative.all_idle())


def is_public(campaign: Campaign, side: str, work: Work) -> bool:
    """Whether the other sides may know that the side has this roll to make: not for an
    RG line's (3.617), nor one that would tell a SAN not announced yet (3.623)."""
    return not work["subject"].startswith("rg:") and \
        not tells_unannounced_san(campaign, campaign.rules.table(work["table"]), side)


def why_not(campaign: Campaign, table: Table, side: str) -> str | None:
    """Why a side does not roll a table now (None when it does)."""
    try:
        check_when(campaign, table, side)
        check_step_only(campaign, table, side)
        cpp_base(campaign, table, side)
    except RefitError as refusal:
        return refusal.message
    return None


def not_now(campaign: Campaign, side: str) -> list[Work]:
    """The step's tables of the side's that it does not roll now, each with the rule's
    reason (3.620 before an Initial Scenario, a follow-up no result called for, the CPP it
    lacks); another side's tables are not listed."""
    step = _step(campaign)
    if step is None:
        return []
    have = campaign.points.cpp.get(side) or 0
    found = []
    for table in (campaign.rules.table(t) for t in step.tables):
        if table.sides is not None and side not in table.sides:
            continue  # another side's table: never the side's to roll
        why = why_not(campaign, table, side)
        if why is None and table.cpp_cost > have:
            why = f"table {table.id} costs {table.cpp_cost} CPP; the {side} side has {have}"
        if why is not None:
            found.append({"table": table.id, "title": table.title, "rule": table.rule,
                          "why": why})
    return found


def due_rolls(campaign: Campaign, side: str) -> list[Work]:
    """The rolls the side must make before the RePh leaves the step, per subject."""
    step = _step(campaign)
    if step is None:  # in a CG Scenario: its Game End dr at the end of a turn (CG4, CG23)
        game_end = turns.due_subject(campaign, side)
        return [] if game_end is None else [_roll(campaign, game_end[0], side, game_end[1])]
    module = campaign.rules
    work = [_roll(campaign, module.table(t), side, "step") for t in step.requires
            if why_not(campaign, module.table(t), side) is None
            and not campaign.dice.rolled(t, side)]
    for table_id in step.tables if step.requires_strength else []:
        table = module.table(table_id)
        if _required(table) and why_not(campaign, table, side) is None:
            work += [_roll(campaign, table, side, text)
                     for text in _open_subjects(campaign, table, side)]
    return work


def optional_work(campaign: Campaign, side: str) -> list[Work]:
    """The rolls the side may make now but need not, and the purchases still open."""
    step = _step(campaign)
    if step is None:  # in a CG Scenario: its own rolls (e.g. ABtF CG4, KGP CG23 Game End)
        return [_roll(campaign, table, side, UNIT) for table in campaign.rules.tables
                if campaign.reph.phase == "scenario" and table.in_scenario
                and table.game_end is None and why_not(campaign, table, side) is None]
    work: list[Work] = []
    for table in (campaign.rules.table(t) for t in step.tables):
        if why_not(campaign, table, side) is not None:
            continue
        kind = kind_of(table)
        followed = _followed(campaign, table, side)
        if kind == "unit" and followed is not None:  # the units it follows, by name
            work += [_roll(campaign, table, side, subject) for subject in followed]
        elif kind == "unit":
            work.append(_roll(campaign, table, side, UNIT))
        elif kind == "step":
            if table.id not in step.requires and not campaign.dice.rolled(table.id, side):
                work.append(_roll(campaign, table, side, "step"))
        elif not (step.requires_strength and _required(table)):
            work += [_roll(campaign, table, side, text)
                     for text in _open_subjects(campaign, table, side)]
    return work + purchases_open(campaign, side) + open_bombardments(campaign, side)


def _followed(campaign: Campaign, table: Table, side: str) -> list[str] | None:
    """For a follow-up rolled for the very unit whose roll called for it (3.6061: that
    unit's Equipment), each such unit not yet rolled for, by name; None for any other."""
    follows = table.follows
    if follows is None or not follows.same_subject:
        return None
    named = dict.fromkeys(subject for first, results in follows.callers().items()
                          for result in results
                          for subject in campaign.dice.given_for(first, side, result))
    return [subject for subject in named if _may_roll(campaign, table, side, subject)]


def _may_roll(campaign: Campaign, table: Table, side: str, subject: str) -> bool:
    """Whether the side may roll the table for the subject now (not yet, in particular)."""
    try:
        slots.check_subject(campaign, table, side, subject)
    except RefitError:
        return False
    return True


def _required(table: Table) -> bool:
    """An RG table every line it is for must roll on (3.6181-3.6183, 9.6181-9.6184): its
    lines are known from the data (the leader and composition tables name their RG)."""
    if table.determines in ("strength", "sw", "sw_type"):
        return True
    return table.determines in ("leader", "composition") and \
        (table.for_rgs is not None or table.for_marked_rgs)


def _open_subjects(campaign: Campaign, table: Table, side: str) -> Iterator[str]:
    """Every subject of the side's own RG lines of this CG Date the table may roll for."""
    for number, line in enumerate(campaign.purchases.lines, 1):
        if line["side"] != side or line["cg_date"] != campaign.reph.cg_date:
            continue
        yield from (subject.text() for subject in _candidates(campaign, table, side, number,
                                                               line)
                    if _may_roll(campaign, table, side, subject.text()))


def _candidates(campaign: Campaign, table: Table, side: str, number: int,
                line: dict[str, Any]) -> list[Subject]:
    kind = kind_of(table)
    if kind == "leader":
        row = campaign.rules.chart_row(side, line["rg"])
        return [Subject("leader", line=number, slot=k)
                for k in range(1, (row.leader_rolls if row else 1) + 1)]
    if kind == "sw":
        round_, due = slots.sw_round(campaign, table, side, number, line)
        return [Subject("sw", line=number, slot=k, round=round_) for k in due]
    return [Subject("rg", line=number)]


def _roll(campaign: Campaign, table: Table, side: str, subject: str) -> Work:
    """A roll as the guide lists it, with its DRM: derived, and those a side may claim."""
    derived, claims = _drm(campaign, table, side, subject)
    work: Work = {"table": table.id, "rule": table.rule, "title": table.title,
                  "roll": table.roll, "subject": subject,
                  "secret": campaign.rules.seals(table) or subject.startswith("rg:")
                  or tells_unannounced_san(campaign, table, side),
                  "drm": derived, "claims": claims}
    if table.cpp_cost:  # what the roll costs the side (3.620 Recon)
        work["cpp"] = table.cpp_cost
    if subject == UNIT:
        work["label"] = f"the {side}'s own name for the unit ({LABEL.pattern})"
    waits = waits_for_notes(campaign, table) or turns.waits_for_reports(campaign, table)
    if waits is not None:  # due, and refused until the director records what it reads
        work["waits"] = waits
    asked = turns.target_asked(campaign, table, subject)
    if asked is not None:  # a Game End dr whose circled number the data lacks: the side's
        work["target"] = asked
    compared = turns.against(campaign, table, subject)
    if compared is not None:  # ... or the number it is compared with, known
        work["against"] = compared
    return work


def _stalled(campaign: Campaign) -> str | None:
    """Why the RePh cannot go on, where the module's steps are owner data not loaded (KGP:
    8.6's steps are not in the seeds); None where it can."""
    reph, module = campaign.reph, campaign.rules
    if reph.phase not in ("setup", "reph") or reph.step is not None:
        return None
    return (f"the {module.short_name} Refit Phase steps ({module.reph_rule}) are owner data "
            "not loaded here: the Refit Phase goes on once an owner loads them (refit "
            "module load FILE)")


def _drm(campaign: Campaign, table: Table, side: str,
         subject: str) -> tuple[list[Work], list[Work]]:
    """The DRM a roll gets from the record, and those the side may claim (domain/drm.py:
    every call the guide makes to it is here)."""
    parsed = parse_subject(subject) if subject != UNIT else Subject("unit")
    leader = parsed.slot if parsed.kind == "leader" else None
    facts = subject_facts(campaign, side, parsed.line, leader)
    claims = [{"id": spec.id, "reason": spec.reason, "value": spec.value,
               "rule": spec.rule or table.rule, "count": spec.count is not None}
              | ({"cpp": spec.cpp_cost} if spec.cpp_cost else {})
              | ({"count_of": spec.count.of, "count_min": spec.count.min,
                  "count_max": spec.count.max, "count_per": spec.count.per,
                  "count_less": spec.count.less, "count_round": spec.count.round}
                 if spec.count is not None else {})
              for spec in claimable(table, facts)]
    return derived_drm(table, facts), claims


def leaving(campaign: Campaign, side: str, amounts: bool) -> list[str]:
    """What leaving the step will do to the side, where the module data says (e.g. PBr
    3.617: CPP forfeited after 14PM); `amounts` False leaves out its secret points."""
    module, reph = campaign.rules, campaign.reph
    notes = []
    for effect in module.on_leaving.get(reph.step or "", []):
        if effect.dates is not None and reph.cg_date not in effect.dates:
            continue
        pool = campaign.points.cpp if effect.pool == "cpp" else campaign.points.fpp
        have = pool.get(side) or 0
        if amounts and not have:
            continue  # nothing to lose: no warning
        what = "forfeits" if effect.effect == "forfeit" else "halves (FRU)"
        left = f" ({have} now, {effect.after(have)} after)" if amounts else ""
        notes.append(f"{effect.rule}: leaving {reph.step} on {reph.cg_date} {what} the "
                     f"{side} side's unspent {effect.pool.upper()}{left}")
    if amounts and _nothing_bought(campaign, side):  # its CPP perhaps not credited yet
        notes.append(f"{module.rg_chart_rule or reph.step}: the {side} side has bought no RG "
                     f"for {reph.cg_date} ({campaign.points.cpp.get(side) or 0} CPP)")
    if amounts:  # whether it may roll can turn on its CPP (3.620 Recon): its own to know
        notes += [f"{table.rule}: leaving {reph.step} gives up the {side} side's "
                  f"{table.title} {table.roll}, not rolled yet: it is made in this step only"
                  for table in _optional_step_rolls(campaign, side)]
    given = [words for line in scheduled(campaign) if line.side == side
             if (words := said(line, amounts))]
    if given and module.reinforcements is not None:
        notes.append(f"{module.reinforcements.rule}: leaving {reph.step} on {reph.cg_date} "
                     f"gives the {side} side, from its OB and outside every maximum: "
                     f"{'; '.join(given)}")
    forgo = module.cpp_forgo
    if forgo is not None and forgo.side == side and forgo.cg == campaign.cg and \
            forgo.cg_date == reph.cg_date and \
            reph.step in module.command_steps.get("forgo_cpp", []):
        notes.append(f"{forgo.rule} EXC: leaving {reph.step} ends the {side} choice to "
                     "forgo CPP")
    return notes


def _optional_step_rolls(campaign: Campaign, side: str) -> list[Table]:
    """The step's once-a-step rolls the side may still make but need not (e.g. PBr 3.6162,
    the Loss Points dr; 3.620 Recon): leaving the step gives them up."""
    step = _step(campaign)
    if step is None:
        return []
    tables = (campaign.rules.table(t) for t in step.tables if t not in step.requires)
    return [table for table in tables if kind_of(table) == "step"
            and not campaign.dice.rolled(table.id, side) and why_not(campaign, table, side) is None]


def _nothing_bought(campaign: Campaign, side: str) -> bool:
    """Whether this is the RG purchase step and the side has bought no RG on the CG Date
    (a line the OB gave does not count)."""
    reph, module = campaign.reph, campaign.rules
    steps = module.command_steps.get("purchase_rg") or [module.rg_chart_rule]
    return reph.step in steps and not any(
        line["side"] == side and line["cg_date"] == reph.cg_date and not line["given"]
        for line in campaign.purchases.lines)


def due_refusal(campaign: Campaign, sides: list[str], viewer: str | None) -> str | None:
    """Why the step may not be left yet: each roll still due for `sides`, named by rule
    and subject (another side's RG lines only to the director: `viewer` None)."""
    named = []
    for side in sides:
        for work in due_rolls(campaign, side):
            own = viewer is None or viewer == side
            if not own and not is_public(campaign, side, work) and work["subject"] == "step":
                what = f"the {side} a roll of its own"  # its SAN is not announced (3.623)
            else:
                what = f"the {side} {work['table']} ({work['title']})"
            if work["subject"] != "step":  # another side's RG line is its secret (3.617)
                what += f" for {work['subject']}" if own else " for an RG of its own"
            named.append(what)
    if not named:
        return None
    return f"step {campaign.reph.step} is not complete: still due " + "; ".join(named)
