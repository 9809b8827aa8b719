"""Rule data refuses unknown keys, so a typo in an owner's file is caught."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """Rule data: unknown keys refused, values frozen."""

    # A validator is built when a module's data is first read, not at import (issue 17).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
