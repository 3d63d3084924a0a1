"""A keyboard-wedge reader typing into the app's window: its fast burst of hex digits and Enter
becomes a scan (never a string of key commands), while a person's keys still act as keys."""

from __future__ import annotations

import pytest

from tests.ui.test_a11y_app import App, ticks

pytestmark = [pytest.mark.ui, pytest.mark.timeout(60)]


class Recorder:
    """Stands where the app hands a wedge scan to the core's scans: the UIDs the keys hand over."""

    def __init__(self) -> None:
        self.uids: list[str] = []

    def __call__(self, uid: str) -> None:
        self.uids.append(uid)


class KeyClock:
    """The time the app reads when a key arrives: moved by the test, so that a reader's pace and a
    person's pace are what they say however slowly this machine runs the window."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def keyed(window, app_root, tmp_path):
    recorder = Recorder()
    a = App(window, tmp_path, on_wedge_scan=recorder, roots=app_root)
    a.recorder = recorder
    a.clock = KeyClock()
    a.a11y.clock = a.clock
    yield a
    a.close()


def _type(app, win, text: str, gap: float) -> None:
    from companion.play.keynames import KEYCODES
    from tests.ui_helpers import send_key

    for ch in text:
        app.clock.now += gap
        code = KEYCODES["enter"] if ch == "\n" else ord(ch.lower())
        send_key(win, code, "" if ch == "\n" else ch.lower(), ["shift"] if ch.isupper() else [])
        ticks(1)  # the clock, input and the recogniser run; nothing here looks at the pixels


def _settle(app, seconds: float = 0.3) -> None:
    """Let the window run its timers (the recogniser's flush) after ``seconds`` of key time. Its
    frames are not drawn: these tests read the scans, the game and a field's text, never a pixel
    (the app's close draws the last state)."""
    app.clock.now += seconds
    for _ in range(200):  # the flush timer runs every 20 ms of real time; a loaded machine is slower
        ticks(1)
        if not app.a11y._held:
            break
    ticks(2)


def test_a_wedge_burst_is_a_scan_and_no_key_command(keyed, window) -> None:
    keyed.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    keyed.root.show("table")
    _settle(keyed)
    before = keyed.session.game.state
    _type(keyed, window, "04A1B2C3D4E5F6\n", gap=0.004)  # a reader: a key every few ms
    _settle(keyed)
    assert keyed.recorder.uids == ["04A1B2C3D4E5F6"]
    # None of its keys acted: "1"-"6" would select seats, "d" would roll a die, "e" spell...
    assert keyed.session.game.state == before
    assert keyed.session.selected_seat is None


def test_a_person_typing_the_same_keys_is_not_a_scan(keyed, window) -> None:
    keyed.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    keyed.root.show("table")
    _settle(keyed)
    _type(keyed, window, "2", gap=0.08)  # a person: one key, then nothing for a while
    _settle(keyed)
    assert keyed.recorder.uids == []
    assert keyed.session.selected_seat == 1  # the key "2" selected seat 2, as the key map says


def test_a_wedge_burst_into_a_text_field_is_a_scan_not_text(keyed, window) -> None:
    """Issue 16, item 2: with the Rules search field focused, a reader's burst is taken back out
    of the field and read as a card; a person typing letters and digits keeps them."""
    keyed.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    keyed.root.show("rules")
    field = keyed.root.get_screen("rules").ids.search
    field.focus = True
    ticks(2)
    _type(keyed, window, "edge ", gap=0.3)  # a person
    _type(keyed, window, "04A1B2C3D4E5F6\n", gap=0.004)  # a reader
    _settle(keyed)
    assert keyed.recorder.uids == ["04A1B2C3D4E5F6"]
    assert field.text == "edge "
    _type(keyed, window, "ab12", gap=0.3)  # a person's hex-looking word stays typed
    _settle(keyed)
    assert field.text == "edge ab12" and keyed.recorder.uids == ["04A1B2C3D4E5F6"]
