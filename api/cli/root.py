"""The `refit` command: the sub-apps put together under one top-level app."""

from __future__ import annotations

import os
import sys

import typer

from api.cli import (
    audit,
    campaigns,
    commands,
    core,
    cosign,
    modules,
    proofs,
    reads,
    service,
    transfer,
    webhook,
)


# Plain help, not rich's panels: importing rich costs `refit --help` more than all the rest
# (issue 17, item 6). A traceback is never pretty-printed either, for the same reason.
def _top() -> typer.Typer:
    return typer.Typer(help="Refit: the ASL Campaign Game ledger.", no_args_is_help=True,
                       add_completion=False, rich_markup_mode=None,
                       pretty_exceptions_enable=False)


app = _top()
# A read (`refit status ID`) runs in an app of the reads alone: making every command's
# click object costs each start about 30 ms, the reads' 6 (issue 17, item 6).
reads_only = _top()
reads_only.add_typer(reads.app)
# A sub-app without a name (reads, commands, ...) gives its commands to `refit` itself, so
# `refit roster ID` stays as it was; a named one (campaign, module) is a group. Commands
# are listed in `refit --help` in the order added.
for part in (reads, commands, service, transfer, audit, campaigns, modules, cosign, proofs,
             webhook):
    app.add_typer(part.app)


def main() -> None:
    """Console entry point."""
    args = sys.argv[1:2]
    # pydantic looks for plugins in every installed package's metadata when it builds its
    # first model: 20-30 ms of each start (issue 17, item 6) for plugins Refit does not use.
    # Not for the service, whose start is once and where an operator may use one; one
    # who does elsewhere sets the variable to a list, and this leaves it so.
    if args != ["serve"]:
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    core.Process.one_command = True
    (reads_only if args and args[0] in reads.READ_COMMANDS else app)(prog_name="refit")
