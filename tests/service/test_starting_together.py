"""Services starting together on a new database (`refit serve --workers N`, hosts behind
one proxy, an import beside a service) all start: each finds the tables made or makes
them, and none is refused because another made the same name at the same moment."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from infra.application import Refit
from infra.settings import Settings
from tests.helpers.databases import fresh_database

TOGETHER = 6
ROUNDS = 6  # a round raced on the code before in about half the tries


def started_together(settings: Settings) -> list[str]:
    """Start TOGETHER services on the settings' database at one moment; what each said
    (its campaigns, or the error that stopped it)."""
    at_once = threading.Barrier(TOGETHER)
    said: list[str] = []

    def start() -> None:
        at_once.wait()
        try:
            refit = Refit(settings)
            try:
                said.append(f"{len(refit.reads.campaigns())} campaigns")
            finally:
                refit.close()
        except Exception as error:  # the test says which, and why
            said.append(repr(error))
    threads = [threading.Thread(target=start) for _ in range(TOGETHER)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return said


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_services_starting_together_on_a_new_database_all_start(
        kind: str, tmp_path: Path, postgres_problem: str | None) -> None:
    for round_ in range(ROUNDS):
        (tmp_path / str(round_)).mkdir()
        with fresh_database(kind, tmp_path / str(round_), postgres_problem) as url:
            settings = Settings(database_url=url, module_dir=tmp_path / "modules",
                                signing_key_file=tmp_path / "key")
            assert started_together(settings) == ["0 campaigns"] * TOGETHER, round_
