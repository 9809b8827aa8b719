"""`refit webhook` (issue 18 item 7): an operator sets, reads (masked) and removes a
campaign's chat webhook from the command line, as its director does over HTTP; a URL the
service may not post to is refused naming the field, and the URL is never printed whole."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from api.cli import app
from tests.cli.test_cli import db, refit
from tests.helpers.receiver import TOKEN

__all__ = ["db"]  # the test's own database (a fixture)
runner = CliRunner()
URL = f"https://discord.com/api/webhooks/42/{TOKEN}"


def test_a_webhook_is_set_read_masked_and_removed(db: str) -> None:
    created = refit("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "W",
                    "--db", db)
    assert isinstance(created, dict)
    campaign = created["id"]
    said = runner.invoke(app, ["webhook", campaign, URL, "--db", db])
    assert said.exit_code == 0 and TOKEN not in said.output
    assert refit("webhook", campaign, "--db", db) == {
        "set": True, "url": "https://discord.com/api/…", "since": created["version"],
        "delivered": None, "error": None, "pending": 0}
    assert refit("webhook", campaign, "--remove", "--db", db)["set"] is False
    assert refit("webhook", campaign, "--db", db)["set"] is False


def test_a_url_it_may_not_post_to_is_refused_naming_the_field(db: str) -> None:
    created = refit("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "W",
                    "--db", db)
    assert isinstance(created, dict)
    refused = runner.invoke(app, ["webhook", created["id"], "https://192.168.1.4/hook",
                                  "--db", db, "--json"])
    assert refused.exit_code != 0
    assert json.loads(refused.stdout)["error"]["field"] == "url"
    assert refit("webhook", created["id"], "--db", db)["set"] is False
