"""The admin's tournament dashboard (GET /admin): every campaign on one line, where it
stands and whom it waits for, filtered and sorted by a plain GET form. Of a campaign it
shows what its observer reads (the guide's public part, infra/progress.py), never a
side's secret. The listing's columns come from the view's meta rows (one query); the
guides of the campaigns the text and module filters keep are read by version, so only
those that moved since the last drawing are loaded again."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from domain.errors import RefitError
from infra.application import Refit
from infra.progress import Progress, progress
from projections.read import CampaignStatus

STALLED = timedelta(hours=24)  # a Refit Phase this long without an event needs a look
MAX_TEXT = 100  # characters of a name filter
SORTS = {"activity": "Most recent", "quiet": "Longest quiet", "name": "Name",
         "date": "Earliest CG Date", "date-desc": "Latest CG Date"}
WORKING, WAITING, DONE = "working", "waiting", "done"
CG_DATE = re.compile(r"^(\d{1,4})(AM|PM)?$")


@dataclass(frozen=True)
class Filters:
    """What the form asks for, and why any of it was not applied."""

    text: str = ""
    module: str = ""
    needs: bool = False
    sort: str = "activity"
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SideState:
    """One side's part of the current step: working, waiting or done, in words."""

    side: str
    state: str
    says: str


@dataclass(frozen=True)
class Listing:
    """What `GET /campaigns` tells the admin of a campaign (its meta row, no side's CPP)."""

    id: str
    name: str
    module: str
    cg: str
    cg_date: str
    phase: str
    step: str | None
    version: int

    @classmethod
    def of(cls, status: CampaignStatus) -> Listing:
        """The public fields of a campaign's status."""
        return cls(status.id, status.name, status.module, status.cg, status.cg_date,
                   status.phase, status.step, status.version)


@dataclass
class Line:
    """One campaign's row of the dashboard."""

    status: Listing
    sides: list[SideState] = field(default_factory=list)
    disputes: list[str] = field(default_factory=list)
    title: str | None = None  # the RePh step's title (public, as the step is)
    last: datetime | None = None
    ago: str = ""
    stalled: bool = False
    problem: str | None = None  # why its guide cannot be read (its director's verify says)

    @property
    def when(self) -> str:
        """The last event's time, in UTC as a person reads it."""
        return "" if self.last is None else \
            self.last.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")

    @property
    def needs_director(self) -> bool:
        """A ruling is pending, the RePh has stalled, or its history cannot be read."""
        return bool(self.disputes) or self.stalled or self.problem is not None


def filters_of(query: Mapping[str, str], modules: list[str]) -> Filters:
    """The form's filters; a value that is not one the form offers is left out, saying so."""
    notes: list[str] = []
    text = query.get("q", "").strip()
    if len(text) > MAX_TEXT:
        notes.append(f"a name filter is at most {MAX_TEXT} characters: not applied")
        text = ""
    module = query.get("module", "").strip().lower()
    if module and module not in modules:
        notes.append(f"no campaign plays module {module[:20]!r}: every module is shown")
        module = ""
    needs = query.get("needs", "")
    if needs not in ("", "director"):
        notes.append("the only need to filter by is 'director': not applied")
    sort = query.get("sort", "") or "activity"
    if sort not in SORTS:
        notes.append(f"sort by one of {', '.join(SORTS)}: sorted by the most recent "
                     "activity")
        sort = "activity"
    return Filters(text, module, needs == "director", sort, notes)


def dashboard(refit: Refit, query: Mapping[str, str],
              now: datetime | None = None) -> dict[str, Any]:
    """The page's context: the rows the filters keep, sorted, and the form's state."""
    now = now or datetime.now(UTC)
    # a damaged campaign too, which its row flags (the JSON list leaves it out)
    statuses = [Listing.of(status)
                for status in refit.reads.campaigns() + refit.reads.damaged()]
    modules = sorted({s.module for s in statuses})
    wanted = filters_of(query, modules)
    kept = [s for s in statuses if _matches(s, wanted)]
    lines = [line_of(s, _reader(refit), now) for s in kept]
    if wanted.needs:
        lines = [line for line in lines if line.needs_director]
    lines.sort(key=SORT_KEYS[wanted.sort.removesuffix("-desc")],
               reverse=wanted.sort in ("activity", "date-desc"))
    return {"lines": lines, "filters": wanted, "modules": modules, "sorts": SORTS,
            "total": len(statuses), "stalled_after": int(STALLED.total_seconds() // 3600),
            "needing": sum(line.needs_director for line in lines)}


def _reader(refit: Refit) -> Callable[[Listing], Progress]:
    """How a campaign's progress is read: its public guide at the version the view
    lists (infra/progress.py keeps it by version)."""
    return lambda status: progress(refit.store, UUID(status.id), status.version)


def _matches(status: Listing, wanted: Filters) -> bool:
    """Whether the name (or the whole id) and module filters keep a campaign (read from
    its meta row)."""
    text = wanted.text.casefold()
    return (text in status.name.casefold() or text == status.id) and \
        wanted.module in ("", status.module)


def line_of(status: Listing, read: Callable[[Listing], Progress],
            now: datetime) -> Line:
    """A campaign's row: each side's state, the disputes, when it last moved."""
    line = Line(status)
    try:
        found = read(status)
    except RefitError as error:
        line.problem = error.message
        return line
    guide = found.guide
    line.sides, line.title = side_states(guide), guide["title"]
    line.disputes = [f"report {r['report']}: {r['what']}" for r in guide["reports"]
                     if r["status"] == "disputed"] + list(found.disputes)
    line.last, line.ago = found.last_event, ago(found.last_event, now)
    line.stalled = guide["phase"] in ("setup", "reph") and now - found.last_event > STALLED
    return line


def side_states(guide: dict[str, Any]) -> list[SideState]:
    """Each side's state in the guide's public reading."""
    parts = guide["sides"]
    pending = [side for side, part in parts.items() if not part["done"]]
    return [_state(side, part, guide, [s for s in pending if s != side])
            for side, part in parts.items()]


def _state(side: str, part: dict[str, Any], guide: dict[str, Any],
           others: list[str]) -> SideState:
    """A side's state: what it still does, or whom it waits for."""
    step = guide["step"] or "the step"
    if guide["phase"] == "ended":
        return SideState(side, DONE, "CG ended")
    rolls = [work for work in part["due"] if "table" in work]
    answers = [work for work in part["due"] if "table" not in work]
    if part["done"]:
        if others:
            return SideState(side, WAITING, f"done with {step}; waiting on the "
                                            f"{' and the '.join(others)}")
        return SideState(side, DONE, f"done with {step}")
    if rolls:
        return SideState(side, WORKING, f"{_count(len(rolls), 'roll')} due")
    if answers:
        return SideState(side, WORKING, f"report {answers[0]['report']} to answer")
    blocked = [r for r in guide["reports"] if r["by"] == side]
    if blocked:
        who = " and ".join(f"the {w}" for w in blocked[0]["awaiting"])
        return SideState(side, WAITING, f"waiting on {who}: report {blocked[0]['report']}")
    if guide["phase"] == "scenario":
        return SideState(side, WORKING, "playing the CG Scenario")
    return SideState(side, WORKING, f"working on {step}")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def ago(then: datetime, now: datetime) -> str:
    """How long ago, as a person says it: just now, 5 min, 3 h, 2 d ago."""
    seconds = max(0, int((now - then).total_seconds()))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return "just now"


def date_key(text: str) -> tuple[int, int, str]:
    """A CG Date in campaign order: 18AM before 18PM before 19AM (others after, by name)."""
    found = CG_DATE.match(text)
    if found is None:
        return (1 << 30, 0, text)
    return (int(found[1]), 1 if found[2] == "PM" else 0, text)


EPOCH = datetime.min.replace(tzinfo=UTC)
SORT_KEYS: dict[str, Callable[[Line], Any]] = {
    "activity": lambda line: line.last or EPOCH,
    "quiet": lambda line: line.last or EPOCH,
    "name": lambda line: (line.status.name.casefold(), line.status.id),
    "date": lambda line: date_key(line.status.cg_date),
}
