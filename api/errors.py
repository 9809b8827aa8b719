"""One place that turns every refusal into CONTRACT's error body."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import PersistenceError
from pydantic import ValidationError

from domain.errors import CampaignNotFound, RefitError

STATUS = {"unauthorized": 401, "forbidden": 403, "not_found": 404, "conflict": 409,
          "view_behind": 503, "busy": 503}


def status_of(error: Exception) -> int:
    """The HTTP status of a refusal (CONTRACT "Errors"); 422 for what the rules refuse."""
    if isinstance(error, CampaignNotFound):
        return 404
    if isinstance(error, RefitError):
        return STATUS.get(error.code, 422)
    if isinstance(error, ValidationError):
        return 422
    if isinstance(error, PersistenceError):
        return 503
    return 500


INTERNAL = {"error": {"code": "internal", "message": "the service failed on this request",
                      "rule": None, "field": None}}


def http_body(error: Exception) -> dict[str, Any]:
    """The body a service answers: a refusal's own, but never an unexpected failure's text."""
    status = status_of(error)
    return error_body(error) if status < 500 or status == 503 else INTERNAL


def error_body(error: Exception) -> dict[str, Any]:
    """`{"error": {"code", "message", "rule", "field"}}` for a refused command or read."""
    if isinstance(error, RefitError):
        return _body(error.code, error.message, error.rule, error.field)
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or None
        if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
            field = "type"
        message = f"{field}: {first['msg']}" if field else first["msg"]
        return _body("invalid_command", message, None, field)
    if isinstance(error, ValueError):  # bad input read by hand (e.g. the CLI's JSON)
        return _body("invalid", str(error), None, None)
    if isinstance(error, PersistenceError):
        return _body("storage", f"cannot use the database: {error}", None, None)
    return INTERNAL  # never the exception's own text


def _body(code: str, message: str, rule: str | None, field: str | None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "rule": rule, "field": field}}
