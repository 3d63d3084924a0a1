"""Shared pieces of the venue tests: a real Mosquitto on a free loopback port, with password and
ACL files written in a temporary folder, stopped by its PID (one per test module, an event per
test: the fixtures are in conftest.py), the waits, a flaky network."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.venue import topics
from companion.venue.broker import Broker, BrokerMissing, find_mosquitto

EVENT = "test-night"
ROOT = Path(__file__).resolve().parents[2]  # the worktree: child processes import this code


def _have_mosquitto() -> bool:
    try:
        find_mosquitto()
        return True
    except BrokerMissing:
        return False


needs_mosquitto = pytest.mark.skipif(not _have_mosquitto(), reason="Debian package mosquitto not installed")


@contextlib.contextmanager
def running(broker: Broker) -> Iterator[Broker]:
    """A broker started for a fixture's time, stopped by its PID whatever the test did."""
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


class EventsBroker(Broker):
    """One Mosquitto for a whole test module, its ACL written for many events (each event's own
    rules, as the product writes them): each test plays an event of its own on it, so nothing a
    test leaves (retained messages, queued sessions) reaches the next, and the module starts one
    broker instead of one per test."""

    def __init__(self, folder: Path, events: list[str], **kw) -> None:
        self.events = events
        self.unused = iter(events)
        super().__init__(folder, events[0], **kw)

    def write_files(self) -> None:
        super().write_files()
        (self.folder / "acl").write_text("\n".join(topics.acl(e, self.tables) for e in self.events), encoding="utf-8")

    def next_event(self) -> EventOn:
        event = next(self.unused, None)
        assert event is not None, "more tests than events on this module's broker: raise EVENTS_PER_MODULE"
        return EventOn(self, event)


class EventOn(Broker):
    """A test's event on its module's broker: the broker's port, users and files, the test's event.
    Stopping or starting it is refused: a test about that asks for a broker of its own."""

    def __init__(self, shared: Broker, event: str) -> None:  # no Broker.__init__: nothing to start
        self.__dict__.update(shared.__dict__)
        self.event = event
        self.proc = None
        self.adopted = None

    def start(self, *args, **kwargs):  # type: ignore[override]
        raise AssertionError("this broker is the module's: a test that stops or starts one asks for own_broker")

    stop = reload = start_or_adopt = start  # type: ignore[assignment]


EVENTS_PER_MODULE = 64


def module_events(name: str = EVENT) -> list[str]:
    return [f"{name}-{i}" for i in range(1, EVENTS_PER_MODULE + 1)]


def run(coro, timeout: float = 60.0):
    """Run a coroutine to its end on a fresh event loop (the tests are synchronous)."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def wait_for(check, timeout: float = 30.0, what: str = "", every: float = 0.05) -> None:
    """Poll until ``check()`` is true (the network is asynchronous); fail with ``what`` after ``timeout``.
    The first looks come soon after one another and then spread out to one every ``every`` seconds:
    a check that asks a child process over HTTP costs both sides CPU, so those pass a larger
    ``every`` (it is how often to look, never a limit on how long things may take)."""
    import time

    deadline = time.monotonic() + timeout
    pause = 0.01
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except (KeyError, TypeError, IndexError):
            pass  # what it looks at has not arrived yet
        time.sleep(pause)
        pause = min(pause * 1.5, every)
    raise AssertionError(f"timed out waiting for {(what() if callable(what) else what) or check}")


class FlakyProxy:
    """Flaky Wi-Fi between tables and the broker: a TCP proxy on loopback that delays every chunk
    and cuts each connection after a random while (a table's link must reconnect and resend)."""

    def __init__(self, target_port: int, delay: float = 0.02, cut_after: tuple[float, float] = (0.3, 1.5),
                 seed: int = 7) -> None:
        import random
        import threading

        self.target_port = target_port
        self.delay = delay
        self.cut_after = cut_after
        self.rng = random.Random(seed)
        self.port = 0
        self.cuts = 0
        self.connections = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="flaky-proxy")

    def start(self) -> FlakyProxy:
        self._thread.start()
        self._ready.wait(10)
        return self

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        server = self._loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._server = server
        self._ready.set()
        self._loop.run_forever()
        server.close()
        self._loop.run_until_complete(server.wait_closed())
        self._loop.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(4096):
                    await asyncio.sleep(self.delay)
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass

        tasks = [asyncio.ensure_future(pipe(reader, up_w)), asyncio.ensure_future(pipe(up_r, writer))]
        await asyncio.wait(tasks, timeout=self.rng.uniform(*self.cut_after), return_when=asyncio.FIRST_COMPLETED)
        if not all(t.done() for t in tasks):
            self.cuts += 1
        for t in tasks:
            t.cancel()
        for w in (writer, up_w):
            w.transport.abort()  # a cut, not a polite close

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


class HoldingProxy:
    """A TCP proxy on loopback that can swallow what its clients send (``hold``): a publish sent
    then never reaches the broker, so it is still waiting for its acknowledgement when the broker
    goes. When either end closes, the other is cut. ``release`` makes it a plain proxy again."""

    PUBLISH = 3  # the MQTT packet type in a fixed header's first byte's high bits

    def __init__(self, target_port: int) -> None:
        import threading

        self.target_port = target_port
        self.port = 0
        self.holding = False
        self.held_publishes = 0  # swallowed chunks that began with a PUBLISH packet
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="holding-proxy")

    def start(self) -> HoldingProxy:
        self._thread.start()
        self._ready.wait(10)
        return self

    def hold(self) -> None:
        self.held_publishes = 0
        self.holding = True

    def refuse(self) -> None:
        """Stop listening (the connections made stay): while its broker is down, a client is
        refused as it would be by the broker's machine, not accepted and then cut."""
        asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(10)

    def release(self) -> None:
        """Listen again on the same port, forwarding everything."""
        self.holding = False
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(10)

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", self.port, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _close(self) -> None:
        self._server.close()  # not wait_closed: from Python 3.12 it waits for the connections kept

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._loop.run_until_complete(self._listen())
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(self._close())
        self._loop.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()
            return

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter, upwards: bool) -> None:
            try:
                while True:
                    if upwards:  # packet by packet, to count the publishes it swallows
                        header = await src.readexactly(1)
                        length, shift, size = 0, 0, b""
                        while True:
                            byte = await src.readexactly(1)
                            size += byte
                            length |= (byte[0] & 0x7F) << shift
                            shift += 7
                            if not byte[0] & 0x80:
                                break
                        data = header + size + await src.readexactly(length)
                        if self.holding:
                            self.held_publishes += header[0] >> 4 == self.PUBLISH
                            continue
                    elif not (data := await src.read(65536)):
                        return
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError, asyncio.IncompleteReadError):
                pass

        tasks = [asyncio.ensure_future(pipe(reader, up_w, True)), asyncio.ensure_future(pipe(up_r, writer, False))]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for t in tasks:
            t.cancel()
        for w in (writer, up_w):
            w.transport.abort()

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
