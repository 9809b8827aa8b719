"""The charts page (issue 18, item 3): the campaign's SVG charts as the role's chart routes
draw them (api/routes_charts.py), and each side's dice statistics in a table, read with the
same statistics read for that role: the page adds nothing the role's JSON read lacks."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from api.charts import caption
from api.web.forms_view import chosen_point, point_field, points, version_of
from api.web.login import visitor
from api.web.respond import page, page_campaign, refusal
from domain.errors import RefitError
from infra.application import Refit
from projections.statistics import Distribution, Statistics

# Each chart's name (its route's), title, and what it shows, for its heading and alt text.
CHARTS = (
    ("cpp", "CPP per CG Date", "Bars of each side's CPP Start, +CPP, Spent, Forfeited and "
     "Left per CG Date, from the CG Roster"),
    ("cvp", "CVP per scenario", "Bars of the Casualty Victory Points each side lost per CG "
     "Scenario, and in total"),
    ("ratings", "ELR and SAN per CG Date", "Lines of each side's ELR and SAN over the CG "
     "Dates, from the CG Roster"),
    ("dice", "Dice statistics", "Histograms of each side's original dr and DR against fair "
     "dice; the table below gives the same counts"),
)


def charts_pages(routes: APIRouter, refit: Refit) -> None:
    """Add the charts page to the web client."""
    @routes.get("/play/{campaign}/charts")
    def charts_page(request: Request, campaign: str, as_of: str | None = None,
                    version: str | None = None) -> Response:
        """The charts and dice statistics as the role's `/statistics` read gives them: now,
        after a step (`as_of` CGDATE/STEP) or at a version (`version`)."""
        ident = page_campaign(campaign)
        who = visitor(request, refit, ident)
        context: dict[str, Any] = {"role": who.caller.role, "campaign": ident,
                                   "as_of": (as_of or "")[:40], "version": (version or "")[:12],
                                   "charts": CHARTS}
        try:
            context["points"] = points(refit, ident)
            at = version_of(refit, ident, chosen_point(as_of, version), point_field(version))
            stats = refit.reads.statistics(ident, at, who.caller.viewer)
        except RefitError as error:
            status, said = refusal(error)
            return page(request, "charts.html", status, error=said, **context)
        return page(request, "charts.html", at=at, **context, **figures(stats))


def figures(stats: Statistics) -> dict[str, Any]:
    """The statistics read as the page shows it: each side's dr and DR, face by face."""
    return {"stats": stats, "dice": {side: [_table(d) for d in (dice.dr, dice.DR)]
                                     for side, dice in stats.dice.items()}}


def _table(dist: Distribution) -> dict[str, Any]:
    """One distribution's rows (face, rolled, expected) and its chi-square caption."""
    return {"kind": dist.kind, "rolls": dist.rolls, "caption": caption(dist),
            "sparse": dist.sparse, "rows": list(zip(dist.faces, dist.observed,
                                                     [f"{e:.1f}" for e in dist.expected],
                                                     strict=True))}

