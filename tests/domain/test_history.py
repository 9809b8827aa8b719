"""The history is hash-linked, secrets are committed, server rolls can be rechecked."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterable
from typing import Any
from uuid import UUID

import psycopg

from domain import commands as cmd
from domain.hashing import GENESIS_HASH, commitment, sha256_hex
from domain.history import hashed_form, record_hash, redact, secret_content
from domain.verify import verify_records
from infra.application import Refit
from infra.settings import persistence_env
from tests.helpers.story import (
    advance_to,
    do,
    load_abtf_owner_data,
    load_fixture_chart,
    to_reph_step,
)


def rolled_campaign(refit: Refit, secret: bool = True) -> UUID:
    """An ABtF campaign with a few public and secret rolls (after the 9.6202 rolls that
    precede its Initial Scenario); with `secret` False, no secret roll, so the director
    may reveal the seed early."""
    load_abtf_owner_data(refit)
    campaign = refit.commands.create_campaign("abtf", "I", "Arnhem", "server").id
    to_reph_step(refit, campaign, "9.610")
    for subject in ("unit:Lt.Grayburn", "unit:Maj.Crawley"):
        do(refit, campaign, {"type": "roll", "table": "9.6101", "side": "British",
                             "drm": [{"id": "9.6101-heroic"}], "subject": subject})
    do(refit, campaign, {"type": "roll", "table": "9.6101", "side": "German", "secret": secret,
                         "subject": "unit:Hptstf.Brinkmann"})
    return campaign


def rolls_at(refit: Refit, campaign: UUID, table: str | None = "9.6101") -> list[int]:
    """The versions of the campaign's rolls on a table, or all of them (a record's index is
    its version - 1)."""
    return [r["version"] for r in refit.store.records(campaign) if r["type"] == "DiceRolled"
            and table in (None, r["data"]["table"])]


def test_each_event_names_the_hash_of_its_predecessor(refit: Refit) -> None:
    campaign = rolled_campaign(refit)
    records = list(refit.store.records(campaign))
    assert records[0]["prev_hash"] == GENESIS_HASH
    for before, after in itertools.pairwise(records):
        assert after["prev_hash"] == record_hash(before)
    assert refit.store.campaign(campaign).head_hash == record_hash(records[-1])


def test_the_head_hash_is_returned_with_every_command(refit: Refit) -> None:
    campaign = rolled_campaign(refit)
    result = do(refit, campaign, {"type": "advance"})
    assert result.head_hash == record_hash(list(refit.store.records(campaign))[-1])


def test_verify_passes_an_untouched_history(refit: Refit) -> None:
    campaign = rolled_campaign(refit)
    report = refit.reads.verify(campaign)
    assert report.ok and report.first_bad_version is None
    assert report.events == refit.store.campaign(campaign).version
    assert report.rolls_verified == 0  # the seed is not revealed yet


def test_after_the_seed_is_revealed_every_server_roll_is_rechecked(refit: Refit) -> None:
    campaign = rolled_campaign(refit, secret=False)
    committed = refit.reads.status(campaign).seed_commitment
    do(refit, campaign, {"type": "reveal_seed"})
    status = refit.reads.status(campaign)
    assert status.seed is not None
    assert sha256_hex(bytes.fromhex(status.seed)) == committed
    report = refit.reads.verify(campaign)
    assert report.ok and report.rolls_verified == len(rolls_at(refit, campaign, None))


def test_an_early_reveal_commits_a_new_seed_so_later_rolls_stay_unpredictable(
        refit: Refit) -> None:
    campaign = rolled_campaign(refit, secret=False)
    rolled = len(rolls_at(refit, campaign, None))
    first = refit.store.campaign(campaign).dice.seed
    revealed = do(refit, campaign, {"type": "reveal_seed"}).events[0]["data"]
    assert revealed["seed"] == first and "next_seed" not in revealed
    state = refit.store.campaign(campaign)
    assert state.dice.seed != first
    assert state.dice.seed_commitment == revealed["next_commitment"]
    assert refit.reads.status(campaign).seed_commitment == revealed["next_commitment"]
    do(refit, campaign, {"type": "roll", "table": "9.6101", "side": "German"})
    assert refit.reads.verify(campaign).rolls_verified == rolled  # the new seed is still secret


def test_a_roll_whose_dice_differ_from_the_seed_is_named(refit: Refit) -> None:
    campaign = rolled_campaign(refit, secret=False)
    do(refit, campaign, {"type": "reveal_seed"})
    records = list(refit.store.records(campaign))
    first = rolls_at(refit, campaign)[0]
    forged = records[first - 1]["data"]
    forged["dice"] = [7 - forged["dice"][0]]  # the other face, with sums that add up
    forged["original"] = forged["dice"][0]
    forged["final"] = forged["original"] + sum(d["value"] for d in forged["drm"])
    report = verify_records(_relinked(records))
    assert not report.ok and report.first_bad_version == first
    assert report.problem is not None and "does not match its seed" in report.problem


def _relinked(records: list[dict]) -> list[dict]:
    """Re-chain forged records so only the dice check can catch them."""
    prev = GENESIS_HASH
    for record in records:
        record["prev_hash"] = prev
        prev = record_hash(record)
    return records


def test_a_tampered_stored_event_is_found_at_its_version(refit: Refit,
                                                         database_url: str) -> None:
    campaign = rolled_campaign(refit)
    second = rolls_at(refit, campaign)[1]
    tamper(database_url, campaign, version=second, old=b"Maj.Crawley", new=b"Maj.Crowley")
    report = refit.reads.verify(campaign)
    assert not report.ok and report.first_bad_version == second + 1
    assert report.problem == (f"version {second + 1} does not link to version {second}: "
                              "one of them was altered")


def tamper(url: str, campaign: UUID, version: int, old: bytes, new: bytes) -> None:
    """Edit one stored event's bytes behind the application's back."""
    env = persistence_env(url)
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
            state = db.execute("SELECT state FROM stored_events WHERE originator_id=? AND "
                               "originator_version=?", (campaign.hex, version)).fetchone()
            assert state is not None and old in state[0]
            db.execute("UPDATE stored_events SET state=? WHERE originator_version=? AND "
                       "state=?", (state[0].replace(old, new), version, state[0]))
        return
    schema = env["POSTGRES_SCHEMA"]
    with psycopg.connect(url.split("?")[0], autocommit=True) as db:
        table = f'"{schema}".refit_events'
        row = db.execute(f"SELECT state FROM {table} WHERE originator_id=%s AND "
                         "originator_version=%s", (campaign, version)).fetchone()
        assert row is not None and old in row[0]
        db.execute(f"UPDATE {table} SET state=%s WHERE originator_id=%s AND "
                   "originator_version=%s", (bytes(row[0]).replace(old, new), campaign, version))


def test_a_secret_roll_is_sealed_by_a_salted_commitment(refit: Refit) -> None:
    campaign = rolled_campaign(refit)
    secret = list(refit.store.records(campaign))[rolls_at(refit, campaign)[2] - 1]
    content = {"type": "DiceRolled", "data": {k: v for k, v in secret["data"].items()
                                              if k != "secret_for"}}
    assert secret["neutral"] is True and secret["type"] == "DiceRolled"
    assert secret["sealed"] == commitment(content, secret["salt"])  # its type sealed too
    assert secret["data"]["secret_for"] == "German"


def test_a_secret_rolls_hashed_form_names_only_the_neutral_type_and_its_side(
        refit: Refit) -> None:
    campaign = rolled_campaign(refit)
    secret = list(refit.store.records(campaign))[rolls_at(refit, campaign)[2] - 1]
    assert hashed_form(secret)["type"] == hashed_form(redact(secret))["type"] == "Sealed"
    assert hashed_form(secret)["data"] == {"secret_for": "German",
                                           "sealed": secret["sealed"]}
    assert redact(secret)["data"] == {"secret_for": "German"}


def test_a_record_sealed_before_neutral_seals_keeps_its_typed_form(refit: Refit) -> None:
    campaign = rolled_campaign(refit)
    records = old_style(refit.store.records(campaign))
    secret = records[rolls_at(refit, campaign)[2] - 1]
    assert hashed_form(secret)["type"] == redact(secret)["type"] == "DiceRolled"
    assert verify_records(records).ok
    assert verify_records([redact(r) for r in records]).ok


def old_style(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """A history as one sealed before neutral seals was (typed seals, side and actor
    public), chained again."""
    chained, prev = [], GENESIS_HASH
    for record in records:
        old = {k: v for k, v in record.items() if k != "neutral"} | {"prev_hash": prev}
        if old.get("sealed") is not None:
            old["sealed"] = commitment(secret_content(old["data"]), old["salt"])
        chained.append(old)
        prev = record_hash(old)
    return chained


def test_a_redacted_history_still_verifies(refit: Refit) -> None:
    campaign = rolled_campaign(refit)
    redacted = [redact(record) for record in refit.store.records(campaign)]
    secret = redacted[rolls_at(refit, campaign)[2] - 1]
    assert "subject" not in secret["data"] and secret["salt"] is None
    assert verify_records(redacted).ok


def test_a_forged_secret_fails_its_commitment(refit: Refit) -> None:
    campaign = rolled_campaign(refit)
    records = list(refit.store.records(campaign))
    secret = rolls_at(refit, campaign)[2]
    records[secret - 1]["data"]["result"] = "Retained unwounded (forged)"
    report = verify_records(records)
    assert not report.ok and report.first_bad_version == secret


def test_the_seed_is_not_in_the_history_until_revealed(refit: Refit) -> None:
    campaign = rolled_campaign(refit)
    created = next(iter(refit.store.records(campaign)))
    assert "seed" not in created["data"]
    assert refit.reads.status(campaign).seed is None


def test_entered_dice_record_who_entered_them(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Table", "entered").id
    to_reph_step(refit, campaign, "3.610")
    result = do(refit, campaign, {"type": "roll", "table": "3.610", "side": "British",
                                  "dice": [4], "drm": [{"id": "3.610-isolated"}]},
                actor="British player")
    data = result.events[0]["data"]
    assert (data["dice"], data["final"], data["result"]) == ([4], 5, "Eliminated (evacuated)")
    assert data["entered_by"] == "British player"


def test_a_roll_key_names_its_subject_not_the_order_of_asking(refit: Refit) -> None:
    load_fixture_chart(refit)
    first = refit.commands.create_campaign("pbr", "I", "One", "server")
    keys = [do(refit, first.id, {"type": "roll", "table": "T1", "side": "Axis",
                                 "subject": f"unit:{label}"}).events[0]["data"]["key"]
            for label in ("Pak-2", "Pak-1")]
    assert keys == ["14AM/T1/Axis/unit:Pak-2/0", "14AM/T1/Axis/unit:Pak-1/0"]
    advance_to(refit, first.id, "3.618")
    again = do(refit, first.id, {"type": "roll", "table": "T1", "side": "Axis",
                                 "subject": "unit:Pak-3"})
    assert again.events[0]["data"]["key"] == "14AM/T1/Axis/unit:Pak-3/0"


def test_a_key_that_names_another_subject_than_its_roll_is_found(refit: Refit) -> None:
    problem = forged(refit, {"key": "17N/9.6101/British/unit:Maj.Crawley/0"})["problem"]
    assert "does not name its CG Date, table, side, subject and epoch" in problem


def test_rolls_of_every_seed_are_checked_after_cg_end(refit: Refit) -> None:
    load_fixture_chart(refit)
    campaign = refit.commands.create_campaign("pbr", "I", "Seeds", "server", start_date="17PM").id
    for _ in range(2):
        do(refit, campaign, {"type": "roll", "table": "T1", "side": "Axis"})
        do(refit, campaign, {"type": "reveal_seed"})
    do(refit, campaign, {"type": "roll", "table": "T2", "side": "British"})
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})
    report = refit.reads.verify(campaign)
    assert report.ok and report.rolls_verified == 3


def forged(refit: Refit, change: dict) -> dict:
    """A revealed campaign's history with one roll changed and the chain relinked."""
    campaign = rolled_campaign(refit, secret=False)
    do(refit, campaign, {"type": "reveal_seed"})
    records = list(refit.store.records(campaign))
    first = rolls_at(refit, campaign)[0]
    data = records[first - 1]["data"]
    if "dice" in change:  # keep the arithmetic right, so only the claim itself is wrong
        change |= {"original": sum(change["dice"]),
                   "final": sum(change["dice"]) + sum(d["value"] for d in data["drm"])}
    data.update(change)
    report = verify_records(_relinked(records))
    assert not report.ok and report.first_bad_version == first, report
    return report.as_dict()


def test_a_server_roll_passed_off_as_entered_dice_is_found(refit: Refit) -> None:
    rolled = forged(refit, {"entered_by": "British", "dice": [1]})
    assert "server-dice" in rolled["problem"]


def test_a_roll_whose_key_was_shopped_for_is_found(refit: Refit) -> None:
    problem = forged(refit, {"key": "17N/9.610/9.6101/British/1/5"})["problem"]
    assert "re-roll epoch 5, which no director authorized" in problem
    assert "does not name" in forged(refit, {"key": "17N/9.610/9.6101/German/1/0"})["problem"]


def test_a_final_roll_that_does_not_add_up_is_found(refit: Refit) -> None:
    assert "Final 99" in forged(refit, {"final": 99})["problem"]


def test_a_redacted_flag_does_not_excuse_altered_secret_content(refit: Refit) -> None:
    campaign = rolled_campaign(refit)
    records = list(refit.store.records(campaign))
    secret = rolls_at(refit, campaign)[2]
    records[secret - 1]["data"]["result"] = "Retained unwounded (forged)"
    records[secret - 1]["redacted"] = True
    report = verify_records(records)
    assert not report.ok and report.first_bad_version == secret


def test_a_stored_event_too_damaged_to_read_is_reported_at_its_version(
        refit: Refit, database_url: str) -> None:
    campaign = rolled_campaign(refit)
    second = rolls_at(refit, campaign)[1]
    tamper(database_url, campaign, version=second, old=b'"prev_hash"', new=b'"prev_hash_"')
    report = refit.reads.verify(campaign)
    assert not report.ok and report.first_bad_version == second
    assert report.problem is not None
    assert report.problem.startswith(f"version {second} cannot be read")


def test_a_roll_ordinal_that_skips_ahead_is_found(refit: Refit) -> None:
    assert "skips ahead" in forged(refit, {"key": "17N/9.610/9.6101/British/29/0"})["problem"]


def test_a_public_roll_stripped_of_its_dice_is_found(refit: Refit) -> None:
    campaign = rolled_campaign(refit)
    records = list(refit.store.records(campaign))
    first = rolls_at(refit, campaign)[0]
    del records[first - 1]["data"]["dice"]
    report = verify_records(_relinked(records))
    assert not report.ok and report.first_bad_version == first
    assert report.problem == "a roll without dice"


def test_a_malformed_record_is_reported_not_raised(refit: Refit) -> None:
    campaign = rolled_campaign(refit, secret=False)
    do(refit, campaign, {"type": "reveal_seed"})
    records = list(refit.store.records(campaign))
    records[-1]["data"]["seed"] = "zz"
    report = verify_records(_relinked(records))
    assert not report.ok and report.first_bad_version == records[-1]["version"]
    assert report.problem is not None and report.problem.startswith("a malformed SeedRevealed")


def test_each_sides_redacted_history_verifies_with_sealed_rolls_between_its_own(
        refit: Refit) -> None:
    load_fixture_chart(refit)
    campaign = refit.commands.create_campaign("pbr", "I", "Interleaved", "server").id
    for secret in (False, True, False, True, False):
        do(refit, campaign, {"type": "roll", "table": "T1", "side": "Axis", "secret": secret})
    redacted = [redact(record) for record in refit.store.records(campaign)]
    assert verify_records(redacted).ok


def test_a_sealed_event_with_fields_left_to_their_defaults_still_verifies(
        refit: Refit) -> None:
    load_fixture_chart(refit)  # the property test that found it: receive, then determine
    campaign = refit.commands.create_campaign("pbr", "I", "Defaults", "server").id
    do(refit, campaign, {"type": "receive_rg", "side": "Axis", "rg": "X1", "reason": "OB"})
    do(refit, campaign, {"type": "determine_rg", "side": "Axis", "purchase": 1,
                         "strength": "F"})
    determined = list(refit.store.records(campaign))[-1]
    assert determined["data"]["sw_rolled"] is None and determined["sealed"]
    assert refit.reads.verify(campaign).ok


def test_an_early_reveal_opens_the_secret_rolls_made_with_the_seed(refit: Refit) -> None:
    campaign = rolled_campaign(refit)  # the German's secret 9.6101 dr is on this seed
    do(refit, campaign, {"type": "reveal_seed"})  # the contract lets the director
    report = refit.reads.verify(campaign)
    assert report.ok and report.rolls_verified >= 1  # the secret dr is checkable now


def test_an_events_stored_state_carries_no_empty_idempotency_envelope(refit: Refit,
                                                                     database_url: str) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Envelope", "server").id
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 1, "reason": "x"})
    refit.commands.execute(campaign, cmd.parse_command({"type": "credit_cpp", "side": "Axis",
                                               "amount": 2, "reason": "y"}),
                  "director", idempotency_key="k")
    stored = [s.state for s in refit.store.recorder.select_events(campaign)]
    assert b"idempotency_key" not in bytes(stored[1])
    assert b'"k"' in bytes(stored[2]) or b"\\u001fk" in bytes(stored[2])


def test_a_history_whose_keys_count_ordinals_per_step_still_verifies(refit: Refit) -> None:
    campaign = rolled_campaign(refit, secret=False)
    records = list(refit.store.records(campaign))
    counted: dict[str, int] = {}
    for version in rolls_at(refit, campaign):  # as campaigns made before subjects keyed them
        data = records[version - 1]["data"]
        prefix = f"{data['cg_date']}/{data['step']}/{data['table']}/{data['side']}"
        counted[prefix] = counted.get(prefix, 0) + 1
        data["key"] = f"{prefix}/{counted[prefix]}/0"
    report = verify_records(_relinked(records))
    assert report.ok, report
    records[rolls_at(refit, campaign)[1] - 1]["data"]["key"] = "17N/9.610/9.6101/British/3/0"
    assert "skips ahead" in str(verify_records(_relinked(records)).problem)
