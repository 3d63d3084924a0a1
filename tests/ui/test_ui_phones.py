"""The window's "Inviter les téléphones" in a real Kivy window: the phone server started beside
the Kivy loop, one QR code per seat (the far half turned to face its seats) with its short code,
and the codes really join the served table."""

from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


def frames(count: int = 3) -> None:
    from kivy.base import EventLoop

    for _ in range(count):
        EventLoop.idle()


def test_the_invitation_shows_a_qr_code_per_seat_turned_to_it(window, tmp_path: Path) -> None:
    from companion.play.runtime import Runtime
    from companion.ui.screens.phones import PhonesView, phone_server
    from companion.ui.widgets.turned import Turned

    runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    assert runtime.session.new_game("vtes", ["Ann", "Bob", "Cy", "Dee"], seed=1).ok
    server = phone_server(runtime, lan=False)
    try:
        assert phone_server(runtime, lan=False) is server  # one server per window
        view = PhonesView(server)
        view.open()
        frames(6)
        boxes = [w for w in view.walk() if isinstance(w, Turned)]
        assert len(boxes) == 4 and [b.angle for b in boxes] == [0, 0, 180, 180]
        words = " ".join(w.text for w in view.walk() if hasattr(w, "text"))
        for seat, code in view.codes.items():
            assert code in words and runtime.session.seat_names[seat - 1] in words
        out = tmp_path / "phones.png"
        view.export_to_png(str(out))
        assert out.stat().st_size > 1000
        if os.environ.get("COMPANION_SHOTS"):  # to be looked at after the run
            Path(os.environ["COMPANION_SHOTS"]).mkdir(parents=True, exist_ok=True)
            shutil.copy(out, Path(os.environ["COMPANION_SHOTS"]) / "window-phones.png")
        # a code typed on a phone gives that seat's token, which reads the table
        request = urllib.request.Request(server.url + "/api/join", data=json.dumps({"code": view.codes[3]}).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=10) as r:
            joined = json.loads(r.read())
        assert joined["seat"] == 3
        request = urllib.request.Request(server.url + "/api/table",
                                         headers={"Authorization": "Bearer " + joined["token"]})
        with urllib.request.urlopen(request, timeout=10) as r:
            assert [s["name"] for s in json.loads(r.read())["seats"]] == ["Ann", "Bob", "Cy", "Dee"]
        # the table revokes seat 3's phone with a tap: a new code, the old token dead
        from kivy.tests.common import UnitTestTouch

        from companion.ui.widgets.buttons import GlyphButton

        old = view.codes[3]
        revoke = [w for w in view.walk() if isinstance(w, GlyphButton) and w.word == "Retirer le téléphone"]
        assert len(revoke) == 4
        target = revoke[2]
        x, y = target.to_window(*target.center)
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        frames(4)
        assert view.codes[3] != old and runtime.session.seat_names[2] == "Cy"
        request = urllib.request.Request(server.url + "/api/table",
                                         headers={"Authorization": "Bearer " + joined["token"]})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 403
        view.dismiss()
        frames(3)
    finally:
        server.stop()
        runtime.close()


def test_the_window_never_shows_a_card_laid_on_the_reader_of_a_seat_with_a_phone(window, tmp_path: Path) -> None:
    from kivy.app import App

    from companion.play.runtime import Runtime
    from companion.readers.events import TagEvent
    from companion.tags.records import encode_ref
    from companion.ui.app import CompanionApp

    before = App.get_running_app()  # Kivy keeps the last app made as "the running app"
    runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang="fr")
    app = CompanionApp(reader_path="sim", runtime=runtime)
    app.load_config()
    app.root = app.build()
    window.add_widget(app.root)
    app.on_start()
    try:
        frames(3)
        runtime.load_cards()
        assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
        runtime.phones.attach(1)
        scan = runtime.scans.resolve(TagEvent("laid", reader="sim", uid="04A1", ndef=encode_ref("vtes:100845"),
                                              seat=1))
        app.show_scan(scan)
        frames(4)
        card = app.root.get_screen("card")
        shown = " ".join(str(getattr(w, "text", "")) for w in card.walk())
        assert scan.card.name not in shown and "Ann a lu une carte." in card.notice
        assert runtime.voice.wait_idle(5)
        said = " ".join(u.text for u in runtime.voice.speaker().backend.spoken)
        assert "Ann a lu une carte" in said and scan.card.name not in said
        # the same card on Bob's reader (no phone) is shown as always
        app.show_scan(runtime.scans.resolve(TagEvent("laid", reader="sim", uid="04B2",
                                                     ndef=encode_ref("vtes:100845"), seat=2)))
        frames(4)
        assert scan.card.name in " ".join(str(getattr(w, "text", "")) for w in card.walk())
    finally:
        app.on_stop()
        window.remove_widget(app.root)
        App._running_app = before  # the screens tested next must not find this stopped app
        frames(1)


def test_turning_the_lan_setting_on_after_an_invitation_serves_the_lan(window, tmp_path: Path, monkeypatch) -> None:
    """The players turn "Téléphones des joueurs" on after a first invitation: the next one
    serves the network at once (it used to keep the loopback server until the app restarted)."""
    import companion.ui.screens.phones as phones
    from companion.play.runtime import Runtime

    runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
    first = phones.phone_server(runtime, lan=False)
    try:
        assert first.host == "127.0.0.1"
        # No real LAN here: the address lookup and the listening are stood in for, the switch is real.
        monkeypatch.setattr(phones, "lan_address", lambda: "192.0.2.10")
        monkeypatch.setattr(phones.PhoneServer, "start", lambda self: None)
        second = phones.phone_server(runtime, lan=True)
        assert second is not first and second.host == "192.0.2.10" and second.public_host == "192.0.2.10"
        assert phones.phone_server(runtime, lan=True) is second  # kept while the setting stays
    finally:
        first.stop()
        runtime.close()


def test_a_second_phone_for_a_seat_waits_for_the_host_at_the_table_screen(window, tmp_path: Path) -> None:
    """A code joins once: a second phone with it waits until the host taps "Accepter" on the
    table's screen (before: a code joined any number of times, silently)."""
    from kivy.tests.common import UnitTestTouch

    from companion.play.runtime import Runtime
    from companion.ui.screens.phones import HostAsk, phone_server
    from companion.ui.widgets.buttons import GlyphButton

    runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
    server = phone_server(runtime, lan=False)

    def call(path: str, body: dict | None = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(server.url + path, data=data, method="GET" if body is None else "POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    try:
        code = server.invitations()["seats"][1]["code"]
        assert call("/api/join", {"code": code})[0] == 200
        status, waiting = call("/api/join", {"code": code})
        assert status == 202
        asks = []
        for _ in range(50):
            frames(2)
            from kivy.core.window import Window

            asks = [w for w in Window.children if isinstance(w, HostAsk)]
            if asks:
                break
        assert asks, "the table screen asks the host"
        words = " ".join(str(getattr(w, "text", "")) for w in asks[0].walk())
        assert "place 2 (Bob)" in words
        accept = next(w for w in asks[0].walk() if isinstance(w, GlyphButton) and w.word == "Accepter")
        x, y = accept.to_window(*accept.center)
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        frames(3)
        status, approved = call("/api/join/" + waiting["pending"])
        assert status == 200 and approved["seat"] == 2
    finally:
        server.stop()
        runtime.close()
