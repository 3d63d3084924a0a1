"""Test set-up shared by every test: a private COMPANION_HOME, offline krcg, and a Kivy that
renders real pixels offscreen with no X server (see ../shared/TESTING.md)."""

import os
import tempfile

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
