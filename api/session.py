"""The web client's session cookie (CONTRACT 'Web pages'): signed, never the token itself.

The cookie names the campaign, the role, when it expires and a random session id, and
carries an HMAC over those and the SHA-256 the campaign keeps of the role's token, keyed
by a key derived from the service key (infra/keys.py). So it opens nothing once the token
is replaced, an edited cookie opens nothing, and the database never holds a session. A
session's CSRF token is an HMAC of its id under another derived key."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from infra.keys import Keys

COOKIE = "refit_session"
LIFETIME = 7 * 24 * 3600  # seconds: a campaign weekend and its week of disputes
ADMIN = "admin"
SESSION_LABEL, CSRF_LABEL = b"refit web session", b"refit web csrf"


@dataclass(frozen=True)
class Session:
    """Who a cookie says the browser is: a role of one campaign (none for the admin)."""

    campaign: UUID | None
    role: str
    expires: int
    sid: str
    mac: bytes

    def payload(self) -> bytes:
        """What the MAC covers of the cookie (with the token's hash)."""
        return _json({"c": str(self.campaign) if self.campaign else None, "r": self.role,
                      "e": self.expires, "s": self.sid})


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), sort_keys=True).encode()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Sessions:
    """Issues and checks session cookies and their CSRF tokens."""

    def __init__(self, keys: Keys) -> None:
        self.keys = keys

    def _mac(self, payload: bytes, held_hash: str) -> bytes:
        key = self.keys.derived(SESSION_LABEL)
        return hmac.new(key, payload + b"\0" + held_hash.encode(), hashlib.sha256).digest()

    def issue(self, campaign: UUID | None, role: str, held_hash: str) -> str:
        """A new session's cookie value for a role whose token hashes to `held_hash`."""
        draft = Session(campaign, role, int(time.time()) + LIFETIME,
                        secrets.token_urlsafe(16), b"")
        payload = draft.payload()
        return f"{_b64(payload)}.{_b64(self._mac(payload, held_hash))}"

    def read(self, cookie: str | None) -> Session | None:
        """The session a cookie names, unexpired (its MAC is checked by `holds`)."""
        try:
            payload, mac = (_unb64(part) for part in (cookie or "").split("."))
            fields = json.loads(payload)
            session = Session(UUID(fields["c"]) if fields["c"] else None, str(fields["r"]),
                              int(fields["e"]), str(fields["s"]), mac)
        except (ValueError, KeyError, TypeError):
            return None
        if session.payload() != payload or session.expires < time.time():
            return None
        return session

    def holds(self, session: Session, held_hash: str | None) -> bool:
        """Whether the session was issued for the token that now hashes to `held_hash`."""
        return held_hash is not None and \
            hmac.compare_digest(session.mac, self._mac(session.payload(), held_hash))

    def csrf(self, session: Session) -> str:
        """The session's CSRF token, which each of its forms sends back."""
        key = self.keys.derived(CSRF_LABEL)
        return hmac.new(key, session.sid.encode(), hashlib.sha256).hexdigest()

    def csrf_holds(self, session: Session, presented: str | None) -> bool:
        """Whether a form sent the session's CSRF token."""
        return presented is not None and hmac.compare_digest(presented, self.csrf(session))
