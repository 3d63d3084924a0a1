"""Plain callbacks for the core's news: no framework, no threads of their own.

An observer is called in the thread that made the change; a front end that must act on its
own thread (Kivy's main loop, the web server's event loop) hops there itself.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


class Observers:
    def __init__(self, *events: str) -> None:
        self._events = frozenset(events)
        self._subs: dict[str, list[Callable[..., Any]]] = {e: [] for e in events}

    def subscribe(self, event: str, fn: Callable[..., Any]) -> Callable[[], None]:
        """Call ``fn`` at each ``event``; returns what unsubscribes it."""
        if event not in self._events:
            raise ValueError(f"no such event: {event} (known: {', '.join(sorted(self._events))})")
        self._subs[event].append(fn)

        def unsubscribe() -> None:
            if fn in self._subs[event]:
                self._subs[event].remove(fn)

        return unsubscribe

    def emit(self, event: str, *args: Any) -> None:
        # One broken observer (a screen, a phone that went away) must not stop the others or the game.
        for fn in list(self._subs[event]):
            try:
                fn(*args)
            except Exception:
                log.exception("an observer of %s failed", event)
