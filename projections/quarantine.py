"""A stored event the fold cannot read quarantines its campaign, not the fold: the
campaign's meta row notes the version (reads of it answer `history_unreadable`), its later
events are passed over, and every other campaign folds on."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.persistence import Mapper, StoredEvent

from projections.rows import META, Rows

log = logging.getLogger(__name__)
UNREADABLE = "unreadable"  # the meta row's note: {"version": N, "campaign": ID}


@dataclass(frozen=True)
class Unreadable:
    """A stored event that cannot be read (its state's bytes or JSON, or its topic)."""

    originator_id: UUID
    originator_version: int
    why: str


def decoded_or_unreadable(mapper: Mapper[UUID], stored: StoredEvent) -> Any:
    """The stored event's domain event, or Unreadable saying why not."""
    try:
        return mapper.to_domain_event(stored)
    except Exception as error:  # any damage at all: the finding, never the fold's end
        return unreadable(stored, error)


def unreadable(stored: StoredEvent, error: Exception) -> Unreadable:
    """The stored event as Unreadable, with the error that says why."""
    return Unreadable(UUID(str(stored.originator_id)), stored.originator_version,
                      f"{type(error).__name__}: {error}")


class TolerantMapper(Mapper[UUID]):
    """eventsourcing's mapper for the projection runner's subscription: a damaged event
    comes through as Unreadable instead of ending the runner's thread."""

    def to_domain_event(self, stored: StoredEvent) -> Any:
        """The domain event, or Unreadable."""
        try:
            return super().to_domain_event(stored)
        except Exception as error:  # as decoded_or_unreadable
            return unreadable(stored, error)


def quarantined(meta: dict[str, Any] | None) -> int | None:
    """The first version of the campaign the fold could not read, if any."""
    found = None if meta is None else meta.get(UNREADABLE)
    return None if found is None else int(found["version"])


def passed_over(rows: Rows, event: Any) -> bool:
    """Whether the fold passes this event over: it cannot be read (its campaign is
    quarantined now), or its campaign was quarantined at an earlier one."""
    meta = rows.get(META, "")
    if not isinstance(event, Unreadable):
        return quarantined(meta) is not None
    if quarantined(meta) is None:
        log.error("campaign %s quarantined: its event at version %s cannot be read (%s)",
                  event.originator_id, event.originator_version, event.why)
        note = {"version": event.originator_version, "campaign": str(event.originator_id)}
        rows.put(META, "", 0, (meta or {}) | {UNREADABLE: note})
    return True
