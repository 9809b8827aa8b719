"""Domain errors: each names the rule (by number) or the field it broke."""

from __future__ import annotations


class RefitError(Exception):
    """A command the rules or the schema refuse; nothing is appended."""

    code = "refused"

    def __init__(self, message: str, *, rule: str | None = None, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.field = field

    def __str__(self) -> str:
        where = f" [{self.rule}]" if self.rule else ""
        return f"{self.message}{where}"


class RuleViolation(RefitError):
    """The rules of the module forbid this."""

    code = "rule_violation"


class InvalidCommand(RefitError):
    """The command is malformed or names something the campaign lacks."""

    code = "invalid_command"


class MissingTable(RefitError):
    """A step needs a table nobody supplied."""

    code = "missing_table"


class CampaignNotFound(RefitError):
    """No campaign has this id."""

    code = "not_found"
