"""Refit's infrastructure: settings, persistence, module files and the application."""
