"""Pausing the cyclic garbage collector while many acyclic objects are made."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["no_gc"]


@contextmanager
def no_gc(promote: bool = False) -> Iterator[None]:
    """Suspend the cyclic GC for the block: parsing a big save or folding a long log
    builds tens of thousands of objects and no reference cycles, and meanwhile the GC
    would only rescan an ever larger heap (quadratic; it halves the load time of a
    large session).

    ``promote``: on the way out, move every object the GC tracks to its oldest
    generation (``gc.freeze()`` then ``gc.unfreeze()``). Without it the first young
    collections after opening a long session scan the whole new state (tens of
    milliseconds each, right when the UI draws its first frame); with it only a
    full collection ever looks at them, as it would sooner or later anyway. Nothing
    stays frozen."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if promote:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
