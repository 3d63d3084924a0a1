"""What the phone server's tests share: a VTES table for Ann and Bob served on a free loopback
port, the seats' and the spectator's tokens, a coroutine run with a time limit, and how the
browser tests start Debian's Chromium (never a downloaded one; no network beyond loopback)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.play.runtime import Runtime
from companion.web.server import PhoneServer


def served_table(tmp_path: Path, cards: bool = True, library: Any = None) -> Iterator[tuple[Runtime, PhoneServer]]:
    """For a fixture: ``yield from served_table(tmp_path)``; stopped and closed after the test.
    ``library``: the session's (the ``card_library`` fixture), so that a test does not read the
    card index and its search again (a second of CPU each) for a server that only reads cards."""
    runtime = Runtime(library=library, journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    if cards:
        runtime.load_cards()
    assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
    server = PhoneServer(runtime, port=0)
    server.start()
    yield runtime, server
    server.stop()
    runtime.close()


def run(coro: Any, limit: float = 90) -> Any:
    return asyncio.run(asyncio.wait_for(coro, limit))


def tokens(server: PhoneServer) -> tuple[str, str, str]:
    """Ann's and Bob's seat tokens and the spectator's."""
    inv = server.invitations()
    return inv["seats"][0]["token"], inv["seats"][1]["token"], inv["spectator"].split("#t=")[1]


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def chromium() -> Iterator[Any]:
    """For a fixture: ``yield from chromium()``, a headless Chromium closed after the tests."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
