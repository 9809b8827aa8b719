"""Players' seed shares (CONTRACT 'Dice'): each side may mix a public share into the
server's secret seed before the first server roll, so neither the server nor one side
alone chooses the dice; anyone recomputes every die from the revealed seed and the shares."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from pydantic import ValidationError

from domain import commands as cmd
from domain.errors import InvalidCommand, RuleViolation
from domain.hashing import GENESIS_HASH
from domain.history import record_hash
from domain.verify import verify_records
from infra.application import Refit
from infra.settings import Settings
from infra.transfer import dump_line
from tests.helpers.story import abtf_campaign, do, to_reph_step

GERMAN_SHARE = "47" * 16  # 16 bytes, the least a share may be
BRITISH_SHARE = "b5" * 64  # 64 bytes, the most


@pytest.fixture
def other(other_database_url: str, tmp_path: Path) -> Iterator[Refit]:
    """The application on the other database."""
    app = Refit(Settings(database_url=other_database_url, module_dir=tmp_path / "modules"))
    yield app
    app.close()


def share(refit: Refit, campaign: UUID, side: str, hex_share: str) -> None:
    """A side gives its seed share, as that side."""
    do(refit, campaign, {"type": "contribute_seed", "side": side, "share": hex_share}, side)


def arnhem_with_shares(refit: Refit, name: str) -> UUID:
    """An ABtF CG I where the German gives his share, then the British his, before any
    die is read; then to 9.610, where both roll for their leaders (the German's secret)."""
    campaign = abtf_campaign(refit, name)
    share(refit, campaign, "German", GERMAN_SHARE)
    share(refit, campaign, "British", BRITISH_SHARE)
    to_reph_step(refit, campaign, "9.610")
    play_9_6101(refit, campaign)
    return campaign


def play_9_6101(refit: Refit, campaign: UUID) -> None:
    """A public British 9.6101 dr and a secret German one."""
    do(refit, campaign, {"type": "roll", "table": "9.6101", "side": "British",
                         "subject": "unit:Lt.Grayburn"}, "British")
    do(refit, campaign, {"type": "roll", "table": "9.6101", "side": "German", "secret": True,
                         "subject": "unit:Hptstf.Brinkmann"}, "German")


def concede(refit: Refit, campaign: UUID) -> None:
    """The German concedes: CG End, and the seed is revealed with every secret."""
    do(refit, campaign, {"type": "end_cg", "reason": "concession", "side": "German"})


def contract_dice(seed: bytes, key: str, count: int) -> list[int]:
    """The contract read literally: HMAC-SHA256(seed, key), b < 252 gives b % 6 + 1."""
    digest = hmac.new(seed, key.encode(), hashlib.sha256).digest()
    return [b % 6 + 1 for b in digest if b < 252][:count]


def server_rolls(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r["data"] for r in records if r["type"] == "DiceRolled"]


def first_seed(records: list[dict[str, Any]]) -> bytes:
    return bytes.fromhex(next(r["data"]["seed"] for r in records
                              if r["type"] == "SeedRevealed"))


def mixed(seed: bytes, *shares: str) -> bytes:
    """E = HMAC-SHA256(S, share_1 || share_2), by the contract's formula alone."""
    return hmac.new(seed, bytes.fromhex("".join(shares)), hashlib.sha256).digest()


def matches(seed: bytes, rolls: list[dict[str, Any]]) -> bool:
    return all(contract_dice(seed, r["key"], len(r["dice"])) == r["dice"] for r in rolls)


def test_every_die_comes_from_the_seed_mixed_with_both_shares_in_side_order(
        refit: Refit) -> None:
    campaign = arnhem_with_shares(refit, "Both shares")
    assert refit.store.campaign(campaign).sides == ["British", "German"]  # module order
    concede(refit, campaign)
    records = list(refit.store.records(campaign))
    rolls, seed = server_rolls(records), first_seed(records)
    assert len(rolls) >= 3 and matches(mixed(seed, BRITISH_SHARE, GERMAN_SHARE), rolls)
    assert not matches(seed, rolls)  # the shares changed the dice
    assert not matches(mixed(seed, GERMAN_SHARE, BRITISH_SHARE), rolls)  # in side order
    report = refit.reads.verify(campaign)
    assert report.ok and report.rolls_verified == len(rolls)


def test_a_share_after_the_first_server_roll_is_refused(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Too late")
    to_reph_step(refit, campaign, "9.610")
    do(refit, campaign, {"type": "roll", "table": "9.6101", "side": "British",
                         "subject": "unit:Lt.Grayburn"}, "British")
    before = refit.store.campaign(campaign).version
    with pytest.raises(RuleViolation, match="before the campaign's first server roll") as no:
        share(refit, campaign, "German", GERMAN_SHARE)
    assert no.value.rule == "CONTRACT 'Dice'"
    assert refit.store.campaign(campaign).version == before


def test_a_second_share_by_the_same_side_is_refused(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Twice")
    share(refit, campaign, "German", GERMAN_SHARE)
    with pytest.raises(RuleViolation, match="German already gave its seed share"):
        share(refit, campaign, "German", "00" * 16)
    assert refit.store.campaign(campaign).dice.shares == {"German": GERMAN_SHARE}


@pytest.mark.parametrize("bad", ["ab" * 15, "ab" * 65, "abc" + "ab" * 16, "zz" * 16, ""])
def test_a_share_that_is_not_16_to_64_bytes_of_hex_is_refused_naming_share(bad: str) -> None:
    with pytest.raises(ValidationError) as refused:
        cmd.parse_command({"type": "contribute_seed", "side": "German", "share": bad})
    assert refused.value.errors()[0]["loc"][-1] == "share"


def test_an_entered_dice_campaign_takes_no_share(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Physical dice", dice="entered")
    with pytest.raises(InvalidCommand, match="dice are entered") as refused:
        share(refit, campaign, "German", GERMAN_SHARE)
    assert refused.value.field == "share"


def test_the_opponent_and_the_observer_see_the_share_and_the_same_dice_after_cg_end(
        refit: Refit) -> None:
    campaign = arnhem_with_shares(refit, "Open shares")
    for viewer in ("British", "observer"):  # before CG End the German's share is public
        given = [e["data"] for e in refit.reads.events(campaign, viewer=viewer)
                 if e["type"] == "SeedShareContributed"]
        assert [(g["side"], g["share"]) for g in given] == [("German", GERMAN_SHARE),
                                                           ("British", BRITISH_SHARE)]
    concede(refit, campaign)
    director = server_rolls(list(refit.reads.events(campaign)))
    for viewer in ("British", "German", "observer"):
        assert server_rolls(list(refit.reads.events(campaign, viewer=viewer))) == director
        report = refit.reads.verify(campaign, viewer=viewer)
        assert report.ok and report.rolls_verified == len(director)


def test_an_early_reveal_with_a_secret_roll_present_verifies_and_commits_a_fresh_seed(
        refit: Refit) -> None:
    campaign = arnhem_with_shares(refit, "Early reveal")
    committed = refit.store.campaign(campaign).dice.seed_commitment
    do(refit, campaign, {"type": "reveal_seed"})
    dice = refit.store.campaign(campaign).dice
    assert dice.seed_commitment != committed and dice.shares == {}  # S2, no share mixed
    rolled = len(server_rolls(list(refit.store.records(campaign))))
    for viewer, checked in ((None, rolled), ("German", rolled), ("British", rolled - 1)):
        report = refit.reads.verify(campaign, viewer=viewer)  # the German's secret dr is
        assert report.ok and report.rolls_verified == checked  # sealed to the British
    with pytest.raises(RuleViolation, match="first server roll"):  # shares: first seed only
        share(refit, campaign, "German", "11" * 16)


def test_rolls_on_the_fresh_seed_verify_after_cg_end(refit: Refit) -> None:
    campaign = arnhem_with_shares(refit, "Two seeds")
    do(refit, campaign, {"type": "reveal_seed"})
    do(refit, campaign, {"type": "roll", "table": "9.6101", "side": "British",
                         "subject": "unit:Maj.Crawley"}, "British")
    concede(refit, campaign)
    records = list(refit.store.records(campaign))
    fresh = bytes.fromhex([r for r in records if r["type"] == "SeedRevealed"][1]["data"][
        "seed"])
    assert matches(fresh, server_rolls(records)[-1:])  # E = S2: the shares were S1's
    report = refit.reads.verify(campaign)
    assert report.ok and report.rolls_verified == len(server_rolls(records))


def exported(refit: Refit, campaign: UUID) -> bytes:
    lines = refit.transfer.export(campaign, private=True)
    return "".join(dump_line(line) for line in lines).encode()


def test_a_campaign_with_shares_moves_to_the_other_database_and_rolls_on_the_same_dice(
        refit: Refit, other: Refit) -> None:
    campaign = abtf_campaign(refit, "Moved with shares")
    share(refit, campaign, "British", BRITISH_SHARE)
    data = exported(refit, campaign)
    other.transfer.import_export(lambda: (json.loads(line) for line in
                                          data.decode().splitlines()))
    for app in (refit, other):
        to_reph_step(app, campaign, "9.610")
        play_9_6101(app, campaign)
        concede(app, campaign)
        assert app.reads.verify(campaign).ok
    assert [r.dice for r in other.reads.rolls(campaign)] == \
        [r.dice for r in refit.reads.rolls(campaign)]
    assert exported(other, campaign) != b"" and other.reads.verify(campaign).rolls_verified


def rechained(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records renumbered and linked again, as a forger with the database would."""
    prev = GENESIS_HASH
    for version, record in enumerate(records, start=1):
        record["version"], record["prev_hash"] = version, prev
        prev = record_hash(record)
    return records


def test_a_rechained_history_with_another_share_fails_at_the_first_roll_it_changes(
        refit: Refit) -> None:
    campaign = arnhem_with_shares(refit, "Forged share")
    concede(refit, campaign)
    records = list(refit.store.records(campaign))
    (german,) = [r for r in records if r["type"] == "SeedShareContributed"
                 and r["data"]["side"] == "German"]
    german["data"]["share"] = "00" * 16
    report = verify_records(rechained(records))
    first_roll = next(r["version"] for r in records if r["type"] == "DiceRolled")
    assert not report.ok and "does not match its seed's dice" in str(report.problem)
    assert report.first_bad_version is not None and report.first_bad_version >= first_roll


def test_a_rechained_history_with_a_share_moved_after_a_roll_fails_at_the_share(
        refit: Refit) -> None:
    campaign = arnhem_with_shares(refit, "Late share")
    records = list(refit.store.records(campaign))
    (british,) = [r for r in records if r["type"] == "SeedShareContributed"
                  and r["data"]["side"] == "British"]
    records.remove(british)
    records.append(british)  # as if given once the dice were seen
    report = verify_records(rechained(records))
    assert not report.ok and report.first_bad_version == len(records)
    assert "comes after dice were read" in str(report.problem)
