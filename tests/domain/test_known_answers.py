"""Known answers an outsider recomputes by hand: the genesis hash, an event's canonical form
and its hash, the dice rule at its 252 bound and the effective seed with two shares. The
expected values are written out here, worked out once outside the code under test, so a
change to any of these rules fails (the other tests check the code against itself)."""

from __future__ import annotations

import hashlib
import hmac

from domain.dice import dice_from_seed, effective_seed, ordered_shares
from domain.hashing import GENESIS_HASH, canonical
from domain.history import hashed_form, record_hash, redact

S = bytes(range(32))  # 000102...1f
SHARE_GERMAN = "6465666768696a6b6c6d6e6f70717273"  # 16 bytes, the least a share may be
SHARE_BRITISH = "c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7"  # 32

EVENT = {"campaign": "00000000-0000-0000-0000-000000000001", "version": 1,
         "type": "SeedShareContributed", "timestamp": "2026-11-25T19:00:00+00:00",
         "prev_hash": "0" * 64, "data": {"side": "Axis", "share": SHARE_GERMAN,
                                         "actor": "Axis"}}
EVENT_CANONICAL = (
    '{"campaign":"00000000-0000-0000-0000-000000000001","data":{"actor":"Axis",'
    '"share":"6465666768696a6b6c6d6e6f70717273","side":"Axis"},"prev_hash":"'
    + "0" * 64 + '","timestamp":"2026-11-25T19:00:00+00:00","type":"SeedShareContributed",'
    '"version":1}')
EVENT_HASH = "2743cdc397e428863c40b6718f1599225b6a30837c0f754a6967029fdcd36374"

# A sealed event as recorded since neutral seals: its commitment covers its type and every
# field but `secret_for`; its hashed form names the type "Sealed" and only `secret_for`.
SALT = "000102030405060708090a0b0c0d0e0f"
SEALED_CONTENT = ('{"data":{"actor":"Axis","amount":5,"reason":"Base","side":"Axis"},'
                  '"type":"CPPCredited"}')
SEAL = "f39b0e414b3f1695e793c0b79fddafc8b58c41118bd826ce451d15a2bfc4a446"
SEALED_EVENT = {"campaign": "00000000-0000-0000-0000-000000000001", "version": 2,
                "type": "CPPCredited", "timestamp": "2026-11-25T19:00:00+00:00",
                "prev_hash": "1" * 64, "data": {"side": "Axis", "amount": 5, "reason": "Base",
                                                "actor": "Axis", "secret_for": "Axis"},
                "sealed": SEAL, "salt": SALT, "neutral": True}
SEALED_CANONICAL = (
    '{"campaign":"00000000-0000-0000-0000-000000000001","data":{"sealed":"' + SEAL
    + '","secret_for":"Axis"},"prev_hash":"' + "1" * 64 + '","timestamp":'
    '"2026-11-25T19:00:00+00:00","type":"Sealed","version":2}')
SEALED_HASH = "aa7569a68f589ca216225036343021068058176ecb3cbeb3dca4925a30903379"


def digest(seed: bytes, key: str) -> bytes:
    """HMAC-SHA256(seed, key), worked out here with the standard library alone."""
    return hmac.new(seed, key.encode("utf-8"), hashlib.sha256).digest()


def test_the_first_event_links_to_the_genesis_hash_of_64_zeros() -> None:
    assert GENESIS_HASH == "0000000000000000000000000000000000000000000000000000000000000000"


def test_an_events_canonical_form_sorts_keys_and_drops_spaces() -> None:
    assert canonical(hashed_form(EVENT)) == EVENT_CANONICAL.encode("utf-8")


def test_an_events_hash_is_the_sha256_of_its_canonical_form() -> None:
    assert hashlib.sha256(EVENT_CANONICAL.encode()).hexdigest() == EVENT_HASH
    assert record_hash(EVENT) == EVENT_HASH


def test_a_neutral_seal_commits_to_the_salt_then_the_type_and_the_content() -> None:
    assert hashlib.sha256((SALT + SEALED_CONTENT).encode()).hexdigest() == SEAL


def test_a_sealed_events_canonical_form_names_the_neutral_type_and_its_side_only() -> None:
    assert canonical(hashed_form(SEALED_EVENT)) == SEALED_CANONICAL.encode("utf-8")
    assert hashlib.sha256(SEALED_CANONICAL.encode()).hexdigest() == SEALED_HASH
    assert record_hash(SEALED_EVENT) == record_hash(redact(SEALED_EVENT)) == SEALED_HASH


def test_a_digest_byte_of_251_gives_a_6() -> None:
    key = "18AM/9.6101/German/unit:KA-413/0"
    assert list(digest(S, key)[:2]) == [251, 27]  # the hand-made key's first bytes
    assert dice_from_seed(S, key, 1) == [6]  # 251 % 6 + 1
    assert dice_from_seed(S, key, 2) == [6, 4]  # then 27 % 6 + 1


def test_a_digest_byte_of_252_is_skipped() -> None:
    key = "18AM/9.6101/German/unit:KA-137/0"
    assert list(digest(S, key)[:3]) == [252, 103, 100]
    assert dice_from_seed(S, key, 2) == [2, 5]  # 252 skipped: 103 % 6 + 1, 100 % 6 + 1


def test_a_digest_byte_of_255_is_skipped() -> None:
    key = "18AM/9.6101/German/unit:KA-684/0"
    assert list(digest(S, key)[:2]) == [255, 158]
    assert dice_from_seed(S, key, 1) == [3]  # 158 % 6 + 1


def test_the_effective_seed_mixes_the_shares_in_the_modules_side_order() -> None:
    given = {"British": SHARE_BRITISH, "German": SHARE_GERMAN}  # in the order they came
    shares = ordered_shares(given, ["German", "British"])
    mixed = effective_seed(S, shares)
    assert mixed.hex() == "4a923c0768e60f2cdd11e0ec86a69504cfdb38a3fcfc40d5ac3790de45f77565"
    assert mixed == hmac.new(S, bytes.fromhex(SHARE_GERMAN + SHARE_BRITISH),
                             hashlib.sha256).digest()


def test_the_other_side_order_gives_another_seed() -> None:
    shares = ordered_shares({"German": SHARE_GERMAN, "British": SHARE_BRITISH},
                            ["British", "German"])
    assert effective_seed(S, shares).hex() == \
        "092116834a0bb32ec5485b500b5d536abfdc3c753cb1bd317d97a6603cbadcc7"


def test_with_no_share_the_effective_seed_is_the_seed_itself() -> None:
    assert effective_seed(S, ordered_shares({}, ["German", "British"])) == S
