"""A seat's phone confirms its table's result (issue 26): the seat's action list (the very list
the table screen's seat menus show) offers "Confirmer le résultat" only while a result waits for
the players' word; a tap in Debian's Chromium sends it through the table's real phone server and
the venue's link to a real Mosquitto and the organiser's hub, which validates it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.play.runtime import Runtime
from companion.venue.event import EventStore
from companion.venue.hub import Hub
from companion.venue.join import attach
from companion.venue.link import VenueAddress
from companion.venue.runner import HubThread
from companion.web.server import PhoneServer
from tests.venue.helpers import needs_mosquitto, wait_for
from tests.web_helpers import CHROMIUM, browser_fixture, chromium_process_fixture  # noqa: F401  (the shared browser's fixtures)

WAIT = 15_000  # ms, for any one thing the page must show

pytestmark = [needs_mosquitto, pytest.mark.timeout(180), pytest.mark.slow,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium: deploy/system-packages.sh installs it")]
playwright = pytest.importorskip("playwright.sync_api")


def test_a_phone_confirms_the_tables_result_and_the_hub_validates_it(browser, tmp_path, broker):
    from playwright.sync_api import expect

    store = EventStore(tmp_path / "event.sqlite3", broker.event, "vtes")
    for i in range(1, 11):
        store.register(f"P{i:02d}")
    hub = HubThread(Hub(store, "127.0.0.1", broker.port, broker.credentials.hub, seat_iterations=300)).start()
    runtime = Runtime(journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    server = context = None
    try:
        wait_for(lambda: hub.hub.connected, what="the hub connected")
        round_no, _ = hub.call(hub.hub.seat_round)
        players = store.seating(round_no)[0]
        attach(runtime, VenueAddress("127.0.0.1", broker.port, broker.event, 1, broker.credentials.tables[1]))
        wait_for(lambda: runtime.session.seat_names == players, what="the table started its seated game")
        server = PhoneServer(runtime, port=0)
        server.start()
        seat = server.invitations()["seats"][1]  # the second seat's phone: any player may confirm
        context = browser.new_context(viewport={"width": 390, "height": 844}, locale="fr")
        page = context.new_page()
        page.set_default_timeout(WAIT)
        page.goto(seat["join"])
        expect(page.locator("#title")).to_contain_text(seat["name"])
        expect(page.get_by_role("button", name="Appeler un juge")).to_be_visible()
        confirm = page.get_by_role("button", name=re.compile("^Confirmer le résultat"))
        expect(confirm).to_have_count(0)  # the game goes on: nothing to confirm

        def act(action_id: str) -> int:  # the phone page's own call, through Playwright's HTTP client
            return context.request.post(server.url + "/api/action", data={"id": action_id},
                                        headers={"Authorization": "Bearer " + seat["token"]}).status

        assert act("confirm_result") == 409  # refused out of its time, as any seat action
        for line in ["oust 2", "oust 3", "oust 4", "oust 5"]:
            assert runtime.session.apply(line).ok
        # the game's end: the phone shows the proposal among its seat's main actions
        expect(confirm).to_have_count(1)
        expect(confirm).to_contain_text(f"{players[0]} 5, {players[1]} 0")
        expect(confirm).to_contain_text(f"Victoire : {players[0]}.")
        expect(page.get_by_role("button", name="Contester (appeler l'organisateur)")).to_have_count(1)
        confirm.click()
        expect(page.locator("#refusal")).to_be_empty()
        wait_for(lambda: [r["status"] for r in store.results(round_no)] == ["validated"], what="validated at the hub")
        assert store.results(round_no)[0]["vp"] == [5.0, 0.0, 0.0, 0.0, 0.0]
        assert [e["body"]["by"] for e in store.entries(1, "result")] == [f"phone:{players[1]}"]
        expect(confirm).to_have_count(0)  # confirmed: no longer offered
        assert runtime.result_pending() is None
        assert act("confirm_result") == 409
    finally:
        if context is not None:
            context.close()
        if server is not None:
            server.stop()
        runtime.close()
        hub.stop()
        store.close()
