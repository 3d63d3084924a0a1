"""Calls to the broker that end with their connection.

aiomqtt (2.5) does not end a QoS 1 publish, or a subscribe, whose connection is lost: it waits
the client's whole timeout for an answer that cannot come, and the hub or table stays away from
a broker that came back long before. Each connection's reader task ends as soon as the
connection does (its message iterator raises), so a call raced against it ends then too; the
caller treats that as any lost connection: what was not acknowledged is sent again on the next
one (the tables' outbox, the hub's retained topics)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import Any, TypeVar

import aiomqtt

T = TypeVar("T")


async def while_connected(call: Awaitable[T], reader: asyncio.Task[Any]) -> T:
    """Await ``call`` (a publish, a subscribe) until the connection's ``reader`` ends; then give it
    up and raise ``aiomqtt.MqttError``."""
    task = asyncio.ensure_future(call)
    try:
        await asyncio.wait((task, reader), return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
        await task
    cause = None if reader.cancelled() else reader.exception()
    raise aiomqtt.MqttError("connection lost before the broker answered") from cause
