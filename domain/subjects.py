"""A roll's subject: what one roll decides (CONTRACT 'Dice'), parsed from the opaque text
the guide hands out. A subject names a slot for the dice, never a rules fact: whether the
slot is due or optional now is the guide's to say (domain/campaign/guide.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from domain.errors import InvalidCommand
from domain.rules import Table

Kind = Literal["step", "rg", "sw", "leader", "unit", "turn"]
LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,23}")  # a side's short name for a unit
_GRAMMAR = re.compile(r"step|unit:(?P<label>[^/]*)"
                      r"|turn:(?P<turn>[1-9][0-9]?)(?:/pt:(?P<pt>[12]))?"
                      r"|rg:(?P<line>[1-9][0-9]{0,5})"
                      r"(?:/(?P<slot_kind>sw|leader):(?P<slot>[1-9][0-9]{0,2})"
                      r"(?:/round:(?P<round>[2-9]|[1-9][0-9]))?)?")
FORMS = ("step", "rg:N", "rg:N/sw:K", "rg:N/sw:K/round:R", "rg:N/leader:K", "unit:LABEL",
         "turn:N", "turn:N/pt:K")


@dataclass(frozen=True)
class Subject:
    """One slot a roll decides: the step itself, an RG Purchase Record line, the K-th
    listed SW (3.6182, in re-roll round R) or leader roll (3.6183) of a line, a unit, or
    the Game Turn (and Player Turn) a Game End dr is made at the end of (CG4, CG23)."""

    kind: Kind
    line: int | None = None  # RG Purchase Record line, 1-based
    slot: int | None = None  # K of sw:K or leader:K
    round: int = 1  # 3.6182: the whole RG's SW rolled again until two are received
    label: str | None = None  # unit:LABEL, the side's own name for the unit
    turn: int | None = None  # turn:N, the Game Turn just ended
    player_turn: int | None = None  # turn:N/pt:K, its Player Turn K (KGP CG23)

    def text(self) -> str:
        """The subject as the guide hands it out and a roll command sends it back."""
        if self.kind == "step":
            return "step"
        if self.kind == "unit":
            return f"unit:{self.label}"
        if self.kind == "turn":
            return f"turn:{self.turn}" + (f"/pt:{self.player_turn}" if self.player_turn else "")
        text = f"rg:{self.line}"
        if self.kind in ("sw", "leader"):
            text += f"/{self.kind}:{self.slot}"
        return text + (f"/round:{self.round}" if self.round > 1 else "")


def parse_subject(text: str) -> Subject:
    """The subject a roll command names, refused (422, field `subject`) unless it is one
    of the forms the guide hands out, written as the guide writes it."""
    found = _GRAMMAR.fullmatch(text)
    if found is None:
        raise InvalidCommand(f"subject {text!r} is not one of {', '.join(FORMS)}",
                             field="subject")
    if text == "step":
        return Subject("step")
    if text.startswith("unit:"):
        label = found["label"]
        if not LABEL.fullmatch(label):
            raise InvalidCommand("a unit's label is 1 to 24 letters A-Z, digits, '.', '_' "
                                 "or '-', starting with a letter or digit, no spaces (the "
                                 "roll's key names it: e.g. Lt.Braun)", field="subject")
        return Subject("unit", label=label)
    if text.startswith("turn:"):
        return Subject("turn", turn=int(found["turn"]),
                       player_turn=int(found["pt"]) if found["pt"] else None)
    kind: Kind = "sw" if found["slot_kind"] == "sw" else \
        "leader" if found["slot_kind"] == "leader" else "rg"
    slot = int(found["slot"]) if found["slot"] else None
    if found["round"] and kind != "sw":
        raise InvalidCommand("only a 3.6182 SW dr has a re-roll round", field="subject")
    return Subject(kind, line=int(found["line"]), slot=slot,
                   round=int(found["round"] or 1))


def kind_of(table: Table) -> Kind:
    """What a table's rolls are for: an RG line or slot, the step (once per CG Date),
    a unit (a roll per unit, weapon or group: escape, repair, shift, ...), or the turn
    just ended (a Game End dr)."""
    if table.game_end is not None:
        return "turn"
    if table.determines in ("strength", "composition", "sw_type"):
        return "rg"
    if table.determines in ("sw", "leader"):
        return table.determines
    return "step" if table.once_per_date else "unit"


def slot_key(cg_date: str, table: str, side: str, subject: Subject) -> str:
    """A subject's slot: the roll key without its epoch (CONTRACT 'Dice')."""
    return f"{cg_date}/{table}/{side}/{subject.text()}"
