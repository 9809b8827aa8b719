"""A side's points and ratings: CPP and FPP (secret to the side, 9.617), ELR, SAN and the
levels the module tracks (e.g. CG17's Ammunition Shortage), each change with its cause."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from domain.campaign.events import CampaignEvent
from domain.campaign.part import Part
from domain.errors import InvalidCommand, RuleViolation
from domain.rules import Effect, LevelSpec, Table

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


class Points(Part):
    """CPP, FPP, ELR and SAN per side, the tracked levels, and CPP forgone today."""

    name = "points"
    # Sides whose SAN a secret purchase changed, until announced (3.623). Always reassigned,
    # never changed in place: the class default stands in for states stored before it.
    unannounced: list[str] = []  # noqa: RUF012


    def __init__(self, sides: list[str], elr: dict[str, int] | None,
                 san: dict[str, int] | None, levels: dict[str, int] | None,
                 cpp: dict[str, int] | None = None, fpp: dict[str, int] | None = None) -> None:
        self.cpp = {side: (cpp or {}).get(side, 0) for side in sides}
        self.fpp = {side: (fpp or {}).get(side, 0) for side in sides}
        self.elr: dict[str, int | None] = {side: (elr or {}).get(side) for side in sides}
        self.san: dict[str, int | None] = {side: (san or {}).get(side) for side in sides}
        self.levels: dict[str, int] = dict(levels or {})
        self.forgone = 0  # CPP forgone on this CG Date (PBr 3.616 EXC)

    def san_secret_for(self, side: str) -> str | None:
        """Whom a change of the side's SAN is sealed to: the side, while a secret purchase's
        change waits for 3.623 (its `before` would tell it), else nobody."""
        return side if side in self.unannounced else None

    def check_spend(self, side: str, amount: int, rule: str | None) -> None:
        """A side spends no more CPP than it has."""
        if self.cpp[side] < amount:
            raise RuleViolation(f"{side} has {self.cpp[side]} CPP, not {amount}", rule=rule,
                                field="amount")

    def check_fpp(self, side: str, amount: int, rule: str | None) -> None:
        """A side spends no more FPP than it has."""
        if self.fpp[side] < amount:
            raise RuleViolation(f"{side} has {self.fpp[side]} FPP, not {amount}", rule=rule)

    def check_new_rating(self, side: str, is_elr: bool, value: int) -> None:
        """A rating change changes the rating."""
        before = (self.elr if is_elr else self.san)[side]
        if before == value:
            raise InvalidCommand(f"{side} {'ELR' if is_elr else 'SAN'} is already {before}",
                                 field="value")

    def check_new_level(self, spec: LevelSpec, level: str, value: int) -> int:
        """A level set within its range, to a new value; the value it had."""
        if not spec.minimum <= value <= spec.maximum:
            raise RuleViolation(f"{spec.title} runs from {spec.minimum} to {spec.maximum}",
                                rule=spec.rule)
        before = self.levels.get(level, spec.minimum)
        if before == value:
            raise InvalidCommand(f"{spec.title} is already {before}", field="value")
        return before

    def effect(self, levels: dict[str, LevelSpec], effect: Effect, side: str,
               table: Table) -> tuple[type[CampaignEvent], dict[str, Any]]:
        """The event (and its fields) by which a result moves ELR, SAN or a level."""
        if effect.target.startswith("level:"):
            name = effect.target.removeprefix("level:")
            spec = levels[name]
            before = self.levels.get(name, spec.minimum)
            after = min(spec.maximum, max(spec.minimum, before + effect.change))
            return LevelChanged, {"level": name, "side": spec.side or side,
                                  "before": before, "after": after}
        ratings = self.elr if effect.target == "elr" else self.san
        if ratings[side] is None:
            raise RuleViolation(f"{table.id} changes the {side} {effect.target.upper()}, which "
                                "no CG parameters gave: an owner loads them (`refit module "
                                f"load`), or record it first (change_{effect.target})",
                                rule=table.rule)
        before_rating = cast(int, ratings[side])
        after_rating = min(effect.maximum, max(effect.minimum, before_rating + effect.change))
        return (ELRChanged if effect.target == "elr" else SANChanged,
                {"side": side, "before": before_rating, "after": after_rating})


def forgoing(campaign: Campaign, side: str, amount: int) -> dict[str, Any]:
    """The CPPForgone fields, where the module lets the side forgo CPP of its Base # (PBr
    3.616 EXC: the British, on 14PM of CG III)."""
    module, reph = campaign.rules, campaign.reph
    rule = module.cpp_forgo
    if rule is None or (campaign.cg, reph.cg_date, side) != (rule.cg, rule.cg_date, rule.side):
        where = f"the {rule.side} on {rule.cg_date} of CG {rule.cg}" if rule else "nobody"
        raise RuleViolation(f"CPP may be forgone only by {where}",
                            rule=rule.rule if rule else None)
    reph.check_in_step([module.step(rule.rule)] if rule.rule in
                       {s.rule for s in module.steps} else [], "forgoing CPP")
    base = (module.date(reph.cg_date).cpp_base or {}).get(side, 0)
    forgone = campaign.points.forgone
    if forgone + amount > base:
        raise RuleViolation(f"the {side} Base # on {reph.cg_date} is {base} CPP; "
                            f"{forgone} already forgone", rule=rule.rule)
    return {"side": side, "amount": amount, "rule": rule.rule, "cg_date": reph.cg_date}


class PointsEvent(CampaignEvent):
    """A CPP/FPP movement with its reason and rule."""

    shared_shape = True

    side: str
    amount: int
    reason: str
    rule: str | None
    cg_date: str


class CPPCredited(PointsEvent):
    """CPP added (replenishment, loss points, ...)."""

    def apply(self, campaign: Any) -> None:
        campaign.points.cpp[self.side] += self.amount


class CPPSpent(PointsEvent):
    """CPP spent on something other than an RG."""

    column: str = "spent"  # the CG Roster column it counts in: "recon" (3.620) is not Spent

    def apply(self, campaign: Any) -> None:
        campaign.points.cpp[self.side] -= self.amount


class FPPCredited(PointsEvent):
    """FPP received."""

    def apply(self, campaign: Any) -> None:
        campaign.points.fpp[self.side] += self.amount


class PointsAdjusted(CampaignEvent):
    """Unspent CPP/FPP halved or forfeited as the RePh leaves a step (e.g. 9.617, 9.619)."""

    side: str
    pool: str
    before: int
    after: int
    rule: str
    cg_date: str

    def apply(self, campaign: Any) -> None:
        points: Points = campaign.points
        (points.cpp if self.pool == "cpp" else points.fpp)[self.side] = self.after


class CPPForgone(CampaignEvent):
    """3.616 EXC: a side forgoes CPP of its Base #; the other side's Base # loses them."""

    side: str
    amount: int
    rule: str
    cg_date: str

    def apply(self, campaign: Any) -> None:
        campaign.points.forgone += self.amount


class RatingChanged(CampaignEvent):
    """ELR or SAN moved from `before` to `after`, with its cause."""

    shared_shape = True

    side: str
    before: int | None
    after: int
    cause: str
    rule: str | None
    cg_date: str


class ELRChanged(RatingChanged):
    """A side's ELR changed."""

    def apply(self, campaign: Any) -> None:
        campaign.points.elr[self.side] = self.after


class SANChanged(RatingChanged):
    """A side's SAN changed (sealed when a secret purchase changed it: open at 3.623)."""

    def apply(self, campaign: Any) -> None:
        points: Points = campaign.points
        points.san[self.side] = self.after
        if self.secret_for or self.side in points.unannounced:  # else leave it as it was
            others = [side for side in points.unannounced if side != self.side]
            points.unannounced = others + ([self.side] if self.secret_for else [])


class LevelChanged(CampaignEvent):
    """A tracked level (e.g. CG17 British Ammunition Shortage) moved."""

    level: str
    side: str
    before: int
    after: int
    cause: str
    rule: str | None
    cg_date: str

    def apply(self, campaign: Any) -> None:
        campaign.points.levels[self.level] = self.after
