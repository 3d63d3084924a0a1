"""Test set-up shared by every test: a private COMPANION_HOME, offline krcg, and a Kivy that
renders real pixels offscreen with no X server (see ../shared/TESTING.md)."""

import os
import tempfile

import pytest

_home = tempfile.mkdtemp(prefix="companion-test-")
os.environ.setdefault("COMPANION_HOME", _home)
os.environ.setdefault("LOCAL_CARDS", "1")
os.environ.setdefault("NO_TRANSLATIONS", "1")
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")
os.environ.setdefault("KIVY_HOME", os.path.join(_home, "kivy"))
os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
# Tests make no sound unless one asks for a voice (COMPANION_SPEECH=espeak through monkeypatch).
os.environ.setdefault("COMPANION_SPEECH", "silent")


@pytest.fixture(scope="module")
def window():
    """The one real Kivy window (offscreen SDL), 800x480 like the Raspberry Pi's 7" display.
    Kivy is imported only by the tests that ask for it."""
    from companion.ui.app import configure_window

    configure_window()
    from kivy.base import EventLoop

    EventLoop.ensure_window()
    from kivy.core.window import Window

    return Window
