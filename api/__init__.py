"""Refit's edges: the `refit` command line and the HTTP app factory."""
