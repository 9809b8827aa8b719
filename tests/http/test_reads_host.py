"""Reads on a host of their own, behind nginx with deploy/nginx.conf (docs/scale.md): GET
and HEAD reach the reads host, the rest the command host; a command sent through the
proxy is read at once through it and reaches a live stream held through it; with the
reads host down, the command host answers reads."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.helpers.http import auth
from tests.helpers.live import streaming
from tests.helpers.paths import ROOT
from tests.helpers.processes import BOUND, Served, free_port, serving_process, until
from tests.http.test_live_processes import BRITISH, new_game

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
REQUIRE = os.environ.get("REFIT_REQUIRE_NGINX") == "1"


@pytest.fixture
def nginx() -> str:
    """nginx's program: required where REFIT_REQUIRE_NGINX is 1 (CI installs it), else a
    test without it is skipped, saying so."""
    if not os.access(NGINX, os.X_OK):
        if REQUIRE:
            pytest.fail("nginx is required (REFIT_REQUIRE_NGINX=1) and not installed")
        pytest.skip("nginx is not installed (Debian: apt-get install nginx-light)")
    return NGINX


def local_conf(commands: str, reads: str, port: int, work: Path) -> str:
    """deploy/nginx.conf with this host's ports for its hosts, inside a whole nginx
    configuration that keeps its files in `work`."""
    snippet = (ROOT / "deploy" / "nginx.conf").read_text()
    snippet = snippet.replace("server refit-2:8000;", "")  # one command host here
    snippet = snippet.replace("refit-reads:8000", reads.removeprefix("http://"))
    snippet = snippet.replace("refit:8000", commands.removeprefix("http://"))
    snippet = snippet.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    temps = "\n".join(f"    {kind}_temp_path {work / kind};"
                      for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return (f"pid {work / 'nginx.pid'};\nerror_log {work / 'error.log'} warn;\n"
            f"events {{}}\nhttp {{\n    access_log off;\n{temps}\n{snippet}\n}}\n")


@contextmanager
def proxied(program: str, commands: Served, reads: Served, work: Path) -> Iterator[str]:
    """nginx in front of the two hosts, answering: its URL."""
    port = free_port()
    conf = work / "nginx.conf"
    conf.write_text(local_conf(commands.url, reads.url, port, work))
    process = subprocess.Popen([program, "-p", str(work), "-c", str(conf), "-g",
                                "daemon off;"], stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        assert until(lambda: _answers(url) or process.poll() is not None), "never answered"
        assert process.poll() is None, process.communicate()[1]
        yield url
    finally:
        process.send_signal(signal.SIGQUIT)  # nginx's graceful stop
        process.wait(BOUND)


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture
def hosts(database_url: str, tmp_path: Path) -> Iterator[tuple[Served, Served]]:
    """A command host and a reads host on one database, each logging its requests."""
    env = {"REFIT_SIGNING_KEY_FILE": str(tmp_path / "signing-key"),
           "REFIT_SHARED_DATABASE": "true", "REFIT_LIVE_HEARTBEAT": "0.3",
           "REFIT_ACCESS_LOG": "true"}
    with serving_process(database_url, tmp_path, 1, **env) as commands, \
            serving_process(database_url, tmp_path, 1, **env) as reads:
        yield commands, reads


@dataclass
class Through:
    """The proxy's URL, a new game made through it, and the two hosts behind it."""

    proxy: str
    game: dict[str, str]
    commands: Served
    reads: Served


@pytest.fixture
def through(nginx: str, hosts: tuple[Served, Served], tmp_path: Path) -> Iterator[Through]:
    """nginx in front of the command and reads hosts, a PBr CG I made through it."""
    commands, reads = hosts
    with proxied(nginx, commands, reads, tmp_path) as proxy:
        yield Through(proxy, new_game(proxy), commands, reads)


def served(host: Served, method: str, path: str) -> bool:
    """Whether the host logged a request of that method for exactly that path."""
    return host.logged(f'"{method} {path} HTTP/1.1" ')


def credited(proxy: str, game: dict[str, str], amount: int) -> httpx.Response:
    """The director's credit of Axis CPP, sent through the proxy and acknowledged."""
    done = httpx.post(f"{proxy}/campaigns/{game['id']}/commands", timeout=BOUND,
                      headers=auth(game["director"]),
                      json={"type": "credit_cpp", "side": "Axis", "amount": amount,
                            "reason": "Base"})
    assert done.status_code == 200, done.text
    return done


def test_reads_reach_the_reads_host_and_commands_the_command_host(through: Through) -> None:
    proxy, game, commands, reads = through.proxy, through.game, through.commands, through.reads
    path = f"/campaigns/{game['id']}"
    done = credited(proxy, game, 39)
    status = httpx.get(f"{proxy}{path}", headers=auth(game["director"]), timeout=BOUND)
    assert status.status_code == 200 and status.json()["version"] == done.json()["version"]
    assert status.json()["sides"]["Axis"]["cpp"] >= 39  # read at once, on the other host
    assert until(lambda: served(reads, "GET", path) and served(commands, "POST", path
                                                               + "/commands"))
    assert not served(commands, "GET", path) and not served(reads, "POST", path + "/commands")
    assert served(commands, "POST", "/campaigns") and not served(reads, "POST", "/campaigns")


def test_a_stream_held_through_the_proxy_hears_a_command_sent_through_it(
        through: Through) -> None:
    live = f"{through.proxy}/campaigns/{through.game['id']}/live"
    with streaming(live, through.game[BRITISH]) as british:
        assert british.opened() == 200
        start = int(british.next("ready").id or 0)
        done = credited(through.proxy, through.game, 7)
        assert british.next("appended").data["version"] == done.json()["version"] > start
    assert served(through.reads, "GET", f"/campaigns/{through.game['id']}/live")


def test_with_the_reads_host_down_the_command_host_answers_reads(through: Through) -> None:
    through.reads.process.send_signal(signal.SIGTERM)
    through.reads.process.wait(BOUND)
    path = f"/campaigns/{through.game['id']}/roster"
    answer = httpx.get(f"{through.proxy}{path}", headers=auth(through.game["director"]),
                       timeout=BOUND)
    assert answer.status_code == 200, answer.text
    assert until(lambda: served(through.commands, "GET", path))
    assert re.search(r"refit_reads|502", answer.text) is None
