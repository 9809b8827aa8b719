"""`python -m api.cli`, as `refit`."""

from api.cli import main

main()
