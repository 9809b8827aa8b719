"""Who may act on a campaign: each role's token (kept as its SHA-256 only) and the
Idempotency-Keys of the commands already answered."""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from domain.campaign.events import CampaignEvent
from domain.campaign.part import Part
from domain.errors import InvalidCommand
from domain.hashing import commitment, sha256_hex
from domain.history import tokens_hold


def sealed_tokens(token_hashes: dict[str, str] | None) -> dict[str, Any]:
    """`Created`'s token fields: the hashes with a salt, and their commitment (none: none)."""
    if not token_hashes:
        return {}
    salt = secrets.token_hex(16)
    return {"token_commitment": commitment({"token_hashes": token_hashes}, salt),
            "tokens": {"token_hashes": token_hashes, "salt": salt}}


def opened_tokens(tokens: Any, token_commitment: str) -> dict[str, str]:
    """The token hashes that open their commitment; none if they do not (an edited row
    lets no token in)."""
    return dict(tokens["token_hashes"]) if tokens_hold(tokens, token_commitment) else {}


def token_hash(token: str) -> str:
    """What the ledger keeps of a role's token: its SHA-256, never the token."""
    return sha256_hex(token.encode())


class Access(Part):
    """The roles' token hashes and the answered commands' keys (an undo keeps both: a
    replaced token stays dead, an answered command stays answered)."""

    name = "access"
    kept_by_undo = frozenset({"token_hashes", "idempotency"})

    def __init__(self, token_hashes: dict[str, str] | None) -> None:
        self.token_hashes = dict(token_hashes or {})  # role -> SHA-256 of its token
        self.idempotency: dict[str, dict[str, Any]] = {}  # key -> digest, first, last

    def role_of(self, token: str) -> str | None:
        """The role a token opens in this campaign (director, observer, a side), or None."""
        presented = token_hash(token)
        return next((role for role, known in self.token_hashes.items()
                     if hmac.compare_digest(known, presented)), None)

    def check_role(self, role: str) -> None:
        """A token is replaced for one of the campaign's roles."""
        if role not in self.token_hashes:
            raise InvalidCommand(f"the roles are {', '.join(self.token_hashes)}", field="role")


class TokenReplaced(CampaignEvent):
    """A director replaced a role's token: the old one opens nothing any more."""

    role: str
    token_hash: str

    def apply(self, campaign: Any) -> None:
        campaign.access.token_hashes[self.role] = self.token_hash
