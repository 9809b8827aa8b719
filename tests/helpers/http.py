"""The HTTP service as its callers use it: the admin's token, a token's header, a campaign
created, a command sent, and the Axis secrets played for the reads to keep."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from api.app import create_app
from infra.modules import install_file
from infra.settings import Settings

ADMIN = "admin-token-for-tests"


def serving(settings: Settings, *files: Path) -> Iterator[TestClient]:
    """The HTTP service on the test's own database with the admin token ADMIN, after an
    owner has installed `files` (module patches, e.g. a test chart or CG parameters)."""
    for file in files:
        install_file(file, settings.module_dir)
    with TestClient(create_app(settings.model_copy(update={"admin_token": ADMIN}))) as client:
        yield client


def started_and_stopped(started: dict[str, Any] | None = None) -> Any:
    """A stand-in for `uvicorn.run` in tests of `refit serve`: the app started and shut
    down at once (so its Refit, projection runner and all, is closed), and the options
    uvicorn was given kept in `started`."""
    def run(app: Any, **options: Any) -> None:
        with TestClient(app):
            pass
        if started is not None:
            started.update(options)
    return run


def without_module_data(export: str) -> str:
    """An export's JSON lines without the module data its tail carries (public rules: the
    charts and tables name every RG and table, so a secrecy check reads the rest), nor its
    signed checkpoint (public: base64 that may spell any short name by chance)."""
    lines = [json.loads(line) for line in export.splitlines() if line.strip()]
    lines[-1].pop("module_data", None)
    lines[-1].pop("checkpoint", None)
    return "".join(json.dumps(line, separators=(",", ":"), sort_keys=True) + "\n"
                   for line in lines)


def auth(token: str) -> dict[str, str]:
    """The Authorization header for a token."""
    return {"Authorization": f"Bearer {token}"}


def new_campaign(client: TestClient, module: str = "pbr",
                 name: str = "Ranville") -> dict[str, Any]:
    """A campaign created by the admin: id, seed commitment and tokens."""
    answer = client.post("/campaigns", headers=auth(ADMIN),
                         json={"module": module, "cg": "I", "name": name})
    assert answer.status_code == 201, answer.text
    body: dict[str, Any] = answer.json()
    return body


def send(client: TestClient, campaign: dict[str, Any], token: str, body: dict[str, Any],
         **headers: str) -> Any:
    """A command; the response."""
    return client.post(f"/campaigns/{campaign['id']}/commands", json=body,
                       headers=auth(token) | headers)


def secrets_played(client: TestClient) -> dict[str, Any]:
    """The Axis buys an RG and rolls in secret; what the British may not see."""
    campaign = new_campaign(client)
    axis = campaign["tokens"]["sides"]["Axis"]
    credit = {"type": "credit_cpp", "side": "Axis", "amount": 39, "reason": "Base"}
    assert send(client, campaign, campaign["tokens"]["director"], credit).status_code == 200
    for body in ({"type": "purchase_rg", "side": "Axis", "rg": "X1"},
                 {"type": "roll", "table": "T2", "side": "Axis", "subject": "unit:Oblt.Secret"}):
        assert send(client, campaign, axis, body).status_code == 200
    return campaign
