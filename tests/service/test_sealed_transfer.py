"""Neutral seals and sealed token hashes across export and import (issue 15 item 7): the
role tokens move with the director's export alone, their hashes checked against the
commitment the chain covers; a history sealed before neutral seals still imports and
verifies as it was."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import pytest

from domain.campaign.access import token_hash
from domain.errors import ImportRefused
from domain.hashing import GENESIS_HASH, commitment
from domain.history import record_hash, secret_content
from infra.application import Refit
from infra.results import Tokens
from infra.transfer import dump_line
from tests.helpers.story import do
from tests.service.test_transfer import exported, lines_of, other

__all__ = ["other"]  # the application on the other database (a fixture)


def secret_purchases(refit: Refit) -> tuple[UUID, Tokens]:
    """A PBr CG I where the Axis is credited CPP and buys an M1 (SAN +1), all sealed."""
    campaign, tokens = refit.commands.open_campaign("pbr", "I", "Sealed", "server", "admin")
    for body in ({"type": "credit_cpp", "side": "Axis", "amount": 39, "reason": "3.6161"},
                 {"type": "change_san", "side": "Axis", "value": 2, "cause": "CG I"},
                 {"type": "purchase_rg", "side": "Axis", "rg": "M1"}):
        do(refit, campaign.id, body)
    return campaign.id, tokens


def test_the_tokens_move_with_the_directors_export_and_open_the_imported_campaign(
        refit: Refit, other: Refit) -> None:
    campaign, tokens = secret_purchases(refit)
    other.transfer.import_export(lines_of(exported(refit, campaign, private=True)))
    access = other.store.campaign(campaign).access
    assert access.role_of(tokens.sides["Axis"]) == "Axis"
    assert access.role_of(tokens.director) == "director"


def test_an_export_whose_token_hashes_were_swapped_is_refused(
        refit: Refit, other: Refit) -> None:
    campaign, _ = secret_purchases(refit)
    lines = [json.loads(line) for line in exported(refit, campaign).decode().splitlines()]
    lines[1]["tokens"]["token_hashes"]["Axis"] = token_hash("a token the forger holds")
    forged = "\n".join(json.dumps(line) for line in lines).encode()
    with pytest.raises(ImportRefused, match="version 1's token hashes do not match"):
        other.transfer.import_export(lines_of(forged))


def old_style(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An export as one made before neutral seals: typed seals, their side and actor
    public, the token hashes in `Created`'s data; chained again."""
    header, *records, tail = lines
    prev, out = GENESIS_HASH, []
    for record in records:
        old = {k: v for k, v in record.items() if k not in ("neutral", "tokens")}
        old["prev_hash"] = prev
        if "tokens" in record:
            data = {k: v for k, v in old["data"].items() if k != "token_commitment"}
            old["data"] = data | {"token_hashes": record["tokens"]["token_hashes"]}
        if old["sealed"] is not None:
            old["sealed"] = commitment(secret_content(old["data"]), old["salt"])
        out.append(old)
        prev = record_hash(old)
    # Made before exports were signed, too: no checkpoint in its tail.
    return [header, *out, {k: v for k, v in tail.items() if k != "checkpoint"} |
            {"head_hash": prev}]


def test_a_history_sealed_before_neutral_seals_imports_and_verifies_as_it_was(
        refit: Refit, other: Refit) -> None:
    campaign, tokens = secret_purchases(refit)
    lines = [json.loads(line) for line in exported(refit, campaign).decode().splitlines()]
    data = "".join(dump_line(line) for line in old_style(lines)).encode()
    other.transfer.import_export(lines_of(data))
    again = [json.loads(line) for line in exported(other, campaign).decode().splitlines()]
    assert again[-1].pop("checkpoint") == other.proofs.checkpoint(campaign)  # signed now
    assert "".join(map(dump_line, again)).encode() == data  # its records and hashes as were
    assert other.reads.verify(campaign, "British").ok and other.reads.verify(campaign).ok
    seen = {e["type"] for e in other.reads.history(campaign, "British") if e.get("redacted")}
    assert seen == {"CPPCredited", "RGPurchased", "SANChanged"}  # typed, as sealed then
    assert other.store.campaign(campaign).access.role_of(tokens.observer) == "observer"
