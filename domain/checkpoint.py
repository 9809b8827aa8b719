"""Signed checkpoints: the C2SP tlog-checkpoint body of a campaign's Merkle log, its
signed-note form, verifier keys, and the offline check a player runs (README, 'Merkle log
and signed checkpoints')."""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from domain.digits import digits

ED25519 = b"\x01"  # C2SP signed-note signature type
DASH = "\u2014 "  # a signature line starts with an em dash and a space


class CheckpointInvalid(ValueError):
    """A checkpoint or verifier key that is malformed, or not signed by the key given."""


@dataclass(frozen=True)
class Checkpoint:
    """What a verified checkpoint states: the log, its size and its Merkle root."""

    origin: str
    size: int
    root: bytes


def valid_name(name: str) -> bool:
    """A key name or origin: not empty, no Unicode space, no '+'."""
    return bool(name) and "+" not in name and not any(c.isspace() for c in name)


def key_id(name: str, public: bytes) -> bytes:
    """First 4 bytes of SHA-256(name || 0x0A || 0x01 || public key)."""
    return hashlib.sha256(name.encode() + b"\n" + ED25519 + public).digest()[:4]


def verifier_key(name: str, public: bytes) -> str:
    """`name+keyid(hex)+base64(0x01 || public key)`."""
    return f"{name}+{key_id(name, public).hex()}+{base64.b64encode(ED25519 + public).decode()}"


def parse_verifier_key(vkey: str) -> tuple[str, bytes, bytes]:
    """(name, key id, 32-byte Ed25519 public key) of a verifier key, checked."""
    parts = vkey.strip().split("+", 2)  # base64 may hold a "+"
    if len(parts) != 3 or not valid_name(parts[0]):
        raise CheckpointInvalid("a verifier key is name+keyid+key")
    name, hex_id, encoded = parts
    try:
        raw = base64.b64decode(encoded, validate=True)
        kid = bytes.fromhex(hex_id)
    except (binascii.Error, ValueError) as error:
        raise CheckpointInvalid(f"the verifier key does not decode: {error}") from error
    if len(hex_id) != 8 or len(raw) != 33 or raw[:1] != ED25519:
        raise CheckpointInvalid("the verifier key is not an Ed25519 key (0x01 and 32 bytes)")
    if key_id(name, raw[1:]) != kid:
        raise CheckpointInvalid("the verifier key's id does not match its name and key")
    return name, kid, raw[1:]


def checkpoint_body(origin: str, size: int, tree_root: bytes) -> str:
    """The tlog-checkpoint note text: origin, tree size, base64 root, each on its line."""
    return f"{origin}\n{size}\n{base64.b64encode(tree_root).decode()}\n"


def signature_line(name: str, kid: bytes, signature: bytes) -> str:
    """`— name base64(keyid || signature)`, with its newline."""
    return f"{DASH}{name} {base64.b64encode(kid + signature).decode()}\n"


def signed_note(body: str, lines: list[str]) -> str:
    """The note: its text, a blank line, then its signature lines."""
    return body + "\n" + "".join(lines)


def verify_checkpoint(note: str, vkey: str, origin: str | None = None) -> Checkpoint:
    """Check a signed checkpoint against a verifier key, offline: the key's signature over
    the text must hold; other signatures (a side's co-signature) are left alone."""
    point = signature_by(note, vkey)[0]
    if origin is not None and point.origin != origin:
        raise CheckpointInvalid(f"the checkpoint is of {point.origin!r}, not {origin!r}")
    return point


def signs(note: str, vkey: str) -> bool:
    """Whether the note carries a signature line of the key (its name and key id), valid
    or not: a forged one is the key's to refuse, a note without one another's to trust."""
    name, kid, _ = parse_verifier_key(vkey)
    return any(who == name and sig[:4] == kid
               for who, sig in map(_signature, _split_note(note)[1]))


def signature_by(note: str, vkey: str) -> tuple[Checkpoint, bytes]:
    """What a signed checkpoint states and the key's signature over it (key id ||
    signature, as its line carries it), checked against the verifier key."""
    name, kid, public = parse_verifier_key(vkey)
    body, lines = _split_note(note)
    signatures = [_signature(line) for line in lines]
    mine = [sig for who, sig in signatures if who == name and sig[:4] == kid]
    if not mine:
        raise CheckpointInvalid(f"no signature by {name}+{kid.hex()}")
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(mine[0][4:], body.encode())
    except InvalidSignature as error:
        raise CheckpointInvalid(f"the signature of {name} does not hold") from error
    return _parse_body(body), mine[0]


def checkpoint_text(note: str) -> tuple[str, Checkpoint]:
    """A signed checkpoint's text and what it states, its signatures unchecked (to add
    one's own, or to compare a checkpoint one holds with a history)."""
    body, lines = _split_note(note)
    for line in lines:
        _signature(line)
    return body, _parse_body(body)


def _split_note(note: str) -> tuple[str, list[str]]:
    """The text (with its last newline) and the signature lines of a signed note."""
    if any(ord(c) < 0x20 and c != "\n" for c in note):
        raise CheckpointInvalid("a signed note holds no control character but newline")
    at = note.rfind("\n\n")
    if at < 0 or not note.endswith("\n"):
        raise CheckpointInvalid("a signed note is text, a blank line, then signature lines")
    return note[:at + 1], note[at + 2:-1].split("\n")


def _signature(line: str) -> tuple[str, bytes]:
    """(key name, key id || signature) of a signature line."""
    parts = line.removeprefix(DASH).split(" ")
    if not line.startswith(DASH) or len(parts) != 2 or not valid_name(parts[0]):
        raise CheckpointInvalid(f"not a signature line: {line!r}")
    try:
        raw = base64.b64decode(parts[1], validate=True)
    except binascii.Error as error:
        raise CheckpointInvalid(f"a signature does not decode: {line!r}") from error
    if len(raw) < 5:
        raise CheckpointInvalid(f"a signature is too short: {line!r}")
    return parts[0], raw


def _parse_body(body: str) -> Checkpoint:
    """Origin, size and root of a checkpoint's text (extension lines are allowed)."""
    lines = body.split("\n")[:-1]
    if len(lines) < 3 or not lines[0] or not digits(lines[1]) or \
            (lines[1].startswith("0") and lines[1] != "0"):
        raise CheckpointInvalid("a checkpoint is origin, tree size and root, one a line")
    try:
        tree_root = base64.b64decode(lines[2], validate=True)
    except binascii.Error as error:
        raise CheckpointInvalid("the checkpoint's root is not base64") from error
    if len(tree_root) != 32:
        raise CheckpointInvalid("the checkpoint's root is not 32 bytes")
    return Checkpoint(lines[0], int(lines[1]), tree_root)
