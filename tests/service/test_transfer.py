"""Export and import (issue 6): a campaign moves between databases of either kind and
comes back byte for byte; an export that does not verify is refused, saying where."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from domain.errors import CampaignExists, CampaignNotFound, ImportRefused, RuleViolation
from infra.application import Refit
from infra.demo import play_demo
from infra.settings import Settings
from infra.transfer import dump_line
from tests.helpers.story import advance_to, do


@pytest.fixture
def other(other_database_url: str, tmp_path: Path) -> Iterator[Refit]:
    """The application on the other database, signing with the same service key (as an
    operator moving a campaign between its databases does: the export's checkpoint too
    is then the same)."""
    app = Refit(Settings(database_url=other_database_url, module_dir=tmp_path / "modules",
                         signing_key_file=tmp_path / "refit-signing-key"))
    yield app
    app.close()


def disputed_demo(refit: Refit) -> UUID:
    """The PBr demo, then a ruling, an undo and a director's re-roll at 15PM's end."""
    campaign, _ = play_demo(refit)
    key = refit.reads.rolls(campaign)[-1].key
    assert key is not None
    refit.audit.record_ruling(campaign, key, "upheld", "the dice were seen by both", "director")
    target = refit.store.campaign(campaign).version
    do(refit, campaign, {"type": "credit_cpp", "side": "Axis", "amount": 3, "reason": "x"})
    refit.audit.undo(campaign, "credited by mistake", "director", to_version=target)
    return campaign


def exported(refit: Refit, campaign: UUID, **how: Any) -> bytes:
    return "".join(dump_line(line) for line in refit.transfer.export(campaign, **how)).encode()


def lines_of(data: bytes) -> Any:
    return lambda: (json.loads(line) for line in data.decode().splitlines())


def test_export_import_export_gives_the_same_bytes_on_the_other_database(
        refit: Refit, other: Refit) -> None:
    campaign = disputed_demo(refit)
    first = exported(refit, campaign, private=True)
    imported = other.transfer.import_export(lines_of(first))
    assert imported.id == str(campaign) and imported.seed
    assert imported.head_hash == refit.store.campaign(campaign).head_hash
    assert exported(other, campaign, private=True) == first
    assert exported(other, campaign) == exported(refit, campaign)
    assert other.reads.roster(campaign) == refit.reads.roster(campaign)
    assert other.reads.rolls(campaign) == refit.reads.rolls(campaign)
    assert other.reads.verify(campaign).ok


def test_an_imported_campaign_rolls_on_with_the_same_dice(refit: Refit, other: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Moved", "server").id
    other.transfer.import_export(lines_of(exported(refit, campaign, private=True)))
    for app in (refit, other):
        to_the_3_613_elr_rolls(app, campaign)
    rolled = [[row.dice for row in app.reads.rolls(campaign)] for app in (refit, other)]
    assert rolled[0] and rolled[0] == rolled[1]


def to_the_3_613_elr_rolls(refit: Refit, campaign: UUID) -> None:
    """Through the Initial Scenario to 3.613, where each side rolls for its ELR."""
    advance_to(refit, campaign, None)
    do(refit, campaign, {"type": "end_scenario"})
    advance_to(refit, campaign, "3.613")
    for side in ("Axis", "British"):
        do(refit, campaign, {"type": "roll", "table": "3.613", "side": side})


def test_without_its_seed_an_import_keeps_the_history_but_rolls_no_server_dice(
        refit: Refit, other: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Archive", "server").id
    data = exported(refit, campaign)
    assert other.transfer.import_export(lines_of(data)).seed is False
    assert exported(other, campaign) == data
    with pytest.raises(RuleViolation, match="without its private dice seed"):
        to_the_3_613_elr_rolls(other, campaign)


def test_an_altered_export_is_refused_naming_the_version_and_nothing_is_written(
        refit: Refit, other: Refit) -> None:
    campaign, _ = play_demo(refit)
    lines = exported(refit, campaign).decode().splitlines()
    at = next(i for i in range(12, len(lines)) if json.loads(lines[i])["sealed"] is None)
    record = json.loads(lines[at])  # a public event (a sealed one fails its seal first)
    record["data"]["actor"] = "someone else"
    lines[at] = json.dumps(record)
    # The altered event no longer hashes to what its successor names: it is named exactly.
    with pytest.raises(ImportRefused, match=f"at version {record['version']}: version "
                                            f"{record['version']} was altered"):
        other.transfer.import_export(lines_of("\n".join(lines).encode()))
    with pytest.raises(CampaignNotFound):
        other.store.campaign(campaign)


def test_a_cut_export_is_refused(refit: Refit, other: Refit) -> None:
    campaign, _ = play_demo(refit)
    lines = exported(refit, campaign).decode().splitlines()
    with pytest.raises(ImportRefused, match="cut short"):
        other.transfer.import_export(lines_of("\n".join(lines[:-1]).encode()))


def test_a_line_after_the_tail_is_refused_and_nothing_is_written(
        refit: Refit, other: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Trailing", "server").id
    do(refit, campaign, {"type": "advance"})
    lines = exported(refit, campaign).decode().splitlines()
    again = "\n".join([*lines, lines[1]]).encode()  # an event copied after the tail
    with pytest.raises(ImportRefused, match="line 5 of the export comes after its tail"):
        other.transfer.import_export(lines_of(again))
    with pytest.raises(CampaignNotFound):
        other.store.campaign(campaign)


@pytest.mark.parametrize("field", ["campaign", "name", "seed_commitment", "module"])
def test_a_header_that_says_otherwise_than_its_created_event_is_refused(
        refit: Refit, other: Refit, field: str) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Headed", "server").id
    lines = [json.loads(line) for line in exported(refit, campaign).decode().splitlines()]
    lines[0][field] = "11111111-1111-1111-1111-111111111111" if field == "campaign" else "x"
    with pytest.raises(ImportRefused, match=f"the header's {field} .* is not the campaign's"):
        other.transfer.import_export(lambda: iter(lines))
    with pytest.raises(CampaignNotFound):
        other.store.campaign(campaign)


def test_a_tail_that_miscounts_the_events_says_so(refit: Refit, other: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Counted", "server").id
    lines = [json.loads(line) for line in exported(refit, campaign).decode().splitlines()]
    lines[-1]["events"] = 2
    with pytest.raises(ImportRefused, match="the tail counts 2 events; the export holds 1"):
        other.transfer.import_export(lambda: iter(lines))


def test_a_sides_redacted_export_cannot_rebuild_a_campaign(refit: Refit, other: Refit) -> None:
    campaign, _ = play_demo(refit)
    with pytest.raises(ImportRefused, match="redacted export"):
        other.transfer.import_export(lines_of(exported(refit, campaign, viewer="British")))


def edited(lines: list[str], at: int, change: Any) -> bytes:
    """The export with line `at` changed by `change` (a JSON object in, one out)."""
    lines = list(lines)
    lines[at] = json.dumps(change(json.loads(lines[at])))
    return "\n".join(lines).encode()


@pytest.mark.parametrize(("line", "change", "said", "field"), [
    (0, lambda h: h | {"view": None}, "this is a redacted export", "view"),
    (0, lambda h: h | {"private_seed": "zz"}, "private_seed is true or false",
     "private_seed"),
    (1, lambda r: r | {"timestamp": "yesterday"},
     "version 1: its timestamp 'yesterday' is not an ISO 8601 time", "timestamp"),
    (1, lambda r: r | {"data": r["data"] | {"amount": 3}},
     "version 1 (Created) cannot be rebuilt: its data has amount, which a Created does not",
     "data"),
    (1, lambda r: {k: v for k, v in r.items() if k != "prev_hash"},
     "version 1 is not an event record: it has no 'prev_hash'", "export"),
])
def test_a_malformed_export_is_refused_in_words_naming_the_field(
        refit: Refit, other: Refit, line: int, change: Any, said: str, field: str) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Odd", "server").id
    lines = exported(refit, campaign).decode().splitlines()
    with pytest.raises(ImportRefused) as refused:
        other.transfer.import_export(lines_of(edited(lines, line, change)))
    assert said in refused.value.message and refused.value.field == field
    assert "Error(" not in refused.value.message and "__init__" not in refused.value.message
    with pytest.raises(CampaignNotFound):
        other.store.campaign(campaign)


def test_a_campaign_already_here_is_not_imported_again(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Twice", "server").id
    head = refit.store.campaign(campaign).version
    with pytest.raises(CampaignExists):
        refit.transfer.import_export(lines_of(exported(refit, campaign)))
    assert refit.store.campaign(campaign).version == head


def test_a_private_seed_that_is_not_the_committed_one_is_refused(
        refit: Refit, other: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Forged seed", "server").id
    lines = exported(refit, campaign, private=True).decode().splitlines()
    created = json.loads(lines[1])
    created["private"]["seed"] = "00" * 32
    lines[1] = json.dumps(created)
    with pytest.raises(ImportRefused, match="private seed does not match"):
        other.transfer.import_export(lines_of("\n".join(lines).encode()))


def forged_copy(refit: Refit, campaign: UUID, change: Any) -> bytes:
    """The director's export of a campaign with one change made to its lines."""
    lines = [json.loads(line) for line in exported(refit, campaign).decode().splitlines()]
    change(lines)
    return "".join(dump_line(line) for line in lines).encode()


def _undone_at(lines: list[dict[str, Any]]) -> dict[str, Any]:
    return next(line for line in lines if line.get("type") == "Undone")


@pytest.mark.parametrize("forge", [
    lambda lines: _undone_at(lines)["data"].update(to_version=str(
        _undone_at(lines)["data"]["to_version"])),
    lambda lines: lines[1].update(version=True),
    lambda lines: lines[-2]["data"].update(extra=1),
])
def test_a_forged_export_is_refused_before_anything_is_written(
        refit: Refit, other: Refit, forge: Any) -> None:
    campaign = disputed_demo(refit)
    with pytest.raises(ImportRefused):
        other.transfer.import_export(lines_of(forged_copy(refit, campaign, forge)))
    with pytest.raises(CampaignNotFound):
        other.store.campaign(campaign)


def test_a_next_seed_that_does_not_open_its_commitment_is_refused(
        refit: Refit, other: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Early reveal", "server").id
    do(refit, campaign, {"type": "reveal_seed"})
    lines = exported(refit, campaign, private=True).decode().splitlines()
    revealed = json.loads(lines[2])
    revealed["private"]["next_seed"] = "zz"
    lines[2] = json.dumps(revealed)
    with pytest.raises(ImportRefused, match="private seed does not match"):
        other.transfer.import_export(lines_of("\n".join(lines).encode()))
