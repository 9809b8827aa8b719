"""The Campaign aggregate: one CG's ledger, every fact a hash-linked, immutable event."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterator
from typing import Any, cast
from uuid import UUID, uuid4

from eventsourcing.domain import Aggregate

from domain import commands as cmd
from domain.audit import Audit
from domain.dice import DICE_PER_KIND, check_entered, dice_from_seed, roll_key, roll_prefix
from domain.drm import Facts, derived_drm, situational_drm
from domain.errors import InvalidCommand, MissingTable, RuleViolation
from domain.hashing import GENESIS_HASH, sha256_hex
from domain.kgp_bookkeeping import KGPBookkeeping
from domain.ledger import NOT_DATA, LedgerEvent
from domain.rg_record import RGRecord, line_of
from domain.rules import (
    CPPForgo,
    Effect,
    FortificationRow,
    LossPoints,
    Module,
    ReinforcementSchedule,
    ScheduledReinforcement,
    Step,
    Table,
)


class Campaign(Audit, RGRecord, KGPBookkeeping, Aggregate):
    """A Campaign Game: its CG Date, RePh step, CPP/FPP, ELR, SAN and dice."""

    class Event(LedgerEvent):
        """Every campaign event names its predecessor's hash and who asked for it."""

    class Created(Event, Aggregate.Created):
        """A campaign was created; `seed` is private until SeedRevealed."""

        not_data = NOT_DATA | {"seed"}  # only the seed's commitment is history until revealed
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
        balance: str | None = None  # the side given the CG Balance (KGP 8.31)
        token_hashes: dict[str, str] | None = None  # role -> SHA-256 of its token

    # v2: purchase lines as dicts, chit/WW/weather; v3: PBr and KGP; v4: undo and re-roll;
    # v5: each CG Date's roll results (a follow-up roll needs its call, PBr 3.613)
    class_version = 5

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        """A snapshot taken before v2: its purchase lines and the new tallies."""
        sides = state["sides"]
        state["purchases"] = [line_of(side, rg, None, None) for side, rg in state["purchases"]]
        # v1 counted an Initial Scenario's assumed Attack chit with the chosen ones.
        state["chits_chosen"] = {side: {"attack": state["attack_chits_in_cg"][side],
                                        "idle": 0} for side in sides}
        state.update(ww_box=0, conditions={}, previous_conditions={})

    @staticmethod
    def upcast_v2_v3(state: dict[str, Any]) -> None:
        """A snapshot taken before v3: the PBr and KGP tallies start empty."""
        sides = state["sides"]
        for line in state["purchases"]:
            line.setdefault("given", False)
            line.setdefault("removed", False)
        for name, empty in (("forgone", 0), ("off_map", dict.fromkeys(sides, False)),
                            ("balance", None), ("lvp", {}), ("lvp_group", {}),
                            ("cg_lvp", dict.fromkeys(sides, 0)), ("objectives", {}),
                            ("pf_halves", dict.fromkeys(sides, 0)), ("fanaticism", []),
                            ("massacre", None), ("table_rolls_cg", {}),
                            ("token_hashes", {}), ("idempotency", {}),
                            ("sealed_rolls_on_seed", 0)):
            state.setdefault(name, empty)

    @staticmethod
    def upcast_v3_v4(state: dict[str, Any]) -> None:
        """A snapshot taken before v4: no roll undone, none re-rolled yet."""
        state.setdefault("rolled_before", {})
        state.setdefault("epochs", {})

    @staticmethod
    def upcast_v4_v5(state: dict[str, Any]) -> None:
        """A snapshot taken before v5: no result of this CG Date's rolls is known."""
        state.setdefault("results_today", {})

    def __init__(
        self,
        module: str,
        cg: str,
        name: str,
        sides: list[str],
        dice: str,
        seed_commitment: str | None,
        seed: str | None,
        cg_date: str,
        phase: str,
        step: str | None,
        initial_chits: dict[str, str] | None = None,
        levels: dict[str, int] | None = None,
        elr: dict[str, int] | None = None,
        san: dict[str, int] | None = None,
        balance: str | None = None,
        token_hashes: dict[str, str] | None = None,
    ) -> None:
        self.module_id = module
        self.cg = cg
        self.name = name
        self.sides = list(sides)
        self.dice_mode = dice
        self.seed_commitment = seed_commitment
        self.seed = seed
        self.cg_date = cg_date
        self.phase = phase
        self.step = step
        # With no steps before it, the Initial Scenario is in play from the start.
        self.scenario: str | None = cg_date if phase == "scenario" else None
        self.cpp = dict.fromkeys(sides, 0)
        self.fpp = dict.fromkeys(sides, 0)
        self.elr: dict[str, int | None] = {side: (elr or {}).get(side) for side in sides}
        self.san: dict[str, int | None] = {side: (san or {}).get(side) for side in sides}
        self.chits: dict[str, str | None] = dict.fromkeys(sides)
        self.ordinals: dict[str, int] = {}
        self.rg_total: dict[str, dict[str, int]] = {side: {} for side in sides}
        self.rg_today: dict[str, dict[str, int]] = {side: {} for side in sides}
        self.purchases: list[dict[str, Any]] = []  # side, rg, kg, strength, sw, choices
        self.control: dict[str, str | None] = {}
        self.levels: dict[str, int] = dict(levels or {})
        self.chits_chosen = {side: {"attack": 0, "idle": 0} for side in sides}
        self.ww_box = 0  # CG19: half-squad equivalents in the Walking Wounded box
        self.conditions: dict[str, str] = {}  # weather, EC, wind of this CG Date's scenario
        self.previous_conditions: dict[str, str] = {}  # ... and of the last one played
        self.forgone = 0  # CPP forgone on this CG Date (PBr 3.616 EXC)
        self.balance = balance
        self.token_hashes = dict(token_hashes or {})
        self.idempotency: dict[str, dict[str, Any]] = {}
        self.lvp: dict[str, int] = {}  # LVP Location -> its LVP (KGP 8.2)
        self.lvp_group: dict[str, str | None] = {}  # LVP Location -> its Map Group
        self.cg_lvp: dict[str, int] = dict.fromkeys(sides, 0)
        self.objectives: dict[str, dict[str, Any]] = {}  # hex -> side, purchase, revealed
        self.pf_halves: dict[str, int] = dict.fromkeys(sides, 0)
        self.fanaticism: list[str] = []  # the scenarios a side declared Fanatic (CG14)
        self.massacre: str | None = None
        self.off_map: dict[str, bool] = dict.fromkeys(sides, False)  # no on-map units
        self.table_rolls_cg: dict[str, int] = {}  # table/side -> rolls in the CG
        self.sealed_rolls_on_seed = 0  # secret server rolls the current seed would open
        self.rolls_today: dict[str, int] = {}  # table/side -> rolls on this CG Date
        self.results_today: dict[str, int] = {}  # table/side/result -> rolls that gave it
        self.date_scenario: str | None = None  # the Initiative Matrix's word for the date
        self.forts_today: dict[str, dict[str, int]] = {}
        self.forts_total: dict[str, dict[str, int]] = {}
        self.previous_date_idle = False
        self.last_scenario_cvp: dict[str, int] = dict.fromkeys(sides, 0)  # lost, per side
        self.idle_dates_since_scenario = 0
        self.scenarios_since_idle = 0
        # An Initial Scenario's assumed chits count for 9.620 (e.g. ABtF 9.5).
        assumed = {side: int((initial_chits or {}).get(side) == "attack") for side in sides}
        self.attack_chits_since_idle: dict[str, int] = dict(assumed)
        self.attack_chits_in_cg: dict[str, int] = dict(assumed)
        self.rolled_before: dict[str, list[int]] = {}  # an undone roll's key -> its dice
        self.epochs: dict[str, int] = {}  # a re-rolled slot -> its authorized epoch
        self.head_hash = GENESIS_HASH

    @classmethod
    def start(
        cls, module: Module, cg: str, name: str, dice: str, actor: str, start_date: str | None,
        balance: str | None = None, token_hashes: dict[str, str] | None = None,
    ) -> Campaign:
        """Create a campaign of a module's CG, drawing the dice seed in server mode."""
        if cg not in module.cgs:
            raise InvalidCommand(f"{module.id} has no CG {cg!r} (it has {sorted(module.cgs)})",
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
            raise InvalidCommand(f"{module.id} gives a CG Balance to one of {module.sides}"
                                 if module.balance_rule else f"{module.id} has no CG Balance",
                                 field="balance")
        params = module.cgs[cg]
        cg_date = start_date or (params.start if params else module.calendar[0].date)
        module.date(cg_date)
        seed = secrets.token_bytes(32) if dice == "server" else None
        initial = [s.rule for s in module.steps if s.initial]
        return cast(Campaign, cls._create(
            cls.Created,
            id=uuid4(),
            prev_hash=GENESIS_HASH,
            actor=actor,
            secret_for=None,
            sealed=None,
            salt=None,
            module=module.id,
            cg=cg,
            name=name,
            sides=list(module.sides),
            dice=dice,
            seed_commitment=sha256_hex(seed) if seed else None,
            seed=seed.hex() if seed else None,
            cg_date=cg_date,
            phase="setup" if initial else "scenario",
            step=initial[0] if initial else None,
            initial_chits=module.initial_chits.get(cg),
            levels=dict(params.levels) if params and params.levels else None,
            elr=dict(params.elr) if params and params.elr else None,
            san=dict(params.san) if params and params.san else None,
            balance=balance,
            token_hashes=token_hashes,
        ))

    def facts(self, side: str) -> Facts:
        """What the ledger knows of a side, for the DRM it derives (e.g. 9.6202)."""
        inflicted = sum(cvp for other, cvp in self.last_scenario_cvp.items() if other != side)
        return Facts(san=self.san[side], levels=dict(self.levels), enemy_cvp=inflicted,
                     idle_dates_since_scenario=self.idle_dates_since_scenario,
                     scenarios_since_idle=self.scenarios_since_idle,
                     attack_chits_since_idle=self.attack_chits_since_idle[side],
                     attack_chits_in_cg=self.attack_chits_in_cg[side],
                     previous_scenario=dict(self.previous_conditions),
                     this_scenario=dict(self.conditions))

    def check_step(self, module: Module, action: str) -> None:
        """Refuse an action that the module's RePh sequence puts in another step."""
        rules = module.command_steps.get(action, [])
        self._in_step([s for s in module.steps if s.rule in rules], action)

    # -- dice -------------------------------------------------------------

    class DiceRolled(Event):
        """A dr or DR on a table: dice, itemized DRM, Final roll and result."""

        side: str
        key: str
        table: str
        rule: str
        title: str
        kind: str
        subject: str
        dice: list[int]
        original: int
        drm: list[dict[str, Any]]
        final: int
        target: int | None
        result: str
        cg_date: str
        step: str
        entered_by: str | None

        def apply(self, campaign: Campaign) -> None:
            prefix = self.key.rsplit("/", 2)[0]
            campaign.ordinals[prefix] = campaign.ordinals.get(prefix, 0) + 1
            tally = f"{self.table}/{self.side}"
            campaign.rolls_today[tally] = campaign.rolls_today.get(tally, 0) + 1
            campaign.table_rolls_cg[tally] = campaign.table_rolls_cg.get(tally, 0) + 1
            gave = f"{tally}/{self.result}"
            campaign.results_today[gave] = campaign.results_today.get(gave, 0) + 1
            if self.sealed is not None and self.entered_by is None:
                campaign.sealed_rolls_on_seed += 1

    def roll(self, module: Module, command: cmd.Roll, actor: str) -> None:
        """Roll on a table: server dice from the seed, or the physical dice entered."""
        self._not_ended()
        side = self._side(command.side)
        table = module.table(command.table)
        step = self.step or self.phase
        prefix = roll_prefix(self.cg_date, step, table.id, side)
        ordinal = self.ordinals.get(prefix, 0) + 1
        key = roll_key(self.cg_date, step, table.id, side, ordinal,
                       self.epochs.get(f"{prefix}/{ordinal}", 0))
        dice = self._dice(key, table.roll, command.dice)
        drm = derived_drm(table, side, module.date(self.cg_date), self.facts(side)) + \
            situational_drm(table, side, command.drm)
        if table.halved_by_balance and side == self.balance:  # the DR halved, FRD (8.31)
            drm.append({"value": sum(dice) // 2 - sum(dice), "reason": "CG Balance: DR halved "
                        "(FRD)", "rule": module.balance_rule, "auto": True})
        self._in_step([s for s in module.steps if table.id in s.tables],
                      f"table {table.id} ({table.title})")
        self._check_when(module, table, side)
        for first in table.after:  # an order within the step, not a reason to skip the roll
            if not any(self.rolls_today.get(f"{first}/{other}") for other in self.sides):
                raise RuleViolation(f"table {table.id} is rolled after table {first} on "
                                    "this CG Date", rule=table.rule)
        base = self._cpp_base(module, table, side)
        cost = self._roll_cost(table, side, drm)
        target = self._link(module, table, side, command)
        final = sum(dice) + sum(item["value"] for item in drm)
        result = table.result(final, target)
        band = table.band(final)
        effects = [self._effect(module, effect, side, table) for effect in
                   (band.effects if band is not None else [])]
        # A roll for an RG tells of a secret purchase (9.617): it is as secret as the RG.
        if table.open_roll and command.secret:
            raise InvalidCommand(f"table {table.id} is rolled openly: the opponent learns it",
                                 rule=table.rule, field="secret")
        # A roll for an RG tells of a secret purchase; one that credits CPP tells its amount;
        # one that only a secret roll's result calls for tells that result (3.613 †).
        follows = table.follows
        secret = table.secret or command.secret or command.purchase is not None or \
            table.credits_cpp or table.credits_roll or \
            (follows is not None and module.table(follows.table).secret)
        secret_for = side if secret else None
        self._record(
            self.DiceRolled, actor, secret_for=secret_for,
            side=side, key=key, table=table.id, rule=table.rule, title=table.title,
            kind=table.roll, subject=command.subject, dice=dice, original=sum(dice), drm=drm,
            final=final, target=target, result=result,
            cg_date=self.cg_date, step=step,
            entered_by=actor if self.dice_mode == "entered" else None,
        )
        if base is not None:
            self._record(self.CPPCredited, actor, secret_for=side, side=side,
                         amount=base + final, reason=f"CPP Base # {base} + DR {final}",
                         rule=table.rule, cg_date=self.cg_date)
        if table.credits_roll and final > 0:
            self._record(self.CPPCredited, actor, secret_for=side, side=side, amount=final,
                         reason=f"{table.title}: dr {final}", rule=table.rule,
                         cg_date=self.cg_date)
        if cost:
            self._record(self.CPPSpent, actor, secret_for=side, side=side, amount=cost,
                         reason=table.title, rule=table.rule, cg_date=self.cg_date)
        if table.determines == "recon":
            self._record(self.ReconRolled, actor, side=side, locations=max(0, final),
                         rule=table.rule, cg_date=self.cg_date)
        if table.determines in ("weather", "ec", "wind"):
            conditions = dict.fromkeys(("weather", "ec", "wind")) | {table.determines: result}
            self._record(self.ScenarioRecorded, actor, cg_date=self.cg_date,
                         scenario_type=None, **conditions)
        if command.purchase is not None:
            value = band.records if band is not None and band.records is not None else result
            self._determine_by_roll(module, table, command, value, actor)
        # ELR, SAN and levels are public: a secret roll's effect names its table, not its dice.
        cause = f"{table.id} {table.title}" + (
            "" if secret_for else f": Final {final}, {result}")
        for event_class, fields in effects:
            if fields["after"] != fields["before"]:
                self._record(event_class, actor, cause=cause, rule=table.rule,
                             cg_date=self.cg_date, **fields)

    def _lost_heavily(self, side: str, rule: LossPoints) -> bool:
        lost = self.last_scenario_cvp[side]
        other = sum(cvp for who, cvp in self.last_scenario_cvp.items() if who != side)
        return self.scenario is not None and lost >= rule.ratio * other and \
            lost >= other + rule.margin

    def _roll_cost(self, table: Table, side: str, drm: list[dict[str, Any]]) -> int:
        """CPP a roll costs (3.620 Recon: 1, or 2 for its +5), checked against the side's."""
        taken = {item["reason"].casefold() for item in drm if not item["auto"]}
        cost = table.cpp_cost + sum(spec.cpp_cost for spec in table.drm
                                    if spec.reason.casefold() in taken)
        if cost > self.cpp[side]:
            raise RuleViolation(f"table {table.id} costs {cost} CPP; {side} has "
                                f"{self.cpp[side]}", rule=table.rule)
        return cost

    def _cpp_base(self, module: Module, table: Table, side: str) -> int | None:
        """The CPP Base # a replenishment roll adds to (9.616), or None for other tables."""
        if not table.credits_cpp:
            return None
        base = (module.date(self.cg_date).cpp_base or {}).get(side)
        if base is None:
            raise RuleViolation(f"the CPP Base Number Chart gives the {side} no CPP on "
                                f"{self.cg_date}", rule=table.rule)
        return base

    class ReconRolled(Event):
        """A Recon dr (3.620): Locations the opponent reveals; Idle dates' add up."""

        side: str
        locations: int
        rule: str
        cg_date: str

    def _check_when(self, module: Module, table: Table, side: str) -> None:
        def refuse(why: str) -> None:
            raise RuleViolation(f"table {table.id} {why}", rule=table.rule)

        if table.sides is not None and side not in table.sides:
            refuse(f"is rolled by the {' or '.join(table.sides)} only")
        if table.once_per_date and self.rolls_today.get(f"{table.id}/{side}"):
            refuse(f"is rolled once per CG Date: {side} has rolled it on {self.cg_date}")
        if table.scenario_types is not None and self.date_scenario not in table.scenario_types:
            refuse(f"is rolled for a {' or '.join(table.scenario_types)} only")
        if table.in_scenario and self.phase != "scenario":
            refuse("is rolled during a CG Scenario")
        floor = (table.min_san or {}).get(side)
        if floor is not None and (self.san[side] or 0) < floor:
            refuse(f"is rolled only when the {side} SAN is {floor} or more")
        if table.counts_against is not None:
            row = module.rg_chart(side).row(table.counts_against)
            most = row.cg_max.get(self.cg)
            if most is not None and self.table_rolls_cg.get(f"{table.id}/{side}", 0) >= most:
                refuse(f"counts against {row.id} ({row.group_type}): CG max {most} for CG "
                       f"{self.cg} reached")
        if table.loss_points is not None and not self._lost_heavily(side, table.loss_points):
            refuse(f"is rolled by a side that lost >= {table.loss_points.ratio}x and >= "
                   f"{table.loss_points.margin} more CVP than the other in the prior scenario")
        first = table.side_from.get(side)
        if first is not None and module.date_index(self.cg_date) < module.date_index(first):
            refuse(f"is rolled by the {side} from {first} on, not on {self.cg_date}")
        if table.not_initial and self.phase == "setup":
            refuse("is not rolled for an Initial Scenario: its SSR gives it")
        if table.from_date is not None and \
                module.date_index(self.cg_date) < module.date_index(table.from_date):
            refuse(f"is rolled from {table.from_date} on, not on {self.cg_date}")
        if table.not_after_idle and self.previous_date_idle:
            refuse("is not rolled when the previous CG Date was Idle")
        follows = table.follows
        if follows is not None and not any(
                self.results_today.get(f"{follows.table}/{side}/{result}")
                for result in follows.results):
            called = " or ".join(repr(result) for result in follows.results)
            refuse(f"is rolled only after a {follows.table} roll by the {side} on "
                   f"{self.cg_date} gave {called}; none did")

    def _effect(self, module: Module, effect: Effect, side: str,
                table: Table) -> tuple[type[Campaign.Event], dict[str, Any]]:
        """The event (and its fields) by which a result moves ELR, SAN or a level."""
        if effect.target.startswith("level:"):
            name = effect.target.removeprefix("level:")
            spec = module.levels[name]
            before = self.levels.get(name, spec.minimum)
            after = min(spec.maximum, max(spec.minimum, before + effect.change))
            return self.LevelChanged, {"level": name, "side": spec.side or side,
                                       "before": before, "after": after}
        ratings = self.elr if effect.target == "elr" else self.san
        if ratings[side] is None:
            raise RuleViolation(f"{table.id} changes the {side} {effect.target.upper()}: "
                                f"record it first ({'change_' + effect.target})",
                                rule=table.rule)
        before_rating = cast(int, ratings[side])
        after_rating = min(effect.maximum, max(effect.minimum, before_rating + effect.change))
        return (self.ELRChanged if effect.target == "elr" else self.SANChanged,
                {"side": side, "before": before_rating, "after": after_rating})

    def _dice(self, key: str, kind: str, entered: list[int] | None) -> list[int]:
        before = self.rolled_before.get(key)
        if before is not None:  # redone after an undo: the key keeps the dice it showed
            if entered is not None and list(entered) != before:
                raise RuleViolation(f"roll {key} showed {before} before it was undone; a "
                                    "redo keeps its dice (only a director's re-roll "
                                    "changes them)")
            return list(before)
        if self.dice_mode == "entered":
            return check_entered(entered, kind)
        if entered is not None:
            raise InvalidCommand("this campaign rolls server dice: do not give `dice`",
                                 field="dice")
        self._has_seed()
        return dice_from_seed(bytes.fromhex(cast(str, self.seed)), key, DICE_PER_KIND[kind])

    class SeedRevealed(Event):
        """The seed is public: its rolls can be recomputed. Before CG End a new seed is
        committed at once, so the rolls still to come stay unpredictable."""

        not_data = NOT_DATA | {"next_seed"}  # the new seed is private, like the first
        seed: str
        next_commitment: str | None
        next_seed: str | None

        def apply(self, campaign: Campaign) -> None:
            campaign.seed = self.next_seed
            campaign.seed_commitment = self.next_commitment
            campaign.sealed_rolls_on_seed = 0

    def reveal_seed(self, actor: str) -> None:
        """Publish the seed (the director may do so early; CG End does it by itself)."""
        if self.dice_mode != "server":
            raise InvalidCommand("this campaign's dice are entered: it has no seed")
        self._not_ended()
        self._has_seed()
        if self.sealed_rolls_on_seed:  # their keys are known: the seed would open them
            raise RuleViolation(f"{self.sealed_rolls_on_seed} secret roll(s) were made with "
                                "this seed; it is revealed at CG End, with them")
        self._reveal(actor, commit_next=True)

    def _has_seed(self) -> None:
        if self.seed is None:
            raise RuleViolation("this campaign was imported without its private dice seed, "
                                "so its server dice cannot go on: import the operator's "
                                "export made with the seed (refit export --with-seed)")

    def _reveal(self, actor: str, commit_next: bool) -> None:
        following = secrets.token_bytes(32) if commit_next else None
        self._record(self.SeedRevealed, actor, seed=cast(str, self.seed),
                     next_commitment=sha256_hex(following) if following else None,
                     next_seed=following.hex() if following else None)

    # -- points ---------------------------------------------------------------

    class PointsEvent(Event):
        """A CPP/FPP movement with its reason and rule."""

        side: str
        amount: int
        reason: str
        rule: str | None
        cg_date: str

    class CPPCredited(PointsEvent):
        """CPP added (replenishment, loss points, ...)."""

        def apply(self, campaign: Campaign) -> None:
            campaign.cpp[self.side] += self.amount

    class CPPSpent(PointsEvent):
        """CPP spent on something other than an RG."""

        def apply(self, campaign: Campaign) -> None:
            campaign.cpp[self.side] -= self.amount

    class FPPCredited(PointsEvent):
        """FPP received."""

        def apply(self, campaign: Campaign) -> None:
            campaign.fpp[self.side] += self.amount

    class FortificationPurchased(PointsEvent):
        """FPP spent on `count` of the Fortification named in `reason`."""

        count: int = 1

        def apply(self, campaign: Campaign) -> None:
            campaign.fpp[self.side] -= self.amount
            for tally in (campaign.forts_today, campaign.forts_total):
                bought = tally.setdefault(self.side, {})
                bought[self.reason] = bought.get(self.reason, 0) + self.count

    def purchase_fortification(self, module: Module, command: cmd.PurchaseFortification,
                               actor: str) -> None:
        """Buy Fortifications with FPP: the table's cost and limits, when the module has one."""
        self._not_ended()
        side = self._side(command.side)
        item, rule = command.reason, command.rule
        chart = module.fortification_chart
        if chart is not None:
            row = chart.row(command.reason)
            item, rule = row.item, rule or chart.rule
            self._check_fortification(row, side, command, chart.rule)
        if self.fpp[side] < command.amount:
            raise RuleViolation(f"{side} has {self.fpp[side]} FPP, not {command.amount}",
                                rule=rule)
        self._record(self.FortificationPurchased, actor, secret_for=side, side=side,
                     amount=command.amount, reason=item, rule=rule, cg_date=self.cg_date,
                     count=command.count)

    def _check_fortification(self, row: FortificationRow, side: str,
                             command: cmd.PurchaseFortification, rule: str) -> None:
        if side not in row.cost:
            raise RuleViolation(f"the {side} may not buy {row.item}", rule=rule)
        if command.amount != row.cost[side] * command.count:
            raise InvalidCommand(f"{command.count} {row.item} cost {side} "
                                 f"{row.cost[side] * command.count} FPP, not {command.amount}",
                                 rule=rule, field="amount")
        for limit, tally, per in ((row.per_cg_date, self.forts_today, "per CG Date"),
                                  (row.per_cg, self.forts_total, "per CG"),
                                  (row.per_cg_by_side.get(side), self.forts_total, "per CG")):
            bought = tally.get(side, {}).get(row.item, 0)
            if limit is not None and bought + command.count > limit:
                raise RuleViolation(f"{side} may buy at most {limit} {row.item} {per} "
                                    f"({bought} bought)", rule=rule)

    def change_points(self, command: cmd.PointsChange, actor: str) -> None:
        """Credit CPP or FPP, or spend CPP; a spend may not exceed what the side has."""
        self._not_ended()
        side = self._side(command.side)
        event_class = {"credit_cpp": self.CPPCredited, "spend_cpp": self.CPPSpent,
                       "credit_fpp": self.FPPCredited}[command.type]
        if command.type == "spend_cpp" and self.cpp[side] < command.amount:
            raise RuleViolation(f"{side} has {self.cpp[side]} CPP, not {command.amount}",
                                rule=command.rule)
        # Sealed: a side's CPP and FPP are its own (9.617, 3.617).
        self._record(event_class, actor, secret_for=side, side=side, amount=command.amount,
                     reason=command.reason, rule=command.rule, cg_date=self.cg_date)

    class CPPForgone(Event):
        """3.616 EXC: a side forgoes CPP of its Base #; the other side's Base # loses them."""

        side: str
        amount: int
        rule: str
        cg_date: str

        def apply(self, campaign: Campaign) -> None:
            campaign.forgone += self.amount

    def forgo_cpp(self, module: Module, command: cmd.ForgoCPP, actor: str) -> None:
        """Forgo CPP where the module allows it (PBr: British, 14PM of CG III, in 3.616)."""
        self._not_ended()
        side = self._side(command.side)
        rule = module.cpp_forgo
        if rule is None or (self.cg, self.cg_date, side) != (rule.cg, rule.cg_date, rule.side):
            where = f"the {rule.side} on {rule.cg_date} of CG {rule.cg}" if rule else "nobody"
            raise RuleViolation(f"CPP may be forgone only by {where}",
                                rule=rule.rule if rule else None)
        self._in_step([module.step(rule.rule)] if rule.rule in
                      {s.rule for s in module.steps} else [], "forgoing CPP")
        base = (module.date(self.cg_date).cpp_base or {}).get(side, 0)
        if self.forgone + command.amount > base:
            raise RuleViolation(f"the {side} Base # on {self.cg_date} is {base} CPP; "
                                f"{self.forgone} already forgone", rule=rule.rule)
        self._record(self.CPPForgone, actor, side=side, amount=command.amount, rule=rule.rule,
                     cg_date=self.cg_date)

    class OnMapRecorded(Event):
        """Whether a side has on-map Retained units (3.6212 *)."""

        side: str
        on_map: bool
        cg_date: str

        def apply(self, campaign: Campaign) -> None:
            campaign.off_map[self.side] = not self.on_map

    def record_on_map(self, command: cmd.RecordOnMap, actor: str) -> None:
        """Note that a side has, or has no longer, on-map Retained units."""
        self._not_ended()
        side = self._side(command.side)
        if self.off_map[side] == (not command.on_map):
            raise InvalidCommand(f"that is already recorded for the {side}", field="on_map")
        self._record(self.OnMapRecorded, actor, side=side, on_map=command.on_map,
                     cg_date=self.cg_date)

    class UnitsWithdrawn(Event):
        """Units a rule removes from play (PBr 3.6074), perhaps retained off map."""

        side: str
        units: str
        rule: str
        retained_off_map: bool
        cg_date: str

    def withdraw_units(self, command: cmd.WithdrawUnits, actor: str) -> None:
        """Record a withdrawal the rules order (e.g. 3.60741 after the 14PM scenario)."""
        self._not_ended()
        side = self._side(command.side)
        self._record(self.UnitsWithdrawn, actor, side=side, units=command.units,
                     rule=command.rule, retained_off_map=command.retained_off_map,
                     cg_date=self.cg_date)

    # -- casualties, control, ELR, SAN -------------------------------------

    class CasualtyRecorded(Event):
        """A unit lost by `side` in `scenario` (or its RePh): CVP to the other side."""

        side: str
        unit: str
        cvp: int
        scenario: str
        ww_half_squads: int = 0  # put in the CG19 Walking Wounded box

        def apply(self, campaign: Campaign) -> None:
            campaign.last_scenario_cvp[self.side] += self.cvp
            campaign.ww_box += self.ww_half_squads

    def record_casualty(self, module: Module, command: cmd.RecordCasualty,
                        actor: str) -> None:
        """Casualties count for the CG Scenario in play or just played (9.12)."""
        self._not_ended()
        side = self._side(command.side)
        if self.scenario is None:
            raise RuleViolation("no CG Scenario has started yet: casualties count per scenario")
        box = module.walking_wounded
        if command.ww_half_squads and (box is None or box.side != side):
            raise RuleViolation(f"{module.id} keeps no Walking Wounded box for the {side}",
                                rule=box.rule if box else None)
        self._record(self.CasualtyRecorded, actor, side=side, unit=command.unit,
                     cvp=command.cvp, scenario=self.scenario,
                     ww_half_squads=command.ww_half_squads)

    class ControlChanged(Event):
        """A Location (Block, Strategic Location, ...) changed hands."""

        location: str
        kind: str
        side: str | None
        previous: str | None
        rule: str | None
        cg_date: str
        lvp: int = 0  # the Location's LVP (KGP 8.2)
        map_group: str | None = None
        infantry: bool = False

        def apply(self, campaign: Campaign) -> None:
            campaign.control[self.location] = self.side
            if self.lvp or self.location in campaign.lvp:
                campaign.lvp[self.location] = self.lvp
                campaign.lvp_group[self.location] = self.map_group

    def change_control(self, module: Module, command: cmd.ChangeControl, actor: str) -> None:
        """Record a control change; `side` None means no one controls it now. An LVP
        Location carries its LVP; Infantry Control reveals an Objective Hex (KGP 8.2)."""
        self._not_ended()
        side = self._side(command.side) if command.side is not None else None
        self._check_lvp(module, command)
        where = command.location
        # An LVP Location keeps its LVP and Map Group unless the command gives new ones.
        lvp = command.lvp if command.lvp is not None else self.lvp.get(where, 0)
        group = command.map_group or self.lvp_group.get(where)
        previous = self.control.get(where)
        if where in self.control and previous == side and lvp == self.lvp.get(where, 0):
            raise InvalidCommand(f"{where} is already controlled by {side}", field="side")
        self._record(self.ControlChanged, actor, location=where, kind=command.kind,
                     side=side, previous=previous, rule=command.rule, cg_date=self.cg_date,
                     lvp=lvp, map_group=group if lvp else None, infantry=command.infantry)
        if command.infantry and side is not None:
            self._reveal_objective(module, side, where, actor)

    class RatingChanged(Event):
        """ELR or SAN moved from `before` to `after`, with its cause."""

        side: str
        before: int | None
        after: int
        cause: str
        rule: str | None
        cg_date: str

    class ELRChanged(RatingChanged):
        """A side's ELR changed."""

        def apply(self, campaign: Campaign) -> None:
            campaign.elr[self.side] = self.after

    class SANChanged(RatingChanged):
        """A side's SAN changed."""

        def apply(self, campaign: Campaign) -> None:
            campaign.san[self.side] = self.after

    def change_rating(self, command: cmd.ChangeRating, actor: str) -> None:
        """Set a side's ELR or SAN to a new value."""
        self._not_ended()
        side = self._side(command.side)
        is_elr = command.type == "change_elr"
        before = (self.elr if is_elr else self.san)[side]
        if before == command.value:
            what = "ELR" if is_elr else "SAN"
            raise InvalidCommand(f"{side} {what} is already {before}", field="value")
        self._record(self.ELRChanged if is_elr else self.SANChanged, actor, side=side,
                     before=before, after=command.value, cause=command.cause,
                     rule=command.rule, cg_date=self.cg_date)

    class LevelChanged(Event):
        """A tracked level (e.g. CG17 British Ammunition Shortage) moved."""

        level: str
        side: str
        before: int
        after: int
        cause: str
        rule: str | None
        cg_date: str

        def apply(self, campaign: Campaign) -> None:
            campaign.levels[self.level] = self.after

    def change_level(self, module: Module, command: cmd.ChangeLevel, actor: str) -> None:
        """Set a level the module tracks, e.g. the SSR's starting Ammunition Shortage."""
        self._not_ended()
        spec = module.levels.get(command.level)
        if spec is None:
            raise InvalidCommand(f"{module.id} tracks no level {command.level!r} "
                                 f"(it tracks {sorted(module.levels)})", field="level")
        if not spec.minimum <= command.value <= spec.maximum:
            raise RuleViolation(f"{spec.title} runs from {spec.minimum} to {spec.maximum}",
                                rule=spec.rule)
        before = self.levels.get(command.level, spec.minimum)
        if before == command.value:
            raise InvalidCommand(f"{spec.title} is already {before}", field="value")
        self._record(self.LevelChanged, actor, level=command.level,
                     side=spec.side or "", before=before, after=command.value,
                     cause=command.cause, rule=command.rule or spec.rule,
                     cg_date=self.cg_date)

    # -- initiative, scenario, steps, CG Dates ------------------------------

    class InitiativeSelected(Event):
        """A side chose its Initiative chit (secret until both have chosen)."""

        side: str
        chit: str
        cg_date: str

        def apply(self, campaign: Campaign) -> None:
            campaign.chits[self.side] = self.chit
            campaign.chits_chosen[self.side][self.chit] += 1
            if self.chit == "attack":
                campaign.attack_chits_since_idle[self.side] += 1
                campaign.attack_chits_in_cg[self.side] += 1

    class ChitsRevealed(Event):
        """Both chits are chosen: they are shown together."""

        chits: dict[str, str]
        cg_date: str
        scenario_type: str | None

        def apply(self, campaign: Campaign) -> None:
            campaign.date_scenario = self.scenario_type
            campaign.previous_date_idle = all(chit == "idle" for chit in self.chits.values())
            if campaign.previous_date_idle:  # an Idle CG Date
                campaign.idle_dates_since_scenario += 1
                campaign.scenarios_since_idle = 0
                campaign.attack_chits_since_idle = dict.fromkeys(campaign.sides, 0)

    def select_initiative(self, module: Module, command: cmd.SelectInitiative,
                          actor: str) -> None:
        """Choose a chit; once every side has chosen, all are revealed together and the
        Initiative Matrix names the CG Date's scenario type."""
        self._not_ended()
        side = self._side(command.side)
        if self.phase == "setup":
            raise RuleViolation("no Initiative chits before an Initial Scenario: its OB sets "
                                "the initiative", rule=module.initiative_rule or None)
        if self.chits[side] is not None:
            raise RuleViolation(f"{side} has already chosen its chit for {self.cg_date}")
        self._check_chit_limit(module, side, command.chit)
        needs = module.attack_needs_target
        if needs is not None and command.chit == "attack" and side == needs.side and \
                self.off_map.get(needs.enemy):
            raise RuleViolation(f"the {side} may not choose Attack: the {needs.enemy} have no "
                                "on-map Retained units", rule=needs.rule)
        self._record(self.InitiativeSelected, actor, secret_for=side, side=side,
                     chit=command.chit, cg_date=self.cg_date)
        if all(chit is not None for chit in self.chits.values()):
            chits = {s: cast(str, c) for s, c in self.chits.items()}
            night = module.date(self.cg_date).night
            self._record(self.ChitsRevealed, actor, chits=chits, cg_date=self.cg_date,
                         scenario_type=module.scenario_type(chits, night))

    def _check_chit_limit(self, module: Module, side: str, chit: str) -> None:
        """A CG limits the Attack and Idle chits each side selects (e.g. 9.62131)."""
        params = module.cgs.get(self.cg)
        if params is None:
            return
        limit = (params.attack_chits if chit == "attack" else params.idle_chits).get(side)
        used = self.chits_chosen[side][chit]
        if limit is not None and used >= limit:
            raise RuleViolation(f"the {side} has selected {used} {chit.title()} chits: CG "
                                f"{self.cg} allows {limit}", rule=module.chit_limit_rule or None)

    class ScenarioRecorded(Event):
        """The CG Date's scenario type and weather, for the roster."""

        cg_date: str
        scenario_type: str | None
        weather: str | None
        ec: str | None = None
        wind: str | None = None

        def apply(self, campaign: Campaign) -> None:
            for condition in ("weather", "ec", "wind"):
                value = getattr(self, condition)
                if value is not None:
                    campaign.conditions[condition] = value

    def record_scenario(self, command: cmd.RecordScenario, actor: str) -> None:
        """Note the scenario type and weather of the current CG Date."""
        self._not_ended()
        given = command.model_dump(exclude={"type"})
        if all(value is None for value in given.values()):
            raise InvalidCommand("give scenario_type, weather, ec or wind",
                                 field="scenario_type")
        self._record(self.ScenarioRecorded, actor, cg_date=self.cg_date, **given)

    class StepAdvanced(Event):
        """The RePh moved on: to `step` in `phase` (setup, reph, scenario)."""

        phase: str
        step: str | None
        previous: str | None
        skipped: list[str] | None = None  # required rolls that did not apply, and why

        def apply(self, campaign: Campaign) -> None:
            campaign.phase = self.phase
            campaign.step = self.step
            campaign.ordinals = {}
            if self.phase == "scenario":
                campaign.scenario = campaign.cg_date
                campaign.last_scenario_cvp = dict.fromkeys(campaign.sides, 0)
                campaign.idle_dates_since_scenario = 0
                campaign.scenarios_since_idle += 1

    class CGDateStarted(Event):
        """A new CG Date begins (public: each side's CPP stays its own secret)."""

        cg_date: str
        previous: str

        def apply(self, campaign: Campaign) -> None:
            campaign.cg_date = self.cg_date
            campaign.chits = dict.fromkeys(campaign.sides)
            campaign.rg_today = {side: {} for side in campaign.sides}
            campaign.forts_today = {}
            campaign.rolls_today = {}
            campaign.results_today = {}
            campaign.date_scenario = None
            campaign.conditions = {}
            campaign.forgone = 0

    def advance(self, module: Module, actor: str) -> None:
        """Complete the current RePh step; a step marked new-CG-Date starts the next date."""
        self._not_ended()
        if self.phase == "scenario":
            raise RuleViolation(f"the {self.cg_date} CG Scenario is in play: end it first")
        sequence = [s for s in module.steps if s.initial or self.phase != "setup"]
        if not sequence or self.step is None:
            raise MissingTable(f"the {module.id} RePh steps are not supplied; an owner loads "
                               "them with `refit module load FILE`", rule=module.reph_rule)
        rules = [s.rule for s in sequence]
        # An Initial Scenario's OB sets the initiative; every later CG Date needs both chits.
        if self.phase == "reph" and None in self.chits.values() and \
                self.step in module.command_steps.get("select_initiative", []):
            waiting = ", ".join(s for s, chit in self.chits.items() if chit is None)
            raise RuleViolation(f"{waiting} must choose an Initiative chit before the RePh "
                                f"leaves {self.step}", rule=self.step)
        if self.step not in rules:
            raise MissingTable(f"step {self.step} is no longer among the {module.id} RePh "
                               "steps (an owner's file replaced them)", rule=self.step)
        position = rules.index(self.step) + 1
        self._check_leaving(module)
        skipped = self._skipped_rolls(module) or None
        if self._idle(module):
            self._idle_date(module, actor)
            return
        if position == len(sequence):
            self._leave_step(module, actor)
            self._record(self.StepAdvanced, actor, phase="scenario", step=None,
                         previous=self.step, skipped=skipped)
            return
        nxt = sequence[position]
        starts_date = nxt.new_cg_date and self.phase == "reph"
        new_date = self._next_date(module, nxt.rule) if starts_date else None
        self._leave_step(module, actor)
        self._record(self.StepAdvanced, actor, phase=self.phase, step=nxt.rule,
                     previous=self.step, skipped=skipped)
        if new_date is not None:
            self._record(self.CGDateStarted, actor, cg_date=new_date, previous=self.cg_date)
        self._enter_step(module, actor)

    class CGDecided(Event):
        """The CG is decided before its last CG Date: `side` conceded or won outright."""

        side: str
        reason: str
        winner: str
        rule: str | None
        cg_date: str

    def end_cg(self, module: Module, command: cmd.EndCG, actor: str) -> None:
        """A concession (the conceding side) or a Sudden Death Victory (the winner)."""
        self._not_ended()
        side = self._side(command.side)
        if command.reason == "sudden_death":
            rule = module.sudden_death.get(side)
            if rule is None:
                raise RuleViolation(f"{module.id} gives the {side} no Sudden Death Victory",
                                    rule=command.rule)
            if self.phase != "scenario":
                raise RuleViolation("a Sudden Death Victory is won during a CG Scenario",
                                    rule=rule)
        winner = side if command.reason == "sudden_death" else next(
            other for other in self.sides if other != side)
        self._record(self.CGDecided, actor, side=side, reason=command.reason,
                     winner=winner, rule=command.rule, cg_date=self.cg_date)
        self._end_cg(actor)

    def _end_cg(self, actor: str) -> None:
        self._record(self.CGEnded, actor, cg_date=self.cg_date)
        if self.dice_mode == "server" and self.seed is not None:  # not an import without it
            self._reveal(actor, commit_next=False)

    class PointsAdjusted(Event):
        """Unspent CPP/FPP halved or forfeited as the RePh leaves a step (e.g. 9.617, 9.619)."""

        side: str
        pool: str
        before: int
        after: int
        rule: str
        cg_date: str

        def apply(self, campaign: Campaign) -> None:
            (campaign.cpp if self.pool == "cpp" else campaign.fpp)[self.side] = self.after

    def _scheduled(self, module: Module) -> list[ScheduledReinforcement]:
        """The OB-given reinforcements due as the RePh leaves this step on this CG Date."""
        plan = module.reinforcements
        if plan is None or plan.step != self.step or self.phase != "reph":
            return []
        return [line for line in plan.schedule if line.cg_date == self.cg_date]

    def missing_rolls(self, module: Module) -> list[tuple[str, str, int | None]]:
        """The rolls (table, side, RG purchase #) the step needs before the RePh leaves it."""
        step = self._current_step(module)
        if step is None or self.phase in ("scenario", "ended") or self._idle(module):
            return []  # an Idle CG Date has no scenario to roll weather for
        missing: list[tuple[str, str, int | None]] = [
            (table_id, side, None) for table_id, side, why in self._required(module)
            if why is None]
        strength = next((t for t in step.tables if module.table(t).determines == "strength"),
                        None)
        if step.requires_strength and strength is not None:
            missing += [(strength, line["side"], number)
                        for number, line in enumerate(self.purchases, 1)
                        if line["cg_date"] == self.cg_date and line["strength"] is None
                        and (row := module.chart_row(line["side"], line["rg"])) is not None
                        and row.units_depleted
                        and line["rg"] in (module.table(strength).for_rgs or [line["rg"]])]
        return missing

    def _current_step(self, module: Module) -> Step | None:
        return next((s for s in module.steps if s.rule == self.step), None)

    def _required(self, module: Module) -> Iterator[tuple[str, str, str | None]]:
        """The step's required rolls not made yet: (table, side, why it does not apply)."""
        step = self._current_step(module)
        for table_id in step.requires if step else []:
            for side in self.sides:
                if not self.rolls_today.get(f"{table_id}/{side}"):
                    yield table_id, side, self._why_not(module, module.table(table_id), side)

    def _why_not(self, module: Module, table: Table, side: str) -> str | None:
        """Why a side does not roll a table now (None when it does)."""
        try:
            self._check_when(module, table, side)
            self._cpp_base(module, table, side)
        except RuleViolation as refusal:
            return refusal.message
        return None

    def _skipped_rolls(self, module: Module) -> list[str]:
        """The step's required rolls that do not apply, each with its reason."""
        return [f"{side}: {why}" for _, side, why in self._required(module) if why is not None]

    def _check_leaving(self, module: Module) -> None:
        """Refuse to leave a step before its rolls are made, or whose automatic effects need
        a SAN not yet recorded."""
        missing = self.missing_rolls(module)
        if missing:  # no purchase numbers: a side's RG are its secret (`status` names them)
            table, side, _ = missing[0]
            raise RuleViolation(f"step {self.step} is not complete: the {side} still roll "
                                f"{table} ({module.table(table).title})", rule=self.step)
        for line in self._scheduled(module):
            if line.san is not None and self.san[line.side] is None:
                raise RuleViolation(f"{line.cg_date}: the {line.side} SAN changes by "
                                    f"{line.san:+d}: record the {line.side} SAN first "
                                    "(change_san)", rule=cast(ReinforcementSchedule,
                                                              module.reinforcements).rule)

    def _enter_step(self, module: Module, actor: str) -> None:
        """A SAN below the floor is raised as the RePh enters its step (e.g. 9.6122)."""
        floor = module.san_floor
        if floor is None or floor.step != self.step:
            return
        for side in self.sides:
            san = self.san[side]
            if san is not None and san < floor.minimum:
                self._record(self.SANChanged, actor, side=side, before=san,
                             after=floor.minimum, cause=f"SAN below {floor.minimum} raised",
                             rule=floor.rule, cg_date=self.cg_date)

    class WalkingWoundedRecovered(Event):
        """CG19: the WW box gave `squads` WW MMC; the odd half-squad was discarded."""

        side: str
        half_squads: int
        squads: int
        unit: str
        rule: str
        cg_date: str

        def apply(self, campaign: Campaign) -> None:
            campaign.ww_box = 0

    def _leave_step(self, module: Module, actor: str) -> None:
        step = module.step(cast(str, self.step))
        base = module.date(self.cg_date).cpp_base or {}
        forgo = module.cpp_forgo
        for side in self.sides if step.credits_base and self.phase == "reph" else []:
            if side not in base:
                continue
            less = self.forgone  # off the forgoing side's and the other's Base # (3.616)
            self._record(self.CPPCredited, actor, secret_for=side, side=side,
                         amount=max(0, base[side] - less),
                         reason="CPP Base #" + (f" less {less} forgone" if less else ""),
                         rule=cast(CPPForgo, forgo).rule if less else step.rule,
                         cg_date=self.cg_date)
        self._points_on_leaving(module, actor)
        for line in self._scheduled(module):
            self._reinforce(module, line, actor)
        box = module.walking_wounded
        if box is not None and box.step == self.step and self.ww_box:
            self._record(self.WalkingWoundedRecovered, actor, side=box.side,
                         half_squads=self.ww_box, squads=self.ww_box // 2, unit=box.unit,
                         rule=box.rule, cg_date=self.cg_date)

    def _reinforce(self, module: Module, line: ScheduledReinforcement, actor: str) -> None:
        """Apply one line of the reinforcement schedule: never counted in any RG maximum."""
        rule = cast(ReinforcementSchedule, module.reinforcements).rule
        reason = "; ".join(line.notes) or "OB-given"
        if line.rg is not None:
            self._record(self.RGReceived, actor, secret_for=line.side,
                         purchase=len(self.purchases) + 1, side=line.side, rg=line.rg,
                         kg=None, group_type=cast(str, line.group_type), reason=reason,
                         rule=rule, cg_date=self.cg_date)
        if line.fpp is not None:
            self._record(self.FPPCredited, actor, secret_for=line.side, side=line.side,
                         amount=line.fpp, reason=reason, rule=rule, cg_date=self.cg_date)
        if line.san is not None:  # a cap stops the change; it never moves the SAN back
            before = cast(int, self.san[line.side])
            after = before + line.san
            after = min(max(line.san_maximum, before), after) if line.san > 0 else \
                max(min(line.san_minimum, before), after)
            if after != before:
                self._record(self.SANChanged, actor, side=line.side, before=before,
                             after=after, cause=f"OB-given SAN {line.san:+d}", rule=rule,
                             cg_date=self.cg_date)

    def _points_on_leaving(self, module: Module, actor: str) -> None:
        for effect in module.on_leaving.get(cast(str, self.step), []):
            if effect.dates is not None and self.cg_date not in effect.dates:
                continue
            pool = self.cpp if effect.pool == "cpp" else self.fpp
            for side in self.sides:  # every side, so the seal hides whether anything was left
                self._record(self.PointsAdjusted, actor, secret_for=side, side=side,
                             pool=effect.pool, before=pool[side],
                             after=effect.after(pool[side]), rule=effect.rule,
                             cg_date=self.cg_date)

    def _idle(self, module: Module) -> bool:
        """Both sides chose Idle at the initiative step: an Idle CG Date, no scenario."""
        return (self.phase == "reph" and module.idle_repeat is not None
                and self.step in module.command_steps.get("select_initiative", [])
                and all(chit == "idle" for chit in self.chits.values()))

    def _idle_date(self, module: Module, actor: str) -> None:
        """Repeat the RePh from the step that starts a new CG Date (e.g. 9.612-9.620)."""
        repeat = module.step(cast(str, module.idle_repeat))
        if self.cg_date == self._last_date(module):
            self._end_cg(actor)
            return
        self._record(self.StepAdvanced, actor, phase="reph", step=repeat.rule,
                     previous=self.step)
        self._record(self.CGDateStarted, actor, cg_date=self._next_date(module, repeat.rule),
                     previous=self.cg_date)
        self._enter_step(module, actor)

    def _last_date(self, module: Module) -> str:
        """The CG's last CG Date: from its parameters, else the calendar's last."""
        params = module.cgs.get(self.cg)
        return params.end if params else module.calendar[-1].date

    def _next_date(self, module: Module, rule: str) -> str:
        index = module.date_index(self.cg_date) + 1
        if self.cg_date == self._last_date(module) or index >= len(module.calendar):
            raise RuleViolation(f"{self.cg_date} is the last CG Date of {module.id}", rule=rule)
        return module.calendar[index].date

    # -- roles ------------------------------------------------------------------

    class TokenReplaced(Event):
        """A director replaced a role's token: the old one opens nothing any more."""

        role: str
        token_hash: str

        def apply(self, campaign: Campaign) -> None:
            campaign.token_hashes[self.role] = self.token_hash

    def replace_token(self, role: str, new_hash: str, actor: str) -> None:
        """Give a role (director, observer or a side) a new token."""
        if role not in self.token_hashes:
            raise InvalidCommand(f"the roles are {', '.join(self.token_hashes)}", field="role")
        self._record(self.TokenReplaced, actor, role=role, token_hash=new_hash)

    def role_of(self, token: str) -> str | None:
        """The role a token opens in this campaign (director, observer, a side), or None."""
        presented = token_hash(token)
        return next((role for role, known in self.token_hashes.items()
                     if hmac.compare_digest(known, presented)), None)

    class ScenarioEnded(Event):
        """The CG Scenario of `cg_date` ended (CG Scenario End)."""

        cg_date: str

        def apply(self, campaign: Campaign) -> None:
            # 9.6216's "previous CG Scenario", including weather an SSR set during play
            campaign.previous_conditions = dict(campaign.conditions)

    class CGEnded(Event):
        """CG End: the last CG Date's scenario is over; every secret may be revealed."""

        cg_date: str

        def apply(self, campaign: Campaign) -> None:
            campaign.phase = "ended"

    def end_scenario(self, module: Module, actor: str) -> None:
        """End the CG Scenario; on the CG's last CG Date this is CG End."""
        self._not_ended()
        if self.phase != "scenario":
            raise RuleViolation(f"no CG Scenario is in play (the RePh is at {self.step})")
        self._record(self.ScenarioEnded, actor, cg_date=self.cg_date)
        if module.lvp_rule:
            self._total_lvp(module, actor)
        if self.cg_date == self._last_date(module):
            self._end_cg(actor)
            return
        first = module.steps[0].rule if module.steps else None
        self._record(self.StepAdvanced, actor, phase="reph", step=first, previous=None)


def token_hash(token: str) -> str:
    """What the ledger keeps of a role's token: its SHA-256, never the token."""
    return sha256_hex(token.encode())


def campaign_id(text: str) -> UUID:
    """Parse a campaign id, naming the field when it is not one."""
    try:
        return UUID(text)
    except (ValueError, AttributeError, TypeError):
        raise InvalidCommand(f"{text!r} is not a campaign id", field="id") from None
