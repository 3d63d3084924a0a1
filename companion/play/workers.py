"""One small pool for the companion's background jobs: loading the cards, checking a deck,
writing a tag. Front ends submit work here instead of starting threads of their own, so that
the window or the event loop never waits and jobs never pile up beyond two at a time."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

log = logging.getLogger(__name__)


class Workers:
    def __init__(self, size: int = 2) -> None:
        self._pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="companion-worker")

    def submit(self, fn: Callable[..., Any], *args: Any,
               done: Callable[[Any, BaseException | None], None] | None = None) -> Future:
        """Run ``fn(*args)`` in the background; ``done(result, error)`` is called in the worker
        thread when it ends (a front end hops to its own thread from there)."""
        future = self._pool.submit(fn, *args)
        if done is not None:
            def finished(f: Future) -> None:
                error = f.exception()
                if error is not None:
                    log.error("background job %s failed", getattr(fn, "__name__", fn), exc_info=error)
                try:
                    done(None if error else f.result(), error)
                except Exception:
                    log.exception("the end of background job %s failed", getattr(fn, "__name__", fn))

            future.add_done_callback(finished)
        return future

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
