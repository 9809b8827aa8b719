"""Reports between the two sides: a casualty (A26.2; PBr 3.6162 and ABtF 9.6202 read its
CVP) and the control of a Location, Block or Strategic Location (PBr 3.605, ABtF 9.605,
KGP 8.2 LVP and Objective Hexes). Both are public facts of the map that decide what each
side gets next (CVP for the other, Setup Areas for both), so neither side writes them
alone: a side reports (CasualtyReported, ControlReported), the other side confirms or
disputes, and only a confirmed report changes the record. The director records directly,
and settles a dispute by confirming the report or rejecting it.

A side reports its own loss (the CVP go to the other side) and a Location it Controls now
(A26.11-.12). A report waits in the guide (`due` for the side that must confirm it);
neither its RePh step nor the CG Scenario may be left while one is open (steps.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import commands as cmd
from domain.campaign import retained
from domain.campaign.events import CampaignEvent
from domain.campaign.handlers import handles
from domain.campaign.part import Part
from domain.campaign.scenario import ControlChanged, place_key
from domain.errors import Forbidden, InvalidCommand, RuleViolation

if TYPE_CHECKING:
    from domain.campaign.aggregate import Campaign

CASUALTY_RULE = "A26.2"  # a unit lost is worth its CVP to the other side
ANSWERS = ["confirm_report", "dispute_report"]  # what the other side sends
SETTLES = ["confirm_report", "withdraw_report"]  # what the director sends on a dispute


class Reports(Part):
    """The reports still open (awaiting the other side, or disputed), by number."""

    name = "reports"

    def __init__(self) -> None:
        self.open: dict[str, dict[str, Any]] = {}  # "N" -> kind, side, status, fields...
        self.made = 0  # reports made so far: the next one is made + 1


# -- the commands ---------------------------------------------------------------------


@handles(cmd.RecordCasualty)
def record_casualty(campaign: Campaign, command: cmd.RecordCasualty, actor: str) -> None:
    """The director records a casualty; a side reports its own loss, for the other side
    to confirm (its RG line, if named, sealed like the line: 3.6172)."""
    campaign.reph.check_not_ended()
    side = campaign.check_side(command.side)
    _acting(campaign, side, actor)  # a side reports its own losses, never the other's
    scenario = retained.check_casualty(campaign, side, command.ww_half_squads,
                                       command.purchase)
    if actor not in campaign.sides:
        retained.record_casualty(campaign, side, command.model_dump(), scenario, actor)
        return
    report = campaign.reports.made + 1
    campaign._record(CasualtyReported, actor, report=report, side=side, unit=command.unit,
                     cvp=command.cvp, ww_half_squads=command.ww_half_squads,
                     scenario=scenario)
    # Which RG lost it is the side's own (3.6172); sealed whether or not it names one, so
    # that the sealed record's being there never tells a line's casualty from the OB's.
    campaign._record(CasualtyLineReported, actor, secret_for=side, report=report,
                     side=side, purchase=command.purchase)


@handles(cmd.ChangeControl)
def change_control(campaign: Campaign, command: cmd.ChangeControl, actor: str) -> None:
    """The director records a control change (`side` None: nobody Controls it now); a
    side reports a Location it Controls now, for the other side to confirm."""
    campaign.reph.check_not_ended()
    _acting(campaign, command.side, actor)  # a side reports what it Controls
    step = campaign.reph.step if campaign.reph.phase == "reph" else None
    campaign.rules.check_control_kind(command.kind, step, actor in campaign.sides)
    fields = _control_fields(campaign, command.model_dump())
    if actor not in campaign.sides:
        _record_control(campaign, fields, actor)
        return
    _check_not_reported(campaign, fields)
    campaign._record(ControlReported, actor, report=campaign.reports.made + 1,
                     cg_date=campaign.reph.cg_date, **fields)


@handles(cmd.ConfirmReport)
def confirm_report(campaign: Campaign, command: cmd.ConfirmReport, actor: str) -> None:
    """The other side confirms a report (or the director settles it): the record changes
    now, as if the director had recorded it."""
    campaign.reph.check_not_ended()
    entry = _entry(campaign, command.report)
    side = _answering(campaign, entry, command.side, actor, "confirms")
    fields = entry["fields"]
    if entry["kind"] == "control":  # checked again: the map may have moved on since
        fields = _control_fields(campaign, fields)
    campaign._record(ReportConfirmed, actor, report=command.report, kind=entry["kind"],
                     by=entry["side"], side=side, cg_date=campaign.reph.cg_date)
    if entry["kind"] == "control":
        _record_control(campaign, fields, actor)
    else:
        retained.record_casualty(campaign, entry["side"], fields, entry["scenario"], actor)


@handles(cmd.DisputeReport)
def dispute_report(campaign: Campaign, command: cmd.DisputeReport, actor: str) -> None:
    """The other side disputes a report: the record stays as it was; the director settles
    it (confirm_report or withdraw_report), or its side withdraws it."""
    campaign.reph.check_not_ended()
    entry = _entry(campaign, command.report)
    side = _answering(campaign, entry, command.side, actor, "disputes")
    if entry["status"] == "disputed":
        raise RuleViolation(f"report {command.report} is disputed already: the director "
                            "settles it")
    campaign._record(ReportDisputed, actor, report=command.report, kind=entry["kind"],
                     by=entry["side"], side=side, reason=command.reason,
                     cg_date=campaign.reph.cg_date)


@handles(cmd.WithdrawReport)
def withdraw_report(campaign: Campaign, command: cmd.WithdrawReport, actor: str) -> None:
    """The reporting side withdraws its report, or the director rejects it (settling a
    dispute against it): the record stays as it was."""
    campaign.reph.check_not_ended()
    entry = _entry(campaign, command.report)
    side = _acting(campaign, command.side, actor)
    if side is not None and side != entry["side"]:
        raise Forbidden(f"report {command.report} is the {entry['side']}'s: the {side} "
                        "disputes it (dispute_report); only its side withdraws it",
                        field="side")
    campaign._record(ReportWithdrawn, actor, report=command.report, kind=entry["kind"],
                     by=entry["side"], side=side, reason=command.reason,
                     cg_date=campaign.reph.cg_date)


def _entry(campaign: Campaign, report: int) -> dict[str, Any]:
    """An open report (awaiting its answer, or disputed)."""
    entry = campaign.reports.open.get(str(report))
    if entry is None:
        raise InvalidCommand(f"no report {report} is open (confirmed, withdrawn or never "
                             "made)", field="report")
    return entry


def _acting(campaign: Campaign, side: str | None, actor: str) -> str | None:
    """The side that answers (None: the director settling). A side's token acts for that
    side only (api/access.py checks it too)."""
    if side is not None:
        campaign.check_side(side)
    if actor in campaign.sides and side != actor:
        raise Forbidden(f"the {actor} acts for the {actor} only", field="side")
    return side


def _answering(campaign: Campaign, entry: dict[str, Any], side: str | None, actor: str,
               verb: str) -> str | None:
    """The side that confirms or disputes: never the side that made the report."""
    side = _acting(campaign, side, actor)
    if side == entry["side"]:
        raise Forbidden(f"the {side} made report {entry['report']}: the other side "
                        f"{verb} it, or the director settles it", field="side")
    return side


# -- what a report changes once confirmed ------------------------------------------------


def _control_fields(campaign: Campaign, given: dict[str, Any]) -> dict[str, Any]:
    """A control change's fields, checked against the record (an LVP Location keeps its LVP
    and Map Group unless given new ones; KGP 8.2)."""
    command = cmd.ChangeControl.model_validate({k: v for k, v in given.items()
                                                if k in cmd.ChangeControl.model_fields})
    campaign.rules.check_control(command)
    change = campaign.scenario.control_change(command.location, command.side, command.lvp,
                                              command.map_group)
    return change | {"kind": command.kind, "rule": command.rule, "infantry": command.infantry}


def _check_not_reported(campaign: Campaign, fields: dict[str, Any]) -> None:
    """A side's Control report of a Location is made once: while it is open, the same
    Location (as a reader would name it: case, spacing and look-alike forms aside, of any
    kind) is not reported again."""
    for number, entry in campaign.reports.open.items():
        if entry["kind"] == "control" and entry["side"] == fields["side"] and \
                _same_place(entry["fields"]["location"], fields["location"]):
            raise RuleViolation(f"report {number} already says {describe(entry)}: it awaits "
                                "its answer", field="location")


def _same_place(one: str, other: str) -> bool:
    """Whether two Location names read as one."""
    return place_key(one) == place_key(other)


def _record_control(campaign: Campaign, fields: dict[str, Any], actor: str) -> None:
    """Record the change; Infantry Control reveals an Objective Hex (KGP 8.2)."""
    campaign._record(ControlChanged, actor, cg_date=campaign.reph.cg_date, **fields)
    campaign.rules.control_changed(campaign, fields["side"], fields["location"],
                                   fields["infantry"], actor)


# -- what the guide, the status and the step machine read ----------------------------------


def describe(entry: dict[str, Any]) -> str:
    """A report in a line, as both sides may read it."""
    fields = entry["fields"]
    if entry["kind"] == "casualty":
        # the WW box's half-squads are public, as the casualty is: the other side confirms them
        ww = fields.get("ww_half_squads") or 0
        return f"the {entry['side']} lost {fields['unit']} ({fields['cvp']} CVP" + \
            (f", {ww} HS to the WW box)" if ww else ")")
    return f"the {entry['side']} Controls {fields['location']} ({control_terms(fields)})"


def control_terms(fields: dict[str, Any]) -> str:
    """What a Control report claims beside the Location, for the other side to confirm:
    its kind, and in KGP its LVP and Map Group, and Infantry Control (which reveals an
    Objective Hex there, 8.2)."""
    terms = [fields["kind"]]
    if fields.get("lvp"):
        terms.append(f"{fields['lvp']} LVP" + (f", Map Group {fields['map_group']}"
                                               if fields.get("map_group") else ""))
    if fields.get("infantry"):
        terms.append("by Infantry")
    return "; ".join(terms)


def listed(campaign: Campaign) -> list[dict[str, Any]]:
    """Every open report, public as casualties and control are (never its RG line)."""
    return [{"report": entry["report"], "kind": entry["kind"], "by": entry["side"],
             "status": entry["status"], "what": describe(entry), "rule": entry["rule"],
             "awaiting": awaiting(campaign, entry), "reason": entry["reason"],
             "commands": SETTLES if entry["status"] == "disputed" else ANSWERS}
            for entry in campaign.reports.open.values()]


def awaiting(campaign: Campaign, entry: dict[str, Any]) -> list[str]:
    """Who must answer it: the other side, or the director once it is disputed."""
    if entry["status"] == "disputed":
        return ["director"]
    return [side for side in campaign.sides if side != entry["side"]]


def due(campaign: Campaign, side: str) -> list[dict[str, Any]]:
    """The reports awaiting this side's confirmation (or dispute)."""
    return [item for item in listed(campaign) if side in item["awaiting"]]


def unsettled(campaign: Campaign, sides: list[str] | None) -> str | None:
    """Why the step (or the scenario) may not be left: each report awaiting one of `sides`
    (None: every open report, disputed ones too)."""
    named = [f"report {item['report']} ({item['what']}) awaits the "
             + " or ".join(item["awaiting"]) for item in listed(campaign)
             if sides is None or set(sides) & set(item["awaiting"])]
    if not named:
        return None
    return "; ".join(named) + " (the side it awaits confirms or disputes it; the director " \
        "settles a dispute)"


# -- the events -------------------------------------------------------------------------


def _opened(campaign: Any, report: int, kind: str, side: str, rule: str | None,
            fields: dict[str, Any], scenario: str | None = None) -> None:
    reports: Reports = campaign.reports
    reports.open = {**reports.open, str(report): {
        "report": report, "kind": kind, "side": side, "status": "pending", "reason": None,
        "rule": rule, "fields": fields, "scenario": scenario}}
    reports.made = report


def _closed(campaign: Any, report: int) -> None:
    reports: Reports = campaign.reports
    reports.open = {n: entry for n, entry in reports.open.items() if n != str(report)}


class CasualtyReported(CampaignEvent):
    """A side reported a unit it lost in `scenario`: its CVP count once the other side
    confirms (public, as casualties are)."""

    report: int
    side: str
    unit: str
    cvp: int
    scenario: str
    ww_half_squads: int = 0

    def apply(self, campaign: Any) -> None:
        _opened(campaign, self.report, "casualty", self.side, CASUALTY_RULE,
                {"unit": self.unit, "cvp": self.cvp, "ww_half_squads": self.ww_half_squads,
                 "purchase": None}, self.scenario)


class CasualtyLineReported(CampaignEvent):
    """The RG line a reported casualty came from, or none (sealed like the line, 3.6172)."""

    report: int
    side: str
    purchase: int | None

    def apply(self, campaign: Any) -> None:
        campaign.reports.open[str(self.report)]["fields"]["purchase"] = self.purchase


class ControlReported(CampaignEvent):
    """A side reported that it Controls a Location now (public, as control is)."""

    report: int
    location: str
    kind: str
    side: str | None
    previous: str | None
    rule: str | None
    cg_date: str
    lvp: int = 0
    map_group: str | None = None
    infantry: bool = False

    def apply(self, campaign: Any) -> None:
        fields = {"location": self.location, "kind": self.kind, "side": self.side,
                  "rule": self.rule, "lvp": self.lvp, "map_group": self.map_group,
                  "infantry": self.infantry}
        _opened(campaign, self.report, "control", str(self.side), self.rule, fields)


class ReportAnswered(CampaignEvent):
    """Common shape of a report's answers: which report, whose, and who answered (`side`
    None: the director)."""

    shared_shape = True
    report: int
    kind: str
    by: str
    side: str | None
    cg_date: str


class ReportConfirmed(ReportAnswered):
    """The other side (or the director) confirmed a report: the record follows it."""

    def apply(self, campaign: Any) -> None:
        _closed(campaign, self.report)


class ReportDisputed(ReportAnswered):
    """The other side disputed a report: the record stays; the director settles it."""

    reason: str

    def apply(self, campaign: Any) -> None:
        entry = campaign.reports.open[str(self.report)]
        entry["status"], entry["reason"] = "disputed", self.reason


class ReportWithdrawn(ReportAnswered):
    """Its side withdrew a report, or the director rejected it: the record stays."""

    reason: str

    def apply(self, campaign: Any) -> None:
        _closed(campaign, self.report)
