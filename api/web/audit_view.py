"""What a roll's audit page shows a role: the JSON roll audit's answer for that role (infra
/audit.py), the seed commitment the roll was made under, and the roll's inclusion proof, as
the JSON routes give them; the page adds nothing a role's JSON reads do not carry."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from api.access import DIRECTOR, OBSERVER, Caller
from domain.campaign.disputes import dispute_of, open_disputes
from domain.digits import digits
from infra.application import Refit
from projections.audit import RollAudit


def roll_page(refit: Refit, ident: UUID, caller: Caller, version: int) -> dict[str, Any]:
    """The audit page's reads of the roll made at `version`, for the caller; the roll
    audit's refusal (422) when no roll open to the role was made there."""
    audit = refit.audit.roll_audit(ident, None, caller.viewer, version)
    proof = refit.proofs.inclusion(ident, version).as_dict()
    roll = _made_at(audit, version)
    campaign = refit.store.campaign(ident)
    disputed = next((d for d in open_disputes(campaign, caller.viewer)
                     if d["roll_version"] == version), None)
    return {"audit": audit, "roll": roll, "open_dispute": disputed,
            # a side disputes a standing roll it may read, once, before CG End
            "may_dispute": caller.role not in (DIRECTOR, OBSERVER) and roll is not None
            and roll.standing and dispute_of(campaign, version) is None
            and campaign.reph.phase != "ended",
            "sealed": next((s for s in audit.sealed if s.version == version), None),
            "commitment": commitment_at(refit, ident, caller.viewer, version),
            "proof": proof}


def page_version(text: str) -> int | None:
    """The page's version, if the address names one (a number)."""
    return int(text) if digits(text) and len(text) <= 10 else None


def _made_at(audit: RollAudit, version: int) -> Any:
    """The making of the roll the page names (a redo is its own version), if readable."""
    return next((r for r in audit.rolls if r.version == version), None)


def commitment_at(refit: Refit, ident: UUID, viewer: str | None, version: int) -> str | None:
    """The seed commitment in force when the roll at `version` was made: the campaign's
    first, or the one committed by the last reveal before it (public events both)."""
    found = None
    for record in refit.reads.history(ident, viewer, lte=version):
        data = record["data"]
        if record["type"] == "Created":
            found = data.get("seed_commitment")
        elif record["type"] == "SeedRevealed":
            found = data.get("next_commitment") or found
    return found
