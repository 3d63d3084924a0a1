"""Shared pieces of the venue tests: a real Mosquitto on a free loopback port, with password and
ACL files written in a temporary folder, stopped by its PID."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from companion.venue.broker import Broker, BrokerMissing, find_mosquitto

EVENT = "test-night"


def _have_mosquitto() -> bool:
    try:
        find_mosquitto()
        return True
    except BrokerMissing:
        return False


needs_mosquitto = pytest.mark.skipif(not _have_mosquitto(), reason="Debian package mosquitto not installed")


@pytest.fixture
def broker(tmp_path) -> Iterator[Broker]:
    b = Broker(tmp_path / "broker", EVENT, tables=12)
    b.start()
    try:
        yield b
    finally:
        b.stop()


def run(coro, timeout: float = 60.0):
    """Run a coroutine to its end on a fresh event loop (the tests are synchronous)."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def wait_for(check, timeout: float = 30.0, what: str = "") -> None:
    """Poll until ``check()`` is true (the network is asynchronous); fail with ``what`` after ``timeout``."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what or check}")
