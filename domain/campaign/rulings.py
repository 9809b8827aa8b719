"""A director's ruling and its corrections: applied from the ruling on, as events that
cite it, instead of undoing everything after the mistake.

A ruling's verdict, reason and the kinds of its corrections are public, even on a secret
roll (the side that disputed it learns what was decided); what would tell a secret (a
secret roll's key, corrected Final roll or DRM, a side's CPP, a secret RG) is sealed to
that side and the director in events of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import ConfigDict, Field, StrictInt, TypeAdapter, ValidationError

from domain.campaign.audit import RulingRecorded, check_ruling, reroll_fields
from domain.campaign.events import CampaignEvent
from domain.commands import Name, Strict
from domain.errors import InvalidCommand, RefitError, RuleViolation

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign

Rule = Annotated[str | None, Field(default=None, max_length=30)]
# The bounds a corrected figure stays within: CPP and FPP are never negative, ELR runs
# 0-5 and SAN 0-7 (as change_elr and change_san accept them).
BOUNDS: dict[str, tuple[int, int | None]] = {
    "cpp": (0, None), "fpp": (0, None), "elr": (0, 5), "san": (0, 7)}
SECRET_POOLS = frozenset({"cpp", "fpp"})  # a side's CPP and FPP are its own (9.617, 3.617)


class Adjust(Strict):
    """Add `amount` (negative: take) to a side's CPP, FPP, ELR or SAN."""

    kind: Literal["adjust"]
    side: Name
    pool: Literal["cpp", "fpp", "elr", "san"]
    amount: StrictInt = Field(ge=-1000, le=1000)
    reason: Name
    rule: Rule = None


class VoidRoll(Strict):
    """Void the ruling's roll and authorize a re-roll of its subject (a new epoch)."""

    kind: Literal["void_roll"]
    reason: Name
    rule: Rule = None


class AmendPurchase(Strict):
    """Amend a line of the RG Purchase Record: its RG id, cost (the CPP difference is
    credited or taken) or strength."""

    kind: Literal["amend_purchase"]
    side: Name
    purchase: StrictInt = Field(ge=1, le=100_000)
    rg: str | None = Field(default=None, min_length=1, max_length=20)
    cost: StrictInt | None = Field(default=None, ge=0, le=1000)
    strength: Literal["F", "D"] | None = None
    reason: Name
    rule: Rule = None


class MissedRoll(Strict):
    """Authorize a roll on a table whose step the RePh has passed on this CG Date."""

    kind: Literal["missed_roll"]
    table: Name
    side: Name
    subject: str = Field(default="", max_length=200)
    reason: Name
    rule: Rule = None


Correction = Annotated[Adjust | VoidRoll | AmendPurchase | MissedRoll,
                       Field(discriminator="kind")]
KINDS = ("adjust", "void_roll", "amend_purchase", "missed_roll")  # the closed list
_CORRECTIONS: TypeAdapter[list[Correction]] = TypeAdapter(
    list[Correction], config=ConfigDict(defer_build=True))  # built on the first ruling


class RulingDRM(Strict):
    """A DRM the director rules a roll should have had: the ruling's, never a player's."""

    value: StrictInt = Field(ge=-20, le=20)
    reason: Name


def parse_corrections(given: list[Any]) -> list[Correction]:
    """Corrections as typed models, a bad one refused naming its field."""
    try:
        return _CORRECTIONS.validate_python(
            [c.model_dump() if isinstance(c, Strict) else c for c in given])
    except ValidationError as error:
        first = error.errors()[0]
        where = list(first["loc"])
        field = f"corrections[{where[0]}]" + "".join(
            f".{part}" for part in where[1:] if part not in KINDS)
        if first["type"].startswith("union_tag"):  # no kind, or one not on the list
            field += ".kind"
        raise InvalidCommand(f"{field}: {first['msg']} (a correction is one of "
                             f"{', '.join(KINDS)})", field=field) from None


class RulingSealed(CampaignEvent):
    """What a ruling on a secret roll corrected, sealed to the roll's side."""

    side: str
    ruling: int  # the RulingRecorded's version
    roll_version: int
    key: str
    final: int | None
    result: str | None
    drm: list[dict[str, Any]] | None
    disputed_by: str | None = None  # the roll's own side, whose dispute is as secret as it

    def apply(self, campaign: Any) -> None:
        """A record beside the ruling; the campaign's state does not move."""


class PointsCorrected(CampaignEvent):
    """A ruling's correction of a side's CPP, FPP, ELR or SAN."""

    side: str
    pool: str
    amount: int
    before: int
    after: int
    cause: str
    reason: str
    rule: str | None
    ruling: int
    cg_date: str

    def apply(self, campaign: Any) -> None:
        getattr(campaign.points, self.pool)[self.side] = self.after


class PurchaseAmended(CampaignEvent):
    """A ruling's amendment of an RG Purchase Record line, with the CPP difference."""

    side: str
    purchase: int
    changes: dict[str, list[Any]]  # field -> [before, after]
    cpp_difference: int  # CPP taken (negative: given back)
    tallies: dict[str, dict[str, int]]  # rg_total/rg_today -> RG id -> its count now
    reason: str
    rule: str | None
    ruling: int
    cg_date: str

    def apply(self, campaign: Any) -> None:
        line = campaign.purchases.lines[self.purchase - 1]
        for field, (_, after) in self.changes.items():
            line[field] = after
        campaign.points.cpp[self.side] -= self.cpp_difference
        for tally, counts in self.tallies.items():
            getattr(campaign.purchases, tally)[self.side].update(counts)


class RollVoided(CampaignEvent):
    """A ruling voided a roll: its subject may be rolled again, with a new epoch."""

    side: str
    key: str
    roll_version: int
    slot: str
    epoch: int
    table: str
    subject: str
    result: str
    cg_date: str
    step: str
    reason: str
    rule: str | None
    ruling: int
    # What the voided roll wrote, taken back: CPP and FPP it credited (less any it cost),
    # and what it determined of an RG's line (its fields as they are once taken back).
    cpp_back: int = 0
    fpp_back: int = 0
    purchase: int | None = None
    line: dict[str, Any] | None = None

    def apply(self, campaign: Any) -> None:
        campaign.points.cpp[self.side] -= self.cpp_back
        campaign.points.fpp[self.side] -= self.fpp_back
        if self.purchase is not None and self.line is not None:
            campaign.purchases.lines[self.purchase - 1].update(self.line)
        dice = campaign.dice
        dice.epochs[self.slot] = self.epoch
        dice.authorizations()[f"{self.table}/{self.side}/{self.subject}"] = {
            "slot": self.slot, "step": self.step, "ruling": self.ruling}
        tally = f"{self.table}/{self.side}"
        dice.table_rolls_cg[tally] = dice.table_rolls_cg.get(tally, 1) - 1
        if self.cg_date == campaign.reph.cg_date:  # the voided roll counts no more today
            dice.rolls_today[tally] = dice.rolls_today.get(tally, 1) - 1
            for gave in (f"{tally}/{self.result}", f"{tally}/{self.result}@{self.subject}"):
                dice.results_today[gave] = dice.results_today.get(gave, 1) - 1


class RollAuthorized(CampaignEvent):
    """A ruling authorized a missed roll: its table and subject, after its step."""

    side: str
    table: str
    subject: str
    cg_date: str
    step: str  # the step it was missed in
    reason: str
    rule: str | None
    ruling: int

    def apply(self, campaign: Any) -> None:
        campaign.dice.authorizations()[f"{self.table}/{self.side}/{self.subject}"] = {
            "slot": None, "step": self.step, "ruling": self.ruling}


def record_ruling(campaign: Campaign, roll: dict[str, Any] | None, verdict: str,
                  reason: str, actor: str, final: int | None = None,
                  result: str | None = None, corrections: list[Any] | None = None,
                  drm: list[Any] | None = None, disputed_by: str | None = None) -> None:
    """Record a director's ruling (on the roll `roll`, its view row, if any) and apply its
    corrections after it, each citing it; a bad one refuses the whole ruling."""
    fixes = parse_corrections(corrections or [])
    ruled_drm = _ruling_drm(drm, roll)
    check_ruling(verdict, reason, final, result, bool(fixes) or ruled_drm is not None)
    _check_subject(roll, fixes, final, result, ruled_drm)
    if disputed_by is not None:
        campaign.check_side(disputed_by)
    if fixes:
        campaign.reph.check_not_ended()
    if ruled_drm is not None and final is None and roll is not None:
        final = roll["original"] + sum(item["value"] for item in ruled_drm)
    secret = roll is not None and roll.get("secret_for") is not None
    shown = {"key": roll["key"] if roll else None, "final": final, "result": result,
             "drm": ruled_drm}
    # A side's dispute of its own secret roll is sealed to it (disputes.py): so is its name
    # on the ruling, which the other side reads.
    own = secret and roll is not None and disputed_by == roll.get("secret_for")
    campaign._record(
        RulingRecorded, actor, roll_version=roll["version"] if roll else None,
        side=roll["side"] if roll else (disputed_by or ""), verdict=verdict, reason=reason,
        corrections=[fix.kind for fix in fixes], disputed_by=None if own else disputed_by,
        secret_roll=secret, **({"key": None, "final": None, "result": None, "drm": None}
                               if secret else shown))
    ruling = campaign.version
    if secret and roll is not None:
        campaign._record(RulingSealed, actor, secret_for=roll["secret_for"],
                         side=roll["side"], ruling=ruling, roll_version=roll["version"],
                         disputed_by=disputed_by if own else None, **shown)
    for index, fix in enumerate(fixes):
        try:
            _apply(campaign, fix, roll, ruling, actor)
        except RefitError as error:
            field = f"corrections[{index}]" + (f".{error.field}" if error.field else "")
            raise type(error)(f"{field}: {error.message}", field=field,
                              rule=error.rule) from None


def _ruling_drm(drm: list[Any] | None, roll: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """The ruling's DRM as itemized: each with its reason, by the ruling, no player's."""
    if drm is None:
        return None
    if roll is None:
        raise InvalidCommand("a corrected DRM is for a roll: name its key", field="drm")
    try:
        items = [RulingDRM.model_validate(d.model_dump() if isinstance(d, Strict) else d)
                 for d in drm]
    except ValidationError as error:
        where = error.errors()[0]
        raise InvalidCommand(f"drm: {where['msg']}", field="drm") from None
    return [{"value": item.value, "reason": item.reason, "rule": None, "auto": False,
             "by": "ruling"} for item in items]


def _check_subject(roll: dict[str, Any] | None, fixes: list[Correction], final: int | None,
                   result: str | None, drm: list[dict[str, Any]] | None) -> None:
    """A ruling without a roll corrects the record; a void needs the roll it voids."""
    if roll is not None:
        return
    if not fixes:
        raise InvalidCommand("a ruling names the roll it rules on (key), or corrects the "
                             "record (corrections)", field="key")
    if final is not None or result is not None:
        raise InvalidCommand("a corrected Final roll or result is a roll's: name its key",
                             field="key")
    if any(fix.kind == "void_roll" for fix in fixes):
        raise InvalidCommand("void_roll voids the ruling's roll: name its key", field="key")


def _apply(campaign: Campaign, fix: Correction, roll: dict[str, Any] | None, ruling: int,
           actor: str) -> None:
    """Record the event of one correction, checked against the campaign as it is now."""
    cited = {"reason": fix.reason, "rule": fix.rule, "ruling": ruling}
    if isinstance(fix, Adjust):
        _adjust(campaign, fix, cited, actor)
    elif isinstance(fix, VoidRoll):
        assert roll is not None
        if roll["cg_date"] != campaign.reph.cg_date:
            raise RuleViolation(f"the roll was made on {roll['cg_date']}: a void re-rolls a "
                                f"roll of this CG Date ({campaign.reph.cg_date}); correct "
                                "what it did instead", field="kind")
        fields = reroll_fields(campaign.dice.epochs, roll, fix.reason)
        campaign._record(RollVoided, actor, secret_for=roll.get("secret_for"),
                         key=fields["key"], roll_version=roll["version"],
                         slot=fields["slot"], epoch=fields["epoch"],
                         side=roll["side"], table=roll["table"], subject=roll["subject"],
                         result=roll["result"], cg_date=roll["cg_date"], step=roll["step"],
                         **taken_back(campaign, roll), **cited)
    elif isinstance(fix, AmendPurchase):
        _amend(campaign, fix, cited, actor)
    else:
        _missed(campaign, fix, cited, actor)


def _adjust(campaign: Campaign, fix: Adjust, cited: dict[str, Any], actor: str) -> None:
    side = campaign.check_side(fix.side)
    if fix.amount == 0:
        raise InvalidCommand("an adjustment changes the figure: amount is not 0",
                             field="amount")
    before = getattr(campaign.points, fix.pool)[side]
    if before is None:
        raise RuleViolation(f"the {side} {fix.pool.upper()} is not recorded yet: "
                            f"record it first (change_{fix.pool})", field="pool")
    after = before + fix.amount
    low, high = BOUNDS[fix.pool]
    if after < low or (high is not None and after > high):
        span = f"{low}-{high}" if high is not None else f"{low} or more"
        raise InvalidCommand(f"the {side} {fix.pool.upper()} would be {after}; it is "
                             f"{span}", field="amount")
    # A SAN an unannounced secret purchase changed stays sealed until 3.623.
    sealed = fix.pool in SECRET_POOLS or (
        fix.pool == "san" and campaign.points.san_secret_for(side) is not None)
    campaign._record(PointsCorrected, actor, secret_for=side if sealed else None, side=side,
                     pool=fix.pool, amount=fix.amount, before=before, after=after,
                     cause=f"ruling v{cited['ruling']}: {fix.reason}",
                     cg_date=campaign.reph.cg_date, **cited)


def taken_back(campaign: Campaign, roll: dict[str, Any]) -> dict[str, Any]:
    """The RollVoided fields that take back what the roll wrote (`roll["wrote"]`: the
    records its command appended after it): CPP/FPP and an RG's determination. What else
    it changed (ELR, SAN, a level) the ruling corrects with `adjust`."""
    side, cpp, fpp = roll["side"], 0, 0
    purchase, line = None, None
    for record in roll.get("wrote", []):
        data, kind = record["data"], record["type"]
        if kind in ("CPPCredited", "CPPSpent", "FPPCredited") and data["side"] == side:
            sign = -1 if kind == "CPPSpent" else 1
            if kind == "FPPCredited":
                fpp += data["amount"]
            else:
                cpp += sign * data["amount"]
        elif kind == "RGDetermined":
            purchase = data["purchase"]
            line = _undetermined(campaign.purchases.lines[purchase - 1], data)
    for pool, back in (("cpp", cpp), ("fpp", fpp)):
        have = getattr(campaign.points, pool)[side]
        if back > have:
            raise RuleViolation(f"the voided roll gave the {side} {back} {pool.upper()}; "
                                f"{have} are left to take back: adjust the rest first")
    return {"cpp_back": cpp, "fpp_back": fpp, "purchase": purchase, "line": line}


def _undetermined(line: dict[str, Any], found: dict[str, Any]) -> dict[str, Any]:
    """An RG line's fields as they stand once one roll's determination is taken back."""
    back: dict[str, Any] = {}
    if found.get("strength") is not None:
        back |= {"strength": None, "units": None}
    if found.get("composition") is not None:
        back["composition"] = None
    if found.get("leader") is not None:
        rolls = max(0, line.get("leader_rolls", 1) - 1)
        back |= {"leader_rolls": rolls, **({"leader": None} if rolls == 0 else {})}
    sw = found.get("sw_rolled")
    if sw is not None:
        back["sw_rolls"] = line["sw_rolls"] | {sw: max(0, line["sw_rolls"].get(sw, 1) - 1)}
    return back


def _amend(campaign: Campaign, fix: AmendPurchase, cited: dict[str, Any], actor: str) -> None:
    side = campaign.check_side(fix.side)
    line = campaign.purchases.line(fix.purchase, side)
    changes: dict[str, list[Any]] = {}
    tallies: dict[str, dict[str, int]] = {}
    if fix.rg is not None and fix.rg != line["rg"]:
        chart = campaign.rules.rg_chart(side)
        changes["rg"] = [line["rg"], fix.rg]
        changes["group_type"] = [chart.row(line["rg"]).group_type,
                                 chart.row(fix.rg).group_type]
        if not line["given"]:
            if fix.cost is None:
                raise InvalidCommand("a bought line's RG amended states its cost",
                                     field="cost")
            tallies = _moved_tallies(campaign, side, line, fix.rg)
    cost_before = line.get("cost")
    if fix.cost is not None and fix.cost != cost_before:
        if line["given"] or cost_before is None:
            raise InvalidCommand(f"purchase #{fix.purchase} has no CPP cost on record to "
                                 "amend", field="cost")
        changes["cost"] = [cost_before, fix.cost]
    if fix.strength is not None and fix.strength != line["strength"]:
        changes["strength"] = [line["strength"], fix.strength]
    if not changes:
        raise InvalidCommand(f"purchase #{fix.purchase} already reads so: amend its rg, "
                             "cost or strength", field="purchase")
    difference = fix.cost - cost_before if "cost" in changes and cost_before is not None \
        else 0
    if difference > campaign.points.cpp[side]:
        raise RuleViolation(f"the amended cost takes {difference} CPP more; the {side} "
                            f"has {campaign.points.cpp[side]}", field="cost")
    campaign._record(PurchaseAmended, actor, secret_for=side, side=side,
                     purchase=fix.purchase, changes=changes, cpp_difference=difference,
                     tallies=tallies, cg_date=campaign.reph.cg_date, **cited)


def _moved_tallies(campaign: Campaign, side: str, line: dict[str, Any],
                   rg: str) -> dict[str, dict[str, int]]:
    """The RG counts (#P, the CG Date's) once a bought line is counted as another RG."""
    moved: dict[str, dict[str, int]] = {}
    today = line["cg_date"] == campaign.reph.cg_date
    for name in ("rg_total", "rg_today") if today else ("rg_total",):
        counts = getattr(campaign.purchases, name)[side]
        keys = [(line["rg"], rg)] if line["kg"] is None else \
            [(line["rg"], rg), (f"{line['rg']}@{line['kg']}", f"{rg}@{line['kg']}")]
        moved[name] = {}
        for old, new in keys:
            moved[name][old] = max(0, counts.get(old, 0) - 1)
            moved[name][new] = counts.get(new, 0) + 1
    return moved


def _missed(campaign: Campaign, fix: MissedRoll, cited: dict[str, Any], actor: str) -> None:
    side = campaign.check_side(fix.side)
    module, reph = campaign.rules, campaign.reph
    try:
        table = module.table(fix.table)
    except RefitError as error:
        raise InvalidCommand(error.message, field="table") from None
    rules = [s.rule for s in module.steps]
    steps = [s.rule for s in module.steps if table.id in s.tables]
    now = rules.index(reph.step) if reph.step in rules else len(rules)
    passed = [step for step in steps if rules.index(step) < now] \
        if reph.phase != "setup" else []
    if not passed:
        raise RuleViolation(f"table {table.id} belongs to no step the RePh has passed on "
                            f"{reph.cg_date}: roll it in its step", rule=table.rule,
                            field="table")
    if campaign.dice.is_authorized(table.id, side, fix.subject):
        raise InvalidCommand(f"a roll of {table.id} for {side} {fix.subject!r} is already "
                             "authorized", field="table")
    # Sealed unless the table is rolled openly: its table and subject may tell of a secret
    # purchase (an RG's strength DR) or of CPP (9.617), as the roll itself would.
    secret = not table.open_roll or fix.subject.startswith("rg:")
    campaign._record(RollAuthorized, actor, secret_for=side if secret else None,
                     side=side, table=table.id, subject=fix.subject,
                     cg_date=reph.cg_date, step=passed[-1], **cited)
