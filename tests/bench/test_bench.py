"""The benchmark still runs (its figures are quoted in notes, never asserted here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.databases import PG_URL, without_postgres
from tests.helpers.paths import ROOT

pytestmark = pytest.mark.bench  # minutes each: `pytest -m bench`, not the default run

BENCH = ROOT / "bench" / "run.py"


def test_the_benchmark_runs_end_to_end_on_a_small_sqlite_load(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--only", "sqlite", "--commands", "40", "--events", "300",
         "--rounds", "1", "--repeats", "1", "--rebuilds", "1"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["sqlite"]["commands"] == 40 and figures["sqlite"]["campaign_events"] == 300
    assert figures["sqlite"]["rebuild_events"] == figures["sqlite"]["raw_scan_rows"]
    assert "postgres" not in figures


TRANSFER = ROOT / "bench" / "transfer.py"


def test_the_transfer_benchmark_runs_end_to_end_on_a_small_sqlite_load(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(TRANSFER), "--only", "sqlite", "--total-events", "600",
         "--campaign-events", "300", "--long-events", "400", "--repeats", "1", "--jobs", "2"],
        capture_output=True, text=True, cwd=tmp_path, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    sqlite = figures["sqlite"]
    assert sqlite["campaigns"] == 2 and sqlite["import"]["events"] == 600
    assert sqlite["export_mismatches"] == 0 and sqlite["long"]["export_mismatches"] == 0
    assert sqlite["import"]["processes"] == 1 and sqlite["export"]["processes"] == 1
    alone = sqlite["one_process_per_file"]
    assert alone["import"]["processes"] == 2 and alone["export_mismatches"] == 0
    assert sqlite["as_of"]["as_of"] == [150] and figures["met"]["sqlite"]["round_trip_identical"]
    assert sqlite["as_of"]["view_fold"]["events"] == 600 + 400  # the files and the long one
    assert sqlite["long"]["load_ms_snapshots"] > 0 and sqlite["import"]["events_per_cpu_s"] > 0
    assert "postgres" not in figures


LOAD = ROOT / "bench" / "load.py"


@pytest.mark.parametrize("rate", [None, "40"])
def test_the_load_benchmark_runs_closed_and_open_loop(
        rate: str | None, postgres_problem: str | None) -> None:
    if postgres_problem is not None:
        without_postgres(postgres_problem, "bench/load.py needs PostgreSQL")
    options = ["--clients", "4", "--campaigns", "2", "--commands", "5"]
    done = subprocess.run(
        [sys.executable, str(LOAD), *options, *(["--rate", rate] if rate else [])],
        capture_output=True, text=True, timeout=300, check=False,
        env=os.environ | {"REFIT_TEST_POSTGRES_URL": PG_URL})
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["mode"] == ("open" if rate else "closed")
    assert figures["offered_per_s"] == (float(rate) if rate else None)
    assert (figures["commands"], figures["errors"]) == (20, 0)
    assert (figures["lost_events"], figures["chains_broken"]) == (0, 0)


def test_the_load_benchmark_reads_a_long_campaign_while_others_are_written(
        postgres_problem: str | None) -> None:
    if postgres_problem is not None:
        without_postgres(postgres_problem, "bench/load.py needs PostgreSQL")
    options = ["--clients", "4", "--campaigns", "2", "--commands", "20", "--reads", "60"]
    done = subprocess.run([sys.executable, str(LOAD), *options], capture_output=True,
                          text=True, timeout=300, check=False,
                          env=os.environ | {"REFIT_TEST_POSTGRES_URL": PG_URL})
    assert done.returncode == 0, done.stderr[-2000:]
    reads = json.loads(done.stdout.strip().splitlines()[-1])["reads_under_load"]
    assert reads["campaign_events"] >= 60 and reads["reads"] > 0 and reads["errors"] == 0
    assert set(reads["p99_ms_by_read"]) <= {"/status", "/roster", "/purchase-record", "/guide"}


RECEIPTS = ROOT / "bench" / "receipts.py"


def test_the_receipt_benchmark_runs_end_to_end_on_a_small_campaign(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(RECEIPTS), "--events", "300", "--commands", "20"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["commands"] == 20 and figures["receipt"]["median_ms"] > 0


CHAOS = ROOT / "bench" / "chaos.py"


def test_the_fault_suite_loses_and_duplicates_no_acknowledged_command(
        postgres_problem: str | None) -> None:
    if postgres_problem is not None:
        without_postgres(postgres_problem, "bench/chaos.py needs PostgreSQL")
    done = subprocess.run([sys.executable, str(CHAOS), "--quick"], capture_output=True,
                          text=True, timeout=600, check=False,
                          env=os.environ | {"REFIT_TEST_POSTGRES_URL": PG_URL})
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    for scenario in ("kill_9", "db_outage", "db_away"):
        assert figures[scenario]["acknowledged"] > 0, figures[scenario]
        assert (figures[scenario]["lost"], figures[scenario]["duplicated"]) == (0, 0)
        # An outage may answer 503 (Retry-After), never another 5xx; reads come back.
        assert set(figures[scenario]["5xx_by_status"]) <= {"503"}, figures[scenario]
        assert figures[scenario]["recovery_seconds"] is not None, figures[scenario]
    # Out of reach: each read and command is answered (none hangs), and those answered while
    # it was away were refused 503 `unavailable` at once; one sent in its last moments may
    # be answered once it is back (on a loaded machine), so how many is the bench's figure.
    away = figures["db_away"]["while_away"]
    assert sum(away["answers"].values()) == away["asked"] > 0, away
    assert set(away["answers_while_away"]) == {"GET 503 unavailable",
                                               "POST 503 unavailable"}, away
    assert figures["db_away"]["first_acknowledged_seconds"] is not None, figures["db_away"]
    bad = figures["corrupt_row"]  # one campaign's damaged row hurts no other campaign
    assert bad["5xx"] == 0 and bad["bad_campaign_500s"] == 0, bad
    assert {a["code"] for a in bad["bad_campaign"].values()} == {"history_unreadable"}
    hostile = figures["hostile_bodies"]  # refused before they are read: no 5xx
    assert hostile["5xx"] == 0 and hostile["answers_after"] == 200, hostile
    assert {status for answers in hostile["large_statuses"].values()
            for status, _ in answers} == {"413"}, hostile


def test_python_m_bench_prints_every_part_beside_its_peer(postgres_problem: str | None) -> None:
    if postgres_problem is not None:
        without_postgres(postgres_problem, "python -m bench needs PostgreSQL")
    done = subprocess.run([sys.executable, "-m", "bench", "--tiny"], capture_output=True,
                          text=True, cwd=ROOT, timeout=900, check=False,
                          env=os.environ | {"REFIT_TEST_POSTGRES_URL": PG_URL,
                                            "REFIT_BENCH_POSTGRES_URL": PG_URL})
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert [key for key in figures if key.startswith("P")] == [f"P{n}" for n in range(1, 8)]
    spread = {"median", "min", "max", "n"}
    machine = figures["machine"]  # what another machine's figures are compared by
    assert machine["python_loop_ms"] > 0 and machine["pydantic"] and machine["typer"]
    for store in ("sqlite", "postgres"):  # each beside the bare library or the raw driver
        assert set(figures["P1"][store]["ratio"]) == spread
        assert figures["P1"][store]["ratio"]["n"] == 2
        # Beside the ratio, its ceiling: a bare append plus the campaign's rule work alone.
        assert 0 < figures["P1"][store]["ratio_ceiling"]["median"] < 1
        assert figures["P1"][store]["rule_work_us_per_command"]["median"] > 0
        assert figures["P2"][store]["campaign_events"] == 300
        assert set(figures["P2"][store]["raw_driver_campaign_rows_ms"]) == spread
        # Beside the load, its floor: the snapshot's row read, its seal checked, parsed.
        floor = figures["P2"][store]["snapshot_floor"]
        assert floor["snapshot_bytes"] > 1000 and floor["floor_ms"]["median"] > 0
        # what fills it: the rolls of the one CG Date the bench's campaign plays
        assert 0.5 < floor["rolls_of_the_date_share"] < 1
        assert set(floor["fetch_ms"]) == set(floor["seal_ms"]) == spread
        assert figures["P3"][store]["events"] >= 300 + 2 * 40
        assert set(figures["P3"][store]["raw_scan_rows_per_s"]) == spread
        assert figures["P5"][store]["export_mismatches"] == 0
        assert figures["P5"][store]["import"]["events"] == 600
    http = figures["P4"]["processes_1"]
    assert http["refit"]["errors"] == 0 and http["refit"]["lost_events"] == 0
    assert set(http["refit"]["p99_ms"]) == spread
    assert http["peer"].get("value", "measured") is None or set(http["peer"]["p99_ms"]) == spread
    reads = figures["P6"]
    assert reads["campaign_events"] == 300 and reads["writers"]["errors"] == 0
    for route in ("status", "roster", "purchase_record", "guide"):
        assert {"p50_ms", "p99_ms", "max_ms", "n"} == set(reads["under_load"][route])
        assert reads["idle"][route]["n"] == 25
    # Beside them, the floor: a bare GET making one query, read the same way by the same loop.
    assert reads["floor"]["idle"]["n"] == 25 and reads["floor"]["under_load"]["n"] > 0
    assert reads["floor"]["idle"]["p99_ms"] > 0
    for p7 in (figures["P7"], figures["P7"]["reads_apart"]):  # reads on its own process too
        writes = p7["read_your_writes"]
        assert writes["pairs"] == 3 and writes["not_visible_within_5_s"] == 0
        live = p7["live"]  # measured where the service has a live stream
        assert live.get("reason") == "no live endpoint" or \
            live["delivered"] == live["commands"] == 3
    apart = reads["reads_apart"]  # every read on a second process of the same database
    assert apart["campaign_events"] == 300 and apart["writers"]["errors"] == 0
    assert {"p50_ms", "p99_ms", "max_ms", "n"} == set(apart["under_load"]["guide_page"])


def test_the_reph_mix_counts_a_whole_pbr_cg_i_played_on_the_guide() -> None:
    done = subprocess.run([sys.executable, "-m", "bench.reph_mix", "--runs", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["cg_dates"] == 11 and figures["database"] == "sqlite"
    requests = figures["requests_by_route"]
    assert figures["commands_per_cg"] == requests["POST /campaigns/{id}/commands"] > 100
    assert figures["events_per_cg"] > figures["commands_per_cg"]  # a command may record several
    assert figures["bytes"][0]["state_bytes_per_event"] > 0


LIVE = ROOT / "bench" / "live.py"


def test_the_live_benchmark_sees_every_command_on_both_processes(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(LIVE), "--only", "sqlite", "--commands", "3"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])["sqlite"]
    for stream in ("same_process", "other_process"):
        assert figures[stream]["messages"] == 3 and figures[stream]["missing"] == 0, figures


def test_the_start_benchmark_times_each_command_beside_its_floors() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "cli_start.py"), "--rounds", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout)
    # python -c pass and the import of what a stored campaign decodes to are the floors
    # `refit --help` and `refit status` are read beside.
    assert {"python_pass", "import_campaign", "help", "status"} <= set(figures)
    assert figures["import_campaign"]["wall_ms_median"] > figures["python_pass"]["wall_ms_median"]
    assert isinstance(figures["status"]["met"], bool) and figures["rounds"] == 1
