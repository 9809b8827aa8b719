"""What a command's receipt costs: on a campaign of --events events (SQLite), each of
--commands commands timed, then its receipt; the first receipt (the campaign's log read
once into the cache), the root recomputed from every event (as before the cache) and a
checkpoint from the cache, for contrast. Prints one JSON object on stdout."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # `bench.run` however this script is started

from bench.run import ACTOR, FIXTURE_CHART, build_campaign, mixed  # noqa: E402
from domain import merkle  # noqa: E402
from infra.application import Refit  # noqa: E402
from infra.modules import install_file  # noqa: E402
from infra.settings import Settings  # noqa: E402


def ms(seconds: list[float]) -> dict[str, float]:
    """Median and mean, in milliseconds."""
    return {"median_ms": round(statistics.median(seconds) * 1000, 3),
            "mean_ms": round(statistics.fmean(seconds) * 1000, 3)}


def timed(action: object) -> float:
    started = time.perf_counter()
    action()  # type: ignore[operator]
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--commands", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        settings = Settings(database_url=f"sqlite:///{work}/bench.db",
                            module_dir=work / "modules", signing_key_file=work / "key")
        install_file(FIXTURE_CHART, settings.module_dir)
        campaign = build_campaign(settings, args.events)
        refit = Refit(settings)
        try:
            version = refit.store.campaign(campaign).version
            cold = timed(lambda: refit.proofs.receipt(campaign, [version], version))
            whole = timed(lambda: merkle.root(refit.proofs.leaves(campaign, version)))
            cached = timed(lambda: refit.proofs.checkpoint(campaign))
            command_s, receipt_s = [], []
            for index in range(args.commands):
                started = time.perf_counter()
                done = refit.commands.execute(campaign, mixed(version + index), ACTOR)
                between = time.perf_counter()
                refit.proofs.receipted(campaign, done)
                command_s.append(between - started)
                receipt_s.append(time.perf_counter() - between)
        finally:
            refit.close()
    print(json.dumps({
        "events": args.events, "commands": args.commands,
        "command": ms(command_s), "receipt": ms(receipt_s),
        "receipt_share_of_command": round(sum(receipt_s) / sum(command_s), 3),
        "first_receipt_ms": round(cold * 1000, 1),
        "root_from_every_event_ms": round(whole * 1000, 1),
        "checkpoint_from_the_cache_ms": round(cached * 1000, 2),
    }))


if __name__ == "__main__":
    sys.exit(main())
