"""No metadata leaks on the command line (issue 15 item 7): every `refit` read made as the
British (`--side`, `--as`) shows the German's sealed facts as one neutral type, and no
token material."""

from __future__ import annotations

import hashlib
import json

from typer.testing import CliRunner

from api.cli import app
from infra.queries import READS
from tests.cli.test_cli import db, exported, refit

__all__ = ["db"]  # the test's own database (a fixture)
runner = CliRunner()


def played(db: str) -> tuple[str, list[str]]:
    """An ABtF CG I where the German is credited CPP and buys an RG, both sealed; its id
    and the SHA-256 of each role's token."""
    created = refit("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "S",
                    "--db", db)
    assert isinstance(created, dict)
    campaign, tokens = created["id"], created["tokens"]
    refit("command", campaign, '{"type": "credit_cpp", "side": "German", "amount": 9, '
          '"reason": "Initial Scenario CPP"}', "--db", db)
    refit("purchase", campaign, "--side", "German", "--rg", "I1", "--kg", "K", "--db", db)
    roles = [tokens["director"], tokens["observer"], *tokens["sides"].values()]
    return campaign, [hashlib.sha256(token.encode()).hexdigest() for token in roles]


def printed(*args: str) -> str:
    """What a `refit` read prints."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_every_cli_read_as_the_british_keeps_the_token_hashes_out(db: str) -> None:
    campaign, hashes = played(db)
    texts = [printed(read.command, campaign, "--side", "British", "--db", db, *json_flag)
             for read in READS if read.command is not None for json_flag in ((), ("--json",))]
    texts += [printed("forms", campaign, "--as", "British", "--db", db),
              printed("report", campaign, "--as", "British", "--db", db),
              "\n".join(exported(db, campaign, "--as", "British"))]
    for text in texts:
        assert '"tokens"' not in text and not any(h[:12] in text for h in hashes), text
    assert any(h in "\n".join(exported(db, campaign)) for h in hashes)  # the director's


def test_the_british_export_names_the_german_secrets_by_one_neutral_type(db: str) -> None:
    campaign, _ = played(db)
    director = [json.loads(line) for line in exported(db, campaign)[1:-1]]
    british = [json.loads(line) for line in exported(db, campaign, "--as", "British")[1:-1]]
    assert {"CPPCredited", "RGPurchased"} <= {r["type"] for r in director if r["sealed"]}
    assert {r["type"] for r in british} == \
        {r["type"] for r in director if not r["sealed"]} | {"Sealed"}


def test_a_viewer_that_is_no_side_of_the_campaign_is_refused_by_every_command(db: str) -> None:
    campaign, _ = played(db)  # a typo must not hand a side a file without its own secrets
    for args in (["export", campaign], ["forms", campaign], ["report", campaign],
                 ["roster", campaign], ["diff", campaign, "--from", "1"]):
        for option in ("--as", "--side"):  # one option, by either name
            for who in ("german", "Germans"):
                done = runner.invoke(app, [*args, option, who, "--db", db])
                assert done.exit_code == 2, (args, option, done.output)
                assert f"'{who}' is not a side of this campaign: British, German" in \
                    done.output, done.output
            assert runner.invoke(app, [*args, option, "German", "--db", db]).exit_code == 0
    assert printed("export", campaign, "--as", "observer", "--db", db)  # as observers read
