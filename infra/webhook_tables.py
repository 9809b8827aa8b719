"""The webhooks' tables beside the events, in the same database: each campaign's hook (its
URL sealed, infra/webhooks.py) and its delivery status, and the outbox of posts to make,
written with the follower's tracking position in one transaction (eventsourcing's
tracking table, under its own application name)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.postgres import PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteTrackingRecorder
from psycopg.sql import SQL, Literal

from infra.healing_pool import heal

HOOKS, OUTBOX = "refit_webhooks", "refit_webhook_outbox"
FOLLOWER = "refit-webhooks"  # the follower's name in the tracking table


@dataclass(frozen=True)
class Hook:
    """A campaign's webhook as stored: its URL sealed, the version it was set at (only
    later events are posted), the last version delivered, the last error, posts pending."""

    campaign: str
    url: str
    since: int
    delivered: int | None
    error: str | None
    pending: int


@dataclass(frozen=True)
class Post:
    """One post in the outbox: a campaign's event, its JSON body, tries made so far."""

    campaign: str
    version: int
    body: str
    attempts: int


class _Tables:
    """The statements, shared by both databases: written with %s (SQLite's ? swapped in)."""

    datastore: Any
    hooks = HOOKS
    outbox = OUTBOX
    integer, real = "INTEGER", "REAL"

    def _q(self, sql: str) -> str:
        return sql

    def _statements(self) -> list[str]:
        number, real = self.integer, self.real
        return [f"CREATE TABLE IF NOT EXISTS {self.hooks} (campaign TEXT PRIMARY KEY, "
                f"url TEXT NOT NULL, since {number} NOT NULL, delivered {number}, "
                "error TEXT)",
                f"CREATE TABLE IF NOT EXISTS {self.outbox} (campaign TEXT, "
                f"version {number}, body TEXT NOT NULL, attempts {number} NOT NULL, "
                f"next_at {real} NOT NULL, lease {real}, "
                "PRIMARY KEY (campaign, version))"]

    def _run(self, sql: str, params: Any = (), commit: bool = False) -> list[Any]:
        with self.datastore.transaction(commit=commit) as c:
            c.execute(self._q(sql), params)
            return list(c.fetchall())

    def put_hook(self, campaign: str, url: str, since: int) -> None:
        """Set or replace a campaign's hook (a replaced one keeps its pending posts)."""
        with self.datastore.transaction(commit=True) as c:
            c.execute(self._q(f"DELETE FROM {self.hooks} WHERE campaign=%s"), (campaign,))
            c.execute(self._q(f"INSERT INTO {self.hooks} VALUES (%s, %s, %s, NULL, NULL)"),
                      (campaign, url, since))

    def drop_hook(self, campaign: str) -> bool:
        """Remove a campaign's hook and its pending posts; whether it had one."""
        with self.datastore.transaction(commit=True) as c:
            c.execute(self._q(f"DELETE FROM {self.outbox} WHERE campaign=%s"), (campaign,))
            c.execute(self._q(f"DELETE FROM {self.hooks} WHERE campaign=%s RETURNING campaign"),
                      (campaign,))
            return bool(c.fetchall())

    def hook(self, campaign: str) -> Hook | None:
        """A campaign's hook, with its count of pending posts."""
        found = self._run(f"SELECT h.campaign, h.url, h.since, h.delivered, h.error, "
                          f"(SELECT count(*) FROM {self.outbox} o WHERE o.campaign=h.campaign) "
                          f"AS pending FROM {self.hooks} h WHERE h.campaign=%s", (campaign,))
        return None if not found else Hook(*(found[0][k] for k in (
            "campaign", "url", "since", "delivered", "error", "pending")))

    def hooked(self) -> dict[str, int]:
        """Every campaign with a hook, and the version it was set at."""
        return {row["campaign"]: row["since"]
                for row in self._run(f"SELECT campaign, since FROM {self.hooks}")}

    def enqueue(self, posts: list[tuple[str, int, str]], tracking: Tracking,
                now: float) -> None:
        """Posts to make, with the follower's position, in one transaction (a position
        already past it is refused: IntegrityError, nothing queued twice)."""
        with self.datastore.transaction(commit=True) as c:
            c.executemany(self._q(f"INSERT INTO {self.outbox} VALUES (%s, %s, %s, 0, %s, "
                                  "NULL) ON CONFLICT (campaign, version) DO NOTHING"),
                          [(campaign, version, body, now) for campaign, version, body in posts])
            self._insert_tracking(c, tracking)  # type: ignore[attr-defined]

    def due(self, now: float) -> list[Post]:
        """Each campaign's first pending post, if its time has come and no sender holds it
        (a campaign's posts go in order: a later one waits for the first)."""
        found = self._run(f"SELECT campaign, version, body, attempts FROM {self.outbox} o "
                          f"WHERE version = (SELECT min(version) FROM {self.outbox} f "
                          "WHERE f.campaign = o.campaign) AND next_at <= %s "
                          "AND (lease IS NULL OR lease <= %s) ORDER BY next_at", (now, now))
        return [Post(r["campaign"], r["version"], r["body"], r["attempts"]) for r in found]

    def claim(self, post: Post, until: float, now: float) -> bool:
        """Hold a post for a sender until `until`; False if another sender holds it."""
        return bool(self._run(f"UPDATE {self.outbox} SET lease=%s WHERE campaign=%s AND "
                              "version=%s AND (lease IS NULL OR lease <= %s) RETURNING version",
                              (until, post.campaign, post.version, now), commit=True))

    def delivered(self, post: Post) -> None:
        """A post made: out of the outbox, its version the hook's last delivered."""
        with self.datastore.transaction(commit=True) as c:
            c.execute(self._q(f"DELETE FROM {self.outbox} WHERE campaign=%s AND version=%s"),
                      (post.campaign, post.version))
            c.execute(self._q(f"UPDATE {self.hooks} SET delivered=%s, error=NULL "
                              "WHERE campaign=%s"), (post.version, post.campaign))

    def failed(self, post: Post, error: str, next_at: float | None) -> None:
        """A try failed: tried again at `next_at`, or (None) given up and dropped."""
        with self.datastore.transaction(commit=True) as c:
            if next_at is None:
                c.execute(self._q(f"DELETE FROM {self.outbox} WHERE campaign=%s AND "
                                  "version=%s"), (post.campaign, post.version))
            else:
                c.execute(self._q(f"UPDATE {self.outbox} SET attempts=attempts+1, next_at=%s, "
                                  "lease=NULL WHERE campaign=%s AND version=%s"),
                          (next_at, post.campaign, post.version))
            c.execute(self._q(f"UPDATE {self.hooks} SET error=%s WHERE campaign=%s"),
                      (error, post.campaign))


class SQLiteWebhookTables(_Tables, SQLiteTrackingRecorder):
    """The webhooks' tables in the embedded SQLite database."""

    def _q(self, sql: str) -> str:
        return sql.replace("%s", "?")

    def construct_create_table_statements(self) -> list[str]:
        """eventsourcing's tracking table, and the webhooks' tables."""
        return [*super().construct_create_table_statements(), *self._statements()]


class PostgresWebhookTables(_Tables, PostgresTrackingRecorder):
    """The webhooks' tables in PostgreSQL, in the events' schema."""

    integer, real = "bigint", "double precision"

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        heal(datastore)
        super().__init__(datastore, **kwargs)  # which opens its pool
        schema = '"' + (datastore.schema or "public").replace('"', '""') + '"'
        self.hooks, self.outbox = f"{schema}.{HOOKS}", f"{schema}.{OUTBOX}"
        self.sql_create_statements.extend(SQL(text).format() for text in self._statements())
        self._create_lock = SQL("SELECT pg_advisory_xact_lock(hashtext({0}))").format(
            Literal(f"{schema}.{HOOKS}.create"))

    def _create_table(self, curs: Any) -> None:
        """The tables, one process at a time (`refit serve --workers N` starts together:
        PostgreSQL refuses two CREATE TABLE IF NOT EXISTS of one name at once)."""
        curs.execute(self._create_lock)
        super()._create_table(curs)


def tables_class_for(persistence_module: str) -> type[Any]:
    """The tables' class for eventsourcing's persistence module."""
    if persistence_module == "eventsourcing.postgres":
        return PostgresWebhookTables
    return SQLiteWebhookTables
