"""The admin's dashboard with many campaigns (issue 18): N PBr campaigns on SQLite, each at
3.618 after three commands, and GET /admin timed over the HTTP app in process: drawn
again when no campaign moved, and when every one did (each guide read afresh). Prints
one JSON object of milliseconds (medians and maxima over the repeats).

    python -m bench.dashboard [--campaigns 200] [--repeats 5] [--aggregate-cache 64]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import infra.progress
from infra.settings import Settings
from tests.helpers.http import ADMIN, auth, send, serving


def campaigns(client: Any, count: int) -> None:
    """`count` campaigns, each with a credit, a secret purchase and an advance."""
    for number in range(count):
        made = client.post("/campaigns", headers=auth(ADMIN), json={
            "module": "pbr", "cg": "I", "name": f"Campaign {number:04}"}).json()
        director, axis = made["tokens"]["director"], made["tokens"]["sides"]["Axis"]
        for token, body in ((director, {"type": "credit_cpp", "side": "Axis", "amount": 39,
                                        "reason": "3.6161"}),
                            (axis, {"type": "purchase_rg", "side": "Axis", "rg": "I5"}),
                            (director, {"type": "advance"})):
            assert send(client, made, token, body).status_code == 200


def timed(client: Any, repeats: int, before: Callable[[], None] = lambda: None,
          **query: str) -> dict[str, float]:
    """GET /admin `repeats` times: the median and maximum, in milliseconds."""
    spent = []
    for _ in range(repeats):
        before()
        start = time.perf_counter()
        assert client.get("/admin", params=query).status_code == 200
        spent.append((time.perf_counter() - start) * 1000)
    return {"median_ms": round(statistics.median(spent), 1), "max_ms": round(max(spent), 1)}


def main() -> None:
    """Build the campaigns, then time the dashboard; print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--campaigns", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--aggregate-cache", type=int, default=None,
                        help="REFIT_AGGREGATE_CACHE (default: the service's own, 64)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        settings = Settings(database_url=f"sqlite:///{where}/refit.sqlite",
                            module_dir=where / "modules", signing_key_file=where / "key")
        if args.aggregate_cache is not None:
            settings = settings.model_copy(update={"aggregate_cache": args.aggregate_cache})
        for client in serving(settings):
            campaigns(client, args.campaigns)
            client.post("/login", data={"token": ADMIN})
            figures = {"campaigns": args.campaigns,
                       "aggregate_cache": settings.aggregate_cache,
                       "every_one_moved": timed(client, args.repeats,
                                                infra.progress._KEPT.clear),
                       "none_moved": timed(client, args.repeats),
                       "none_moved_by_name": timed(client, args.repeats, sort="name"),
                       "one_name_matches": timed(client, args.repeats, q="Campaign 0001")}
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
