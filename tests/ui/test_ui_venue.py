"""A table joins a venue from the window (issue 26): the "Rejoindre un tournoi" screen reached by a
key, the organiser's enrolment URL typed into it as a keyboard types, errors said in French, then
the judge called by the key A and by a touch on the table screen's button, and the round clock
counted down on the table screen; a real Kivy window (offscreen) and a real Mosquitto with the
organiser's hub."""

from __future__ import annotations

import os
import shutil
import socket
import time
from pathlib import Path

import pytest

from companion.venue.event import EventStore
from companion.venue.hub import Hub
from companion.venue.runner import HubThread
from tests.venue.helpers import EVENT, broker, needs_mosquitto, wait_for  # noqa: F401

pytestmark = [pytest.mark.ui, pytest.mark.timeout(150), needs_mosquitto]

NAMES = [f"P{i:02d}" for i in range(1, 11)]


def frames(count: int = 2) -> None:
    from kivy.base import EventLoop

    for _ in range(count):
        EventLoop.idle()


def settle(check, what: str, timeout: float = 30.0) -> None:
    """Let the window run (its Clock hands the join's thread back) until ``check()`` holds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        frames(1)
        time.sleep(0.02)


class Window:
    """The whole app as it starts (CompanionApp, its keys on the Window) over a real journal."""

    def __init__(self, window, tmp_path: Path) -> None:
        from companion.play.runtime import Runtime
        from companion.ui.app import CompanionApp

        self.window = window
        self.runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang="fr")
        self.app = CompanionApp(reader_path="sim", runtime=self.runtime)
        self.app.load_config()
        self.app.root = self.app.build()
        window.add_widget(self.app.root)
        self.app.on_start()
        tick = [0.0]

        def human_pace() -> float:  # a person types, never a keyboard-wedge reader's burst
            tick[0] += 0.3
            return tick[0]

        self.app.a11y.clock = human_pace
        frames(3)
        assert self.runtime.voice.wait_idle(5)

    @property
    def said(self) -> list[str]:
        return [" ".join(u.text for u in m) for m in list(self.runtime.voice.speaker().history)]

    def press(self, *keys: str) -> None:
        from companion.play.keynames import KEYCODES
        from tests.ui_helpers import send_key

        for key in keys:
            if len(key) == 1:
                send_key(self.window, ord(key), key, [])
            else:
                send_key(self.window, KEYCODES[key], "", [])
            frames(1)

    def type(self, text: str) -> None:
        self.press(*text)

    def close(self) -> None:
        self.app.on_stop()
        self.window.remove_widget(self.app.root)
        frames(1)


@pytest.fixture
def hub(tmp_path, broker):  # noqa: F811
    store = EventStore(tmp_path / "event.sqlite3", EVENT, "vtes")
    h = HubThread(Hub(store, "127.0.0.1", broker.port, broker.credentials.hub, seat_iterations=300)).start()
    wait_for(lambda: h.hub.connected, what="the hub connected")
    try:
        yield h
    finally:
        h.stop()
        store.close()


def _shot(window, tmp_path: Path, name: str) -> None:
    window.screenshot(name=str(tmp_path / f"{name}.png"))
    shot = sorted(tmp_path.glob(f"{name}*.png"))[-1]
    assert shot.stat().st_size > 1000
    if os.environ.get("COMPANION_SHOTS"):  # to be looked at after the run
        Path(os.environ["COMPANION_SHOTS"]).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(os.environ["COMPANION_SHOTS"]) / f"{name}.png")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_table_joins_a_venue_from_the_window_and_calls_a_judge(window, tmp_path, broker, hub,  # noqa: F811
                                                                  monkeypatch):
    from kivy.tests.common import UnitTestTouch

    import companion.venue.join as joining

    monkeypatch.setattr(joining, "JOIN_WAIT", 2.0)  # an unreachable broker is said after 2 s here
    for name in NAMES:
        hub.hub.store.register(name)
    password = broker.credentials.tables[1]
    enrolment = f"mqtt://table-1:{password}@127.0.0.1:{broker.port}/{EVENT}"  # as `venue --json` prints it
    w = Window(window, tmp_path)
    try:
        screen = w.app.root.get_screen("venue")
        # before joining, the key A at the table says how to join
        w.press("f3")
        w.press("a")
        assert w.runtime.voice.wait_idle(5)
        assert w.said[-1].startswith("Cette table n'a rejoint aucun tournoi")
        # F10: the screen, said; Tab: the field, which takes the keyboard at once
        w.press("f10")
        assert w.app.root.current == "venue"
        w.press("tab")
        assert screen.ids.url_input.focus
        # a URL that is not one: said in French, nothing joined
        w.type("pas une adresse")
        assert screen.ids.url_input.text == "pas une adresse", (screen.ids.url_input.text, w.said[-3:])
        w.press("enter")
        settle(lambda: screen.status.startswith("Adresse de tournoi illisible"), "the bad URL said")
        assert w.runtime.venue is None
        # a broker that is not there: said, nothing joined
        screen.ids.url_input.text = ""
        w.type(f"mqtt://table-1:{password}@127.0.0.1:{_free_port()}/{EVENT}")
        w.press("enter")
        settle(lambda: screen.status.startswith("Le serveur du tournoi"), "the unreachable broker said")
        assert w.runtime.venue is None and not screen.busy
        # the organiser's enrolment: the table is linked as --venue links it
        screen.ids.url_input.text = ""
        w.type(enrolment)
        w.press("enter")
        settle(lambda: w.runtime.venue is not None and not screen.busy, "the table joined")
        assert screen.status == ("Table 1 inscrite au tournoi « test-night ». "
                                 "Touche A ou bouton Juge pour appeler un juge.")
        assert screen.ids.url_input.text == ""  # the password does not stay on the screen
        assert w.runtime.voice.wait_idle(5)
        assert screen.status in w.said and not any(password in s for s in w.said)
        _shot(window, tmp_path, "window-venue")
        # the hub seats the round (the table starts its game) and starts a two-hour clock
        hub.call(hub.hub.seat_round)
        settle(lambda: w.runtime.session.game is not None, "the seated game started at the table")
        hub.call(hub.hub.start_clock, 120)
        settle(lambda: w.runtime.venue.round_clock is not None, "the clock reached the table")
        w.press("f3")
        assert w.app.root.current == "table"
        table = w.app.root.get_screen("table")
        settle(lambda: table.action("judge") is not None and "Tour 1 : " in table.clock, "the judge button and clock")
        left = table.clock.split("Tour 1 : ")[1]
        assert left.startswith(("2:00:00", "1:59:")), table.clock
        # the key A calls a judge, as the console's word "juge" does
        w.press("a")
        wait_for(lambda: len(hub.hub.store.entries(1, "judge")) == 1, what="the judge call reached the hub")
        assert w.runtime.voice.wait_idle(5)
        assert w.said[-1] == "Un juge est appelé à la table 1."
        # and so does a touch on the table's button
        frames(3)
        button = table.action("judge")
        x, y = button.to_window(*button.center)
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        frames(2)
        wait_for(lambda: len(hub.hub.store.entries(1, "judge")) == 2, what="the second call reached the hub")
        call = hub.hub.store.entries(1, "judge")[-1]["body"]
        assert call["round"] == 1 and call["phase"]
        # what the table screen shows: looked at by a person when COMPANION_SHOTS is set
        time.sleep(0.1)
        frames(4)  # the button's pressed look ends on the Clock
        _shot(window, tmp_path, "window-table-venue")
    finally:
        w.close()
