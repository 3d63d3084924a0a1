"""A keyboard-wedge reader typing into the app's window: its fast burst of hex digits and Enter
becomes a scan (never a string of key commands), while a person's keys still act as keys."""

from __future__ import annotations

import time

import pytest

from tests.test_a11y_app import App, frames

pytestmark = [pytest.mark.ui, pytest.mark.timeout(60)]


class Recorder:
    """Stands where the app's reader sink is: the tag events the keys hand over."""

    def __init__(self) -> None:
        self.events: list = []

    def _on_tag_event(self, event) -> None:
        self.events.append(event)


@pytest.fixture
def keyed(window, tmp_path, monkeypatch):
    import companion.ui.keys as keys

    recorder = Recorder()
    real_install = keys.install
    monkeypatch.setattr(keys, "install", lambda *a, **kw: real_install(*a, **{**kw, "app": recorder}))
    a = App(window, tmp_path)
    a.recorder = recorder
    yield a
    a.close()


def _type(win, text: str, gap: float) -> None:
    from companion.ui.keys import KEYCODES

    for ch in text:
        code = KEYCODES["enter"] if ch == "\n" else ord(ch.lower())
        win.dispatch("on_key_down", code, 0, "" if ch == "\n" else ch.lower(),
                        ["shift"] if ch.isupper() else [])
        win.dispatch("on_key_up", code, 0)
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
    assert [(e.kind, e.uid, e.reader) for e in keyed.recorder.events] == [("laid", "04A1B2C3D4E5F6", "wedge")]
    # None of its keys acted: "1"-"6" would select seats, "d" would roll a die, "e" spell...
    assert keyed.session.game.state == before
    assert keyed.session.selected_seat is None


def test_a_person_typing_the_same_keys_is_not_a_scan(keyed, window) -> None:
    keyed.session.new_game("vtes", ["Ann", "Bob", "Cy"], seed=1)
    keyed.root.show("table")
    _settle()
    _type(window, "2", gap=0.08)  # a person: one key, then nothing for a while
    _settle()
    assert keyed.recorder.events == []
    assert keyed.session.selected_seat == 1  # the key "2" selected seat 2, as the key map says
