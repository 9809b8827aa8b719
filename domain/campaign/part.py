"""A part of the Campaign aggregate: one concern's state and the rules that read it.

A part holds plain values only (dicts, lists, str, int, bool, None), so a copy is cheap,
a snapshot stores it as JSON (by its transcoding, below) and an undo restores it: all of
it but the fields the part keeps by undo (a revealed seed stays spent, a replaced token
stays dead).
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

from eventsourcing.persistence import Transcoding

PARTS: dict[str, type[Part]] = {}  # the name a part is stored by -> its class
_LEAVES = frozenset({str, int, bool, type(None)})


def copied(value: Any) -> Any:
    """A deep copy of state made of parts, dicts, lists and immutable values (str, int,
    bool, None, UUID, datetime, frozen events, the bound rules module)."""
    kind = type(value)
    if kind in _LEAVES:  # most of a campaign's values: checked first, as they are copied
        return value
    # A leaf inside is taken as it is, without a call: a command copies the whole campaign.
    if kind is dict:
        return {key: item if type(item) in _LEAVES else copied(item)
                for key, item in value.items()}
    if kind is list:
        return [item if type(item) in _LEAVES else copied(item) for item in value]
    if kind is tuple:
        return tuple(item if type(item) in _LEAVES else copied(item) for item in value)
    if kind is set:
        return set(value)
    if isinstance(value, Part):
        return value.copy()
    return value


class Part:
    """One concern of a campaign: its state, named for storage by `name`."""

    name: ClassVar[str]
    kept_by_undo: ClassVar[frozenset[str]] = frozenset()  # fields an undo never turns back
    # Fields that only ever hold a dict of str to leaves (str, int, bool, None): a copy
    # takes them with dict.copy, in C, rather than item by item. A roll adds to four such
    # dicts, which grow with every slot rolled on the CG Date (tests/domain/test_copy.py
    # checks the declaration against a played campaign).
    flat: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        PARTS[cls.name] = cls

    @classmethod
    def restore(cls, state: dict[str, Any]) -> Self:
        """The part with this state (as stored, copied or upcast)."""
        part = object.__new__(cls)
        part.__dict__.update(state)
        return part

    def copy(self) -> Self:
        """A deep copy (eventsourcing copies a cached campaign for every command)."""
        flat = self.flat
        return self.restore({key: value.copy() if key in flat else
                             value if type(value) in _LEAVES else copied(value)
                             for key, value in self.__dict__.items()})

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self.copy()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    __hash__ = None  # type: ignore[assignment]  # mutable state

    def __repr__(self) -> str:
        return f"{type(self).__name__}({vars(self)!r})"

    def without_kept(self) -> Self:
        """The part as an undo stores it: without the fields it keeps by undo."""
        return self.restore({k: copied(v) for k, v in vars(self).items()
                             if k not in self.kept_by_undo})

    def undone_to(self, earlier: Part) -> Self:
        """The part as an undo to `earlier` leaves it: earlier's state, this one's kept
        fields."""
        kept = {k: copied(v) for k, v in vars(self).items() if k in self.kept_by_undo}
        return self.restore(copied(vars(earlier)) | kept)


class PartTranscoding(Transcoding):
    """A part stored as its state, under `refit.NAME` (eventsourcing's JSON transcoder)."""

    def __init__(self, kind: type[Part]) -> None:
        self.type = kind
        self.part = kind
        self.name = f"refit.{kind.name}"

    def encode(self, obj: Any) -> Any:
        """The part's state (its values are plain)."""
        return dict(vars(obj))

    def decode(self, data: Any) -> Any:
        """The part, from its stored state."""
        return self.part.restore(data)


def part_transcodings() -> list[PartTranscoding]:
    """A transcoding per part, for each application that reads snapshots or undos."""
    return [PartTranscoding(kind) for kind in PARTS.values()]
