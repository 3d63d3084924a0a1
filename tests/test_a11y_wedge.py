"""A keyboard-wedge reader typing into the app's window: its fast burst of hex digits and Enter
becomes a scan (never a string of key commands), while a person's keys still act as keys."""

from __future__ import annotations

import time

import pytest

from tests.test_a11y_app import App, frames

pytestmark = [pytest.mark.ui, pytest.mark.timeout(60)]


class Recorder:
    """Stands where the app hands a wedge scan to the core's scans: the UIDs the keys hand over."""

    def __init__(self) -> None:
        self.uids: list[str] = []

    def __call__(self, uid: str) -> None:
        self.uids.append(uid)


@pytest.fixture
def keyed(window, tmp_path):
    recorder = Recorder()
    a = App(window, tmp_path, on_wedge_scan=recorder)
    a.recorder = recorder
    yield a
    a.close()


def _type(win, text: str, gap: float) -> None:
    from companion.play.keys import KEYCODES
    from tests.ui_helpers import send_key

    for ch in text:
        code = KEYCODES["enter"] if ch == "\n" else ord(ch.lower())
        send_key(win, code, "" if ch == "\n" else ch.lower(), ["shift"] if ch.isupper() else [])
        if gap:
            time.sleep(gap)
            frames(1)


def _settle(seconds: float = 0.3) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        frames(1)


def test_a_wedge_burst_is_a_scan_and_no_key_command(keyed, window) -> None:
    keyed.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    keyed.root.show("table")
    _settle()
    before = keyed.session.game.state
    _type(window, "04A1B2C3D4E5F6\n", gap=0)  # a reader types everything within milliseconds
    _settle()
    assert keyed.recorder.uids == ["04A1B2C3D4E5F6"]
    # None of its keys acted: "1"-"6" would select seats, "d" would roll a die, "e" spell...
    assert keyed.session.game.state == before
    assert keyed.session.selected_seat is None


def test_a_person_typing_the_same_keys_is_not_a_scan(keyed, window) -> None:
    keyed.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    keyed.root.show("table")
    _settle()
    _type(window, "2", gap=0.08)  # a person: one key, then nothing for a while
    _settle()
    assert keyed.recorder.uids == []
    assert keyed.session.selected_seat == 1  # the key "2" selected seat 2, as the key map says
