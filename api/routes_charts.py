"""HTTP routes of the charts (issue 18, item 3): each chart as an SVG image, drawn from the
statistics read as the caller's role may see it (`GET /campaigns/{id}/statistics` is its
JSON, declared with the other reads in infra/queries.py)."""

from __future__ import annotations

from enum import Enum

from fastapi import APIRouter, Response

from api.access import AsOf, Credentials, caller_for
from api.charts import CHARTS
from infra.application import Refit

# An SVG opened on its own is a document: it may run nothing, and only its own <style>.
SVG_HEADERS = {"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
               "X-Content-Type-Options": "nosniff", "Cache-Control": "private, no-store"}

ChartName = Enum("ChartName", {name: name for name in CHARTS}, type=str)  # type: ignore[misc]


def chart_routes(app: APIRouter, refit: Refit) -> None:
    """Add the chart routes to the service."""
    @app.get("/campaigns/{campaign}/charts/{name}.svg", response_class=Response,
             summary="A chart as SVG", responses={200: {"content": {"image/svg+xml": {}}}})
    def chart(campaign: str, name: ChartName, credentials: Credentials,
              as_of: AsOf = None) -> Response:
        """A chart as an SVG image (titled, described for screen readers, light and dark,
        scaled by its viewBox): `cpp` each side's CPP Start/Spent/Left per CG Date, `cvp`
        CVP lost per scenario and in total, `ratings` ELR and SAN per CG Date, `dice` each
        side's dr and DR against fair dice with the chi-square figure. Who: the director,
        each side and the observers, each seeing what its `/statistics` shows (another
        side's secret CPP and rolls are not drawn). `as_of`: a version, or CGDATE/STEP."""
        ident, caller = caller_for(refit, campaign, credentials)
        version = refit.views.version_at(ident, as_of)
        stats = refit.reads.statistics(ident, version, caller.viewer)
        return Response(CHARTS[name.value](stats), media_type="image/svg+xml",
                        headers=SVG_HEADERS)
