"""A hub on its own thread and asyncio loop, for the simulator, the bench and the tests (the
``venue`` command runs the hub on its main thread instead)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from companion.venue.hub import Hub

T = TypeVar("T")


class HubThread:
    def __init__(self, hub: Hub, serve: Callable[[Hub], Any] | None = None) -> None:
        self.hub = hub
        self.serve = serve  # an extra coroutine factory run beside the hub (the boards' web server)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self._task: asyncio.Task[Any] | None = None

    def start(self) -> HubThread:
        self._thread = threading.Thread(target=self._run, name="venue-hub", daemon=True)
        self._thread.start()
        self._started.wait(10)
        return self

    def _run(self) -> None:
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        self._task = self.loop.create_task(self.hub.run())
        extra = self.loop.create_task(self.serve(self.hub)) if self.serve else None
        self.loop.call_soon(self._started.set)
        try:
            self.loop.run_until_complete(self._task)
        finally:
            if extra is not None:
                extra.cancel()
                try:
                    self.loop.run_until_complete(extra)
                except (asyncio.CancelledError, Exception):
                    pass
            self.loop.close()

    def call(self, fn: Callable[..., T], *args: Any, timeout: float = 120, **kwargs: Any) -> T:
        """Run ``fn`` on the hub's loop (where the hub's state lives) and return its answer."""
        assert self.loop is not None
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def go() -> None:
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # handed back to the caller
                future.set_exception(exc)

        self.loop.call_soon_threadsafe(go)
        return future.result(timeout)

    def stop(self) -> None:
        if self.loop is not None and not self.loop.is_closed():
            try:
                self.loop.call_soon_threadsafe(self.hub.stop)
            except RuntimeError:
                pass
        if self._thread is not None:
            self._thread.join(15)
