"""A table joins the organiser's hub: ``run``, ``console`` and ``serve`` with ``--venue URL
--table N`` (``install``: every Runtime the command starts), or the window's menu "Rejoindre un
tournoi" (``join``: the Runtime already running). Both link a Runtime through ``attach``, so the
front ends themselves know nothing of the venue beyond these two doors."""

from __future__ import annotations

import threading
import time
from typing import Any

from companion.play.runtime import Runtime
from companion.venue.link import Refused, TableLink, VenueAddress

JOIN_WAIT = 8.0  # seconds the window waits for the broker before it says it is unreachable


class Unreachable(ConnectionError):
    """The broker did not accept the table within the wait (down, wrong host, wrong password)."""


def attach(runtime: Runtime, address: VenueAddress) -> TableLink:
    """Link one Runtime to the venue: its words (``juge``, ``résultat``), its judge call and its
    round clock (``runtime.venue``); returns the started link."""
    link = TableLink(runtime.session, address, say=runtime.say, auto_start=True).start()
    runtime.words.append(link.handle_words)
    runtime.venue = link
    return link


def install(url: str, table: int | None) -> VenueAddress:
    """Join every Runtime started from now on to the venue (raises ValueError on a bad URL)."""
    address = VenueAddress.parse(url, table)

    def extend(runtime: Runtime) -> Any:
        return attach(runtime, address).stop

    Runtime.extensions.append(extend)
    return address


def join(runtime: Runtime, url: str, table: int | None = None, wait: float | None = None,
         stop: threading.Event | None = None) -> TableLink:
    """Join a running Runtime to the venue at ``url`` (the enrolment ``venue --json`` prints for
    each table); blocks until the broker accepted it (call it from a worker).
    Raises ValueError on a bad URL, Unreachable when the broker did not answer within ``wait``,
    Refused (its text for the players) when the hub's certificate is not the pinned one: then
    nothing stays joined."""
    address = VenueAddress.parse(url.strip(), table)
    old = getattr(runtime, "venue", None)
    if old is not None:  # joining again (another event, another table): leave the first one
        leave(runtime)
    link = attach(runtime, address)
    deadline = time.monotonic() + (JOIN_WAIT if wait is None else wait)
    while not link.connected and link.refused is None and time.monotonic() < deadline and \
            not (stop and stop.is_set()):
        time.sleep(0.05)
    if link.refused is not None:
        leave(runtime)
        raise Refused(link.refused)
    if not link.connected:
        leave(runtime)
        raise Unreachable(f"{address.host}:{address.port}")
    runtime.add_closer(lambda: leave(runtime))
    return link


def leave(runtime: Runtime) -> None:
    """Unlink the Runtime from its venue (the outbox stays on the disk for the next join)."""
    link = getattr(runtime, "venue", None)
    if link is None:
        return
    runtime.venue = None
    if link.handle_words in runtime.words:
        runtime.words.remove(link.handle_words)
    link.stop(drain=1.0)
