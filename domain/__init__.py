"""Refit's domain: the Campaign aggregate, dice, rule tables and commands (no I/O)."""
