"""The numbers the rules set on what a side Retains, withdraws or sets up, checked against
the roster of Retained units: HIP (9.619 note 5, 3.619 b), FT/DC retention (3.61427), the
Fortifications a unit or an earlier one allows (3.619 d, e), the units Retained off map
after a withdrawal (3.60742). Only the side (or the director) sends these: a refusal tells
the opponent nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import commands as cmd
from domain.errors import InvalidCommand, RuleViolation
from domain.rules import FortificationRow
from domain.rules.limits import HALVES, HIPLimit, WithdrawalLimit

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign


def squads(halves: int) -> str:
    """Half-squads as squad-equivalents: 5 -> "2.5"."""
    return str(halves // 2) + (".5" if halves % 2 else "")


def halves_of(units: list[dict[str, Any]], kinds: list[str], **flags: bool) -> int:
    """Squad-equivalents (in half-squads) of the MMC of these kinds with these flags."""
    return sum(HALVES.get(u.get("kind") or "", 0) * u["count"] for u in units
               if u.get("kind") in kinds and all(u.get(k) == v for k, v in flags.items()))


def setup_date(campaign: Campaign) -> str:
    """The CG Date whose scenario the Retained units set up for: before the RePh reaches
    its New CG Date step, the next one."""
    module, reph = campaign.rules, campaign.reph
    steps = [s.rule for s in module.steps]
    new = next((s.rule for s in module.steps if s.new_cg_date), None)
    if reph.phase != "reph" or new is None or reph.step not in steps or \
            steps.index(reph.step) >= steps.index(new):
        return reph.cg_date
    index = module.date_index(reph.cg_date) + 1
    return module.calendar[index].date if index < len(module.calendar) else reph.cg_date


def check_retained(campaign: Campaign, side: str, units: list[cmd.RetainedUnit]) -> None:
    """The limits a side's Retained units must keep (HIP, FT/DC)."""
    limits = campaign.rules.unit_limits
    lines = [u.model_dump() for u in units]
    if limits.hip is not None:
        _check_hip(campaign, limits.hip, side, lines)
    if limits.ft_dc is not None:
        _check_ft_dc(limits.ft_dc.rule, limits.ft_dc.max_usage_dr,
                     limits.ft_dc.elite_squads_per, lines)


def _areas(lines: list[dict[str, Any]], per_area: bool) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        grouped.setdefault(line["area"] if per_area else "", []).append(line)
    return grouped


def _check_hip(campaign: Campaign, hip: HIPLimit, side: str,
               lines: list[dict[str, Any]]) -> None:
    """9.619 note 5 / 3.619 b: HIP MMC at most 10% (FRU) of the Retained squads."""
    unknown = [u["unit"] for u in lines if u["hip"] and not u["fortification"] and not u["kind"]]
    if unknown:
        raise InvalidCommand(f"give the `kind` (squad, HS, crew, leader, SMC, SW, gun, "
                             f"vehicle) of each HIP unit: {', '.join(unknown)}",
                             rule=hip.rule, field="units")
    date = setup_date(campaign)
    if hip.daytime_only and campaign.rules.date(date).night:
        return
    for area, group in _areas(lines, hip.per_area).items():
        retained = halves_of(group, hip.counts)
        hidden = halves_of(group, hip.counts, hip=True)
        most = hip.most(retained)
        if hidden > most:
            where = f" in Setup Area {area}" if area else ""
            raise RuleViolation(
                f"no more than {hip.percent}% ({hip.rounding}) of the {side}'s Retained "
                f"Infantry squads{where} may use HIP in a daytime CG Scenario ({date}): "
                f"{squads(retained)} squad-equivalents allow {squads(most)}, not "
                f"{squads(hidden)}", rule=hip.rule)


def _check_ft_dc(rule: str, max_dr: int, per: dict[str, int],
                 lines: list[dict[str, Any]]) -> None:
    """3.61427: kept only after a usage DR <= 10; per Area 1 FT/3 and 1 DC/elite squad."""
    for area, group in _areas(lines, True).items():
        kept = [u for u in group if u["usage_dr"] is not None]
        for line in kept:
            if line["usage_dr"] > max_dr:
                raise RuleViolation(f"an {line['weapon']} removed by a usage DR of "
                                    f"{line['usage_dr']} is not Retained (only <= {max_dr})",
                                    rule=rule)
        elite = sum(u["count"] for u in group if u["kind"] == "squad" and u["elite"])
        for weapon, needed in per.items():
            count = sum(u["count"] for u in kept if u["weapon"] == weapon)
            if count > elite // needed:
                each = "elite squad" if needed == 1 else f"{needed} elite squads"
                raise RuleViolation(
                    f"no more than 1 {weapon}/{each} is Retained by 3.61427 in each "
                    f"Setup/Entry Area: {area} has {elite} elite squads, so "
                    f"{elite // needed} {weapon}, not {count}", rule=rule)


def check_fortification_need(campaign: Campaign, side: str, row: FortificationRow,
                             command: cmd.PurchaseFortification, rule: str) -> None:
    """3.619 d (a unit Retained now) and e (an earlier Fortification in the hex)."""
    need = row.needs
    if need is None:
        return
    roster = campaign.retained
    if need.retained_kinds and not any(
            u.get("kind") in need.retained_kinds and (u.get("airborne") or not need.airborne)
            for u in roster.units(side)):
        what = ("an airborne " if need.airborne else "a ") + "MMC"
        raise RuleViolation(f"{row.item} (note {need.note}): bought only while the {side} "
                            f"Retain {what} (none on the Retained units roster)", rule=rule)
    if need.previous_in_hex:
        _check_previous(campaign, side, row, command, rule)


def _check_previous(campaign: Campaign, side: str, row: FortificationRow,
                    command: cmd.PurchaseFortification, rule: str) -> None:
    need = row.needs
    assert need is not None
    if command.hex is None or command.count != 1:
        raise InvalidCommand(f"a {row.item} (note {need.note}) is bought one at a time for "
                             "the hex it is placed in (give the hex, count 1)", rule=rule,
                             field="hex")
    placed = campaign.purchases.hexes_today.get(side, {}).get(row.item, [])
    if command.hex in placed:  # its Foxhole became that Trench: none is left for another
        raise RuleViolation(f"{row.item} (note {need.note}): one per hex that held a "
                            f"{' or '.join(need.previous_in_hex)}, and {command.hex} has "
                            f"its {row.item} already", rule=rule)
    if command.hex not in held_before(campaign, side, need.previous_in_hex):
        raise RuleViolation(f"{row.item} (note {need.note}): only in a hex that held a "
                            f"{' or '.join(need.previous_in_hex)} on the previous CG Date "
                            f"({command.hex} did not: none there on the Retained units "
                            "roster, and none bought for it there)", rule=rule)


def held_before(campaign: Campaign, side: str, items: list[str]) -> list[str]:
    """The hexes that held one of the side's Fortifications of these items on the previous
    CG Date (3.619 e): on the Retained units roster recorded for it, or bought for it
    with the hex they were placed in."""
    earlier = campaign.retained.earlier(side, campaign.reph.cg_date)
    bought = campaign.purchases.hexes_before.get(side, {})
    return sorted({u["hex"] for u in earlier if u.get("fortification") and u.get("hex")
                   and u.get("item") in items} |
                  {place for item in items for place in bought.get(item, [])})


def withdrawal_limit(campaign: Campaign, side: str, rule: str) -> WithdrawalLimit | None:
    """The limit on what a side Retains off map from a withdrawal under `rule`."""
    return next((w for w in campaign.rules.unit_limits.withdrawal
                 if w.side == side and w.rule == rule), None)


def tally(units: list[dict[str, Any]]) -> dict[str, int]:
    """Leaders, half-squads of MMC and non-captured SW among withdrawn units."""
    return {"leaders": sum(u["count"] for u in units if u["kind"] == "leader"),
            "halves": halves_of(units, list(HALVES)),
            "sw": sum(u["count"] for u in units if u["kind"] == "SW" and not u["captured"])}


def check_withdrawal(campaign: Campaign, side: str, rule: str,
                     units: list[dict[str, Any]]) -> None:
    """3.60742: units are Retained off map only under a rule the module limits, no more
    than 3 leaders, 9 squad-equivalents and 1 non-captured SW (with those already
    Retained so); the excess leaves play."""
    limit = withdrawal_limit(campaign, side, rule)
    if limit is None:  # a rule typed otherwise would keep them past its limits
        kept = [w.rule for w in campaign.rules.unit_limits.withdrawal if w.side == side]
        allowed = f"only under {' or '.join(kept)}" if kept else "under no rule of the module"
        raise InvalidCommand(f"the {side} Retains withdrawn units off map {allowed}, not "
                             f"under {rule!r}", field="rule", rule=kept[0] if kept else None)
    before = campaign.retained.withdrawn(side, rule)
    now = {key: before.get(key, 0) + value for key, value in tally(units).items()}
    for key, most, what in (("leaders", limit.leaders, "leaders"),
                            ("halves", limit.squad_equivalents * 2,
                             "squad-equivalents of MMC"),
                            ("sw", limit.support_weapons, "non-captured SW")):
        if now[key] > most:
            said = squads if key == "halves" else str
            earlier = f", {said(before[key])} of them recorded before" if before.get(key) \
                else ""
            raise RuleViolation(
                f"no more than {limit.leaders} leaders, {limit.squad_equivalents} "
                f"squad-equivalents of MMC and {limit.support_weapons} non-captured SW are "
                f"Retained off map: this makes {said(now[key])} {what}{earlier} (most "
                f"{said(most)}); the excess, owner's choice, is removed from play without "
                "CVP", rule=limit.rule)
