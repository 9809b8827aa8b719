"""Commands: what a director or a side asks the ledger to do (a union on `type`).

Each command is declared once, here: its model, its `type` and who may send it (`by`).
The union, the access table and the schema derive from these classes; what handles each
is declared where it is handled (domain/campaign/aggregate.py, `handles`).
"""

from __future__ import annotations

import operator
import unicodedata
from dataclasses import dataclass
from functools import reduce
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictBool,
    StrictInt,
    TypeAdapter,
    ValidationInfo,
    field_validator,
    model_validator,
)

Die = Annotated[StrictInt, Field(ge=1, le=6)]
Name = Annotated[str, Field(min_length=1, max_length=200)]


# Bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and the
# marks: they make a name read otherwise than it is stored (a reversed unit, a hidden tail).
BIDI = frozenset(chr(code) for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A),
                                        0x200E, 0x200F, 0x061C))


# Invisible characters that make two names that read alike differ (zero-width space, word
# joiner, byte order mark).
# Letters that show nothing (the Hangul fillers; U+180E, a format character before Unicode
# 6.3): with the format characters (category Cf: zero-width spaces and joiners, the soft
# hyphen, tags), a name could look blank, or look like another's.
INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u180e")


def printable(text: str) -> str:
    """Refuse control characters (a NUL cannot even be stored in PostgreSQL text), line and
    paragraph separators (U+2028, U+2029: a new line to a reader, forging report and chat
    lines), invisible characters and bidirectional controls."""
    if any(unicodedata.category(char) in ("Cc", "Zl", "Zp") for char in text):
        raise ValueError("control characters and line separators are not allowed")
    if bidi := next((char for char in text if char in BIDI), None):
        raise ValueError(f"bidirectional control characters (U+{ord(bidi):04X}) are not "
                         "allowed")
    if invisible := next((char for char in text if char in INVISIBLE
                          or unicodedata.category(char) == "Cf"), None):
        raise ValueError(f"invisible characters (U+{ord(invisible):04X}) are not allowed")
    return text


class Strict(BaseModel):
    """Unknown fields are refused, not ignored; every text must be printable."""

    # Each validator is built when first used, not at import: `refit --help` and a read
    # never pay for building every command's schema (issue 17, item 6).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    lines: ClassVar[frozenset[str]] = frozenset()  # fields whose text may hold newlines

    @field_validator("*", mode="after")
    @classmethod
    def _printable(cls, value: object, info: ValidationInfo) -> object:
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                printable(item.replace("\n", "") if info.field_name in cls.lines else item)
        return value


Sender = Literal["director", "side"]  # a side sends a command for itself only
COMMANDS: dict[str, type[Command]] = {}  # every command by its `type`


class Command(Strict):
    """Base of every command."""

    type: str
    by: ClassVar[Sender] = "director"

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        tag = cls.model_fields["type"].default
        if isinstance(tag, str):  # a command, not a shape shared by several
            COMMANDS[tag] = cls


def type_of(kind: type[Command]) -> str:
    """A command class's `type`, e.g. "roll"."""
    tag = kind.model_fields["type"].default
    if not isinstance(tag, str):
        raise TypeError(f"{kind.__name__} is a shape shared by commands, not a command")
    return tag


class DRMClaim(Strict):
    """An optional DRM a side claims, by its id in the table's list (GET /modules); `count`
    where the rules compute its value from a count the side states (3.613: hexes)."""

    id: str = Field(min_length=1, max_length=40)
    count: StrictInt | None = Field(default=None, ge=-20, le=200)


class Roll(Command):
    """Roll dr/DR on a module table named by its rule number (e.g. "9.6101")."""

    type: Literal["roll"] = "roll"
    by = "side"
    table: Name
    side: Name
    drm: list[DRMClaim] = Field(default=[], max_length=20)
    # What the roll decides, as the guide names it (domain/subjects.py): `step`, `rg:N`,
    # `rg:N/sw:K`, `rg:N/leader:K`, `unit:LABEL`. Its dice key is built from it.
    subject: str = Field(default="step", max_length=60)
    dice: list[Die] | None = Field(default=None, max_length=2)
    target: StrictInt | None = Field(default=None, ge=-20, le=40)
    secret: StrictBool = False


class PurchaseRG(Command):
    """Buy a Reinforcement Group with CPP (9.617 / 3.617)."""

    type: Literal["purchase_rg"] = "purchase_rg"
    by = "side"
    side: Name
    rg: Name
    kg: str | None = Field(default=None, max_length=20)
    mode: Literal["entry", "reserve", "on_map"] = "entry"  # how it comes into play (3.6175)
    option: str | None = Field(default=None, max_length=40)  # a chart note's option (PBr a)


class ReceiveRG(Command):
    """An RG given by the OB (e.g. the Initial Scenario's): on the record, not a purchase."""

    type: Literal["receive_rg"] = "receive_rg"
    side: Name
    rg: Name
    kg: str | None = Field(default=None, max_length=20)
    group_type: str | None = Field(default=None, max_length=100)
    reason: Name
    rule: str | None = Field(default=None, max_length=30)


class DetermineRG(Command):
    """Record what a purchased RG turned out to be: strength, units, SW, leader, composition."""

    type: Literal["determine_rg"] = "determine_rg"
    side: Name
    purchase: StrictInt = Field(ge=1, le=100_000)
    strength: Literal["F", "D"] | None = None
    units: str | None = Field(default=None, max_length=200)
    sw: list[Name] | None = Field(default=None, max_length=20)
    leader: str | None = Field(default=None, max_length=50)
    composition: str | None = Field(default=None, max_length=200)


class PointsChange(Command):
    """Common shape of CPP/FPP credits and spends."""

    side: Name
    amount: StrictInt = Field(ge=1, le=10_000)
    reason: Name
    rule: str | None = Field(default=None, max_length=30)


class CreditCPP(PointsChange):
    """CPP replenished or given (e.g. 9.616)."""

    type: Literal["credit_cpp"] = "credit_cpp"


class SpendCPP(PointsChange):
    """CPP spent on something other than an RG (e.g. reconnaissance)."""

    type: Literal["spend_cpp"] = "spend_cpp"


class CreditFPP(PointsChange):
    """FPP received (e.g. an RG that gives FPP)."""

    type: Literal["credit_fpp"] = "credit_fpp"


class PurchaseFortification(PointsChange):
    """FPP spent on `count` of a Fortification (e.g. 9.619) that `reason` names; `amount`
    left out is the module's Fortification Purchase Table price of them."""

    type: Literal["purchase_fortification"] = "purchase_fortification"
    by = "side"
    amount: StrictInt | None = Field(default=None, ge=1, le=10_000)  # type: ignore[assignment]
    count: StrictInt = Field(default=1, ge=1, le=100)
    hex: str | None = Field(default=None, max_length=20)  # where it goes (3.619 e: Trench)


class RecordCasualty(Command):
    """A unit lost by `side`, worth `cvp` Casualty VP to the other side (A26.2). From a
    side, a report of its own loss that counts once the other side confirms it."""

    type: Literal["record_casualty"] = "record_casualty"
    by = "side"
    side: Name
    unit: Name
    cvp: StrictInt = Field(ge=0, le=100)
    ww_half_squads: StrictInt = Field(default=0, ge=0, le=100)  # CG19 WW box: squad 2, HS 1
    purchase: StrictInt | None = Field(default=None, ge=1, le=100_000)  # its RG line


class ChangeControl(Command):
    """A Location, Block or Strategic Location changes hands. From a side, a report that
    it Controls one now (A26.11-.12), which counts once the other side confirms it."""

    type: Literal["change_control"] = "change_control"
    by = "side"
    location: Name
    kind: Name = "Location"
    side: str | None = None
    rule: str | None = Field(default=None, max_length=30)
    lvp: StrictInt | None = Field(default=None, ge=0, le=1000)  # its LVP (KGP 8.2)
    map_group: str | None = Field(default=None, max_length=20)
    infantry: StrictBool = False  # Controlled by Infantry (reveals an Objective Hex, KGP 8.2)


class ReportAnswer(Command):
    """Common shape of the answers to a side's report (domain/campaign/reports.py)."""

    report: StrictInt = Field(ge=1, le=100_000)


class ConfirmReport(ReportAnswer):
    """The other side confirms a report; from the director without `side`, it settles it
    (confirmed): the record changes now."""

    type: Literal["confirm_report"] = "confirm_report"
    by = "side"
    side: str | None = Field(default=None, max_length=200)


class DisputeReport(ReportAnswer):
    """The other side disputes a report: the record stays; the director settles it."""

    type: Literal["dispute_report"] = "dispute_report"
    by = "side"
    side: Name
    reason: Name


class WithdrawReport(ReportAnswer):
    """The reporting side withdraws its report; from the director without `side`, it
    settles it (rejected): the record stays."""

    type: Literal["withdraw_report"] = "withdraw_report"
    by = "side"
    side: str | None = Field(default=None, max_length=200)
    reason: Name


class ChangeRating(Command):
    """Common shape of ELR and SAN changes: the new value and its cause."""

    side: Name
    value: StrictInt = Field(ge=0, le=7)
    cause: Name
    rule: str | None = Field(default=None, max_length=30)


class ChangeELR(ChangeRating):
    """A side's ELR becomes `value` (0-5)."""

    type: Literal["change_elr"] = "change_elr"
    value: StrictInt = Field(ge=0, le=5)


class ChangeSAN(ChangeRating):
    """A side's SAN becomes `value` (0-7)."""

    type: Literal["change_san"] = "change_san"


class ChangeLevel(Command):
    """A tracked level (e.g. CG17 Ammunition Shortage) becomes `value`."""

    type: Literal["change_level"] = "change_level"
    level: Name
    value: StrictInt = Field(ge=0, le=20)
    cause: Name
    rule: str | None = Field(default=None, max_length=30)


class ForgoCPP(Command):
    """PBr 3.616 EXC: the British forgo CPP on 14PM of CG III (the Axis Base # loses them)."""

    type: Literal["forgo_cpp"] = "forgo_cpp"
    by = "side"
    side: Name
    amount: StrictInt = Field(ge=1, le=10_000)


class RecordOnMap(Command):
    """Whether a side has on-map Retained units now (3.6212 *: no Axis Attack chit if not)."""

    type: Literal["record_on_map"] = "record_on_map"
    side: Name
    on_map: StrictBool


UnitKind = Literal["squad", "HS", "crew", "leader", "SMC", "SW", "gun", "vehicle"]


class WithdrawnUnit(Strict):
    """Units of one kind withdrawn (3.6074): what the limits count (3.60742)."""

    kind: UnitKind
    count: StrictInt = Field(default=1, ge=1, le=500)
    captured: StrictBool = False  # a captured SW/vehicle kept with them (not counted, 3.60742)
    unit: str | None = Field(default=None, max_length=200)  # e.g. "4-6-7", shown only


class WithdrawUnits(Command):
    """Units a rule removes from play (PBr 3.6074), retained off map or not."""

    type: Literal["withdraw_units"] = "withdraw_units"
    side: Name
    units: list[WithdrawnUnit] = Field(min_length=1, max_length=100)
    rule: str = Field(max_length=30)
    retained_off_map: StrictBool = False
    note: str | None = Field(default=None, max_length=200)  # e.g. "RGs I4 and I5", shown only


class DesignateObjective(Command):
    """KGP 8.6198: the side's secret Objective Hex for one of its "I"/"HW" RG."""

    type: Literal["designate_objective"] = "designate_objective"
    by = "side"
    side: Name
    purchase: StrictInt = Field(ge=1, le=100_000)
    hex: Name


class ChangePF(Command):
    """KGP CG13: PF from squads set up on map, released or entering; or PF used."""

    type: Literal["change_pf"] = "change_pf"
    by = "side"
    side: Name
    reason: Literal["setup", "released", "entered", "used"]
    count: StrictInt = Field(ge=1, le=500)  # squads, or PF used


class DeclareFanaticism(Command):
    """KGP CG14: all the side's Personnel Fanatic for this scenario."""

    type: Literal["declare_fanaticism"] = "declare_fanaticism"
    by = "side"
    side: Name


class RecordMassacre(Command):
    """KGP CG4 / A20.4: a Massacre by `side`; its effects last for the rest of the CG."""

    type: Literal["record_massacre"] = "record_massacre"
    side: Name


class HoldUnits(Command):
    """Units Retained in (or entering from) an Entry Area's Holding Box (KGP 8.15)."""

    type: Literal["hold_units"] = "hold_units"
    by = "side"
    side: Name
    entry_area: Name
    units: Name
    held: StrictBool = True  # False: they leave the Holding Box (enter play)


class RemoveRG(Command):
    """An RG leaves the side's OB (Eliminated, Recalled, a used OBA module: 3.6046)."""

    type: Literal["remove_rg"] = "remove_rg"
    side: Name
    purchase: StrictInt = Field(ge=1, le=100_000)
    reason: Name
    rule: str | None = Field(default=None, max_length=30)


class ResolveBombardment(Command):
    """PBr note i: a side resolves a pre-game Bombardment RG it holds, which is then
    Eliminated (at most one per new CG Date since the last CG-Scenario End)."""

    type: Literal["resolve_bombardment"] = "resolve_bombardment"
    by = "side"
    side: Name
    purchase: StrictInt = Field(ge=1, le=100_000)  # its RG line


class RecordRGArea(Command):
    """3.6179: the Setup Area or Eligible Entry Area ID recorded for an RG on its CG Date of
    purchase (an Entry Area by the hex of its center arrow)."""

    type: Literal["record_rg_area"] = "record_rg_area"
    by = "side"
    side: Name
    purchase: StrictInt = Field(ge=1, le=100_000)
    area: str = Field(min_length=1, max_length=40)


class RetainedUnit(Strict):
    """One line of a side's Retained units (3.6055, 3.6061, 3.613, 3.619): a unit or a
    Fortification, where it is Retained, and the RG line it came with."""

    unit: Name  # e.g. "4-6-8", "8-1 leader", "A-P mines 6", "Foxhole 2S"
    count: StrictInt = Field(default=1, ge=1, le=500)
    area: str = Field(min_length=1, max_length=40)  # its Setup/Entry Area ID
    purchase: StrictInt | None = Field(default=None, ge=1, le=100_000)  # its RG line
    hex: str | None = Field(default=None, max_length=20)  # where it set up (Fortifications)
    fortification: StrictBool = False  # a Fortification (mines, Foxhole, ...): location secret
    hip: StrictBool = False  # set up using HIP (3.619): secret
    off_map: StrictBool = False  # Retained off map, in an Entry Area
    isolated: StrictBool = False  # Isolated (3.6052): Ammunition Shortage in the scenario
    shifted_from: str | None = Field(default=None, max_length=40)  # its Area before a Shift
    kind: UnitKind | None = None  # what the limits count (3.619 b, d, 3.61427); None: none
    elite: StrictBool = False  # an elite squad (3.61427)
    airborne: StrictBool = False  # an airborne MMC (3.619 d)
    weapon: Literal["FT", "DC"] | None = None  # a SW that is an FT or a DC
    usage_dr: StrictInt | None = Field(default=None, ge=2, le=12)  # 3.61427: kept after it
    item: str | None = Field(default=None, max_length=60)  # a Fortification's table item

    @model_validator(mode="after")
    def _consistent(self) -> RetainedUnit:
        if self.weapon is not None and self.kind != "SW":
            raise ValueError("`weapon` (FT, DC) is given for a SW line (kind SW)")
        if self.usage_dr is not None and self.weapon is None:
            raise ValueError("`usage_dr` (3.61427) is given for an FT or DC line")
        if self.item is not None and not self.fortification:
            raise ValueError("`item` names a Fortification's table line: set fortification")
        return self


class RetainUnits(Command):
    """A side's Retained units for the CG Date, replacing those it recorded before on it."""

    type: Literal["retain_units"] = "retain_units"
    by = "side"
    side: Name
    units: list[RetainedUnit] = Field(max_length=500)


class SelectInitiative(Command):
    """A side's secret Initiative chit for the CG Date."""

    type: Literal["select_initiative"] = "select_initiative"
    by = "side"
    side: Name
    chit: Literal["attack", "idle"]


class RecordScenario(Command):
    """The CG Date's scenario type, weather, EC and wind (e.g. an Initial Scenario's SSR)."""

    type: Literal["record_scenario"] = "record_scenario"
    scenario_type: str | None = Field(default=None, max_length=100)
    weather: str | None = Field(default=None, max_length=100)
    ec: str | None = Field(default=None, max_length=100)
    wind: str | None = Field(default=None, max_length=100)
    # of the CG Scenario last played, once it has ended (9.6216 reads its weather and EC)
    previous: StrictBool = False


class Advance(Command):
    """A side has done its part of the current RePh step (the step is left once every
    side has); from the director without `side`, the step is complete for all."""

    type: Literal["advance"] = "advance"
    by = "side"
    side: str | None = Field(default=None, max_length=200)


class EndScenario(Command):
    """The CG Scenario has ended (its last Player Turn is over)."""

    type: Literal["end_scenario"] = "end_scenario"


class EndTurn(Command):
    """A Game Turn (or, where the Game End dr is made per Player Turn, a Player Turn) of the
    CG Scenario in play has ended: a Game End dr may now be due (ABtF CG4, KGP CG23)."""

    type: Literal["end_turn"] = "end_turn"
    turn: StrictInt = Field(ge=1, le=40)
    player_turn: Literal[1, 2] | None = None
    # The number circled in the turn's box of the CG Turn Record Chart, as printed on the
    # map: the director's, where the module data lacks it and the Game End dr falls due
    # (never the rolling side's: the number decides whether its dr ends the scenario).
    circled: StrictInt | None = Field(default=None, ge=0, le=12)


class EndCG(Command):
    """CG End before the last CG Date: a side concedes, or wins by Sudden Death (9.6212)."""

    type: Literal["end_cg"] = "end_cg"
    reason: Literal["concession", "sudden_death"]
    side: Name
    rule: str | None = Field(default=None, max_length=30)


class ContributeSeed(Command):
    """A side's seed share, mixed with the server's secret seed (CONTRACT 'Dice'): 16 to
    64 bytes as hex. A share is public; only with it can neither party choose the dice."""

    type: Literal["contribute_seed"] = "contribute_seed"
    by = "side"
    side: Name
    share: Annotated[str, Field(pattern=r"^(?:[0-9a-fA-F]{2}){16,64}$")]


class RevealSeed(Command):
    """The director reveals the dice seed before CG End."""

    type: Literal["reveal_seed"] = "reveal_seed"


class UpgradeModule(Command):
    """The director moves the campaign to the module data loaded now (errata): from here
    on its rules are that data (README, 'Module data pinned per campaign')."""

    type: Literal["upgrade_module"] = "upgrade_module"
    reason: Annotated[str, Field(max_length=200)] = ""


class RegisterKey(Command):
    """A side's Ed25519 public key to co-sign checkpoints with, as a C2SP verifier key
    (`name+keyid+base64(0x01 || key)`, CONTRACT 'Proofs'); a new key replaces the old one
    from then on, recorded (co-signatures made before stay checked with the old one)."""

    type: Literal["register_key"] = "register_key"
    by = "side"
    side: Name
    key: str = Field(min_length=1, max_length=300)


@dataclass(frozen=True)
class LogFacts:
    """The ledger's own log where a checkpoint is co-signed: its origin line, its size now,
    and its Merkle root at the checkpoint's size (None: no such size). The service gives
    them to the command (infra/cosigning.py): the domain reads no store."""

    origin: str
    head: int
    root: bytes | None


class CosignCheckpoint(Command):
    """A side co-signs the service's checkpoint: `checkpoint` is its signed note with the
    side's own signature line added, by the key the side registered (CONTRACT 'Proofs')."""

    type: Literal["cosign_checkpoint"] = "cosign_checkpoint"
    by = "side"
    side: Name
    checkpoint: str = Field(min_length=1, max_length=4000)
    _log: LogFacts | None = PrivateAttr(default=None)

    lines = frozenset({"checkpoint"})  # a signed note is lines

    def on_log(self, log: LogFacts) -> CosignCheckpoint:
        """This command with what the ledger's log states (the service's to give)."""
        given = self.model_copy()
        given._log = log
        return given

    @property
    def log(self) -> LogFacts | None:
        """What the ledger's log states, once the service gave it."""
        return self._log


if TYPE_CHECKING:
    AnyCommand = Command
else:  # the union of every command class above, told apart by `type`
    AnyCommand = Annotated[reduce(operator.or_, COMMANDS.values()),
                           Field(discriminator="type")]
# What a side sends for itself: its own choices and rolls, its part of a step done, and its
# reports of casualties and control (confirmed by the other side: reports.py). Bookkeeping
# (points, strength by hand, CG End) is the director's.
SIDE_COMMANDS = frozenset(tag for tag, kind in COMMANDS.items() if kind.by == "side")

COMMAND_ADAPTER: TypeAdapter[AnyCommand] = TypeAdapter(
    AnyCommand, config=ConfigDict(defer_build=True))  # built on the first command parsed


def parse_command(data: object) -> AnyCommand:
    """Validate a command body (raises pydantic.ValidationError naming the field)."""
    return COMMAND_ADAPTER.validate_python(data)
