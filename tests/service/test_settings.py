"""REFIT_DATABASE_URL picks the persistence module eventsourcing uses."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from infra.settings import Settings, persistence_env


def test_the_embedded_default_is_sqlite_beside_the_working_directory(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFIT_DATABASE_URL", raising=False)
    env = Settings().eventsourcing_env()
    assert env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite"
    assert env["SQLITE_DBNAME"] == "./refit.db"


def test_a_postgresql_url_becomes_eventsourcing_postgres_settings() -> None:
    env = persistence_env("postgresql://refit:s%40cret@db.local:5433/ledger?schema=cg1")
    assert env["PERSISTENCE_MODULE"] == "eventsourcing.postgres"
    assert (env["POSTGRES_HOST"], env["POSTGRES_PORT"], env["POSTGRES_DBNAME"]) == (
        "db.local", "5433", "ledger")
    assert (env["POSTGRES_USER"], env["POSTGRES_PASSWORD"], env["POSTGRES_SCHEMA"]) == (
        "refit", "s@cret", "cg1")


def test_the_environment_variable_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFIT_DATABASE_URL", "sqlite:////var/lib/refit/ledger.db")
    assert Settings().eventsourcing_env()["SQLITE_DBNAME"] == "/var/lib/refit/ledger.db"


@pytest.mark.parametrize("url", ["mysql://x/y", "sqlite://relative.db", "refit.db"])
def test_an_unsupported_url_is_refused_by_name(url: str) -> None:
    with pytest.raises(ValueError) as refused:
        persistence_env(url)
    assert "REFIT_DATABASE_URL" in str(refused.value)


def test_an_empty_admin_token_is_unset_so_serve_makes_one() -> None:
    assert Settings(admin_token="").admin_token is None


def test_the_http_threads_and_shared_database_come_from_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFIT_THREADS", "3")
    monkeypatch.setenv("REFIT_SHARED_DATABASE", "true")
    conf = Settings()
    assert (conf.threads, conf.shared_database) == (3, True)
    monkeypatch.setenv("REFIT_THREADS", "0")
    with pytest.raises(ValidationError, match="threads"):
        Settings()


def test_the_gil_switch_interval_is_a_positive_number_of_ms(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().switch_interval_ms is None  # Python's own, unless an operator sets it
    monkeypatch.setenv("REFIT_SWITCH_INTERVAL_MS", "0.5")
    assert Settings().switch_interval_ms == 0.5
    monkeypatch.setenv("REFIT_SWITCH_INTERVAL_MS", "0")
    with pytest.raises(ValidationError, match="switch_interval_ms"):
        Settings()


def test_a_value_passed_wins_over_the_environment_and_a_lower_case_name_counts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFIT_THREADS", "3")
    monkeypatch.setenv("refit_pool_size", "7")
    conf = Settings(threads=4)
    assert (conf.threads, conf.pool_size) == (4, 7)


def test_an_unknown_refit_variable_is_ignored_and_a_bad_one_is_named(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFIT_NO_SUCH_SETTING", "x")
    assert Settings().threads == 8
    monkeypatch.setenv("REFIT_SNAPSHOT_INTERVAL", "often")
    with pytest.raises(ValidationError, match="snapshot_interval"):
        Settings()
