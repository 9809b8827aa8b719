"""The service's Ed25519 key that signs checkpoints: from REFIT_SIGNING_KEY, a file
(REFIT_SIGNING_KEY_FILE), or made once beside the database (mode 0600), like the admin
token; its public half is the C2SP verifier key players check checkpoints with."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import threading
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from domain.checkpoint import (
    ED25519,
    checkpoint_body,
    key_id,
    signature_line,
    signed_note,
    valid_name,
    verifier_key,
)
from infra.settings import Settings

KEY_FILE = "refit-signing-key"
PRIVATE = "PRIVATE+KEY+"


@dataclass(frozen=True)
class ServiceKey:
    """A named Ed25519 signing key, in C2SP signed-note terms."""

    name: str
    private: Ed25519PrivateKey

    # Worked out once: every command's receipt signs (a key never changes, the dataclass
    # is frozen, and cached_property writes past its __setattr__).
    @cached_property
    def public(self) -> bytes:
        """The 32-byte Ed25519 public key."""
        return self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @cached_property
    def key_id(self) -> bytes:
        """The 4-byte C2SP key ID of this key's name and public half."""
        return key_id(self.name, self.public)

    @property
    def verifier_key(self) -> str:
        """`name+keyid+base64(0x01 || public key)`: what a player checks signatures with."""
        return verifier_key(self.name, self.public)

    def signer_key(self) -> str:
        """`PRIVATE+KEY+name+keyid+base64(0x01 || seed)` (Go's sumdb/note form)."""
        seed = self.private.private_bytes_raw()
        kid = self.key_id.hex()
        return f"{PRIVATE}{self.name}+{kid}+{base64.b64encode(ED25519 + seed).decode()}"

    def sign(self, body: str) -> str:
        """The signed note of a text: the text, a blank line, this key's signature line."""
        return signed_note(body, [self.signature(body)])

    def signature(self, body: str) -> str:
        """This key's signature line over a text (`— name base64(keyid || signature)`)."""
        return signature_line(self.name, self.key_id,
                              self.private.sign(body.encode()))

    def checkpoint(self, origin: str, size: int, root: bytes) -> str:
        """A signed tlog-checkpoint of a log."""
        return self.sign(checkpoint_body(origin, size, root))


def generate(name: str) -> ServiceKey:
    """A fresh key."""
    return ServiceKey(name, Ed25519PrivateKey.generate())


def parse_signer_key(text: str) -> ServiceKey:
    """A key from its `PRIVATE+KEY+...` form, checked (its key id must match)."""
    parts = text.strip().removeprefix(PRIVATE).split("+", 2)
    if not text.strip().startswith(PRIVATE) or len(parts) != 3 or not valid_name(parts[0]):
        raise ValueError("a signing key is PRIVATE+KEY+name+keyid+base64(0x01 || seed)")
    name, kid, encoded = parts
    try:
        raw = base64.b64decode(encoded, validate=True)
    except binascii.Error as error:
        raise ValueError("the signing key does not decode as base64") from error
    if len(raw) != 33 or raw[:1] != ED25519:
        raise ValueError("the signing key is not an Ed25519 seed (0x01 and 32 bytes)")
    key = ServiceKey(name, Ed25519PrivateKey.from_private_bytes(raw[1:]))
    if key.key_id.hex() != kid.lower():
        raise ValueError("the signing key's id does not match its name and key")
    return key


def key_file(settings: Settings) -> Path:
    """Where the key is kept: the file named, or beside the SQLite database (else here)."""
    if settings.signing_key_file is not None:
        return settings.signing_key_file
    database = settings.eventsourcing_env().get("SQLITE_DBNAME")
    return (Path(database).parent if database else Path.cwd()) / KEY_FILE


def load_key(settings: Settings) -> tuple[ServiceKey, Path | None, bool]:
    """The service key: (key, the file it is kept in or None, made just now)."""
    if settings.signing_key is not None:
        return parse_signer_key(settings.signing_key), None, False
    where = key_file(settings)
    key = generate(settings.key_name)
    try:
        write_key(where, key)
    except FileExistsError:
        return parse_signer_key(where.read_text()), where, False
    return key, where, True


def write_key(where: Path, key: ServiceKey) -> None:
    """A key's signer form written to a new file (`write_secret`)."""
    write_secret(where, key.signer_key())


def write_secret(where: Path, text: str) -> None:
    """A secret written to a new file, made with 0600 from the start (never readable by
    others, even for a moment) and never over one already there (FileExistsError)."""
    handle = os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(handle, "w") as out:
        out.write(text + "\n")


class Keys:
    """The service key, loaded (or made) on first use and kept."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._key: ServiceKey | None = None
        self._lock = threading.Lock()

    @property
    def key(self) -> ServiceKey:
        """The key that signs this service's checkpoints."""
        with self._lock:
            if self._key is None:
                self._key = load_key(self.settings)[0]
            return self._key

    def derived(self, label: bytes) -> bytes:
        """A key for one purpose: HMAC-SHA256(the signing key's seed, its label), so it is
        kept wherever the signing key is (never in the database) and no two purposes share
        one."""
        seed = self.key.private.private_bytes_raw()
        return hmac.new(seed, label, hashlib.sha256).digest()

    def verifier_keys(self) -> list[str]:
        """The verifier keys of every key this service signs with."""
        return [self.key.verifier_key]
