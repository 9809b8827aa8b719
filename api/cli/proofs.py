"""`refit verify-receipt`: a receipt kept from a command's answer, checked offline (no
database): the checkpoint's signature, and each version's inclusion proof in it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from api.cli.core import Db, Json, emit, guarded, print_receipt

app = typer.Typer()


@app.command("verify-receipt")
def verify_receipt(
        file: Annotated[Path, typer.Argument(help="The receipt (or a command's answer).")],
        key: Annotated[str | None, typer.Option(
            "--key", help="The service's C2SP verifier key (GET /keys); without it, the "
                          "keys the receipt names (which proves nothing alone).")] = None,
        db: Db = None, as_json: Json = False) -> None:
    """Check a receipt offline: the checkpoint's signature by the key, and that each
    version's inclusion proof leads from its leaf hash to the checkpoint's root. (It
    reads no database: --db is taken, as by every subcommand, and left alone.)"""
    from infra.receipts import load_receipt, receipt_finding

    # A file that is missing or not JSON is a refusal (exit 2), as `verify --receipt`
    # says it; a receipt read that does not hold is BAD (exit 1).
    found = receipt_finding(guarded(as_json, lambda: load_receipt(file)), key, None, str(file))
    emit(as_json, found, lambda: print_receipt(found))
    if not found["ok"]:
        raise typer.Exit(1)
