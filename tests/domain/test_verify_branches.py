"""Each of verify's own checks, met by a history forged to need it (re-chained, so the
chain alone passes it): deleting the check makes its test fail."""

from __future__ import annotations

from uuid import UUID

from domain.dice import ordinal_key
from domain.hashing import GENESIS_HASH, commitment
from domain.history import record_hash, redact, secret_content
from domain.verify import verify_records
from infra.application import Refit
from tests.helpers.story import advance_to, do, load_fixture_chart


def relinked(records: list[dict]) -> list[dict]:
    """Records sealed and linked again, as a forger with the salts would."""
    prev = GENESIS_HASH
    for record in records:
        if record.get("sealed") is not None:
            record["sealed"] = commitment(secret_content(record["data"]), record["salt"])
        record["prev_hash"] = prev
        prev = record_hash(record)
    return records


def t1_campaign(refit: Refit) -> UUID:
    load_fixture_chart(refit)
    return refit.commands.create_campaign("pbr", "I", "Branches", "server").id


def rolls(records: list[dict]) -> list[dict]:
    return [r for r in records if r["type"] == "DiceRolled"]


def test_a_redo_whose_dice_differ_from_the_undone_rolls_is_named(refit: Refit) -> None:
    campaign = t1_campaign(refit)
    before = refit.store.campaign(campaign).version
    roll = {"type": "roll", "table": "T1", "side": "Axis", "subject": "unit:Pak-1"}
    do(refit, campaign, roll)
    refit.audit.undo(campaign, "asked too soon", "director", to_version=before)
    do(refit, campaign, roll)  # the redo: the same key, so the same dice
    records = list(refit.store.records(campaign))
    assert verify_records(records).ok
    redo = rolls(records)[-1]
    data = redo["data"]
    data["dice"] = [7 - die for die in data["dice"]]  # other faces, the arithmetic kept
    data["original"] = sum(data["dice"])
    data["final"] = data["original"] + sum(item["value"] for item in data["drm"])
    report = verify_records(relinked(records))  # the seed is not out: only this check sees it
    assert not report.ok and report.first_bad_version == redo["version"]
    assert report.problem == (f"roll {data['key']} was redone after an undo with dice "
                              f"{data['dice']}, not its {[7 - d for d in data['dice']]}")


def ordinal_keys(records: list[dict]) -> None:
    """Keys as campaigns made before subjects counted them: per step, table and side."""
    counted: dict[str, int] = {}
    for record in rolls(records):
        data = record["data"]
        prefix = (data["cg_date"], data["step"], data["table"], data["side"])
        counted[str(prefix)] = counted.get(str(prefix), 0) + 1
        data["key"] = ordinal_key(*prefix, counted[str(prefix)], 0)


def test_sealed_rolls_of_an_earlier_step_excuse_no_gap_in_a_later_one(refit: Refit) -> None:
    campaign = t1_campaign(refit)
    for label in ("Pak-1", "Pak-2"):  # secret: the British see only that they were made
        do(refit, campaign, {"type": "roll", "table": "T1", "side": "Axis", "secret": True,
                             "subject": f"unit:{label}"})
    advance_to(refit, campaign, "3.618")
    do(refit, campaign, {"type": "roll", "table": "T1", "side": "Axis",
                         "subject": "unit:Pak-3"})
    records = list(refit.store.records(campaign))
    ordinal_keys(records)
    british = [redact(r) if r["data"].get("secret_for") == "Axis" else r
               for r in relinked(records)]
    assert verify_records(british).ok
    last = rolls(records)[-1]
    data = last["data"]
    data["key"] = ordinal_key(data["cg_date"], data["step"], "T1", "Axis", 3, 0)
    british = [redact(r) if r["data"].get("secret_for") == "Axis" else r
               for r in relinked(records)]
    report = verify_records(british)
    assert not report.ok and report.first_bad_version == last["version"]
    assert report.problem == f"roll key {data['key']} skips ahead of ordinal 1"


def test_a_malformed_undo_record_is_named_at_its_version(refit: Refit) -> None:
    campaign = t1_campaign(refit)
    before = refit.store.campaign(campaign).version
    do(refit, campaign, {"type": "roll", "table": "T1", "side": "Axis",
                         "subject": "unit:Pak-1"})
    refit.audit.undo(campaign, "asked too soon", "director", to_version=before)
    for target, why in (("1", "TypeError('to_version is not a whole number')"),
                        (10 ** 6, "ValueError('an undo to version 1000000 at version")):
        records = list(refit.store.records(campaign))
        undo = records[-1]
        assert undo["type"] == "Undone"
        undo["data"]["to_version"] = target
        report = verify_records(relinked(records))
        assert not report.ok and report.first_bad_version == undo["version"]
        assert str(report.problem).startswith(f"a malformed Undone record ({why}")
