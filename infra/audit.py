"""The director's use cases at a disputed table: undo by replay, re-roll, rulings, the
roll audit, and what changed between two points of the campaign."""

from __future__ import annotations

from typing import Any, cast
from uuid import UUID

from domain.campaign import Campaign, disputes, rulings
from domain.campaign.audit import Undone, check_undo, reroll_undo_reason
from domain.errors import InvalidCommand
from domain.history import undone_ranges
from infra.commands import Commands
from infra.queries import Queries
from infra.results import CommandResult
from infra.store import CampaignStore
from infra.views import STEP_EXAMPLE, STEP_POINT, Views
from projections.audit import RollAudit, UndoPlan, roll_audit, undo_plan
from projections.diff import Change, diff
from projections.rows import ROLL


class Audit:
    """Undo, re-roll, rulings and the roll audit: the director's answers to a dispute."""

    def __init__(self, store: CampaignStore, views: Views, commands: Commands,
                 queries: Queries) -> None:
        self.store, self.views, self.commands, self.queries = store, views, commands, queries

    def diff(self, campaign_id: UUID, start: str | int, end: str | int | None,
             viewer: str | None) -> list[Change]:
        """What changed in the roster, purchase record, CVP and ELR from one point to
        another (the head, if no end is given)."""
        views = self.views
        before = views.rows(campaign_id, views.version_at(campaign_id, start))
        return diff(before, views.rows(campaign_id, views.version_at(campaign_id, end)),
                    viewer)

    def undo(self, campaign_id: UUID, reason: str, actor: str, to_version: int | None = None,
             to_step: str | None = None,
             expected_version: int | None = None) -> CommandResult:
        """Undo every event after a version, or after a step (read as `as_of` reads it);
        the undone stay in the log, and redoing them rolls the same keys, so the same dice."""
        def act(campaign: Campaign) -> None:
            # In the campaign's turn: a step's end is read from the campaign as it is now.
            self._undo_to(campaign, self._target(campaign_id, to_version, to_step), reason,
                          actor)
        return self.commands.run(campaign_id, act, expected_version)

    def undo_plan(self, campaign_id: UUID, reason: str, to_version: int | None = None,
                  to_step: str | None = None, viewer: str | None = None) -> UndoPlan:
        """What an undo would remove, checked as the undo itself is; appends nothing."""
        campaign = self.store.campaign(campaign_id)
        target = self._target(campaign_id, to_version, to_step)
        check_undo(campaign.reph.phase, campaign.version, target, reason,
                   self._cut(campaign, target))
        undone = self.undone_versions(campaign_id)
        records = [r for r in self.queries.history(campaign_id, viewer)
                   if r["version"] > target and r["version"] not in undone]
        return undo_plan(target, campaign.version, records)

    def _target(self, campaign_id: UUID, to_version: int | None, to_step: str | None) -> int:
        """The version an undo returns to: `to_version`, or the end of the advance that
        left `to_step` (CGDATE/STEP), as `as_of` names it."""
        if (to_version is None) == (to_step is None):
            given = "both to_version and to_step" if to_step is not None else "neither"
            raise InvalidCommand(f"an undo names to_version or to_step (CGDATE/STEP), not "
                                 f"{given}", field="to_version")
        if to_step is None:
            return cast(int, to_version)
        if STEP_POINT.match(to_step) is None:
            raise InvalidCommand(f"to_step is CGDATE/STEP, {STEP_EXAMPLE}", field="to_step")
        target = cast(int, self.views.version_at(campaign_id, to_step, field="to_step"))
        if target >= self.store.campaign(campaign_id).version:
            raise InvalidCommand(f"the campaign stands just after {to_step}: there is "
                                 "nothing to undo", field="to_step")
        return target

    def _cut(self, campaign: Campaign, target: int) -> tuple[int, int] | None:
        """The command recorded just after `target` (None when there is nothing after)."""
        if not 1 <= target < campaign.version:
            return None
        return self.views.command_span(campaign.id, target + 1)

    def _undo_to(self, campaign: Campaign, target: int, reason: str, actor: str) -> None:
        cut = self._cut(campaign, target)
        if cut is None:  # the aggregate words the refusal
            campaign.undo(target, reason, campaign, {}, actor)
        before = self.store.campaign(campaign.id, version=target)
        campaign.undo(target, reason, before, self.store.dice_after(campaign.id, target),
                      actor, cut)

    def reroll(self, campaign_id: UUID, key: str, reason: str, actor: str) -> CommandResult:
        """A director's re-roll: the roll is undone (with all after it) if it still stands,
        and its slot rolls a new epoch, so the next roll there gets new dice."""
        def act(campaign: Campaign) -> None:
            version, roll = self._roll(campaign_id, key)
            if self._standing_roll(campaign_id, key) is not None:
                before = self.views.command_span(campaign_id, version)[0] - 1
                self._undo_to(campaign, before, reroll_undo_reason(roll, reason), actor)
            campaign.authorize_reroll(roll, reason, actor)
        return self.commands.run(campaign_id, act)

    def record_ruling(self, campaign_id: UUID, key: str | None, verdict: str, reason: str,
                      actor: str, final: int | None = None, result: str | None = None,
                      corrections: list[Any] | None = None, drm: list[Any] | None = None,
                      disputed_by: str | None = None) -> CommandResult:
        """The director's ruling on a standing roll (or on the record): upheld, or
        corrected with a reason, its corrections applied from it on."""
        def act(campaign: Campaign) -> None:
            roll = None if key is None else self._standing_roll(campaign_id, key)
            if key is not None and roll is None:
                raise InvalidCommand(f"no standing roll has key {key}", field="key")
            if roll is not None:  # what it wrote, for a void to take back
                roll = roll | {"wrote": self._wrote(campaign_id, roll["version"])}
            rulings.record_ruling(campaign, roll, verdict, reason, actor, final, result,
                                  corrections, drm, disputed_by)
        return self.commands.run(campaign_id, act)

    def dispute_roll(self, campaign_id: UUID, version: int, side: str, reason: str,
                     actor: str) -> CommandResult:
        """A side's dispute of the standing roll made at `version`, awaiting a ruling."""
        def act(campaign: Campaign) -> None:
            roll = next((row for row in self.views.rows(campaign_id).select_rows(ROLL)
                         if row["version"] == version), None)
            disputes.dispute_roll(campaign, roll, version, side, reason, actor)
        return self.commands.run(campaign_id, act)

    def _wrote(self, campaign_id: UUID, version: int) -> list[dict[str, Any]]:
        """The records a roll's command appended after the roll, up to its next roll."""
        last = self.views.command_span(campaign_id, version)[1]
        wrote = []
        for record in self.store.records(campaign_id, gt=version, lte=last):
            if record["type"] == "DiceRolled":
                break
            wrote.append(record)
        return wrote

    def undone_versions(self, campaign_id: UUID) -> set[int]:
        """The versions an undo has undone (they stay in the log, marked)."""
        jumps, head = {}, 0
        for event in self.store.stored_events(campaign_id):
            head = event.originator_version
            if isinstance(event, Undone):
                jumps[head] = event.to_version
        return {v for first, last in undone_ranges(jumps, head)
                for v in range(first, last + 1)}

    def _standing_roll(self, campaign_id: UUID, key: str) -> dict[str, Any] | None:
        """The standing (not undone) roll with this key: its row in the rolls view."""
        return next((row for row in self.views.rows(campaign_id).select_rows(ROLL)
                     if row["key"] == key), None)

    def _roll(self, campaign_id: UUID, key: str) -> tuple[int, dict[str, Any]]:
        """The latest roll made with this key, standing or undone."""
        found = None
        for record in self.store.records(campaign_id):
            if record["type"] == "DiceRolled" and record["data"]["key"] == key:
                found = (record["version"], record["data"])
        if found is None:
            raise InvalidCommand(f"no roll has key {key}", field="key")
        return found

    def roll_audit(self, campaign_id: UUID, key: str | None, viewer: str | None,
                   version: int | None = None) -> RollAudit:
        """Everything about one roll (by its key, or the version it was made at: a side
        names another side's secret roll so): each time its key was rolled, who asked and
        when, its dice and DRM, whether it was secret and when revealed, the seed's
        recheck, rulings and what they changed, re-rolls, and the undo that undid it."""
        if (key is None) == (version is None):
            raise InvalidCommand("name the roll by its key or by its version, one of them",
                                 field="key")
        named = "key" if key is not None else "version"
        history = list(self.queries.history(campaign_id, viewer))
        if key is None:  # a roll this viewer may read is told by its key, redos and all
            made = next((r for r in history if r["version"] == version
                         and r["type"] == "DiceRolled"), None)
            key = None if made is None else made["data"].get("key")
        found = roll_audit(key, history, version) if key is not None or \
            self._rolled_at(campaign_id, version, viewer) else None
        if found is None:
            what = f"key {key}" if key is not None else f"version {version}"
            raise InvalidCommand(f"no roll with {what} is open to this role", field=named)
        return found

    def _rolled_at(self, campaign_id: UUID, version: int | None, viewer: str | None) -> bool:
        """Whether /rolls lists a roll at `version` for this viewer (a sealed record of no
        type is a roll to it only then)."""
        return version in {row.version for row in self.queries.rolls(campaign_id,
                                                                     viewer=viewer)}
