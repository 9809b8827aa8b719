"""The Game Turns of a CG Scenario, as far as its Game End dr needs them (ABtF CG4, KGP
CG23): the turn just ended, the dr due at its end and who makes it, the number circled
in that turn's box on the CG Turn Record Chart, and the result that ends the scenario."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import commands as cmd
from domain.campaign import reports
from domain.campaign.events import CampaignEvent
from domain.campaign.handlers import handles
from domain.errors import InvalidCommand, RuleViolation
from domain.rules import GameEnd, Module, Table
from domain.subjects import Subject, parse_subject, slot_key

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


class TurnEnded(CampaignEvent):
    """A Game Turn (or one of its Player Turns) of the CG Scenario in play ended."""

    cg_date: str
    turn: int
    player_turn: int | None
    rule: str
    circled: int | None = None  # the number circled in its box, as the director gave it

    def apply(self, campaign: Any) -> None:
        scenario = campaign.scenario
        scenario.turn_date = self.cg_date
        scenario.turn = self.turn
        scenario.player_turn = self.player_turn or 0
        if self.circled is not None:
            scenario.circled, scenario.circled_turn = self.circled, self.turn


def game_end_table(module: Module) -> Table | None:
    """The module's Game End dr table (CG4, CG23), if it has one."""
    return next((table for table in module.tables if table.game_end is not None), None)


def _spec(table: Table) -> GameEnd:
    if table.game_end is None:  # only Game End tables are rolled per turn (kind_of)
        raise InvalidCommand(f"table {table.id} is no Game End dr", field="table")
    return table.game_end


def last_ended(campaign: Campaign) -> Subject:
    """The turn last ended in the CG Scenario in play (Game Turn 0: none yet)."""
    scenario = campaign.scenario
    if campaign.reph.phase != "scenario" or scenario.turn_date != campaign.reph.cg_date:
        return Subject("turn", turn=0)
    return Subject("turn", turn=scenario.turn, player_turn=scenario.player_turn or None)


def _following(spec: GameEnd, last: Subject) -> Subject:
    turn = last.turn or 0
    if spec.each == "game_turn":
        return Subject("turn", turn=turn + 1)
    if last.player_turn == 1:
        return Subject("turn", turn=turn, player_turn=2)
    return Subject("turn", turn=turn + 1, player_turn=1)


def to_end(campaign: Campaign) -> dict[str, Any] | None:
    """The turn of the CG Scenario in play that ends next, as the director ends it (the
    `end_turn` command's fields, its name and rule); None without a Game End dr or a
    scenario in play. Public: the Game Turn is on the map for both sides."""
    table = game_end_table(campaign.rules)
    if table is None or campaign.reph.phase != "scenario":
        return None
    spec = _spec(table)
    last = last_ended(campaign)
    following = _following(spec, last)
    turn = following.turn or 0
    asked = turn >= spec.from_turn and _number(campaign, spec, turn) is None
    return {"turn": following.turn, "player_turn": following.player_turn,
            "name": named(following), "rule": spec.rule, "from_turn": spec.from_turn,
            "when": when_made(spec),
            "ended": named(last) if last.turn else None,
            "due_first": [side for side in campaign.sides if due_subject(campaign, side)],
            "circled": f"the number circled in {_box(turn)}" if asked else None}


def _number(campaign: Campaign, spec: GameEnd, turn: int) -> int | None:
    """The number circled in the turn's box: the module data's, else the director's (given
    as the turn ended, in the scenario in play); None: neither is known."""
    number = spec.number(turn)
    if number is not None:
        return number
    scenario = campaign.scenario
    given = scenario.turn_date == campaign.reph.cg_date and scenario.circled_turn == turn
    return scenario.circled if given else None


def target_asked(campaign: Campaign, table: Table, subject: str) -> str | None:
    """What the side still gives as a Game End dr's `target`: the number circled in the
    turn's box, only for a turn ended before the director gave it with the turn's end
    (None: the data or the director gives it, or no Game End dr)."""
    if table.game_end is None or not subject.startswith("turn:"):
        return None
    turn = parse_subject(subject).turn or 0
    if _number(campaign, table.game_end, turn) is not None:
        return None
    return f"the number circled in {_box(turn)}"


def against(campaign: Campaign, table: Table, subject: str) -> str | None:
    """What a Game End dr is compared with, where the number is known (the data's, or the
    director's): "Scenario ends on a Final dr < 3 (...)"; None otherwise."""
    if table.game_end is None or table.target is None or not subject.startswith("turn:"):
        return None
    turn = parse_subject(subject).turn or 0
    number = _number(campaign, table.game_end, turn)
    if number is None:
        return None
    sign = {"lt": "<", "le": "≤", "ge": "≥", "gt": ">"}[table.target.compare]
    return (f"{table.target.hit} on a Final dr {sign} {number}, the number circled in "
            f"{_box(turn)}")


def waits_for_reports(campaign: Campaign, table: Table) -> str | None:
    """What a Game End dr due now waits for: the open reports, which a result that ends
    play counts (None: none open, or no Game End dr)."""
    if table.game_end is None or reports.unsettled(campaign, None) is None:
        return None
    return "the open reports are answered first (a result that ends play counts them)"


def when_made(spec: GameEnd) -> str:
    """When the Game End dr is made, as the rule says it (CG4, CG23)."""
    if spec.each == "game_turn":
        return f"at the end of Game Turn {spec.from_turn} and of each Game Turn after it"
    return f"at the end of each Player Turn from Game Turn {spec.from_turn} on"


def _box(turn: int) -> str:
    return f"Game Turn {turn}'s box of the CG Turn Record Chart"


def named(subject: Subject) -> str:
    """A turn as players say it: "Game Turn 5", "Player Turn 1 of Game Turn 6"."""
    name = f"Game Turn {subject.turn}"
    return f"Player Turn {subject.player_turn} of {name}" if subject.player_turn else name


def rollers(campaign: Campaign, spec: GameEnd) -> list[str]:
    """Who makes the dr: the side the rule names, or the ATTACKER (the side whose chit was
    Attack on this CG Date; either side when no chit, or both, says so)."""
    if spec.by != "ATTACKER":
        return [spec.by]
    attack = [side for side, chit in campaign.initiative.chits.items() if chit == "attack"]
    return attack if len(attack) == 1 else list(campaign.sides)


def _made(campaign: Campaign, table: Table, subject: Subject) -> bool:
    cg_date = campaign.reph.cg_date
    return any(campaign.dice.has_rolled(slot_key(cg_date, table.id, side, subject))
               for side in campaign.sides)


def due_subject(campaign: Campaign, side: str) -> tuple[Table, str] | None:
    """The Game End dr the side must make now: the turn just ended is one the rule makes
    it at the end of, and nobody has made it yet."""
    table = game_end_table(campaign.rules)
    if table is None or campaign.reph.phase != "scenario":
        return None
    spec, last = _spec(table), last_ended(campaign)
    if (last.turn or 0) < spec.from_turn or side not in rollers(campaign, spec) or \
            _made(campaign, table, last):
        return None
    return table, last.text()


def check_turn(campaign: Campaign, table: Table, side: str, subject: Subject,
               again: bool) -> None:
    """Refuse a Game End dr for a turn other than the one just ended, before the turn the
    rule starts at, by a side the rule does not name, or made already (`again`: a
    director's ruling authorized it)."""
    spec, last = _spec(table), last_ended(campaign)

    def refuse(why: str) -> None:
        raise RuleViolation(f"the {table.title} ({table.id}) {why}", rule=spec.rule)

    if campaign.reph.phase != "scenario":
        refuse("is made during a CG Scenario")
    who = rollers(campaign, spec)
    if side not in who:
        refuse(f"is made by the {' or '.join(who)}, not the {side}")
    if (last.turn or 0) < spec.from_turn:
        ended = "no turn has" if not last.turn else f"{named(last)} has"
        refuse(f"is made {when_made(spec)}: {ended} ended (end_turn)")
    if subject != last:
        refuse(f"is made for the turn just ended ({named(last)}), not {named(subject)}")
    if not again and _made(campaign, table, subject):
        refuse(f"has been made for {named(subject)}")
    # A result that ends play counts the scenario's casualties and Control, so the dr waits
    # for every open report whatever it rolls: refused only when it would end play, it
    # would tell the side its dice before they count (and let it leave them to the other).
    waiting = reports.unsettled(campaign, None)
    if waiting is not None:
        refuse(f"waits for the open reports, which a result that ends play counts: {waiting}")


def circled(campaign: Campaign, table: Table, subject: Subject, given: int | None) -> int:
    """The number the dr is compared with: the one circled in the turn's box, from the
    module data or as the director gave it when the turn ended; a `target` the side gives
    must be that number. Only a turn ended before the director gave it (a campaign older
    than `end_turn`'s `circled`) takes the side's number."""
    spec = _spec(table)
    number = _number(campaign, spec, subject.turn or 0)
    where = _box(subject.turn or 0)
    if number is None and given is None:
        raise InvalidCommand(f"the module data does not give the number circled in {where} "
                             f"({spec.rule}): give that number, as printed on the map "
                             f"(an owner supplies it as table {table.id}'s game_end.circled)",
                             rule=spec.rule, field="target")
    if number is not None and given is not None and given != number:
        raise InvalidCommand(f"{where} circles {number} ({spec.rule}), not {given}",
                             rule=spec.rule, field="target")
    return number if number is not None else int(given or 0)


def _check_circled(campaign: Campaign, spec: GameEnd, ended: Subject,
                   given: int | None) -> int | None:
    """The number circled in the ended turn's box that the director gives with it: asked
    where the Game End dr falls due and the module data lacks it (not again for a turn's
    second Player Turn); refused where no dr falls due, or it differs from the data's."""
    turn = ended.turn or 0
    where = _box(turn)
    if turn < spec.from_turn:
        if given is not None:
            raise InvalidCommand(f"no Game End dr is made at the end of {named(ended)} "
                                 f"({spec.rule}): give no circled number", rule=spec.rule,
                                 field="circled")
        return None
    known = _number(campaign, spec, turn)
    if known is None and given is None:
        raise InvalidCommand(f"the Game End dr falls due as {named(ended)} ends "
                             f"({spec.rule}): give the number circled in {where}, as "
                             "printed on the map (the module data does not give it)",
                             rule=spec.rule, field="circled")
    if known is not None and given is not None and given != known:
        raise InvalidCommand(f"{where} circles {known} ({spec.rule}), not {given}",
                             rule=spec.rule, field="circled")
    return given if known is None else None


def ends_play(campaign: Campaign, table_id: str, side: str) -> bool:
    """Whether a Game End dr just made ended the CG Scenario in play."""
    table = campaign.rules.table(table_id)
    return campaign.reph.phase == "scenario" and table.game_end is not None and \
        table.target is not None and campaign.dice.gave(table.id, side, table.target.hit)


@handles(cmd.EndTurn)
def end_turn(campaign: Campaign, command: cmd.EndTurn, actor: str) -> None:
    """A turn of the CG Scenario ended: the next one in order, and only once the Game End
    dr due at the end of the last one is made."""
    module, reph = campaign.rules, campaign.reph
    reph.check_not_ended()
    table = game_end_table(module)
    if table is None:
        raise RuleViolation(f"{module.short_name} has no Game End dr: the ledger keeps no "
                            "Game Turns")
    spec = _spec(table)
    if reph.phase != "scenario":
        raise RuleViolation("no CG Scenario is in play", rule=spec.rule)
    if (spec.each == "player_turn") != (command.player_turn is not None):
        wanted = "give player_turn 1 or 2" if spec.each == "player_turn" else \
            "give no player_turn"
        raise InvalidCommand(f"{spec.rule}: the Game End dr is made at the end of each "
                             f"{spec.each.replace('_', ' ')}: {wanted}", rule=spec.rule,
                             field="player_turn")
    for side in campaign.sides:
        due = due_subject(campaign, side)
        if due is not None:
            raise RuleViolation(f"the {spec.rule} Game End dr for {named(last_ended(campaign))}"
                                f" is due first (by the {' or '.join(rollers(campaign, spec))})",
                                rule=spec.rule)
    following = _following(spec, last_ended(campaign))
    ended = Subject("turn", turn=command.turn, player_turn=command.player_turn)
    if ended != following:
        raise RuleViolation(f"{named(following)} is the next to end, not {named(ended)}",
                            rule=spec.rule)
    number = _check_circled(campaign, spec, ended, command.circled)
    campaign._record(TurnEnded, actor, cg_date=reph.cg_date, turn=command.turn,
                     player_turn=command.player_turn, rule=spec.rule, circled=number)
