"""Rule data refuses unknown keys, so a typo in an owner's file is caught."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """Rule data: unknown keys refused, values frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)
