"""``run``, ``console`` and ``serve`` with ``--venue URL --table N``: the table joins the
organiser's hub. The CLI installs the link as an extension of every Runtime it starts, so the
front ends themselves know nothing of the venue."""

from __future__ import annotations

from typing import Any

from companion.play.runtime import Runtime
from companion.venue.link import TableLink, VenueAddress


def install(url: str, table: int | None) -> VenueAddress:
    """Join every Runtime started from now on to the venue (raises ValueError on a bad URL)."""
    address = VenueAddress.parse(url, table)

    def extend(runtime: Runtime) -> Any:
        link = TableLink(runtime.session, address, say=runtime.say, auto_start=True).start()
        runtime.words.append(link.handle_words)
        runtime.venue = link  # type: ignore[attr-defined]  # for a front end that shows the clock
        return link.stop

    Runtime.extensions.append(extend)
    return address
