"""A webhook post's words: the campaign, its CG Date and step, what happened as the
history report says it (ASL words: rules, dr/DR, DRM), and the link to its receipt."""

from __future__ import annotations

from api.report import describe, step_title
from infra.webhook_post import Happened


def webhook_text(happened: Happened) -> str:
    """One public event as a chat line, e.g. `Ranville, 18AM, RePh step 9.612 (v41):
    Axis DR on ... -> 2`, then its link."""
    record = happened.record
    where = f"{happened.cg_date}, {step_title(happened.phase, happened.step)}"
    what = describe(str(record.get("type")), record.get("data") or {})
    link = f"\n{happened.link}" if happened.link else ""
    return f"{happened.name}, {where} (v{record.get('version')}): {what}{link}"
