"""What the phone server's tests share: a VTES table for Ann and Bob served on a free loopback
port, the seats' and the spectator's tokens, a coroutine run with a time limit, and how the
browser tests start Debian's Chromium (never a downloaded one; no network beyond loopback)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

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
# Debian's build of Chromium's headless shell (package chromium-headless-shell, the same Blink and
# V8 as CHROMIUM, which Playwright itself runs for headless tests): when installed, the tests drive
# it. The full browser, headless, still builds a window's browser UI for every context (two
# omnibox-popup WebUI renderers among others): in a whole-game test that was a third of Chromium's
# CPU, which the shell never spends.
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
# What the full browser is spared when the shell is not installed: the omnibox popups' WebUI
# renderers, made (and kept) for each context's window although nobody types in an address bar
# (about 1 CPU-second per phone).
NO_OMNIBOX_POPUPS = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup")


def _playwright_disabled_features() -> list[str] | None:
    """The features Playwright's driver disables itself (its ``--disable-features=`` list): Chromium
    keeps only the last ``--disable-features`` of a command line, so ours must repeat them. Read
    from the driver's own bundle; None if its layout changed (then Playwright's list is left alone)."""
    import re

    try:
        from playwright._impl._driver import compute_driver_executable

        node = Path(compute_driver_executable()[0])
        bundle = (node.parent / "package" / "lib" / "coreBundle.js").read_text(encoding="utf-8")
        listed = re.search(r"disabledFeatures = \[(.*?)\]\.filter", bundle, re.S)
    except (ImportError, OSError, ValueError, IndexError, TypeError):
        return None
    if listed is None:
        return None
    names = re.findall(r'^\s*"(\w+)"', listed.group(1), re.M)
    return names or None


def _launch(driver: Any) -> Any:
    if Path(HEADLESS_SHELL).exists():
        return driver.chromium.launch(executable_path=HEADLESS_SHELL, headless=True, args=CHROMIUM_ARGS)
    args = list(CHROMIUM_ARGS)
    theirs = _playwright_disabled_features()
    if theirs is not None:
        args.append("--disable-features=" + ",".join([*theirs, *NO_OMNIBOX_POPUPS]))
    return driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)


_SHARED: dict[str, Any] = {}  # this test process's one Playwright and Chromium, and how many fixtures hold them


@pytest.fixture(scope="session", name="chromium_process")
def chromium_process_fixture() -> Iterator[Any]:
    """A module imports ``browser_fixture`` and ``chromium_process_fixture`` to have ``browser``.
    The test process's one headless Chromium (Debian's), launched by the first module that asks
    and closed with the session by the last fixture holding it (each module that imports this
    fixture has its own, all torn down at the session's end): the modules share one launch, about
    2 CPU-seconds each. A browser that died is launched again."""
    browser = _SHARED.get("browser")
    if browser is None or not browser.is_connected():
        _stop_shared()
        from playwright.sync_api import sync_playwright

        driver = sync_playwright().start()
        _SHARED.update(driver=driver, browser=_launch(driver))
    _SHARED["users"] = _SHARED.get("users", 0) + 1
    try:
        yield _SHARED["browser"]
    finally:
        _SHARED["users"] -= 1
        if _SHARED["users"] <= 0:
            _stop_shared()


@pytest.fixture(scope="module", name="browser")
def browser_fixture(chromium_process: Any) -> Iterator[Any]:
    """The shared Chromium for one module's tests; each test opens its own context (cookies,
    storage and cache of its own), so the tests stay independent of each other.
    Playwright's sync API marks its event loop as this thread's running loop between its calls
    (its dispatcher greenlet is suspended inside it): the mark is held for this module only, so
    that the modules after it can ``asyncio.run`` as they would in a process with no browser."""
    _running(chromium_process)
    try:
        yield chromium_process
    finally:
        asyncio._set_running_loop(None)


def _running(browser: Any) -> None:
    asyncio._set_running_loop(browser._loop)


def _stop_shared() -> None:
    browser, driver = _SHARED.pop("browser", None), _SHARED.pop("driver", None)
    try:
        if browser is not None:
            _running(browser)  # as between any two of its calls: its loop is resumed where it waits
            if browser.is_connected():
                browser.close()
    finally:
        if driver is not None:
            driver.stop()
        asyncio._set_running_loop(None)
