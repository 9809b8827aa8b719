"""The reads of a campaign, each declared once (`exposed`): the HTTP routes, the `refit`
commands and the web pages serve every read from its declaration in READS."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar
from uuid import UUID

from domain.campaign import Campaign, reports
from domain.campaign.disputes import open_disputes
from domain.campaign.guide import due_rolls, guide, is_public
from domain.cosigned import CosignWatch
from domain.errors import CampaignNotFound, HistoryUnreadable, InvalidCommand
from domain.history import redacted
from domain.pins import PinWatch
from domain.rules import Module
from domain.verify import VerifyReport, verify_records
from infra.caches import snapshot_problems, undo_problems, view_problems
from infra.store import CampaignStore
from infra.views import Point, RowSource, Views, check_as_of
from projections import read
from projections import statistics as stats

Reader = Callable[..., Any]  # (queries, campaign id, as of, viewer) -> the answer
R = TypeVar("R", bound=Reader)


@dataclass(frozen=True)
class Read:
    """A read as the outside sees it: `GET /campaigns/{id}{path}`, `refit COMMAND ID`."""

    name: str  # the Queries method that answers it
    path: str
    summary: str
    command: str | None  # its `refit` subcommand, if it has one
    answer: Reader


READS: list[Read] = []


def exposed(path: str, summary: str, command: str | None = None) -> Callable[[R], R]:
    """Declare a Queries method a read of the campaign, served at `path` (and by `refit
    COMMAND`); it takes the campaign id, a point (version) and the viewer."""
    def declare(method: R) -> R:
        READS.append(Read(method.__name__, path, summary, command, method))
        return method
    return declare


class Queries:
    """What a role may read of a campaign, now or as of any point."""

    def __init__(self, store: CampaignStore, views: Views) -> None:
        self.store, self.views = store, views

    def _rows(self, campaign_id: UUID, as_of: Point) -> RowSource:
        """The campaign's view rows, now or as of a point (infra/views.py)."""
        return self.views.rows(campaign_id, as_of)

    def _campaign(self, campaign_id: UUID, version: int | None = None) -> Campaign:
        """The campaign at its head, or as it stood at `version`."""
        return self.store.campaign(campaign_id, version=version)

    def rules(self, campaign_id: UUID) -> Module:
        """The rules module the campaign is pinned to (what its commands are judged by)."""
        return self._campaign(campaign_id).rules

    def answer(self, which: Read, campaign_id: UUID, as_of: Point = None,
               viewer: str | None = None) -> Any:
        """A declared read's answer."""
        return which.answer(self, campaign_id, as_of, viewer)

    def campaigns(self) -> list[read.CampaignStatus]:
        """Every campaign, one line each."""
        return [read.status(meta) for meta in self.views.all_meta()]

    def damaged(self) -> list[read.CampaignStatus]:
        """The campaigns whose stored history cannot be read, as they stood before it."""
        return [read.status(meta) for meta in self.views.damaged_meta()]

    @exposed("", "Where the campaign stands", "status")
    def status(self, campaign_id: UUID, as_of: Point = None,
               viewer: str | None = None) -> read.CampaignStatus:
        """Where the campaign stands: CG Date, RePh step, CPP, FPP, ELR, SAN per side, the
        rolls its step still waits for, and the reports awaiting an answer."""
        answer = read.status(self._rows(campaign_id, as_of), viewer)
        state = self._campaign(campaign_id, version=answer.version)
        answer.head_hash, answer.module_data = state.head_hash, state.module_hash
        module = state.rules
        # The guide's due rolls: another side's RG lines are its secret (9.617), the rolls
        # of the step itself are open to all (the RePh's pace is public).
        answer.to_roll = [f"{work['table']} {side}" + ("" if work["subject"] == "step" else
                                                       f" for {work['subject']}")
                          for side in state.sides for work in due_rolls(state, side)
                          if viewer in (None, side) or (work["subject"] == "step"
                                                        and is_public(state, side, work))]
        answer.reports = reports.listed(state)  # public: casualties and control are
        answer.disputes = open_disputes(state, viewer)  # one of a secret roll: its side's
        answer.entry_areas = {side: module.eligible_entry_areas(side, state.reph.cg_date)
                              for side in state.sides if module.entry_areas}
        # public: whether a side has units on the map is there for both to see
        answer.off_map = [side for side in state.sides if state.scenario.off_map.get(side)]
        return answer

    @exposed("/guide", "What each side must and may do now", "guide")
    def guide(self, campaign_id: UUID, as_of: Point = None,
              viewer: str | None = None) -> dict[str, Any]:
        """The rolls due and optional per side, with their DRM, the purchases still open,
        the sides done with the step, and what leaving it does (a side sees its own)."""
        version = self.views.checked_version(campaign_id, as_of)
        return guide(self._campaign(campaign_id, version=version), viewer)

    @exposed("/roster", "The CG Roster", "roster")
    def roster(self, campaign_id: UUID, as_of: Point = None,
               viewer: str | None = None) -> list[read.RosterRow]:
        """The CG Roster, one row per CG Date."""
        return read.roster(self._rows(campaign_id, as_of), viewer)

    @exposed("/purchase-record", "The RG Purchase Record", "purchases")
    def purchase_record(self, campaign_id: UUID, as_of: Point = None,
                        viewer: str | None = None) -> list[read.PurchaseRow]:
        """The RG Purchase Record, one row per RG."""
        return read.purchases(self._rows(campaign_id, as_of), viewer)

    @exposed("/cvp", "CVP per scenario and side", "cvp")
    def cvp(self, campaign_id: UUID, as_of: Point = None,
            viewer: str | None = None) -> read.CVPAnswer:
        """CVP lost per scenario and side, and totals (casualties are public)."""
        return read.cvp(self._rows(campaign_id, as_of))

    @exposed("/elr", "ELR now, and each change", "elr")
    def elr(self, campaign_id: UUID, as_of: Point = None,
            viewer: str | None = None) -> read.ELRAnswer:
        """ELR per side now, and each change with its cause (public)."""
        return read.elr(self._rows(campaign_id, as_of))

    @exposed("/san", "Each SAN change", "san")
    def san(self, campaign_id: UUID, as_of: Point = None,
            viewer: str | None = None) -> list[read.RatingChange]:
        """Each SAN change with its cause (one a secret purchase made only to its side)."""
        return read.san(self._rows(campaign_id, as_of), viewer)

    @exposed("/reports", "Every report between the sides, and how each was answered",
             "reports")
    def report_log(self, campaign_id: UUID, as_of: Point = None,
                   viewer: str | None = None) -> list[read.ReportRow]:
        """Every casualty and Control report between the sides, and how it was answered:
        awaiting, disputed, confirmed, withdrawn or rejected, by whom and why (public, as
        casualties and control are; a casualty's RG line is never on it)."""
        return read.reports(self._rows(campaign_id, as_of))

    @exposed("/retained", "Retained units per CG Date", "retained")
    def retained(self, campaign_id: UUID, as_of: Point = None,
                 viewer: str | None = None) -> list[read.RetainedRow]:
        """Each side's Retained units per CG Date, with their Setup/Entry Area and RG line
        (HIP units, Fortifications and units off map only to their side)."""
        return read.retained(self._rows(campaign_id, as_of), viewer)

    @exposed("/control", "Control of Locations", "control")
    def control(self, campaign_id: UUID, as_of: Point = None,
                viewer: str | None = None) -> list[dict[str, Any]]:
        """Who controls each Location, Block or Strategic Location whose control was
        recorded (public)."""
        return read.control(self._rows(campaign_id, as_of))

    @exposed("/lvp", "KGP LVP totals", "lvp")
    def lvp(self, campaign_id: UUID, as_of: Point = None,
            viewer: str | None = None) -> list[read.LVPRow]:
        """LVP totals at each CG-Scenario End, per side and Map Group (KGP 8.2, public)."""
        return read.lvp(self._rows(campaign_id, as_of))

    @exposed("/objectives", "KGP Objective Hexes", "objectives")
    def objectives(self, campaign_id: UUID, as_of: Point = None,
                   viewer: str | None = None) -> list[read.ObjectiveRow]:
        """Objective Hexes (KGP 8.6198), with where each is once revealed (secret to their
        side until then)."""
        return read.objectives(self._rows(campaign_id, as_of), viewer)

    @exposed("/rolls", "Every roll", "rolls")
    def rolls(self, campaign_id: UUID, as_of: Point = None,
              viewer: str | None = None) -> list[read.RollRow]:
        """Every roll: key, rule, side, dice, itemized DRM, Final roll, result (another
        side's secret roll only that it was made, and when)."""
        return read.rolls(self._rows(campaign_id, as_of), viewer)

    def recent_rolls(self, campaign_id: UUID, viewer: str | None,
                     count: int) -> list[read.RollRow]:
        """The latest `count` rolls, as `rolls` reads them (a page's latest rolls)."""
        return read.rolls(self._rows(campaign_id, None), viewer, last=count)

    @exposed("/statistics", "The charts' series and each side's dice statistics")
    def statistics(self, campaign_id: UUID, as_of: Point = None,
                   viewer: str | None = None) -> stats.Statistics:
        """CPP Start/Spent/Left, ELR and SAN per side and CG Date (the CG Roster), CVP per
        scenario and side, and each side's dr and DR against fair dice with a chi-square
        figure, counting only the rolls the viewer may see."""
        rows = self._rows(campaign_id, as_of)
        module = self._campaign(campaign_id).rules
        return stats.statistics(rows, viewer, module.rg_chart_rule or None)

    @exposed("/steps", "Each RePh step done, with the versions it began and ended at")
    def steps(self, campaign_id: UUID, as_of: Point = None,
              viewer: str | None = None) -> list[read.StepRow]:
        """Every step done, in order (public: the RePh's pace is open to both sides)."""
        rows = self.views.rows_now(campaign_id) if as_of is None else \
            self._rows(campaign_id, as_of)
        return read.steps(rows)

    @exposed("/events", "The event log (another side's secrets redacted)")
    def events(self, campaign_id: UUID, as_of: Point = None,
               viewer: str | None = None) -> list[dict[str, Any]]:
        """The event log up to a point, as the viewer may read it."""
        version = self.views.version_at(campaign_id, as_of)
        return list(self.history(campaign_id, viewer, version))

    @exposed("/verify", "The hash chain and every revealed server roll, rechecked")
    def verification(self, campaign_id: UUID, as_of: Point = None,
                     viewer: str | None = None) -> dict[str, Any]:
        """`verify`'s report as JSON, of the whole history (an `as_of` is refused: a
        verify of part of it would say nothing of the rest)."""
        if as_of is not None:
            raise InvalidCommand("verify checks the whole history: it takes no as_of",
                                 field="as_of")
        return self.verify(campaign_id, viewer).as_dict()

    def paper_forms(self, campaign_id: UUID, as_of: Point = None,
                    viewer: str | None = None) -> read.PaperForms:
        """The paper forms' contents (CG Roster, RG Purchase Record, CVP, ELR), read once."""
        forms = read.paper_forms(self._rows(campaign_id, as_of), viewer)
        named = self.rules(campaign_id).short_name
        return forms.model_copy(update={"module_name": named})

    @exposed("/holding", "KGP Holding Box entries (each side its own)", "holding")
    def holding(self, campaign_id: UUID, as_of: Point = None,
                viewer: str | None = None) -> list[read.HoldingRow]:
        """Holding Box entries (KGP 8.15), each side's own: the units held in, or leaving,
        an Entry Area's Holding Box, in the order recorded."""
        return read.holding(self._rows(campaign_id, as_of), viewer)

    def history(self, campaign_id: UUID, viewer: str | None = None,
                lte: int | None = None, gt: int = 0) -> Iterator[dict[str, Any]]:
        """The event log (after `gt`) as a viewer may read it: another side's secrets
        redacted (they still verify), all open at CG End; `viewer` None is the director."""
        state = self._campaign(campaign_id)
        check_as_of(lte, state.version)
        yield from redacted(self.store.records(campaign_id, lte, gt), viewer,
                            state.reph.phase == "ended")

    def _stored_doc(self, pin: str) -> Any:
        """The module data the store keeps for a hash, parsed (None: none is kept)."""
        text = self.store.stored_module_data(pin)
        return None if text is None else json.loads(text)

    def verify(self, campaign_id: UUID, viewer: str | None = None) -> VerifyReport:
        """Recompute the hash chain and every server roll whose seed is revealed: of the
        history as the viewer reads it (so a finding never names another side's secret).

        A stored event too damaged to read is reported at its version, not raised.
        """
        damaged: list[tuple[int, str]] = []
        pins, cosigns = PinWatch(), CosignWatch()
        records: Iterator[dict[str, Any]] = (
            pins.see(r) for r in self.store.readable(campaign_id, damaged))
        if viewer is not None:
            records = redacted(records, viewer, self._ended(campaign_id))
        report = verify_records(cosigns.lines(records))
        if report.events == 0 and not damaged:
            raise CampaignNotFound(f"no campaign {campaign_id}")
        # The module data it pins, as the store keeps it now (never a cached copy).
        report = report.with_pins(pins, self._stored_doc)
        if damaged:
            version, why = damaged[0]
            if report.first_bad_version is None or version <= report.first_bad_version:
                report = VerifyReport(False, report.events, report.rolls_verified, version,
                                      report.head_hash, f"version {version} cannot be read: "
                                      f"{why}")
        report = cosigns.checked(report)
        if report.ok:
            report = self._undo_checked(campaign_id, viewer, report)
        return report.with_caches(self._cache_problems(campaign_id, viewer, report.ok))

    def _ended(self, campaign_id: UUID) -> bool:
        """Whether the CG has ended (all open); a history that cannot be read keeps its
        secrets (verify still names where it cannot be read)."""
        try:
            return self._campaign(campaign_id).reph.phase == "ended"
        except HistoryUnreadable:
            return False

    def _undo_checked(self, campaign_id: UUID, viewer: str | None,
                      report: VerifyReport) -> VerifyReport:
        """The report, failing at the first undo whose stored state is not the campaign
        the events give at its target (where it differs: the director's only)."""
        found = undo_problems(self.store, campaign_id)
        if not found:
            return report
        version, where = found[0]
        detail = f" ({where})" if viewer is None else ""
        return dataclasses.replace(report, ok=False, first_bad_version=version, problem=(
            f"version {version} (an undo) carries a state that is not the campaign the "
            f"events give at its target{detail}"))

    def _cache_problems(self, campaign_id: UUID, viewer: str | None,
                        sound: bool) -> list[str]:
        """The snapshots and view rows that differ from the events (checked only when the
        events are sound: they are what the caches are rebuilt from). A side learns only
        that one does: a row's name could tell the other side's secret (its lines)."""
        if not sound:
            return []
        found = snapshot_problems(self.store, campaign_id) + \
            view_problems(self.store, self.views, campaign_id)
        if viewer is not None and found:
            return [f"{len(found)} cached snapshot or view rows differ from the events: "
                    "the director's verify names them"]
        return found
