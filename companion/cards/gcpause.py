"""The cyclic garbage collector held off while the card library makes its many objects.

A cold build of the card index makes hundreds of thousands of objects (a card source's own,
the cards, the search's tables) and frees few of them: the collector, run every few hundred
allocations, walked them again and again (a sixth of the build's CPU) and found no garbage.
Held off, it walks them once, at its first run after the build.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside; the collector as it was after (one held off already, by a
    caller or another thread, is not turned on by this one)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
