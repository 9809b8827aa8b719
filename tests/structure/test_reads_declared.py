"""Each read is declared once (infra/queries.py) and served from that declaration by the
HTTP service and the command line."""

from __future__ import annotations

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.app import create_app
from api.cli import app as cli
from api.cli.reads import READ_COMMANDS
from api.render import TEXT
from infra.queries import READS
from infra.settings import Settings


def test_every_declared_read_is_a_route_of_the_service(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:  # its Refit closed (its runner with it)
        paths = client.get("/openapi.json").json()["paths"]
    for read in READS:
        route = paths[f"/campaigns/{{campaign}}{read.path}"]["get"]
        assert route["summary"] == read.summary
        assert "200" in route["responses"] and "404" in route["responses"]


def test_every_read_with_a_command_is_a_refit_command_with_its_terminal_text() -> None:
    listed = CliRunner().invoke(cli, ["--help"], terminal_width=200).output
    for read in READS:
        if read.command is not None:
            assert f" {read.command} " in listed, read.command
            assert read.name in TEXT, read.name
    assert {r.name for r in READS if r.command} == set(TEXT)


def test_the_command_lines_list_of_reads_is_the_declared_one() -> None:
    # `refit --help` lists the read commands from api/cli/reads.py, without importing them.
    assert {r.command: r.summary for r in READS if r.command is not None} == READ_COMMANDS
