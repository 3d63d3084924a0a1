"""A card shown to the table from a phone ("Montrer à la table") in the real Kivy window: the
phone server beside the Kivy loop, the phone's request over HTTP, the table screen showing it."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


def frames(count: int = 3) -> None:
    from kivy.base import EventLoop

    for _ in range(count):
        EventLoop.idle()


def test_a_card_shown_from_a_phone_appears_on_the_table_screen(window, tmp_path: Path) -> None:
    from kivy.app import App

    from companion.play.runtime import Runtime
    from companion.readers.events import TagEvent
    from companion.tags.records import encode_ref
    from companion.ui.app import CompanionApp
    from companion.web.server import PhoneServer

    before = App.get_running_app()
    runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    app = CompanionApp(reader_path="sim", runtime=runtime)
    app.load_config()
    app.root = app.build()
    window.add_widget(app.root)
    app.on_start()
    server = None
    try:
        frames(3)
        runtime.load_cards()
        assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
        app.root.show("table")
        frames(3)
        table = app.root.get_screen("table")
        server = PhoneServer(runtime, port=0)
        server.start()
        token = server.invitations()["seats"][0]["token"]
        runtime.phones.attach(1)  # Ann's phone is connected: her reader's cards are hers
        app.show_scan(runtime.scans.resolve(TagEvent("laid", reader="sim", uid="04A1",
                                                     ndef=encode_ref("vtes:100845"), seat=1)))
        frames(4)
        name = runtime.phones.cards(1)[0]["name"]

        def shown() -> str:
            overlay = table.card_overlay
            return "" if overlay is None else " ".join(str(getattr(w, "text", "")) for w in overlay.walk())

        assert name not in shown()  # a secret until she shows it
        number = runtime.phones.cards(1)[0]["id"]
        request = urllib.request.Request(server.url + "/api/reveal", data=json.dumps({"id": number}).encode(),
                                         headers={"Content-Type": "application/json",
                                                  "Authorization": "Bearer " + token}, method="POST")
        with urllib.request.urlopen(request, timeout=10) as r:
            assert r.status == 200 and json.loads(r.read())["ok"]
        for _ in range(50):
            frames(2)
            if name in shown():
                break
        assert name in shown()  # over the table, as a card laid on a reader
        assert app.root.current == "table"
    finally:
        if server is not None:
            server.stop()
        app.on_stop()
        window.remove_widget(app.root)
        App._running_app = before
        frames(1)
