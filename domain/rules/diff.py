"""What changed between two versions of a module's data, as a short list a person reads:
which table, row and value (`tables[3.6181].bands[2].result`), before and after. A
campaign's upgrade to new data (errata) records it; both documents stay in the store by
their hashes, so the list names where they differ and the values small enough to read."""

from __future__ import annotations

from typing import Any

from domain.hashing import canonical, is_plain

MAX_CHANGES = 200  # an upgrade event stays small: past this the list says how many more
MAX_VALUE = 300  # a value up to this many characters of JSON is shown; a larger one is not
_ABSENT = object()


def changes(before: Any, after: Any) -> list[dict[str, Any]]:
    """Each place where `after` differs from `before`: added, removed or changed."""
    found: list[dict[str, Any]] = []
    _walk(before, after, "", found)
    if len(found) > MAX_CHANGES:
        found = [*found[:MAX_CHANGES], {"at": "", "change": "more",
                                        "count": len(found) - MAX_CHANGES}]
    return found


def _walk(before: Any, after: Any, at: str, found: list[dict[str, Any]]) -> None:
    if before == after and type(before) is type(after):
        return
    if isinstance(before, dict) and isinstance(after, dict):
        _pairs([(key, before.get(key, _ABSENT), after.get(key, _ABSENT))
                for key in [*before, *(k for k in after if k not in before)]],
               at, ".", found)
        return
    if isinstance(before, list) and isinstance(after, list):
        old, new = _by_id(before), _by_id(after)
        if old is not None and new is not None:  # rows and tables, told apart by their id
            _pairs([(key, old.get(key, _ABSENT), new.get(key, _ABSENT))
                    for key in [*old, *(k for k in new if k not in old)]], at, "[", found)
            return
        if len(before) == len(after):
            _pairs([(str(i), b, a) for i, (b, a) in enumerate(zip(before, after, strict=True))],
                   at, "[", found)
            return
    found.append(_change(at, "changed", before, after))


def _pairs(pairs: list[tuple[str, Any, Any]], at: str, how: str,
           found: list[dict[str, Any]]) -> None:
    for key, old, new in pairs:
        where = f"{at}[{key}]" if how == "[" else (f"{at}.{key}" if at else key)
        if old is _ABSENT:
            found.append(_change(where, "added", _ABSENT, new))
        elif new is _ABSENT:
            found.append(_change(where, "removed", old, _ABSENT))
        else:
            _walk(old, new, where, found)


def _by_id(items: list[Any]) -> dict[str, Any] | None:
    """A list's items by their `id`, if each is an object with its own id."""
    if not items or not all(isinstance(i, dict) and isinstance(i.get("id"), str)
                            for i in items):
        return None
    keyed = {item["id"]: item for item in items}
    return keyed if len(keyed) == len(items) else None


def _change(at: str, change: str, before: Any, after: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"at": at, "change": change}
    for name, value in (("before", before), ("after", after)):
        # An event holds no float (README, 'Canonical JSON'): such a value is not shown.
        if value is not _ABSENT and is_plain(value) and len(canonical(value)) <= MAX_VALUE:
            entry[name] = value
    return entry
