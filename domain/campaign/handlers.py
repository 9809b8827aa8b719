"""What handles each command: a Campaign method or a procedure of a part or a module,
declared with `handles` where it is written (one handler per command type)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from domain import commands as cmd

Handler = Callable[[Any, Any, str], None]  # (campaign, command, actor)
HANDLERS: dict[str, Handler] = {}  # command type -> what handles it (one each)
F = TypeVar("F", bound=Handler)


def handles(*kinds: type[cmd.Command]) -> Callable[[F], F]:
    """Declare what handles these commands: a Campaign method, or a part's or a module's
    procedure (a function taking the campaign, the command and the actor)."""
    def register(handler: F) -> F:
        for kind in kinds:
            HANDLERS[cmd.type_of(kind)] = handler
        return handler
    return register
