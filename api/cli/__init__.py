"""The `refit` command line: a sub-app per group of subcommands (each imports only `core`),
put together in `root`."""

from api.cli.root import app, main

__all__ = ["app", "main"]
