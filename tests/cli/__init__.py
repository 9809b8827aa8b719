"""The `refit` command line: commands, the demo, terminal tables."""
