"""HTTP routes of the proofs a player keeps (CONTRACT 'Proofs'): the service's verifier
keys, a campaign's signed checkpoint, and inclusion and consistency proofs."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel

from api.access import Credentials, caller_for, campaign_gate
from api.guard import gated
from domain.errors import InvalidCommand
from infra.application import Refit
from infra.cosigning import checkpoint_at
from infra.receipts import receipt_finding, stored_leaves

Size = Annotated[int | None, Query(ge=1, le=10**9)]


class InclusionAnswer(BaseModel):
    """RFC 6962 inclusion proof of the event at version leaf_index + 1 (hashes in hex)."""

    leaf_index: int
    tree_size: int
    leaf_hash: str
    hashes: list[str]
    root: str


class ReceiptFinding(BaseModel):
    """What a receipt proves of the history now: `ok`, or the first version it no longer
    holds (null when a fork cannot be pinned to one) and the problem."""

    receipt: str
    ok: bool
    version: int | None
    problem: str | None
    tree_size: int | None
    versions: list[int]
    key: str | None
    note: str | None


class ConsistencyAnswer(BaseModel):
    """RFC 6962 consistency proof: the tree of `tree_size` extends that of `from`."""

    from_: int
    tree_size: int
    from_root: str
    hashes: list[str]
    root: str

    model_config = {"populate_by_name": True, "alias_generator": lambda name: name.rstrip("_")}


def proof_routes(app: APIRouter, refit: Refit) -> None:
    """Add the proof routes to the service."""
    @app.get("/keys")
    def keys() -> dict[str, list[str]]:
        """The C2SP signed-note verifier keys (`name+keyid+base64(0x01 || Ed25519 public
        key)`) that this service's checkpoints are signed with. Who: anyone."""
        return {"keys": refit.keys.verifier_keys()}

    @app.get("/campaigns/{campaign}/checkpoint", response_class=PlainTextResponse,
             responses={200: {"content": {"text/plain": {}}}})
    def checkpoint(campaign: str, credentials: Credentials,
                   size: Size = None) -> PlainTextResponse:
        """The signed checkpoint of the campaign's log (C2SP tlog-checkpoint: origin, tree
        size = the campaign's version, base64 Merkle root, a blank line, the signature);
        `?size=N`: of the log when it had N events (the one both sides co-sign). Who: the
        director, each side and the observers (it holds no secret)."""
        ident, _ = caller_for(refit, campaign, credentials)
        if size is not None:
            return PlainTextResponse(checkpoint_at(refit.proofs, ident, size))
        return PlainTextResponse(refit.proofs.checkpoint(ident))

    @app.get("/campaigns/{campaign}/proof",
             response_model=InclusionAnswer | ConsistencyAnswer, response_model_by_alias=True)
    def proof(campaign: str, credentials: Credentials,
              version: Annotated[int | None, Query(ge=1, le=10**9)] = None,
              first: Annotated[int | None, Query(alias="from", ge=1, le=10**9)] = None,
              size: Size = None) -> dict[str, Any]:
        """`?version=N&size=M`: the RFC 6962 inclusion proof of event N in the tree of M
        events ({leaf_index, tree_size, leaf_hash, hashes, root}, hex); `?from=M1&size=M2`:
        the consistency proof of the tree of M1 events within that of M2. `size` defaults
        to the campaign's version. Who: the director, each side and the observers (a leaf
        covers a secret's commitment, never its content)."""
        ident, _ = caller_for(refit, campaign, credentials)
        if version is not None and first is None:
            return refit.proofs.inclusion(ident, version, size).as_dict()
        if first is not None and version is None:
            return refit.proofs.consistency(ident, first, size).as_dict()
        raise InvalidCommand("give either version (an inclusion proof) or from (a "
                             "consistency proof)", field="version")

    @app.post("/campaigns/{campaign}/verify", response_model=ReceiptFinding)
    @gated(campaign_gate(refit))
    def verify_receipt(campaign: str, credentials: Credentials,
                       receipt: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
        """A receipt (or a command's answer holding one) checked with the service's key
        and against the campaign's stored history now: `ok`, or the first `version` it
        no longer holds (an edit, a truncated tail, a fork) and the `problem`. Who: the
        director, each side and the observers."""
        ident, _ = caller_for(refit, campaign, credentials)
        return receipt_finding(receipt, refit.keys.verifier_keys()[0],
                               stored_leaves(refit.store, ident))
