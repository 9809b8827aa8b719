"""The web client (CONTRACT 'Web pages'): server-rendered pages over the same reads and
commands as the JSON API, with a signed session cookie (api/session.py)."""

from api.web.pages import web_routes

__all__ = ["web_routes"]
