"""Whether a roll's subject is one this side may roll for now: the step itself, an RG
line of its own bought or given on this CG Date, the K-th listed SW or leader roll of
that line, or a unit. The guide lists exactly the subjects that pass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from domain.campaign import determination, turns
from domain.errors import InvalidCommand, RuleViolation
from domain.rules import SWAllotment, Table
from domain.subjects import Subject, kind_of, parse_subject, slot_key

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign

FOR = {"step": "once for the step (subject `step`)", "rg": "per RG line (subject `rg:N`)",
       "sw": "per listed SW of an RG line (subject `rg:N/sw:K`)",
       "leader": "per leader roll of an RG line (subject `rg:N/leader:K`)",
       "unit": "per unit (subject `unit:LABEL`)",
       "turn": "per turn just ended (subject `turn:N`, `turn:N/pt:K`)"}


@dataclass(frozen=True)
class Checked:
    """A subject that may be rolled for now: its slot, and its RG line and SW if any."""

    subject: Subject
    slot: str
    number: int | None = None  # its RG Purchase Record line
    item: SWAllotment | None = None  # the SW a 3.6182 dr is made for


def check_subject(campaign: Campaign, table: Table, side: str, text: str,
                  again: bool = False) -> Checked:
    """Refuse (422, rule cited) a subject that is not due or optional for the side now;
    `again`: a director's ruling authorized it (a voided roll's re-roll, a missed roll)."""
    subject = parse_subject(text)
    kind = kind_of(table)
    if subject.kind != kind:
        raise InvalidCommand(f"table {table.id} is rolled {FOR[kind]}, not for "
                             f"{text!r}", rule=table.rule, field="subject")
    slot = slot_key(campaign.reph.cg_date, table.id, side, subject)
    number, item = subject.line, None
    if number is not None:  # what the line's record says first: e.g. its strength known
        line = own_line(campaign, table, side, number)
        if subject.kind == "leader":
            _check_leader(campaign, table, line, number, subject)
        determination.check_line(campaign.rules, table, line, number, campaign.reph.cg_date)
    # (a once-per-date roll again is refused by its table's own condition: check_when)
    if subject.kind == "turn":  # a Game End dr: for the turn just ended (CG4, CG23)
        turns.check_turn(campaign, table, side, subject, again)
    if subject.kind != "step" and not again and campaign.dice.has_rolled(slot):
        raise RuleViolation(f"table {table.id} has been rolled for {text} by the {side} on "
                            f"{campaign.reph.cg_date}; only a director's re-roll rolls it "
                            "again", rule=table.rule)
    for other in table.one_of if subject.kind != "step" and not again else []:
        if campaign.dice.has_rolled(slot_key(campaign.reph.cg_date, other, side, subject)):
            raise RuleViolation(f"{text} has been rolled on table {other} on "
                                f"{campaign.reph.cg_date}: one attempt, on one of the tables "
                                f"{', '.join([table.id, *table.one_of])}", rule=table.rule)
    if number is None:
        return Checked(subject, slot)
    if subject.kind == "sw":
        item = determination.sw_slot(campaign.rules, side, line, subject.slot or 0,
                                     table.rule)
        _check_round(campaign, table, side, number, subject)
    return Checked(subject, slot, number, item)


def own_line(campaign: Campaign, table: Table, side: str, number: int) -> dict[str, Any]:
    """Line `number` of the RG Purchase Record, refused unless it is the side's own."""
    lines = campaign.purchases.lines
    if number > len(lines):
        raise InvalidCommand(f"the RG Purchase Record has no line {number}", field="subject")
    line: dict[str, Any] = lines[number - 1]
    if line["side"] != side:  # what the line holds is the other side's secret (3.617)
        raise RuleViolation(f"RG line {number} is not the {side}'s: a side rolls for its "
                            "own RG", rule=table.rule)
    return line


def _check_leader(campaign: Campaign, table: Table, line: dict[str, Any], number: int,
                  subject: Subject) -> None:
    row = campaign.rules.chart_row(line["side"], line["rg"])
    allowed = row.leader_rolls if row is not None else 1
    if (subject.slot or 0) > allowed:
        raise RuleViolation(f"purchase #{number} ({line['rg']}) makes {allowed} Leader "
                            f"Table roll(s) (a coy three): no leader:{subject.slot}",
                            rule=table.rule)


def sw_round(campaign: Campaign, table: Table, side: str, number: int,
             line: dict[str, Any]) -> tuple[int, list[int]]:
    """The 3.6182 round the line's SW are rolled in now, and the K still due in it: a
    round after the first only while fewer SW were received than the chart's minimum."""
    rolled = determination.rolled_sw(campaign.rules, side, line)
    if not rolled:
        return 1, []

    def done(k: int, round_: int) -> bool:
        subject = Subject("sw", line=number, slot=k, round=round_)
        return campaign.dice.has_rolled(slot_key(campaign.reph.cg_date, table.id, side,
                                                 subject))
    round_ = 1
    while all(done(k, round_) for k in rolled):
        round_ += 1
    started = any(done(k, round_) for k in rolled)
    if round_ > 1 and not started and \
            not determination.sw_again(campaign.rules, side, line):
        return round_, []
    return round_, [k for k in rolled if not done(k, round_)]


def _check_round(campaign: Campaign, table: Table, side: str, number: int,
                 subject: Subject) -> None:
    line = campaign.purchases.lines[number - 1]
    round_, due = sw_round(campaign, table, side, number, line)
    if not due:
        raise RuleViolation(f"purchase #{number} ({line['rg']}) has made its SW dr",
                            rule=table.rule)
    if subject.round != round_:
        raise RuleViolation(f"purchase #{number} ({line['rg']}) rolls its SW in round "
                            f"{round_} now (3.6182: the whole RG again until at least two "
                            "are received)", rule=table.rule)


def sw_target(campaign: Campaign, table: Table, checked: Checked,
              target: int | None) -> int | None:
    """The number a roll is made against: the SW chart's for a 3.6182 dr (never the
    player's); a Game End dr's the CG Turn Record Chart circles for the turn (CG4, CG23);
    else the one the command gives."""
    if checked.subject.kind == "turn":
        return turns.circled(campaign, table, checked.subject, target)
    if checked.item is None:
        return target
    if target is not None:
        raise InvalidCommand(f"table {table.id}: the SW chart gives the number a SW is "
                             "received on; do not give `target`", rule=table.rule,
                             field="target")
    line = campaign.purchases.lines[(checked.number or 1) - 1]
    item = checked.item
    return item.depleted if line["strength"] == "D" else item.full
