"""The director's use cases at a disputed table: undo by replay, re-roll, rulings, the
roll audit, and what changed between two points of the campaign."""

from __future__ import annotations

from typing import Any, cast
from uuid import UUID

from domain.campaign import Campaign
from domain.campaign.audit import Undone, reroll_undo_reason
from domain.errors import InvalidCommand
from domain.history import undone_ranges
from infra.commands import Commands
from infra.queries import Queries
from infra.results import CommandResult
from infra.store import CampaignStore
from infra.views import STEP_POINT, Views, step_row
from projections.audit import RollAudit, roll_audit
from projections.diff import Change, diff
from projections.fold import META, ROLL

COMMAND_EVENTS = 256  # more events than any one command records (an advance: a few dozen)


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
        """Undo every event after a version (or a step and all after it); the undone stay
        in the log, and redoing them rolls the same keys, so the same dice."""
        if (to_version is None) == (to_step is None):
            given = "both to_version and to_step" if to_step is not None else "neither"
            raise InvalidCommand(f"an undo names to_version or to_step (CGDATE/STEP), not "
                                 f"{given}", field="to_version")
        found = None if to_step is None else STEP_POINT.match(to_step)
        if to_step is not None and found is None:
            raise InvalidCommand("to_step is CGDATE/STEP, e.g. 19PM/9.616", field="to_step")
        point = None if found is None else (found["date"], found["step"])

        def act(campaign: Campaign) -> None:
            # In the campaign's turn: a step's start is read from the campaign as it is now.
            target = self._step_start(campaign_id, *point) if isinstance(point, tuple) \
                else cast(int, to_version)
            self._undo_to(campaign, target, reason, actor)
        return self.commands.run(campaign_id, act, expected_version)

    def _step_start(self, campaign_id: UUID, date: str, step: str) -> int:
        """The version just before the RePh entered a step (its undo's target)."""
        rows = self.views.rows_now(campaign_id)
        row = step_row(rows, date, step)
        meta = rows.select_rows(META)[0]
        if row is None and (meta["cg_date"], meta["step"]) == (date, step):
            row = {"entered": meta.get("step_entered", 1)}
        if row is None:
            raise InvalidCommand(f"the RePh has not been at step {step} of {date}",
                                 field="to_step")
        before = self._command_of(campaign_id, cast(int, row["entered"]))[0] - 1
        if before < 1:
            raise InvalidCommand(f"the campaign began at step {step} of {date}: there is "
                                 "no earlier point to return to", field="to_step")
        return before

    def _command_of(self, campaign_id: UUID, version: int) -> tuple[int, int]:
        """The first and last versions of the command that recorded `version`: its events
        share one timestamp (Campaign._record; each event stored before they did counts
        as a command of its own)."""
        stamps: dict[int, str] = {}
        low, high = max(1, version - COMMAND_EVENTS), version + COMMAND_EVENTS
        first = last = version
        while True:  # versions low..high, wider each time, until the instant changes
            stamps |= {r["version"]: r["timestamp"]
                       for r in self.store.records(campaign_id, gt=low - 1, lte=high)}
            while first - 1 in stamps and stamps[first - 1] == stamps[version]:
                first -= 1
            while last + 1 in stamps and stamps[last + 1] == stamps[version]:
                last += 1
            # Ended below at the first version or another instant; above, at the head (a
            # version short of `high` with none after it) or another instant.
            if (first == 1 or first - 1 in stamps) and (last < high or last + 1 in stamps):
                return first, last
            low, high = max(1, low - COMMAND_EVENTS), high + COMMAND_EVENTS

    def _undo_to(self, campaign: Campaign, target: int, reason: str, actor: str) -> None:
        if not 1 <= target < campaign.version:  # the aggregate words the refusal
            campaign.undo(target, reason, campaign, {}, actor)
        cut = self._command_of(campaign.id, target + 1)
        before = self.store.campaign(campaign.id, version=target)
        campaign.undo(target, reason, before, self.store.dice_after(campaign.id, target),
                      actor, cut)

    def reroll(self, campaign_id: UUID, key: str, reason: str, actor: str) -> CommandResult:
        """A director's re-roll: the roll is undone (with all after it) if it still stands,
        and its slot rolls a new epoch, so the next roll there gets new dice."""
        def act(campaign: Campaign) -> None:
            version, roll = self._roll(campaign_id, key)
            if self._standing_roll(campaign_id, key) is not None:
                before = self._command_of(campaign_id, version)[0] - 1
                self._undo_to(campaign, before, reroll_undo_reason(roll, reason), actor)
            campaign.authorize_reroll(roll, reason, actor)
        return self.commands.run(campaign_id, act)

    def record_ruling(self, campaign_id: UUID, key: str, verdict: str, reason: str,
                      actor: str, final: int | None = None,
                      result: str | None = None) -> CommandResult:
        """The director's ruling on a standing roll: upheld, or corrected with a reason."""
        def act(campaign: Campaign) -> None:
            roll = self._standing_roll(campaign_id, key)
            if roll is None:
                raise InvalidCommand(f"no standing roll has key {key}", field="key")
            campaign.record_ruling(roll, roll["version"], verdict, reason, actor, final,
                                   result)
        return self.commands.run(campaign_id, act)

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

    def roll_audit(self, campaign_id: UUID, key: str, viewer: str | None) -> RollAudit:
        """Everything about one roll: each time its key was rolled, who asked and when,
        its dice and DRM, whether it was secret and when revealed, the seed's recheck,
        rulings, re-rolls, and the undo that undid it."""
        found = roll_audit(key, self.queries.history(campaign_id, viewer))
        if found is None:
            raise InvalidCommand(f"no roll with key {key} is open to this role", field="key")
        return found
