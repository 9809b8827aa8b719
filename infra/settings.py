"""Settings in one place, and their translation to eventsourcing's environment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

DEFAULT_DATABASE_URL = "sqlite:///./refit.db"
PREFIX = "refit_"


class Settings(BaseModel):
    """REFIT_* environment variables (CONTRACT 'Configuration'), below what is passed."""

    model_config = ConfigDict(extra="ignore")

    database_url: str = DEFAULT_DATABASE_URL
    admin_token: str | None = None
    # The Ed25519 key that signs checkpoints (infra/keys.py): a signer key
    # `PRIVATE+KEY+name+keyid+base64(0x01 || seed)`, or a file holding one; if neither,
    # `refit-signing-key` beside the database, made on first use. `key_name` names a key made.
    signing_key: str | None = Field(default=None, repr=False)
    signing_key_file: Path | None = None
    key_name: str = Field(default="refit", min_length=1, max_length=100, pattern=r"^[^\s+]+$")
    module_dir: Path = Path("./refit-modules")
    snapshot_interval: int = Field(default=100, ge=2)
    aggregate_cache: int = Field(default=64, ge=0)
    pool_size: int = Field(default=5, ge=1)  # PostgreSQL connections per process
    max_overflow: int = Field(default=10, ge=0)
    # A runner folds the views (PostgreSQL: one elected among the processes, woken by
    # LISTEN/NOTIFY). None: on in the HTTP service, off for the command line and library.
    projection_runner: bool | None = None
    read_wait: float = Field(default=5.0, gt=0)  # seconds a listing waits for the runner
    # Other processes write to this database too (refit serve --workers N, or several
    # services): each command reads the store first instead of trusting the cache.
    shared_database: bool = False
    threads: int = Field(default=8, ge=1, le=1000)  # threads serving the HTTP routes
    # Threads running commands alone (api/command_route.py), each once its campaign's turn
    # has come: beside 32 writers on 2 cores, 3 or 4 let the reads' p99 fall from about
    # 500 ms (8) to 50-180 ms, with commands/s within the run-to-run spread (bench P6, P4).
    command_threads: int = Field(default=4, ge=1, le=1000)
    # Seconds a command waits for its campaign's turn (another command on it, here or in
    # another process) before it is answered 503 `busy`: a stuck one never holds it forever.
    turn_wait: float = Field(default=10.0, gt=0, le=3600)
    # How long a thread may hold Python's GIL while another waits for it; None leaves
    # Python's own 5 ms. 1 ms helped while a fast path answered commands beside FastAPI;
    # with the command route an ordinary route, bench/load.py measured 5 ms as good or
    # better (closed loop 2-5% more commands/s at less CPU each), so it is no longer set.
    switch_interval_ms: float | None = Field(default=None, gt=0, le=100)
    # At start-up the service collects and freezes its heap (api/app.py): a long-lived
    # process then never walks what start-up made. A process that starts many services
    # (the test suite) turns it off: each collection there walks the whole test run's heap.
    freeze_heap: bool = True
    # uvicorn's line per request costs about a third of the HTTP layer's CPU (bench/load.py)
    access_log: bool = False
    # A request body over this many bytes answers 413 unread (api/guard.py); an import (a
    # campaign's whole export, spooled to disk past 8 MB) has its own, larger limit.
    max_body_bytes: int = Field(default=2 * 1024 * 1024, ge=1024)
    max_import_bytes: int = Field(default=64 * 1024 * 1024, ge=1024)
    # Live streams (GET /campaigns/{id}/live, api/live.py): at most this many open in a
    # process (503 beyond), a comment every `live_heartbeat` seconds so proxies keep them
    # open, and on SQLite a look for other processes' saves every `live_poll` seconds.
    live_max_streams: int = Field(default=1000, ge=1, le=100_000)
    live_heartbeat: float = Field(default=15.0, gt=0, le=300)
    live_poll: float = Field(default=0.25, gt=0, le=60)
    # Outgoing webhooks (infra/webhooks.py): the service's address as players open it, for
    # each post's link (`refit serve` says the one it listens on; unset: posts carry no
    # link), and whether a webhook may post to this machine over http (tests only).
    public_url: str | None = Field(default=None, max_length=200, pattern=r"^https?://\S+$")
    webhook_allow_local: bool = False

    @model_validator(mode="before")
    @classmethod
    def _environment(cls, given: Any) -> Any:
        """Each field not given from its REFIT_ variable, named in any case. Read here, not
        by pydantic-settings, whose import alone cost a command line start 66 ms (issue 17,
        item 6) for what these lines do."""
        if not isinstance(given, dict):
            return given
        found = {name.lower()[len(PREFIX):]: value for name, value in os.environ.items()
                 if name.lower().startswith(PREFIX)}
        return {name: found[name] for name in cls.model_fields if name in found} | given

    @field_validator("admin_token", "signing_key", "signing_key_file", "public_url",
                     mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        """An empty REFIT_ADMIN_TOKEN or signing key (as docker-compose passes them) means
        unset."""
        return None if value == "" else value

    def eventsourcing_env(self) -> dict[str, str]:
        """The environment eventsourcing's persistence modules read."""
        env = persistence_env(self.database_url)
        if self.aggregate_cache:
            # A command runs on the cached copy without reading the store first; when
            # another process got there first, saving conflicts and the command runs
            # again on the stored campaign (infra/commands.py, Commands._attempts).
            env |= {"AGGREGATE_CACHE_MAXSIZE": str(self.aggregate_cache),
                    "AGGREGATE_CACHE_FASTFORWARD": "n"}
        # The module data table beside the events (infra/recorder.py).
        env["APPLICATION_RECORDER_TOPIC"] = "infra.recorder:SQLiteLedgerRecorder"
        if env["PERSISTENCE_MODULE"] == "eventsourcing.postgres":
            env |= {"POSTGRES_POOL_SIZE": str(self.pool_size),
                    "POSTGRES_MAX_OVERFLOW": str(self.max_overflow),
                    # Each save one statement the server commits (infra/recorder_postgres.py).
                    "APPLICATION_RECORDER_TOPIC": "infra.recorder_postgres:LedgerRecorder",
                    "POSTGRES_ENABLE_DB_FUNCTIONS": "y"}
        return env


def persistence_env(url: str) -> dict[str, str]:
    """Translate `sqlite:///PATH` or `postgresql://USER:PASS@HOST:PORT/DB[?schema=S]`."""
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        path = unquote(url[len("sqlite:///"):]) if url.startswith("sqlite:///") else ""
        if not path:
            raise ValueError(f"REFIT_DATABASE_URL {url!r}: use sqlite:///PATH")
        return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path,
                "SQLITE_LOCK_TIMEOUT": "30"}
    if parsed.scheme in ("postgresql", "postgres"):
        schema = parse_qs(parsed.query).get("schema", [""])[0]
        return {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": parsed.path.lstrip("/") or "postgres",
            "POSTGRES_HOST": parsed.hostname or "127.0.0.1",
            "POSTGRES_PORT": str(parsed.port or 5432),
            "POSTGRES_USER": unquote(parsed.username or "postgres"),
            "POSTGRES_PASSWORD": unquote(parsed.password or ""),
            "POSTGRES_SCHEMA": schema,
            "POSTGRES_POOL_SIZE": "4",
            "POSTGRES_MAX_OVERFLOW": "4",
            "POSTGRES_CONNECT_TIMEOUT": "10",
        }
    raise ValueError(f"REFIT_DATABASE_URL {url!r}: use sqlite:///PATH or postgresql://...")


def backend_of(url: str) -> str:
    """`sqlite` or `postgres`, from a database URL."""
    return "sqlite" if url.startswith("sqlite") else "postgres"
