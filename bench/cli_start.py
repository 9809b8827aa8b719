"""How fast `refit` starts (issue 17, item 6): `refit --help` and a read (`refit status
ID`) on the embedded SQLite default, each run as its own process, beside a bare
`python -c pass` and an import of the classes a stored campaign decodes to, timed in the
same rounds (a loaded machine slows them all alike).

`cli_start()` returns the figures as a dict (for `python -m bench`); run as a script it
prints them as JSON. Times are the median and best of the rounds, wall clock and CPU
(user + system) of the child; the target is 300 ms wall for both commands.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGET_MS = 300
DECODERS = "import domain.campaign, domain.modules"


def timed(argv: list[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[float, float]:
    """(wall ms, CPU ms) of one run of argv as a child process; it must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall * 1000, cpu * 1000


def summary(runs: list[tuple[float, float]]) -> dict[str, float]:
    """Median and best, wall and CPU, in ms."""
    walls, cpus = [w for w, _ in runs], [c for _, c in runs]
    return {"wall_ms_median": round(statistics.median(walls), 1),
            "wall_ms_best": round(min(walls), 1),
            "cpu_ms_median": round(statistics.median(cpus), 1),
            "cpu_ms_best": round(min(cpus), 1)}


def demo_campaign(folder: Path, env: dict[str, str]) -> str:
    """A campaign to read: the demo's, played once on its own SQLite database."""
    done = subprocess.run([sys.executable, "-m", "api.cli", "demo", "--json"], cwd=ROOT,
                          env=env, check=True, capture_output=True, text=True)
    campaign: str = json.loads(done.stdout)["id"]
    return campaign


def cli_start(rounds: int = 7, baseline: Path | None = None) -> dict[str, Any]:
    """`refit --help`, `refit status ID` and `python -c pass`, timed in turn each round;
    with a baseline (another checkout of Refit, e.g. main's), its two commands too."""
    with tempfile.TemporaryDirectory(prefix="refit-cli-start-") as tmp:
        env = os.environ | {"REFIT_DATABASE_URL": f"sqlite:///{tmp}/refit.db",
                            "REFIT_MODULE_DIR": f"{tmp}/modules"}
        campaign = demo_campaign(Path(tmp), env)
        refit = [sys.executable, "-m", "api.cli"]
        commands = {"python_pass": ([sys.executable, "-c", "pass"], ROOT),
                    # The floor of a read of a stored campaign: the classes its events
                    # and snapshot decode to (the Campaign, its parts, the modules').
                    "import_campaign": ([sys.executable, "-c", DECODERS], ROOT),
                    "help": ([*refit, "--help"], ROOT),
                    "status": ([*refit, "status", campaign], ROOT)}
        if baseline is not None:  # `python -m api.cli` there imports that checkout's code
            commands |= {"help_baseline": ([*refit, "--help"], baseline),
                         "status_baseline": ([*refit, "status", campaign], baseline)}
        for argv, cwd in commands.values():  # once unmeasured: bytecode written, files cached
            timed(argv, env, cwd)
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, (argv, cwd) in commands.items():
                runs[name].append(timed(argv, env, cwd))
    figures: dict[str, Any] = {name: summary(found) for name, found in runs.items()}
    bare = figures["python_pass"]["wall_ms_median"]
    for name in set(figures) - {"python_pass"}:
        figures[name]["over_python_pass"] = round(figures[name]["wall_ms_median"] / bare, 2)
    for name in ("help", "status"):
        figures[name]["met"] = figures[name]["wall_ms_median"] <= TARGET_MS
    return figures | {"target_ms": TARGET_MS, "rounds": rounds,
                      "bytecode_cached": bytecode_cached()}


def bytecode_cached() -> bool:
    """Whether every source of Refit has its bytecode written and fresh: without it (an
    editable install never run, or PYTHONDONTWRITEBYTECODE set with nothing compiled
    before) each start compiles every module again (`python -m compileall` writes it)."""
    for source in ROOT.glob("[adip]*/**/*.py"):
        cached = Path(importlib.util.cache_from_source(str(source)))
        if not cached.exists() or cached.stat().st_mtime < source.stat().st_mtime:
            return False
    return True


def main() -> None:
    """Print the figures as one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7, help="runs of each command")
    parser.add_argument("--baseline", type=Path,
                        help="another checkout of Refit to time beside this one")
    args = parser.parse_args()
    print(json.dumps(cli_start(args.rounds, args.baseline)))


if __name__ == "__main__":
    main()
