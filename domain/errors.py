"""Every refusal Refit answers, in one place: each names the rule (by number) or the field
it broke, and its `code` (api/errors.py maps codes to HTTP statuses). A refusal appends
nothing."""

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


class VersionConflict(RuleViolation):
    """The campaign moved on since the version the caller expected (If-Match)."""

    code = "conflict"


class CampaignExists(RefitError):
    """The campaign an export (or a new-campaign form sent again) names is already here."""

    code = "conflict"


class ImportRefused(RefitError):
    """An export that does not verify, or cannot be rebuilt, naming where."""

    code = "import_refused"


class Unauthorized(RefitError):
    """No token, or one this campaign (or the service) does not know."""

    code = "unauthorized"


class Forbidden(RefitError):
    """A known token whose role may not do this."""

    code = "forbidden"


class CampaignBusy(RefitError):
    """Another command has held the campaign's turn, or commands every command thread,
    for longer than REFIT_TURN_WAIT."""

    code = "busy"

    @classmethod
    def after(cls, wait: float, holder: str = "another command") -> CampaignBusy:
        """The refusal once the turn has not come within `wait` seconds."""
        return cls(f"{holder} has held this campaign for {wait:g} s; try again")

    @classmethod
    def threads_taken(cls, wait: float) -> CampaignBusy:
        """The refusal once no command thread came free within `wait` seconds."""
        return cls(f"the service's commands have held every command thread for {wait:g} s; "
                   "try again")


class StreamsFull(RefitError):
    """This process already holds REFIT_LIVE_MAX_STREAMS live streams open."""

    code = "streams_full"


class ModuleFileError(ValueError):
    """An owner's module file that does not validate, naming the file and field."""


class HistoryUnreadable(RefitError):
    """A stored event of this campaign cannot be read (its bytes, JSON or type damaged):
    the campaign is out of service until it is mended; other campaigns are not touched."""

    code = "history_unreadable"

    def __init__(self, version: int) -> None:
        super().__init__(f"the stored history of this campaign cannot be read at version "
                         f"{version}: the campaign is out of service until that event is "
                         f"mended (verify names it); other campaigns are not affected")
        self.version = version
