"""One place that turns every refusal into CONTRACT's error body."""

from __future__ import annotations

from typing import Any

from eventsourcing import persistence
from pydantic import ValidationError

from domain.errors import CampaignNotFound, RefitError
from infra.drivers import DatabaseAway, outage_errors

STATUS = {"unauthorized": 401, "forbidden": 403, "not_found": 404, "conflict": 409,
          "history_unreadable": 409, "busy": 503, "streams_full": 503}
# A database that does not answer now (down, restarting, its connections cut, a file
# locked or unopenable): eventsourcing's wrappers and the drivers' own errors, which the
# advisory lock (infra/store_lock.py) and the views' SQL raise unwrapped, and a pool's own
# refusal while it cannot connect (infra/healing_pool.py). AdminShutdown,
# PoolTimeout and "database is locked" are among their subclasses or instances. psycopg's
# are named once it is imported (every=True: all of them), as nothing else raises them.
def outages(every: bool = False) -> tuple[type[Exception], ...]:
    """The errors of a database that does not answer now."""
    return (persistence.OperationalError, persistence.InterfaceError, DatabaseAway,
            *outage_errors(every))


RETRY_AFTER = 2  # seconds: a restarting database is back in a few; a turn frees sooner
OUTAGE_MESSAGE = ("cannot use the database now: it is not answering; try again (after "
                  "Retry-After seconds). "
                  "A command sent again with the same Idempotency-Key is safe: if the "
                  "first was recorded, the repeat answers its answer and appends nothing")


def outage(error: BaseException) -> bool:
    """Whether the error is (or was raised from) a database that does not answer now."""
    seen: set[int] = set()
    found: BaseException | None = error
    while found is not None and id(found) not in seen:
        if isinstance(found, outages()):
            return True
        seen.add(id(found))
        found = found.__cause__ or found.__context__
    return False


def status_of(error: Exception) -> int:
    """The HTTP status of a refusal (CONTRACT "Errors"); 422 for what the rules refuse;
    503 for every database outage, never 500."""
    if isinstance(error, CampaignNotFound):
        return 404
    if isinstance(error, RefitError):
        return STATUS.get(error.code, 422)
    if isinstance(error, ValidationError):
        return 422
    if isinstance(error, persistence.PersistenceError) or outage(error):
        return 503
    return 500


def headers_of(error: Exception) -> dict[str, str] | None:
    """A 503's Retry-After (CONTRACT "Health"): every 503 is worth trying again."""
    return {"Retry-After": str(RETRY_AFTER)} if status_of(error) == 503 else None


INTERNAL = {"error": {"code": "internal", "message": "the service failed on this request",
                      "rule": None, "field": None}}


def http_body(error: Exception) -> dict[str, Any]:
    """The body a service answers: a refusal's own, but never an unexpected failure's text."""
    status = status_of(error)
    if outage(error):  # the driver's text names hosts and files: the service's log has it
        return _body("unavailable", OUTAGE_MESSAGE, None, None)
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
        said = validation_words(first)
        message = f"{field}: {said}" if field else said
        return _body("invalid_command", message, None, field)
    if isinstance(error, ValueError):  # bad input read by hand (e.g. the CLI's JSON)
        return _body("invalid", str(error), None, None)
    if isinstance(error, persistence.PersistenceError) or outage(error):  # the CLI's user
        # owns the database: the driver's reason is theirs to read (never the HTTP caller's)
        return _body("storage", f"cannot use the database: {error}", None, None)
    return INTERNAL  # never the exception's own text


# pydantic's bounds, said as a player says them ("6 or less", not "less than or equal to 6")
BOUNDS = {"greater_than_equal": ("ge", "{} or more"), "less_than_equal": ("le", "{} or less"),
          "greater_than": ("gt", "more than {}"), "less_than": ("lt", "less than {}")}


def validation_words(first: Any) -> str:
    """pydantic's message in a player's words: an empty text (blank once trimmed, as the
    pages send it) says what is missing rather than counting characters, a bound says the
    number, a whole number is asked for as one; the rest "must be" what pydantic says."""
    kind, ctx = first["type"], first.get("ctx") or {}
    if kind == "string_too_short" and ctx.get("min_length") == 1:
        return "left empty"
    if kind in BOUNDS and BOUNDS[kind][0] in ctx:
        key, words = BOUNDS[kind]
        return "must be " + words.format(ctx[key])
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return "must be a whole number"
    if kind == "too_short" and "min_length" in ctx:  # a list: "at least 1 item"
        return f"give at least {ctx['min_length']}"
    if kind == "string_too_long" and "max_length" in ctx:
        return f"at most {ctx['max_length']} characters"
    if kind == "string_type":
        return "must be text"
    if kind in ("bool_type", "bool_parsing"):
        return "must be true or false"
    said = str(first["msg"])
    return "must be " + said.removeprefix("Input should be ") \
        if said.startswith("Input should be ") else said


def _body(code: str, message: str, rule: str | None, field: str | None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "rule": rule, "field": field}}
