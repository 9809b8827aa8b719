"""P4, P6 and P7 of `python -m bench`: a real `refit serve` on PostgreSQL, driven by
bench/load.py's clients. P4 the closed-loop command rate with 1, 2 (and 4) processes
beside the FastAPI peer; P6 the reads of a big campaign while 32 clients write to
others, beside the same reads idle; P7 read-your-writes and the opponent's live lag.
P6 and P7 are taken twice: with every request on one process, then (`reads_apart`) with
every read on a second process of the same database, as a proxy sending GETs to a
reads host would (docs/scale.md). Beside Refit's reads, P6's `floor`: the same client loop
reading a bare GET that makes one query, on a process of its own (FLOOR)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench import http_peer, load, run
from bench.figures import absent, column, ratio, spread
from infra.modules import install_file
from infra.settings import Settings

CLIENTS = 32
READS = {"status": "/campaigns/{id}", "roster": "/campaigns/{id}/roster",
         "purchase_record": "/campaigns/{id}/purchase-record",
         "guide": "/campaigns/{id}/guide",
         # the web client's page of the role (the director's: every side's guide), read
         # with the session cookie a login sets
         "guide_page": "/play/{id}"}
# P6's floor: the peer's GET that makes one round trip to the same PostgreSQL and nothing
# else (bench/http_peer.py), on a process of its own, read beside Refit's at the same pace
# by the same client loop. No read of a database over HTTP answers faster on this machine
# under the same load, so its p99 bounds what any design of Refit's reads could reach.
FLOOR = {"floor": "/floor"}
READERS = 4  # clients reading the big campaign, beside the writers
READ_EVERY = 0.1  # seconds between a reader's reads under load: 40 reads/s in all (a
# 500-campaign tournament reads about 25/s, docs/scale.md); closed-loop readers would
# measure how many reads the service answers, not how long one takes beside the writers
# Commands/s offered in all by the writers of P6's second run (open loop): a 500-campaign
# tournament's burst, everyone rolling in the same minute (docs/scale.md).
TOURNAMENT_RATE = 150.0
# Store connections of the service in all (each process its share, and as many again at
# most for the campaign locks): the shared PostgreSQL allows 100 connections in all, and
# on 2 cores more threads holding connections at once would not go faster.
POOL = 16
ONE_PROCESS_PEER = "the peer runs as one process only"


# -- P4 ----------------------------------------------------------------------------


def peer_run(commands: int, workers: int) -> dict[str, Any] | None:
    """The FastAPI peer's closed-loop run (bench/http_peer.py `run_peer`, one process),
    beside Refit's one-process runs only."""
    if workers != 1:
        return None
    figures: dict[str, Any] = http_peer.run_peer(CLIENTS, CLIENTS // 2, commands)
    return figures


def closed_loop(commands: int, workers: list[int], repeats: int) -> dict[str, Any]:
    """P4: 32 closed-loop clients, each process count run `repeats` times, the peer's
    run beside each of Refit's."""
    result: dict[str, Any] = {"clients": CLIENTS, "commands_per_client": commands,
                              "pool_in_all": POOL, "max_overflow": 0}
    for count in workers:
        ours, peers = [], []
        for _ in range(repeats):
            ours.append(load.run(CLIENTS, CLIENTS // 2, commands, False, count, None,
                                 max(4, POOL // count)))
            peer = peer_run(commands, count)
            if peer is not None:
                peers.append(peer)
        result[f"processes_{count}"] = {
            "refit": summary(ours),
            "peer": summary(peers) if peers else absent(ONE_PROCESS_PEER),
            "ratio": ratio(column(ours, "commands_per_s"), column(peers, "commands_per_s"))
            if peers else absent(ONE_PROCESS_PEER)}
    return result


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Rate, p99 and CPU per command over repeated load runs, and what went wrong."""
    return {"commands_per_s": spread(column(runs, "commands_per_s"), 1),
            "p99_ms": spread(column(runs, "p99_ms")),
            "service_cpu_ms_per_command": spread(column(runs, "service_cpu_ms_per_command")),
            "errors": sum(r["errors"] for r in runs),
            "lost_events": sum(r.get("lost_events", 0) for r in runs)}


# -- P6 and P7: one service, a big campaign read while others are written -------------


async def get(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: bytes,
              path: str) -> tuple[int, bytes]:
    """One GET on a kept-alive connection."""
    writer.write(f"GET {path} HTTP/1.1\r\n".encode() + head + b"\r\n")
    return await load.answer(reader)


def header(base: str, token: str, cookie: str = "") -> bytes:
    """Host, bearer token (and a session cookie, for pages), for a raw request."""
    host = base.removeprefix("http://")
    session = f"Cookie: {cookie}\r\n" if cookie else ""
    return f"Host: {host}\r\nAuthorization: Bearer {token}\r\n{session}".encode()


def session_cookie(base: str, campaign: dict[str, Any]) -> str:
    """The web client's session for the campaign's token (POST /login), as a Cookie
    header's value."""
    answer = httpx.post(f"{base}/login", data={"token": campaign["token"],
                                               "campaign": campaign["id"]}, timeout=30)
    if answer.status_code != 303:
        raise RuntimeError(f"login answered {answer.status_code}: {answer.text[:200]}")
    return "; ".join(f"{name}={value}" for name, value in answer.cookies.items())


async def reading(base: str, big: dict[str, Any], times: dict[str, list[float]],
                  until: asyncio.Event | int, paced: bool = False,
                  routes: dict[str, str] = READS) -> None:
    """A reader of the big campaign: each read in turn, until `until` is set (or that
    many rounds); each latency kept by route, a non-200 a failure. `paced`: a read due
    every READ_EVERY seconds (open loop, a random phase, each latency counted from when
    it was due), as people reading pages do; else one as soon as the last is answered."""
    reader, writer = await asyncio.open_connection(*_host_port(base))
    head, rounds, sent = header(base, big["token"], big.get("cookie", "")), 0, 0
    due = load.open_loop(READ_EVERY, time.perf_counter() + random.uniform(0, READ_EVERY)) \
        if paced else None
    try:
        while (until.is_set() is False) if isinstance(until, asyncio.Event) else rounds < until:
            for name, path in routes.items():
                started = time.perf_counter() if due is None else await due(sent)
                status, body = await get(reader, writer, head, path.format(id=big["id"]))
                if status != 200:
                    raise RuntimeError(f"{name} answered {status}: {body[:200]!r}")
                times[name].append(time.perf_counter() - started)
                sent += 1
            rounds += 1
    finally:
        writer.close()


def read_figures(times: dict[str, list[float]]) -> dict[str, Any]:
    """Each route's p50, p99 and max, in ms."""
    return {name: {"n": len(values), "p50_ms": load.percentile(values, 0.5),
                   "p99_ms": load.percentile(values, 0.99),
                   "max_ms": round(1000 * max(values), 2)}
            for name, values in times.items() if values}


async def read_your_writes(base: str, campaign: dict[str, Any], pairs: int, lags: list[float],
                           late: list[int], answered_at: dict[int, float],
                           reads: str | None = None) -> None:
    """P7: a command, then at once a status read by the same client (on the same
    connection, or on one to `reads`, the process serving reads); if the read does not
    show the command's version, read again until it does (5 s at most): the lag kept, 0
    when visible at once."""
    connection = await asyncio.open_connection(*_host_port(base))
    reading_on = connection if reads in (None, base) else \
        await asyncio.open_connection(*_host_port(reads))
    token = campaign["tokens"]["director"]
    head = header(base, token) + b"Content-Type: application/json\r\n"
    path = f"/campaigns/{campaign['id']}"
    try:
        for index in range(pairs):
            body = json.dumps(load.mix(index)).encode()
            connection[1].write(f"POST {path}/commands HTTP/1.1\r\n".encode() + head
                                + b"Content-Length: %d\r\n\r\n" % len(body) + body)
            status, text = await load.answer(connection[0])
            assert status == 200, (status, text[:200])
            version, answered = json.loads(text)["version"], time.perf_counter()
            answered_at[version] = answered
            lags.append(await visible(*reading_on, head, path, version, answered, late))
    finally:
        connection[1].close()
        reading_on[1].close()


def _host_port(base: str) -> tuple[str, int]:
    host, port = base.removeprefix("http://").split(":")
    return host, int(port)


async def visible(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: bytes,
                  path: str, version: int, answered: float, late: list[int]) -> float:
    """Seconds from a command's answer until a status read shows its version."""
    first = True
    while time.perf_counter() - answered < 5:
        status, text = await get(reader, writer, head, path)
        if status == 200 and json.loads(text)["version"] >= version:
            return 0.0 if first else time.perf_counter() - answered
        if first:
            late.append(version)
        first = False
        await asyncio.sleep(0.005)
    return float("inf")


async def watching(url: str, token: str, arrivals: dict[int, float], ready: asyncio.Event,
                   refused: list[int]) -> None:
    """The opponent's live stream: when each `appended` message arrived, by version (a
    refusal's status kept instead)."""
    async with httpx.AsyncClient(timeout=None) as http, http.stream(
            "GET", url, headers={"Authorization": f"Bearer {token}"}) as stream:
        if stream.status_code != 200:
            refused.append(stream.status_code)
            ready.set()
            return
        kind = ""
        async for line in stream.aiter_lines():
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
                if kind == "ready":
                    ready.set()
            elif line.startswith("data: ") and kind == "appended":
                # One message may carry several commits read at once: each one's
                # events arrived with it, not only the last's version.
                data, now = json.loads(line.removeprefix("data: ")), time.perf_counter()
                for version in [event["version"] for event in data["events"]] + [
                        data["version"]]:
                    arrivals.setdefault(version, now)


def live_figures(arrivals: dict[int, float], answered_at: dict[int, float],
                 refused: list[int]) -> dict[str, Any]:
    """P7 live: from each command's answer to its message on the opponent's stream (less
    than 0: the stream was first)."""
    if refused:
        reason = "no live endpoint" if refused == [404] else f"live answered {refused[0]}"
        return absent(reason)
    lags = [arrivals[v] - at for v, at in answered_at.items() if v in arrivals]
    return {"commands": len(answered_at), "delivered": len(lags),
            "lag_ms_after_answer": spread([1000 * lag for lag in lags]),
            "p99_ms": load.percentile(lags, 0.99) if lags else None}


async def settled(live: asyncio.Future[None], arrivals: dict[int, float], last: int) -> None:
    """The stream given 5 s to deliver the last command, then closed."""
    for _ in range(500):
        if live.done() or last in arrivals:
            break
        await asyncio.sleep(0.01)
    live.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await live


def opponent(campaign: dict[str, Any]) -> str:
    """The token of a side (the commands are the director's: any side is the other)."""
    return str(sorted(campaign["tokens"]["sides"].items())[0][1])


def filled(events: int, work: Path) -> tuple[dict[str, Any], Any]:
    """A `prepare` for load.serving: the big campaign built in the service's schema
    before it starts, with the bench's module and key; its id and tokens kept."""
    made: dict[str, Any] = {}

    def prepare(url: str) -> dict[str, str]:
        module_dir, key = work / "modules", work / "refit-signing-key"
        install_file(run.FIXTURE_CHART, module_dir)
        settings = Settings(database_url=url, module_dir=module_dir, signing_key_file=key)
        campaign, tokens = run.build_with_tokens(settings, events)
        made.update(id=str(campaign), token=tokens.director)
        return {"REFIT_MODULE_DIR": str(module_dir), "REFIT_SIGNING_KEY_FILE": str(key)}
    return made, prepare


def under_load(events: int, commands: int, pairs: int, runner: bool,
               apart: bool = False) -> dict[str, Any]:
    """P6 and P7 on one service: the big campaign's reads idle, then while 32 clients
    write to 16 other campaigns (with a read-your-writes client of its own). `apart`:
    every read (the readers', read-your-writes' and the live stream) goes to a second
    process of its own on the same database."""
    with tempfile.TemporaryDirectory(prefix="refit-bench-reads-") as tmp:
        big, prepare = filled(events, Path(tmp))
        # The floor's peer on the same PostgreSQL, in a schema of its own (its recorder's
        # functions would replace Refit's in a shared one).
        with load.serving(POOL, runner, 1, prepare, apart) as (base, _pid, reads), \
                load.fresh_schema() as url, load.started(http_peer.PEER, os.environ | {
                    "REFIT_DATABASE_URL": url, "REFIT_POOL_SIZE": "2"}) as (floor, _):
            return loaded_service(base, big, commands, pairs, runner, Reads(reads, floor))


@dataclass(frozen=True)
class Reads:
    """Where the readers read: Refit's reads, and the floor's peer."""

    refit: str
    floor: str


@dataclass
class Seen:
    """What the loaded run observed: reads by route, the writers' latencies and errors,
    the read-your-writes lags, when each command was answered and reached the stream."""

    others: list[dict[str, Any]]
    reads: dict[str, list[float]] = field(default_factory=lambda: {n: [] for n in READS})
    floor: dict[str, list[float]] = field(default_factory=lambda: {n: [] for n in FLOOR})
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    late: list[int] = field(default_factory=list)
    answered_at: dict[int, float] = field(default_factory=dict)
    arrivals: dict[int, float] = field(default_factory=dict)
    refused: list[int] = field(default_factory=list)
    writing_s: float = 0.0
    sent: dict[str, int] = field(init=False)  # commands each campaign took (load.client's)

    def __post_init__(self) -> None:
        self.sent = {c["id"]: 0 for c in self.others}


async def everything(base: str, big: dict[str, Any], own: dict[str, Any], commands: int,
                     pairs: int, seen: Seen, at: Reads) -> None:
    """The opponent's stream opened, then readers of the big campaign while 32 clients
    write to the others and one client writes and reads its own campaign (the stream and
    every read on `reads`)."""
    done, ready, reads = asyncio.Event(), asyncio.Event(), at.refit
    live = asyncio.ensure_future(watching(f"{reads}/campaigns/{own['id']}/live",
                                          opponent(own), seen.arrivals, ready, seen.refused))
    await asyncio.wait_for(ready.wait(), 30)
    readers = pacing(at, big, seen, done)
    started, others = time.perf_counter() + 0.2, seen.others
    await asyncio.gather(
        *(load.client(base, others[i % len(others)], commands, i * commands, seen.latencies,
                      seen.errors, seen.sent, load.closed_loop(started))
          for i in range(CLIENTS)),
        read_your_writes(base, own, pairs, seen.lags, seen.late, seen.answered_at, reads))
    seen.writing_s = time.perf_counter() - started
    done.set()
    await asyncio.gather(*readers)
    await settled(live, seen.arrivals, max(seen.answered_at, default=0))


def pacing(at: Reads, big: dict[str, Any], seen: Seen,
           done: asyncio.Event) -> list[asyncio.Task[None]]:
    """The paced readers of the big campaign, and one of the floor, until `done`."""
    return [asyncio.ensure_future(reading(at.refit, big, seen.reads, done, paced=True))
            for _ in range(READERS)] + [asyncio.ensure_future(
                reading(at.floor, big, seen.floor, done, paced=True, routes=FLOOR))]


async def at_a_rate(base: str, big: dict[str, Any], commands: int, seen: Seen,
                    at: Reads) -> None:
    """Readers of the big campaign (and of the floor) while 32 clients write to the
    others at TOURNAMENT_RATE commands/s in all (open loop)."""
    done = asyncio.Event()
    readers = pacing(at, big, seen, done)
    started, others = time.perf_counter() + 0.2, seen.others
    await asyncio.gather(*(
        # Offsets past the first run's, so no roll repeats a subject it rolled for.
        load.client(base, others[i % len(others)], commands, (CLIENTS + i) * commands,
                    seen.latencies, seen.errors, seen.sent,
                    load.schedule(started, CLIENTS, TOURNAMENT_RATE))
        for i in range(CLIENTS)))
    seen.writing_s = time.perf_counter() - started
    done.set()
    await asyncio.gather(*readers)


def writers(seen: Seen) -> dict[str, Any]:
    """What the writers beside the readers did."""
    return {"clients": CLIENTS, "campaigns": len(seen.others),
            "commands_per_s": round(len(seen.latencies) / seen.writing_s, 1),
            "p99_ms": load.percentile(seen.latencies, 0.99),
            "errors": len(seen.errors), "error_samples": seen.errors[:3]}


def loaded_service(base: str, big: dict[str, Any], commands: int, pairs: int,
                   runner: bool, at: Reads) -> dict[str, Any]:
    """The measurements on a service that is up, the big campaign in it; reads where `at`
    says (the login, a POST, on `base`: its session cookie holds on either)."""
    seen = Seen([load.create(base) for _ in range(CLIENTS // 2)])
    own = load.create(base)
    big["cookie"] = session_cookie(base, big)
    load.on_one_loop(reading(at.refit, big, Seen([]).reads, 1))  # warm, both
    load.on_one_loop(reading(at.floor, big, Seen([]).floor, 1, routes=FLOOR))
    idle = Seen([])
    load.on_one_loop(reading(at.refit, big, idle.reads, 25))
    load.on_one_loop(reading(at.floor, big, idle.floor, 25, routes=FLOOR))
    load.on_one_loop(everything(base, big, own, commands, pairs, seen, at))
    paced = Seen(seen.others)
    load.on_one_loop(at_a_rate(base, big, commands, paced, at))
    lags = seen.lags
    return {"P6": {"campaign_events": version_of(base, big), "projection_runner": runner,
                   "readers": READERS, "idle": read_figures(idle.reads),
                   "under_load": read_figures(seen.reads), "writers": writers(seen),
                   "at_tournament_rate": read_figures(paced.reads) | {
                       "offered_commands_per_s": TOURNAMENT_RATE, "writers": writers(paced)},
                   "floor": {"idle": read_figures(idle.floor)["floor"],
                             "under_load": read_figures(seen.floor)["floor"],
                             "at_tournament_rate": read_figures(paced.floor)["floor"]}},
            "P7": {"read_your_writes": {
                "pairs": len(lags), "visible_at_once": len(lags) - len(seen.late),
                "lag_ms_when_late": spread([1000 * lag for lag in lags if 0 < lag < 5]),
                "not_visible_within_5_s": sum(lag >= 5 for lag in lags)},
                "live": live_figures(seen.arrivals, seen.answered_at, seen.refused)}}


def version_of(base: str, big: dict[str, Any]) -> int:
    """The big campaign's version, as the service answers it."""
    answer = httpx.get(f"{base}/campaigns/{big['id']}", timeout=30,
                       headers={"Authorization": f"Bearer {big['token']}"})
    return int(answer.json()["version"])


def http_figures(sizes: dict[str, Any], log: Any, parts: list[str]) -> dict[str, Any]:
    """P4, and P6 with P7 (one run), as `parts` asks."""
    output: dict[str, Any] = {}
    if "P4" in parts:
        log(f"P4 closed loop, {CLIENTS} clients, processes {sizes['workers']}")
        output["P4"] = closed_loop(sizes["http_commands"], sizes["workers"],
                                   sizes["http_repeats"])
    if {"P6", "P7"} & set(parts):
        log(f"P6/P7 reads of a {sizes['read_events']}-event campaign under load")
        runner = os.environ.get("REFIT_BENCH_RUNNER", "false") == "true"
        output |= under_load(sizes["read_events"], sizes["http_commands"], sizes["pairs"],
                             runner)
        log("P6/P7 again, every read on a second process of its own")
        apart = under_load(sizes["read_events"], sizes["http_commands"], sizes["pairs"],
                           runner, apart=True)
        for part in ("P6", "P7"):
            output[part]["reads_apart"] = apart[part]
    return output
