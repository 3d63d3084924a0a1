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
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.venue.broker import Broker
from companion.venue.event import EventStore
from companion.venue.hub import Hub
from companion.venue.runner import HubThread
from tests.venue.helpers import EVENT, needs_mosquitto, running, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(150), needs_mosquitto]

NAMES = [f"P{i:02d}" for i in range(1, 11)]


@pytest.fixture
def broker(tmp_path) -> Iterator[Broker]:
    """A real Mosquitto for this window test (the venue folder's shared brokers are its own)."""
    with running(Broker(tmp_path / "broker", EVENT, tables=12)) as b:
        yield b


def frames(count: int = 2, draw: bool = True) -> None:
    """``count`` frames, the window drawn on the last one only, or not at all with ``draw=False``
    (tests.ui_helpers.frames): between touches nothing reads the window's pixels, and a drawn
    frame of the table is 25-90 ms of CPU here; a screenshot draws its own (``_shot``)."""
    from tests.ui_helpers import frames as ui_frames

    ui_frames(count, draw)


def settle(check, what: str, timeout: float = 30.0) -> None:
    """Let the window run (its Clock hands the join's thread back) until ``check()`` holds. Its
    frames are not drawn while it waits on the network (``ticks``): what is checked is words and
    widgets, and a screenshot draws first (``_shot``)."""
    from tests.ui.test_a11y_app import ticks

    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        ticks(1)
        time.sleep(0.02)


class Window:
    """The whole app as it starts (CompanionApp, its keys on the Window) over a real journal."""

    def __init__(self, window, tmp_path: Path) -> None:
        from kivy.app import App

        from companion.play.runtime import Runtime
        from companion.ui.app import CompanionApp

        self.window = window
        self.before = App.get_running_app()  # Kivy makes the last App made "the running app"
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
        from tests.ui.test_a11y_app import ticks
        from tests.ui_helpers import send_key

        for key in keys:
            if len(key) == 1:
                send_key(self.window, ord(key), key, [])
            else:
                send_key(self.window, KEYCODES[key], "", [])
            ticks(1)  # the key's effects run; drawn by the next frames() or _shot

    def type(self, text: str) -> None:
        self.press(*text)

    def close(self) -> None:
        from kivy.app import App

        self.app.on_stop()
        self.window.remove_widget(self.app.root)
        # As Kivy's App.stop does after on_stop: the screens tested next in this process (the Enroll
        # screen's card, the Settings panel's config) must not find this stopped app and its root.
        App._running_app = self.before
        frames(1)


@pytest.fixture
def hub(tmp_path, broker):
    store = EventStore(tmp_path / "event.sqlite3", EVENT, "vtes")
    h = HubThread(Hub(store, "127.0.0.1", broker.port, broker.credentials.hub, seat_iterations=300)).start()
    wait_for(lambda: h.hub.connected, what="the hub connected")
    try:
        yield h
    finally:
        h.stop()
        store.close()


def _shot(window, tmp_path: Path, name: str) -> None:
    frames(1)  # what the keys and waits changed, drawn (they run the window undrawn)
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


def test_a_table_joins_a_venue_from_the_window_and_calls_a_judge(window, tmp_path, broker, hub,
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
        # frames go on while waiting: a letter a-f is first held a moment by the keyboard-wedge
        # recogniser (a reader typing a UID), then given to the keys on a later frame
        settle(lambda: len(hub.hub.store.entries(1, "judge")) == 1, "the judge call reached the hub")
        assert w.runtime.voice.wait_idle(5)
        assert w.said[-1] == "Un juge est appelé à la table 1."
        # and so does a touch on the table's button
        frames(3, draw=False)
        button = table.action("judge")
        x, y = button.to_window(*button.center)
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        frames(2, draw=False)
        wait_for(lambda: len(hub.hub.store.entries(1, "judge")) == 2, what="the second call reached the hub")
        call = hub.hub.store.entries(1, "judge")[-1]["body"]
        assert call["round"] == 1 and call["phase"]
        # what the table screen shows: looked at by a person when COMPANION_SHOTS is set
        time.sleep(0.1)
        frames(4, draw=False)  # the button's pressed look ends on the Clock; _shot draws it
        _shot(window, tmp_path, "window-table-venue")
    finally:
        w.close()


def _tap(widget) -> None:
    from kivy.tests.common import UnitTestTouch

    assert widget is not None and not widget.disabled
    x, y = widget.to_window(*widget.center)
    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_up()
    frames(2, draw=False)


def _joined(w: Window, hub, broker) -> list[str]:
    """The table joined as the window's "Rejoindre un tournoi" joins it, seated by the hub."""
    import companion.venue.join as joining

    for name in NAMES:
        hub.hub.store.register(name)
    joining.join(w.runtime, f"mqtt://table-1:{broker.credentials.tables[1]}@127.0.0.1:{broker.port}/{EVENT}")
    round_no, _ = hub.call(hub.hub.seat_round)
    players = hub.hub.store.seating(round_no)[0]
    settle(lambda: w.runtime.session.seat_names == players, "the seated game started at the table")
    w.press("f3")
    assert w.app.root.current == "table"
    return players


def test_the_window_shows_the_proposed_result_and_the_players_confirm_it_by_keys_or_touch(
        window, tmp_path, broker, hub):
    """The venue's result at the table, in the window: shown and said at the game's end (each
    player's VP, the game win), confirmed with Enter or a touch, contested with X (the organiser
    is called with the proposal); Escape leaves it for later and V brings it back. The seat menus
    offer the judge call too. What the hub receives is checked through the real broker."""
    w = Window(window, tmp_path)
    try:
        players = _joined(w, hub, broker)
        table = w.app.root.get_screen("table")
        store = hub.hub.store
        assert table.result_panel is None  # the game goes on: nothing to confirm
        # V: the players ask for the result before the end; Escape: not now, it stops waiting
        w.press("v")
        settle(lambda: table.result_panel is not None, "the result shown when asked")
        assert w.runtime.result_pending() is not None
        w.press("escape")
        settle(lambda: table.result_panel is None, "not now")
        assert w.runtime.result_pending() is None and w.app.root.current == "table"
        assert w.runtime.voice.wait_idle(5)
        assert w.said[-1] == "Fermé."
        # asked again; X contests it: the organiser is called
        w.press("v")
        settle(lambda: table.result_panel is not None, "the result shown when asked")
        assert w.runtime.voice.wait_idle(5)
        assert w.said[-1].startswith(f"Résultat proposé : {players[0]} 0, {players[1]} 0")
        assert w.said[-1].endswith("Entrée pour le confirmer ; X pour le contester et appeler l'organisateur.")
        w.press("x")
        wait_for(lambda: len(store.judge_calls()) == 1, what="the contest reached the organiser")
        assert store.judge_calls()[0]["why"].startswith("résultat contesté")
        settle(lambda: table.result_panel is None, "the contested result closed")
        assert w.runtime.voice.wait_idle(5)
        assert w.said[-1] == "Résultat contesté : l'organisateur est appelé à la table 1."
        # the game's end: the result comes by itself, shown and said with the game win
        for line in ["oust 2", "oust 3", "oust 4", "oust 5"]:
            assert w.runtime.session.apply(line, source="touch").ok
        settle(lambda: table.result_panel is not None, "the result shown at the game's end")
        panel = table.result_panel
        assert [r.text for r in panel.rows] == [f"{players[0]} : 5 PV"] + [f"{p} : 0 PV" for p in players[1:]]
        assert panel.win.text == f"Victoire : {players[0]}."
        assert w.runtime.voice.wait_idle(5)
        said = w.said
        ended = max(i for i, x in enumerate(said) if "Partie terminée" in x)
        # said once, after the change that ended the game, with the game win and how to answer
        assert said[ended + 1:] == [
            f"Résultat proposé : {players[0]} 5, {', '.join(f'{p} 0' for p in players[1:])}. Victoire : {players[0]}. "
            "Entrée pour le confirmer ; X pour le contester et appeler l'organisateur."], said[ended:]
        _shot(window, tmp_path, "window-venue-result")
        # Tab walks the panel's buttons, said; Escape leaves it for later; V brings it back
        w.press("tab")
        assert w.runtime.voice.wait_idle(5)
        assert "Confirmer le résultat" in w.said[-1]
        w.press("escape")
        settle(lambda: table.result_panel is None, "closed for later")
        assert w.app.root.current == "table" and w.runtime.result_pending() is not None
        w.press("v")
        settle(lambda: table.result_panel is not None, "shown again")
        # Enter confirms it, as the console's "résultat ok": validated at the hub
        w.press("enter")  # held by the wedge recogniser as "a" is: frames go on while waiting
        settle(lambda: [r["status"] for r in store.results(1)] == ["validated"], "validated at the hub")
        settle(lambda: table.result_panel is None, "the confirmed result closed")
        assert w.runtime.voice.wait_idle(5)
        assert w.said[-1] == "Résultat envoyé à l'organisateur."
        assert [e["body"]["by"] for e in store.entries(1, "result")] == ["key"]
        # by touch: a seat's menu calls a judge (the phones' action, in the same list)
        frames(3, draw=False)
        _tap(table.panel(1).menu_button)
        settle(lambda: table.menu is not None, "the seat's menu")
        assert "judge" in table.menu.buttons
        _tap(table.menu.buttons["judge"])
        wait_for(lambda: len(store.judge_calls()) == 2, what="the seat's judge call reached the hub")
        call = store.judge_calls()[-1]
        assert call["seat"] == 2 and call["why"] == f"appel de {players[1]} à la table"
        # asked again, confirmed by a touch on the panel's button
        w.press("v")
        settle(lambda: table.result_panel is not None, "shown when asked again")
        _tap(table.result_panel.confirm)
        wait_for(lambda: len(store.entries(1, "result")) == 2, what="the touched confirmation reached the hub")
        assert store.entries(1, "result")[-1]["body"]["by"] == "touch"
        assert [r["status"] for r in store.results(1)] == ["validated"]  # the same result, still once
        settle(lambda: table.result_panel is None, "closed")
    finally:
        w.close()


def test_a_table_leaves_the_venue_from_the_window_and_plays_on(window, tmp_path, broker, hub):
    """F10, "Quitter le tournoi" by keys: the link stops (the hub sees the table offline), the
    judge button goes, and the game goes on in its journal, nothing lost."""
    w = Window(window, tmp_path)
    try:
        _joined(w, hub, broker)
        table = w.app.root.get_screen("table")
        settle(lambda: table.action("judge") is not None, "the judge button")
        assert w.runtime.session.apply("pool 1 -2", source="touch").ok
        wait_for(lambda: w.runtime.venue.outbox.pending() == [], what="the change reached the hub")
        w.press("f10")
        screen = w.app.root.get_screen("venue")
        assert screen.joined and not screen.ids.leave_button.disabled
        for _ in range(3):  # Tab: the field, Rejoindre, then Quitter le tournoi
            w.press("tab")
        assert w.runtime.voice.wait_idle(5)
        assert w.said[-1].startswith("Quitter le tournoi")
        w.press("enter")
        settle(lambda: w.runtime.venue is None and not screen.busy, "the table left the venue")
        assert screen.status.startswith("Table 1 a quitté le tournoi « test-night ». La partie continue ici")
        assert screen.ids.leave_button.disabled
        frames(2, draw=False)  # _shot draws the last
        _shot(window, tmp_path, "window-venue-left")
        wait_for(lambda: hub.hub.store.tables()[1]["online"] is False, what="the hub saw the table leave")
        # the table plays on alone
        game = w.runtime.session.game
        assert game is not None and game.state["seats"][0]["counters"]["pool"] == 28
        w.press("f3")
        settle(lambda: table.action("judge") is None, "the judge button gone")
        assert w.runtime.session.apply("pool 2 -1", source="touch").ok
        w.press("a")
        assert w.runtime.voice.wait_idle(5)
        assert w.said[-1].startswith("Cette table n'a rejoint aucun tournoi")
    finally:
        w.close()
