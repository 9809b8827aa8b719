"""What the database holds at rest: the SQLite file made 0600 before SQLite opens it, and
each unrevealed dice seed stored encrypted (AES-GCM) under a key derived from the service's
signing key, which is kept out of the database (beside it 0600, or in the settings) as the
cache seal's is. A copy of the database alone then shows only each seed's commitment."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import threading
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from domain.campaign.dice import Dice
from domain.campaign.part import PartTranscoding
from infra.keys import Keys
from infra.settings import Settings

log = logging.getLogger(__name__)
TAG = "refit-seed1:"  # then base64url(nonce || ciphertext and tag)


def private_database(settings: Settings) -> None:
    """Make a SQLite database's file 0600 before SQLite creates it (SQLite gives its -wal
    and -shm files the database file's mode); a file already there is left as it is."""
    path = settings.eventsourcing_env().get("SQLITE_DBNAME")
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    try:
        os.close(os.open(Path(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except (FileExistsError, FileNotFoundError):  # kept, or no folder: SQLite says so
        return


class SeedCipher:
    """Seeds sealed and opened with AES-GCM. The nonce is synthetic (an HMAC of the seed
    and its commitment): one seed is always stored as the same text, so a snapshot taken
    again compares equal (`verify`), and two different seeds never share a nonce."""

    def __init__(self, keys: Keys) -> None:
        self.keys = keys
        self._keys: tuple[AESGCM, bytes] | None = None
        self._lock = threading.Lock()

    def _derived(self) -> tuple[AESGCM, bytes]:
        """The cipher and the nonce key: HMACs of the signing key's seed, made once."""
        with self._lock:
            if self._keys is None:
                self._keys = (AESGCM(self.keys.derived(b"refit seed cipher v1")),
                              self.keys.derived(b"refit seed nonce v1"))
            return self._keys

    def sealed(self, seed: Any, commitment: Any) -> Any:
        """The seed as stored: encrypted, bound to its commitment (None, or one already
        sealed, as it is)."""
        if not isinstance(seed, str) or seed.startswith(TAG):
            return seed
        cipher, nonce_key = self._derived()
        aad = _aad(commitment)
        nonce = hmac.new(nonce_key, aad + seed.encode(), hashlib.sha256).digest()[:12]
        text = nonce + cipher.encrypt(nonce, seed.encode(), aad)
        return TAG + base64.urlsafe_b64encode(text).decode("ascii")

    def opened(self, stored: Any, commitment: Any) -> Any:
        """The seed as stored, decrypted; a plain one (stored before) as it is. One this
        key does not open reads as no seed (server rolls are then refused, saying so)."""
        if not isinstance(stored, str) or not stored.startswith(TAG):
            return stored
        cipher, _ = self._derived()
        try:
            raw = base64.urlsafe_b64decode(stored[len(TAG):])
            return cipher.decrypt(raw[:12], raw[12:], _aad(commitment)).decode()
        except (InvalidTag, ValueError) as error:
            log.error("a dice seed (commitment %s) does not open with this service's key "
                      "(was the signing key replaced?): %r", commitment, error)
            return None


def _aad(commitment: Any) -> bytes:
    """What a sealed seed is bound to: its commitment, so it cannot be moved to another."""
    return b"refit seed\x00" + str(commitment).encode()


class SealedDiceTranscoding(PartTranscoding):
    """The dice part as a snapshot stores it, its seed sealed."""

    def __init__(self, seeds: SeedCipher) -> None:
        super().__init__(Dice)
        self.seeds = seeds

    def encode(self, obj: Any) -> Any:
        """The part's state, its seed sealed."""
        state = dict(vars(obj))
        if state.get("seed") is not None:
            state["seed"] = self.seeds.sealed(state["seed"], state.get("seed_commitment"))
        return state

    def decode(self, data: Any) -> Any:
        """The part, its seed opened."""
        if isinstance(data, dict) and data.get("seed") is not None:
            data = data | {"seed": self.seeds.opened(data["seed"], data.get("seed_commitment"))}
        return super().decode(data)
