"""Several reads of one campaign at its head, as a page makes them (its status, guide,
RG Purchase Record, latest rolls, reports): the campaign's view rows and its state are
each read once for all of them. A page made a dozen trips to the database, each a wait
for the GIL again behind the commands' threads under load (bench P6)."""

from __future__ import annotations

import copy
from uuid import UUID

from domain.campaign import Campaign
from infra.queries import Queries
from infra.views import Point, RowSource
from projections.rows import META


class AtHead(Queries):
    """Queries whose reads of `campaign_id` now share one read of its rows and state;
    any other campaign, or a read as of a point, is read as Queries reads it. Made for
    one request and dropped with it: what it holds is the campaign as it was then."""

    def __init__(self, reads: Queries, campaign_id: UUID) -> None:
        super().__init__(reads.store, reads.views)
        self.campaign_id = campaign_id
        self._held_rows: RowSource | None = None
        self._held: Campaign | None = None

    def _rows(self, campaign_id: UUID, as_of: Point) -> RowSource:
        if campaign_id != self.campaign_id or as_of is not None:
            return super()._rows(campaign_id, as_of)
        if self._held_rows is None:
            self._held_rows = super()._rows(campaign_id, None)
        return self._held_rows

    def _campaign(self, campaign_id: UUID, version: int | None = None) -> Campaign:
        if campaign_id != self.campaign_id:
            return super()._campaign(campaign_id, version)
        # The state at the rows' version: the page's reads all stand at one version, even
        # where a write lands between them (mostly the cached head, nothing replayed).
        at = self._version() if version is None else version
        if self._held is None or self._held.version != at:
            self._held = super()._campaign(campaign_id, at)
        return copy.deepcopy(self._held)  # each read its own copy, as the store gives

    def _version(self) -> int:
        """The version of the campaign's rows the page reads (its meta row's)."""
        meta = self._rows(self.campaign_id, None).select_rows(META)
        return int(meta[0]["version"])
