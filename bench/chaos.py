"""Fault suite: a real `refit serve` on a real PostgreSQL (a fresh schema, dropped after),
under faults, with the figures that say whether it kept its word. Prints one JSON object.

Scenarios (each on a service started for it, with its own campaigns):
- `kill_9`: client threads send commands with Idempotency-Keys (retrying on a connection
  error or a 5xx with the same key); the service is killed with SIGKILL and restarted.
- `db_outage`: under the same load, every PostgreSQL backend of the service (found by its
  application_name; the shared server is never restarted) is terminated again and again
  for a few seconds. A 503 to a command sent during the outage is allowed.
- `corrupt_row`: one campaign's event row is overwritten with raw SQL; after a restart, and
  again after a view rebuilt from the log, the other campaigns must serve as before (reads
  and a command), the bad one answer a clear error.
- `db_away`: the service reaches PostgreSQL through a TCP proxy, which is cut for
  `--away` seconds under the same load (every connection ended, a new one refused at
  once: a server stopped; `--silent`: taken and never answered, a host gone); meanwhile a
  director's read and command are timed every 0.25 s (`while_away`: their answers, and
  how long each took to come).
- `hostile_bodies`: several large bodies at once (47 MB), and malformed ones.
`kill_9`, `db_outage` and `db_away` run once per `--workers` count (`_workers_2` names
the second).

Figures: acknowledged (200 answers), lost (acknowledged, not in the log, read with raw
SQL), duplicated (one Idempotency-Key applied twice), 5xx, recovery_seconds (kill: from
the restart to the first 200 of every read, the campaign and a view read, of every
campaign, timed once the load has stopped; outage: from its end to the same; away: from
the proxy's return to the same, and `first_acknowledged_seconds`, to the load's first 200),
orphan_processes (kill: processes of the service alive a second after its master was
killed), peak_rss_mb (VmHWM of the service and its workers, added up).

    python bench/chaos.py [--quick] [--clients 8] [--outage 5] [--workers 1 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import psycopg
from chaos_hostile import hostile_bodies
from chaos_kit import PG, Load, Service, reconcile, service, status, terminate_backends, wait_for
from psycopg import sql
from tcp_proxy import proxied_database


@contextmanager
def loaded(running: Service, campaigns: list[dict[str, Any]],
           args: argparse.Namespace) -> Iterator[Load]:
    """Command load: `--before` seconds of it (and a command acknowledged) before the
    body's fault, on through it, stopped when it is over (every command begun is seen
    through). Reads are timed after that: under a saturating load the view may lag
    behind for reasons of its own."""
    deadline = time.monotonic() + args.deadline
    with Load(running.base, campaigns, args.clients, args.pause, deadline) as load:
        time.sleep(args.before)
        wait_for(lambda: load.tally.count() > 0, 60, "a command acknowledged")
        yield load


def reads_answer(running: Service, campaigns: list[dict[str, Any]],
                 paths: tuple[str, ...] = ("", "/cvp")) -> Callable[[], bool]:
    """Whether every read (the campaign, and a view read) of every campaign answers 200."""
    def ready() -> bool:
        return all(status(f"{running.base}/campaigns/{c['id']}{path}",
                          c["tokens"]["director"]) == 200 for c in campaigns for path in paths)
    return ready


def recovered(ready: Callable[[], bool], since: float,
              args: argparse.Namespace) -> float | None:
    """Seconds from `since` until `ready()`, or None if not within the bound."""
    try:
        wait_for(ready, args.recovery_bound, "reads")
    except RuntimeError:
        return None
    return round(time.monotonic() - since, 2)


def kill_9(schema: str, args: argparse.Namespace, workers: int) -> dict[str, Any]:
    """SIGKILL under command load, restart, reconcile."""
    with service(schema, workers) as running:
        campaigns = [running.create() for _ in range(args.campaigns)]
        with loaded(running, campaigns, args) as load:
            orphans = running.kill9()
            restarted = time.monotonic()
            running.start()
        recovery = recovered(reads_answer(running, campaigns), restarted, args)
        return {"workers": workers, **reconcile(load.tally, schema),
                **load.tally.statuses(), "recovery_seconds": recovery,
                "orphan_processes": orphans, "peak_rss_mb": running.peak_rss_mb()}


def db_outage(schema: str, args: argparse.Namespace, workers: int) -> dict[str, Any]:
    """Terminate the service's PostgreSQL backends for a while under load."""
    with service(schema, workers) as running:
        campaigns = [running.create() for _ in range(args.campaigns)]
        with loaded(running, campaigns, args) as load:
            started = time.monotonic()
            terminated = 0
            while time.monotonic() - started < args.outage:
                terminated += terminate_backends(running.app)
                time.sleep(0.05)
            ended = time.monotonic()
        recovery = recovered(reads_answer(running, campaigns), ended, args)
        return {"workers": workers, **reconcile(load.tally, schema),
                **load.tally.statuses((started, ended)), "recovery_seconds": recovery,
                "outage_seconds": round(ended - started, 2), "backends_terminated": terminated,
                "peak_rss_mb": running.peak_rss_mb()}


def db_away(schema: str, args: argparse.Namespace, workers: int) -> dict[str, Any]:
    """PostgreSQL out of reach for `--away` seconds under load: what a director meets
    meanwhile, and how soon after it is back every campaign answers."""
    with proxied_database(PG) as (proxy, through), service(schema, workers, through) as running:
        campaigns = [running.create() for _ in range(args.campaigns)]
        with loaded(running, campaigns, args) as load:
            proxy.silent() if args.silent else proxy.down()
            started = time.monotonic()
            met = meanwhile(running, campaigns[0], args.away, proxy.up)
            ended = started + met.pop("away_seconds")
            before = load.tally.count()
            first = recovered(lambda: load.tally.count() > before, ended, args)
        recovery = recovered(reads_answer(running, campaigns), ended, args)
        # Until its pool has connected again (a try every second), the service still
        # answers 503: allowed up to the first command acknowledged, and counted.
        back = ended + (first or 0)
        after = sum(1 for sent, _, code in load.tally.answers if code == 503 and sent > ended)
        return {"workers": workers, **reconcile(load.tally, schema),
                **load.tally.statuses((started, back)), "503_after_back": after,
                "recovery_seconds": recovery, "first_acknowledged_seconds": first,
                "away_seconds":
                round(ended - started, 2), "while_away": met,
                "peak_rss_mb": running.peak_rss_mb()}


def meanwhile(running: Service, campaign: dict[str, Any], seconds: float,
              back: Callable[[], None]) -> dict[str, Any]:
    """A read and a command every 0.25 s for `seconds`, each on a thread of its own (an
    answer that does not come stops no other); then `back()`. Their answers by status and
    code, how many came while the database was away, and the seconds each took (median,
    max), waiting up to 30 s after for the last."""
    met: list[tuple[str, float, float]] = []  # answer, sent, answered
    guard = threading.Lock()

    def ask(method: str, path: str) -> None:
        sent = time.monotonic()
        code, error = answer(running, campaign, method, path)
        with guard:
            met.append((f"{method} {code} {error or ''}".strip(), sent, time.monotonic()))

    threads: list[threading.Thread] = []
    started = time.monotonic()
    while time.monotonic() < started + seconds:
        for method, path in (("GET", ""), ("POST", "/commands")):
            threads.append(threading.Thread(target=ask, args=(method, path), daemon=True))
            threads[-1].start()
        time.sleep(0.25)
    back()
    ended = time.monotonic()
    for thread in threads:
        thread.join(timeout=max(0.0, ended + 30 - time.monotonic()))
    with guard:
        took = [answered - sent for _, sent, answered in met]
        away = Counter(a for a, _, answered in met if answered < ended)
        return {"asked": len(threads), "answers": dict(Counter(a for a, *_ in met)),
                "answered_while_away": sum(away.values()), "answers_while_away": dict(away),
                "away_seconds": round(ended - started, 2),
                "seconds_median": round(statistics.median(took), 2) if took else None,
                "seconds_max": round(max(took), 2) if took else None}


def answer(running: Service, campaign: dict[str, Any], method: str,
           path: str) -> tuple[int | None, str | None]:
    """One request as the director: its status and error code (if any)."""
    url = f"{running.base}/campaigns/{campaign['id']}{path}"
    headers = {"Authorization": f"Bearer {campaign['tokens']['director']}"}
    try:
        reply = (httpx.get(url, headers=headers, timeout=30) if method == "GET" else
                 httpx.post(url, headers=headers, timeout=30, json={
                     "type": "credit_cpp", "side": "German", "amount": 1, "reason": "chaos"}))
    except httpx.HTTPError:
        return None, "no answer"
    try:
        code = reply.json().get("error", {}).get("code") if reply.status_code >= 400 else None
    except ValueError:
        code = "not JSON"
    return reply.status_code, code


PROBES = (("GET", ""), ("GET", "/cvp"), ("GET", "/events"), ("GET", "/verify"),
          ("POST", "/commands"))


def corrupt_row(schema: str, args: argparse.Namespace) -> dict[str, Any]:
    """One campaign's event row overwritten; the others must not notice."""
    with service(schema) as running:
        campaigns = [running.create(f"Corrupt {n}") for n in range(args.campaigns + 1)]
        for campaign in campaigns:
            for _ in range(3):
                answer(running, campaign, "POST", "/commands")
        bad, others = campaigns[0], campaigns[1:]
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(sql.SQL(
                "UPDATE {}.refit_events SET state = convert_to('{{\"corrupt\": ', 'UTF8') "
                "WHERE originator_id = %s AND originator_version = 2").format(
                sql.Identifier(schema)), (bad["id"],))
        running.stop()  # a restart: no campaign is cached any more
        running.start()
        bad_answers = {f"{m} {p or '/'}": answer(running, bad, m, p) for m, p in PROBES}
        seen = [answer(running, other, m, p) for other in others for m, p in PROBES]
        running.stop()  # and a view rebuilt from the log, as after an upgrade
        rebuild_view(schema)
        running.start()
        rebuilt = [answer(running, other, m, p) for other in others for m, p in PROBES]
        return {
            "other_campaigns": len(others), "other_requests": len(seen) + len(rebuilt),
            "5xx": sum(1 for s, _ in [*seen, *rebuilt] if s is None or s >= 500),
            "other_statuses": sorted({str(s) for s, _ in seen}),
            "other_statuses_after_view_rebuild": sorted({str(s) for s, _ in rebuilt}),
            "bad_campaign": {k: {"status": s, "code": c} for k, (s, c) in bad_answers.items()},
            "bad_campaign_500s": sum(1 for s, _ in bad_answers.values() if s is None or s == 500),
            "peak_rss_mb": running.peak_rss_mb()}


def rebuild_view(schema: str) -> None:
    """Empty the view and forget its tracking: the next service folds the log anew."""
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(sql.SQL("TRUNCATE {}.refit_projection_rows").format(
            sql.Identifier(schema)))
        conn.execute(sql.SQL("DELETE FROM {}.refit_tracking WHERE application_name = 'refit'")
                     .format(sql.Identifier(schema)))


def parse_args() -> argparse.Namespace:
    """Sizes; `--quick` makes every one small (the test suite's smoke run)."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke run")
    parser.add_argument("--clients", type=int, help="client threads (default 8; quick 3)")
    parser.add_argument("--campaigns", type=int, help="campaigns under load (4; quick 2)")
    parser.add_argument("--before", type=float, help="seconds of load before a fault (5; quick 1)")
    parser.add_argument("--outage", type=float, help="seconds of outage (5; quick 1)")
    parser.add_argument("--away", type=float,
                        help="seconds PostgreSQL is out of reach (20; quick 3)")
    parser.add_argument("--silent", action="store_true",
                        help="db_away: the proxy takes connections and never answers")
    parser.add_argument("--recovery-bound", type=float,
                        help="seconds to wait for reads to answer again (30; quick 10)")
    parser.add_argument("--bodies", type=int, help="large bodies at once (4; quick 2)")
    parser.add_argument("--body-mb", type=float, help="size of each large body (47; quick 4)")
    parser.add_argument("--workers", type=int, nargs="+", help="service processes (1 2; quick 1)")
    parser.add_argument("--pause", type=float, default=0.01,
                        help="seconds a client pauses between commands")
    parser.add_argument("--only", nargs="+", choices=list(SCENARIOS), help="these scenarios")
    args = parser.parse_args()
    small = (3, 2, 1.0, 1.0, 3.0, 10.0, 2, 4.0, [1])
    full = (8, 4, 5.0, 5.0, 20.0, 30.0, 4, 47.0, [1, 2])
    names = ("clients", "campaigns", "before", "outage", "away", "recovery_bound", "bodies",
             "body_mb", "workers")
    for name, default in zip(names, small if args.quick else full, strict=True):
        if getattr(args, name) is None:
            setattr(args, name, default)
    args.deadline = 300.0  # seconds a client keeps retrying a command
    return args


SCENARIOS: dict[str, Callable[..., dict[str, Any]]] = {
    "kill_9": kill_9, "db_outage": db_outage, "db_away": db_away,
    "corrupt_row": corrupt_row, "hostile_bodies": hostile_bodies}


LOADED = ("kill_9", "db_outage", "db_away")  # run once per --workers count


def main() -> None:
    """Run the scenarios on a fresh schema and print their figures as one JSON object."""
    args = parse_args()
    schema = f"refit_chaos_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    output: dict[str, Any] = {"quick": args.quick}
    started = time.monotonic()
    try:
        for name in args.only or list(SCENARIOS):
            for workers in args.workers if name in LOADED else [None]:
                label = name if workers in (None, 1) else f"{name}_workers_{workers}"
                extra = () if workers is None else (workers,)
                output[label] = SCENARIOS[name](schema, args, *extra)
    finally:
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))
    output["total_seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(output))


if __name__ == "__main__":
    main()
