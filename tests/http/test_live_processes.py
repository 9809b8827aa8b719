"""Live streams across service processes on one database: a command answered by one
process reaches a stream held by another (PostgreSQL: LISTEN/NOTIFY; SQLite: the poll of
its log), and a process told to stop ends its streams and exits."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import httpx

from tests.helpers.http import ADMIN, auth
from tests.helpers.live import streaming
from tests.helpers.processes import BOUND, serving_process

AXIS, BRITISH = "Axis", "British"


def new_game(url: str) -> dict[str, str]:
    """A PBr CG I made by the admin; its id and tokens by role."""
    answer = httpx.post(f"{url}/campaigns", headers=auth(ADMIN), timeout=BOUND,
                        json={"module": "pbr", "cg": "I", "name": "Ranville"})
    assert answer.status_code == 201, answer.text
    body = answer.json()
    return {"id": body["id"], "director": body["tokens"]["director"], **body["tokens"]["sides"]}


def test_a_command_in_one_process_reaches_a_stream_in_another(database_url: str,
                                                              tmp_path: Path) -> None:
    env = {"REFIT_SIGNING_KEY_FILE": str(tmp_path / "signing-key"),
           "REFIT_SHARED_DATABASE": "true", "REFIT_LIVE_HEARTBEAT": "0.3"}
    with serving_process(database_url, tmp_path, 1, **env) as one, \
            serving_process(database_url, tmp_path, 1, **env) as other:
        game = new_game(one.url)
        with streaming(f"{one.url}/campaigns/{game['id']}/live", game[BRITISH]) as british:
            assert british.opened() == 200
            start = int(british.next("ready").id or 0)
            done = httpx.post(f"{other.url}/campaigns/{game['id']}/commands",
                              headers=auth(game["director"]), timeout=BOUND,
                              json={"type": "credit_cpp", "side": AXIS, "amount": 39,
                                    "reason": "Base"})
            assert done.status_code == 200, done.text
            seen = british.next("appended")
            assert seen.data["version"] == done.json()["version"] > start
            assert [e["version"] for e in seen.data["events"]] == list(
                range(start + 1, done.json()["version"] + 1))


def test_a_stopping_service_ends_its_streams_and_exits(database_url: str,
                                                       tmp_path: Path) -> None:
    env = {"REFIT_SIGNING_KEY_FILE": str(tmp_path / "signing-key"),
           "REFIT_LIVE_HEARTBEAT": "0.3"}  # the reader waits for the end, never times out
    with serving_process(database_url, tmp_path, 1, **env) as served:
        game = new_game(served.url)
        with streaming(f"{served.url}/campaigns/{game['id']}/live", game[AXIS]) as axis:
            assert axis.opened() == 200
            axis.next("ready")
            os.kill(served.process.pid, signal.SIGTERM)
            assert axis.ended.wait(BOUND) and axis.finished, "the stream did not end"
            # uvicorn, done, raises the signal again: the process ends by SIGTERM
            assert served.process.wait(BOUND) in (0, -signal.SIGTERM)
            assert served.logged("Application shutdown complete"), "".join(served.lines)
