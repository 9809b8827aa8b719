"""A refusal: the command is refused with a clear error and the log does not grow."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from pydantic import ValidationError

from domain.errors import RefitError
from infra.application import Refit
from tests.helpers.story import do


def refused(refit: Refit, campaign: UUID, body: dict[str, Any],
            actor: str = "director") -> Exception:
    """Run a command (the director's, or `actor`'s) that must be refused; prove the log did
    not grow."""
    before = [r["version"] for r in refit.store.records(campaign)]
    with pytest.raises((RefitError, ValidationError)) as error:
        do(refit, campaign, body, actor)
    assert [r["version"] for r in refit.store.records(campaign)] == before
    return error.value
