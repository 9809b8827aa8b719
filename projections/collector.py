"""The cyclic garbage collector paused while a batch is decoded, folded and encoded."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic GC passes while a batch is decoded, folded and encoded (not while it waits
    for the database): the fold makes no cycles,
    and passes over thousands of fresh dicts cost a fifth of a rebuild (see bench/).
    Counted, so threads folding at once leave the collector as they found it."""
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()
