"""Fixtures of the service tests: the demo played for the paper forms and the report."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.demo import Played, play_the_demo


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    """The demo, played once for each module that reads it (its tests only read it)."""
    story = play_the_demo(tmp_path_factory.mktemp("demo"))
    yield story
    story.refit.close()
