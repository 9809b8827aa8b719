"""The Campaign aggregate: one CG's ledger, every fact a hash-linked, immutable event.

A campaign is made of parts (domain/campaign/*.py), each one concern's state and rules:
its RePh step, dice, points, purchases, initiative, scenarios and access. It holds its
rules module (bound by the application when it loads the campaign; never stored). Its
command methods check with the parts and record events; each event's `apply` assigns.
"""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any, cast
from uuid import UUID, uuid4

from eventsourcing.domain import Aggregate

from domain import commands as cmd
from domain.campaign import (
    audit,
    cgstart,
    determination,
    pinning,
    reports,
    results,
    rolls,
    steps,
    turns,
    upcasts,
)
from domain.campaign.access import Access, TokenReplaced, opened_tokens, sealed_tokens
from domain.campaign.cosigning import Cosigning
from domain.campaign.dice import Dice, SeedRevealed, new_seed
from domain.campaign.events import NOT_DATA, CampaignEvent
from domain.campaign.handlers import HANDLERS, handles
from domain.campaign.initiative import (
    ChitsRevealed,
    Initiative,
    InitiativeSelected,
    check_selection,
    revealed_chits,
)
from domain.campaign.part import Part, copied
from domain.campaign.points import (
    CPPCredited,
    CPPForgone,
    CPPSpent,
    ELRChanged,
    FPPCredited,
    LevelChanged,
    Points,
    SANChanged,
    forgoing,
)
from domain.campaign.purchases import (
    FortificationPurchased,
    Purchases,
    RGPurchased,
    RGReceived,
    RGRemoved,
    fortification_purchase,
    rg_purchase,
)
from domain.campaign.reph import RePh
from domain.campaign.retained import Retained
from domain.campaign.scenario import (
    CONDITIONS,
    OnMapRecorded,
    Scenario,
    ScenarioRecorded,
    as_the_module_spells,
)
from domain.errors import InvalidCommand
from domain.hashing import GENESIS_HASH, commitment, sha256_hex
from domain.history import DIRECTOR_ONLY, neutral_content
from domain.rules import Module


class Campaign(Aggregate):
    """A Campaign Game: its parts, its module's rules, and the chain's head."""

    TOPIC = "domain.campaign:Campaign"  # as stored, whatever file the class lives in
    Event = CampaignEvent
    # The rules module is bound, not state: a slot keeps it out of snapshots and undos.
    __slots__ = ("_binding",)
    module_hash: str | None = None  # the module data pinned (pinning.py); None: made before

    class Created(CampaignEvent, Aggregate.Created):
        """A campaign was created; `seed` is private until SeedRevealed."""

        # Only the seed's commitment is history until revealed; the roles' token hashes
        # are the director's alone: the record carries them beside its data (`tokens`), and
        # the chain their commitment (before, `token_hashes` were in the data).
        not_data = NOT_DATA | {"seed", "tokens"}
        module: str
        cg: str
        name: str
        sides: list[str]
        dice: str
        seed_commitment: str | None
        seed: str | None
        cg_date: str
        phase: str
        step: str | None
        initial_chits: dict[str, str] | None = None
        levels: dict[str, int] | None = None  # set by the CG's SSR (e.g. CG17)
        elr: dict[str, int] | None = None  # at CG start, from the CG's parameters
        san: dict[str, int] | None = None
        cpp: dict[str, int] | None = None  # the Initial Scenario's CPP and FPP (CG parameters)
        fpp: dict[str, int] | None = None
        balance: str | None = None  # the side given the CG Balance (KGP 8.31)
        token_hashes: dict[str, str] | None = None  # role -> SHA-256 of its token
        module_hash: str | None = None  # the module data it plays (None: made before pins)
        token_commitment: str | None = None  # of `tokens`, as a seal is of its content
        tokens: dict[str, Any] | None = None  # {"token_hashes", "salt"}

    # v2: purchase lines as dicts, chit/WW/weather; v3: PBr and KGP; v4: undo and re-roll;
    # v5: each CG Date's roll results (PBr 3.613); v6: the state split into parts;
    # v7: dice keyed by subject, each side's part of a step; v8: reports between the sides;
    # v9: the Retained units roster; v10: the sides' seed shares; v11: the sides' keys
    # and co-signed checkpoints; v12: each CG Date's roll results by subject too;
    # v13: the hexes each Fortification bought on the CG Date was placed in; v14: and on
    # the previous CG Date; v15: the CG Date of the last CG Scenario ended
    class_version = 15
    upcast_v1_v2 = staticmethod(upcasts.v1_v2)
    upcast_v2_v3 = staticmethod(upcasts.v2_v3)
    upcast_v3_v4 = staticmethod(upcasts.v3_v4)
    upcast_v4_v5 = staticmethod(upcasts.v4_v5)
    upcast_v5_v6 = staticmethod(upcasts.v5_v6)
    upcast_v6_v7 = staticmethod(upcasts.v6_v7)
    upcast_v7_v8 = staticmethod(upcasts.v7_v8)
    upcast_v8_v9 = staticmethod(upcasts.v8_v9)
    upcast_v9_v10 = staticmethod(upcasts.v9_v10)
    upcast_v10_v11 = staticmethod(upcasts.v10_v11)
    upcast_v11_v12 = staticmethod(upcasts.v11_v12)
    upcast_v12_v13 = staticmethod(upcasts.v12_v13)
    upcast_v13_v14 = staticmethod(upcasts.v13_v14)
    upcast_v14_v15 = staticmethod(upcasts.v14_v15)

    def __init__(
        self, module: str, cg: str, name: str, sides: list[str], dice: str,
        seed_commitment: str | None, seed: str | None, cg_date: str, phase: str,
        step: str | None, initial_chits: dict[str, str] | None = None,
        levels: dict[str, int] | None = None, elr: dict[str, int] | None = None,
        san: dict[str, int] | None = None, cpp: dict[str, int] | None = None,
        fpp: dict[str, int] | None = None, balance: str | None = None,
        token_hashes: dict[str, str] | None = None, module_hash: str | None = None,
        token_commitment: str | None = None, tokens: dict[str, Any] | None = None,
    ) -> None:
        self.module_id = module
        self.module_hash = module_hash
        self.cg = cg
        self.name = name
        self.sides = list(sides)
        self.balance = balance
        self.reph = RePh(cg_date, phase, step)
        self.dice = Dice(dice, seed, seed_commitment)
        self.points = Points(sides, elr, san, levels, cpp, fpp)
        self.purchases = Purchases(sides)
        self.initiative = Initiative(sides, initial_chits)
        self.scenario = Scenario(sides, cg_date, phase)
        self.retained = Retained(sides)
        self.access = Access(token_hashes if token_commitment is None else
                             opened_tokens(tokens, token_commitment))
        self.cosigning = Cosigning()  # the sides' keys and what they co-signed
        self.reports = reports.Reports()  # casualty and control reports awaiting an answer
        self.book: dict[str, Any] = {}  # the module's own records (KGP's bookkeeping)
        self.head_hash = GENESIS_HASH

    @classmethod
    def start(
        cls, data: pinning.ModuleData, cg: str, name: str, dice: str, actor: str,
        start_date: str | None, balance: str | None = None,
        token_hashes: dict[str, str] | None = None, ident: UUID | None = None,
    ) -> Campaign:
        """Create a campaign of a module's CG where its parameters start it (the Initial
        Scenario's OB-given RGs on the record), pinned to `data`; server mode draws a seed.
        `ident`: its id, where the caller drew one (a form's, sent once), else a new one."""
        binding = pinning.Binding(data.module_id, data, data)
        module = pinning.rules_of(binding, data.module_id)
        _check_start(module, cg, name, dice, balance)
        seed = new_seed(dice)
        campaign = cast(Campaign, cls._create(
            cls.Created, id=ident or uuid4(), prev_hash=GENESIS_HASH, actor=actor, secret_for=None,
            sealed=None, salt=None, module=module.id, cg=cg, name=name,
            sides=list(module.sides), dice=dice,
            seed_commitment=sha256_hex(seed) if seed else None,
            seed=seed.hex() if seed else None, balance=balance,
            **sealed_tokens(token_hashes), module_hash=data.hash,
            **cgstart.opening(module, cg, start_date),
        ))
        campaign.bind(binding)
        cgstart.begin(campaign, actor)
        return campaign

    # -- the rules module, the record, the sides ---------------------------------

    def bind(self, binding: pinning.Binding) -> None:
        """Hold the campaign's module data, pinned and loaded (the application binds it)."""
        if binding.module_id != self.module_id:
            raise InvalidCommand(f"campaign {self.id} plays {self.module_id}, not "
                                 f"{binding.module_id}", field="module")
        self._binding = binding

    @property
    def binding(self) -> pinning.Binding | None:
        """The module data bound to the campaign (None before the application binds it)."""
        return getattr(self, "_binding", None)

    @property
    def rules(self) -> Module:
        """The campaign's rules module: the data it is pinned to."""
        return pinning.rules_of(self.binding, self.module_id)

    def __deepcopy__(self, memo: dict[int, Any]) -> Campaign:
        """eventsourcing copies a cached campaign for every command: copy its plain state
        directly, several times faster than copy.deepcopy's generic walk."""
        twin = object.__new__(type(self))
        twin.__dict__.update(copied(self.__dict__))
        if (binding := self.binding) is not None:
            twin._binding = binding
        return twin

    def check_side(self, side: str) -> str:
        """One of the campaign's sides."""
        if side not in self.sides:
            raise InvalidCommand(f"this campaign's sides are {' and '.join(self.sides)}, not "
                                 f"{side!r}",
                                 field="side")
        return side

    def _record(self, event_class: type[CampaignEvent], actor: str,
                secret_for: str | None = None, **fields: Any) -> None:
        """Record an event, sealed when it is a side's secret (README, 'Canonical JSON')."""
        sealed = salt = None
        # Every field the event will carry, defaults included, so the seal covers them all.
        fields = {f.name: f.default for f in dataclasses.fields(event_class)
                  if f.default is not dataclasses.MISSING and f.name not in NOT_DATA} | fields
        if secret_for is not None:  # sealed neutrally: the type is under the seal too
            salt = secrets.token_hex(16)
            sealed = commitment(neutral_content(event_class.__name__,
                                                {"actor": actor} | fields), salt)
            fields["neutral"] = True
        key = self.__dict__.get("command_key")
        if key is not None:  # stored with the events, in their transaction
            fields |= {"idempotency_key": key[0], "idempotency_digest": key[1]}
        # One command, one instant: its events share the first one's timestamp, which is
        # how an undo tells where a command began and ended (never a version inside one).
        pending = self.pending_events
        self.trigger_event(event_class, prev_hash=self.head_hash, actor=actor,
                           secret_for=secret_for, sealed=sealed, salt=salt,
                           timestamp=pending[0].timestamp if pending else None, **fields)

    # -- commands -----------------------------------------------------------------

    def execute(self, command: cmd.Command, actor: str,
                key: tuple[str, str] | None = None) -> None:
        """Run a command in the step its module puts it in; `key` (an Idempotency-Key and
        the command's digest) is stored with the events it records."""
        handler = HANDLERS.get(command.type)
        if handler is None:
            raise InvalidCommand(f"no rules module handles {command.type!r}", field="type")
        pinning.check_step(self, command)
        steps.check_not_done(self, command, actor)
        if key is not None:
            self.__dict__["command_key"] = key
        try:
            pinning.pin_unpinned(self, command, actor)
            handler(self, command, actor)
        finally:  # never kept on the aggregate, nor in a snapshot
            self.__dict__.pop("command_key", None)

    @handles(cmd.Roll)
    def roll(self, command: cmd.Roll, actor: str) -> None:
        """Roll on a table: server dice from the seed, or the physical dice entered; a Game
        End dr that ends play ends the CG Scenario (CG4, CG23)."""
        rolls.roll(self, command, actor)
        if turns.ends_play(self, command.table, self.check_side(command.side)):
            steps.end_scenario(self, actor)

    @handles(cmd.PurchaseRG)
    def purchase_rg(self, command: cmd.PurchaseRG, actor: str) -> None:
        """Buy an RG: within CPP, the CG Date maximum and the CG maximum of the chart."""
        self.reph.check_not_ended()
        side = self.check_side(command.side)
        self._record(RGPurchased, actor, secret_for=side, **rg_purchase(self, side, command))
        results.purchased(self, side, command.rg, actor)  # M1 SAN +1, M3 20 FPP (3.617)

    @handles(cmd.ReceiveRG)
    def receive_rg(self, command: cmd.ReceiveRG, actor: str) -> None:
        """Record an OB-given RG, public as the OB is; its group type comes from the chart
        when not given."""
        self.reph.check_not_ended()
        side = self.check_side(command.side)
        group_type = command.group_type or self.rules.rg_chart(side).row(command.rg).group_type
        self._record(RGReceived, actor,
                     purchase=len(self.purchases.lines) + 1, side=side, rg=command.rg,
                     kg=command.kg, group_type=group_type, reason=command.reason,
                     rule=command.rule, cg_date=self.reph.cg_date)

    @handles(cmd.DetermineRG)
    def determine_rg(self, command: cmd.DetermineRG, actor: str) -> None:
        """Record an RG's strength, SW, leader or composition, found by the RePh rolls."""
        self.reph.check_not_ended()
        side = self.check_side(command.side)
        line = self.purchases.line(command.purchase, side)
        self._record(determination.RGDetermined, actor, secret_for=side,
                     **determination.by_hand(self.rules, line, command))

    @handles(cmd.RemoveRG)
    def remove_rg(self, command: cmd.RemoveRG, actor: str) -> None:
        """Record that an RG is Eliminated, Recalled or used up (it leaves the OB)."""
        self.reph.check_not_ended()
        side = self.check_side(command.side)
        self.purchases.check_removal(command.purchase, side)
        self._record(RGRemoved, actor, secret_for=side, side=side, purchase=command.purchase,
                     reason=command.reason, rule=command.rule, cg_date=self.reph.cg_date)

    @handles(cmd.PurchaseFortification)
    def purchase_fortification(self, command: cmd.PurchaseFortification, actor: str) -> None:
        """Buy Fortifications with FPP: the table's cost and limits, when the module has one."""
        self.reph.check_not_ended()
        side = self.check_side(command.side)
        self._record(FortificationPurchased, actor, secret_for=side,
                     **fortification_purchase(self, side, command))

    @handles(cmd.CreditCPP, cmd.SpendCPP, cmd.CreditFPP)
    def change_points(self, command: cmd.PointsChange, actor: str) -> None:
        """Credit CPP or FPP, or spend CPP; a spend may not exceed what the side has."""
        self.reph.check_not_ended()
        side = self.check_side(command.side)
        event_class = {"credit_cpp": CPPCredited, "spend_cpp": CPPSpent,
                       "credit_fpp": FPPCredited}[command.type]
        if command.type == "spend_cpp":
            self.points.check_spend(side, command.amount, command.rule)
        # Sealed: a side's CPP and FPP are its own (9.617, 3.617).
        self._record(event_class, actor, secret_for=side, side=side, amount=command.amount,
                     reason=command.reason, rule=command.rule, cg_date=self.reph.cg_date)

    @handles(cmd.ForgoCPP)
    def forgo_cpp(self, command: cmd.ForgoCPP, actor: str) -> None:
        """Forgo CPP where the module allows it (PBr: British, 14PM of CG III, in 3.616)."""
        self.reph.check_not_ended()
        side = self.check_side(command.side)
        self._record(CPPForgone, actor, **forgoing(self, side, command.amount))

    @handles(cmd.RecordOnMap)
    def record_on_map(self, command: cmd.RecordOnMap, actor: str) -> None:
        """Note that a side has, or has no longer, on-map Retained units."""
        self.reph.check_not_ended()
        side = self.check_side(command.side)
        self.scenario.check_on_map(side, command.on_map)
        self._record(OnMapRecorded, actor, side=side, on_map=command.on_map,
                     cg_date=self.reph.cg_date)


    @handles(cmd.ChangeELR, cmd.ChangeSAN)
    def change_rating(self, command: cmd.ChangeRating, actor: str) -> None:
        """Set a side's ELR or SAN to a new value."""
        self.reph.check_not_ended()
        side = self.check_side(command.side)
        is_elr = command.type == "change_elr"
        self.points.check_new_rating(side, is_elr, command.value)
        before = (self.points.elr if is_elr else self.points.san)[side]
        self._record(ELRChanged if is_elr else SANChanged, actor, side=side, before=before,
                     secret_for=None if is_elr else self.points.san_secret_for(side),
                     after=command.value, cause=command.cause, rule=command.rule,
                     cg_date=self.reph.cg_date)

    @handles(cmd.ChangeLevel)
    def change_level(self, command: cmd.ChangeLevel, actor: str) -> None:
        """Set a level the module tracks, e.g. the SSR's starting Ammunition Shortage."""
        self.reph.check_not_ended()
        spec = self.rules.levels.get(command.level)
        if spec is None:
            raise InvalidCommand(f"{self.rules.id} tracks no level {command.level!r} "
                                 f"(it tracks {sorted(self.rules.levels)})", field="level")
        before = self.points.check_new_level(spec, command.level, command.value)
        self._record(LevelChanged, actor, level=command.level, side=spec.side or "",
                     before=before, after=command.value, cause=command.cause,
                     rule=command.rule or spec.rule, cg_date=self.reph.cg_date)

    @handles(cmd.SelectInitiative)
    def select_initiative(self, command: cmd.SelectInitiative, actor: str) -> None:
        """Choose a chit; once every side has chosen, all are revealed together and the
        Initiative Matrix names the CG Date's scenario type."""
        self.reph.check_not_ended()
        side = self.check_side(command.side)
        check_selection(self, side, command.chit)
        self._record(InitiativeSelected, actor, secret_for=side, side=side,
                     chit=command.chit, cg_date=self.reph.cg_date)
        if not self.initiative.waiting():
            self._record(ChitsRevealed, actor, **revealed_chits(self))
            results.chits_revealed(self, actor)  # an Assault's order (3.6213c/d)

    @handles(cmd.RecordScenario)
    def record_scenario(self, command: cmd.RecordScenario, actor: str) -> None:
        """Note the scenario type and weather of the current CG Date."""
        self.reph.check_not_ended()
        given = command.model_dump(exclude={"type", "previous"})
        given |= {condition: as_the_module_spells(self.rules, condition, given[condition])
                  for condition in CONDITIONS}
        if all(value is None for value in given.values()):
            raise InvalidCommand("give the scenario type, weather, EC or wind",
                                 field="scenario_type")
        cg_date = self.scenario.check_previous() if command.previous else self.reph.cg_date
        self._record(ScenarioRecorded, actor, cg_date=cg_date, previous=command.previous,
                     **given)

    @handles(cmd.Advance)
    def advance(self, command: cmd.Advance, actor: str) -> None:
        """A side's part of the step done, or (the director's) the step complete for all."""
        steps.advance(self, command, actor)

    @handles(cmd.EndScenario)
    def end_scenario(self, command: cmd.EndScenario, actor: str) -> None:
        """End the CG Scenario; on the CG's last CG Date this is CG End."""
        steps.end_scenario(self, actor)

    @handles(cmd.EndCG)
    def end_cg(self, command: cmd.EndCG, actor: str) -> None:
        """A concession (the conceding side) or a Sudden Death Victory (the winner)."""
        steps.decide_cg(self, command, actor)

    @handles(cmd.RevealSeed)
    def reveal_seed(self, command: cmd.RevealSeed, actor: str) -> None:
        """Publish the seed early; a fresh one is committed for the rolls to come."""
        self.dice.check_reveal()
        self.reph.check_not_ended()
        self.dice.check_early_reveal()
        self._record(SeedRevealed, actor, **self.dice.reveal(commit_next=True))

    # -- roles and a director's remedies -----------------------------------------

    def replace_token(self, role: str, new_hash: str, actor: str) -> None:
        """Give a role (director, observer or a side) a new token."""
        self.access.check_role(role)
        self._record(TokenReplaced, actor, secret_for=DIRECTOR_ONLY, role=role,
                     token_hash=new_hash)

    def undo(self, to_version: int, reason: str, before: Campaign,
             redo_dice: dict[str, list[int]], actor: str,
             cut: tuple[int, int] | None = None) -> None:
        """Turn the campaign back to how it stood after `to_version` (a director's act);
        `cut` is the first and last version of the command recorded after it."""
        audit.check_undo(self.reph.phase, self.version, to_version, reason, cut)
        self._record(audit.Undone, actor, to_version=to_version, reason=reason,
                     events=self.version - to_version, redo_dice=redo_dice,
                     **audit.undo_state(before))

    def authorize_reroll(self, roll: dict[str, Any], reason: str, actor: str) -> None:
        """Let the roll `roll` (its record's data, not live any more) be made again."""
        self.reph.check_not_ended()
        fields = audit.reroll_fields(self.dice.epochs, roll, reason)
        # As secret as the roll: a slot's key names its table, and so what was bought.
        self._record(audit.RerollAuthorized, actor, secret_for=roll.get("secret_for"),
                     **fields)

    def parts(self) -> dict[str, Part]:
        """The campaign's parts by name."""
        return {k: v for k, v in vars(self).items() if isinstance(v, Part)}


def _check_start(module: Module, cg: str, name: str, dice: str, balance: str | None) -> None:
    """A new campaign names one of the module's CGs, a printable name, a dice mode and,
    where the module has one, the side given the CG Balance."""
    if cg not in module.cgs:
        raise InvalidCommand(f"{module.short_name} has no CG {cg!r} (it has {sorted(module.cgs)})",
                             field="cg")
    if not 1 <= len(name) <= 200:
        raise InvalidCommand("a campaign's name is 1 to 200 characters", field="name")
    try:
        cmd.printable(name)
    except ValueError as error:
        raise InvalidCommand(f"name: {error}", field="name") from None
    if dice not in ("server", "entered"):
        raise InvalidCommand("dice is `server` or `entered`", field="dice")
    if balance is not None and (not module.balance_rule or balance not in module.sides):
        raise InvalidCommand(f"{module.short_name} gives a CG Balance to one of {module.sides}"
                             if module.balance_rule else f"{module.short_name} has no CG Balance",
                             field="balance")


def campaign_id(text: str) -> UUID:
    """Parse a campaign id, naming the field when it is not one."""
    try:
        return UUID(text)
    except (ValueError, AttributeError, TypeError):
        raise InvalidCommand(f"{text!r} is not a campaign id", field="campaign") from None
