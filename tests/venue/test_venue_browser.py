"""The venue's boards in a real Chromium (Debian's, through Playwright): the organiser's page with
live tables, a judge call and the seating, the public TV page; axe-core finds no violation."""

from __future__ import annotations

import asyncio
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from companion.play.session import Session
from companion.venue import board
from companion.venue.event import EventStore
from companion.venue.hub import Hub
from companion.venue.link import TableLink, VenueAddress
from companion.venue.runner import HubThread
from tests.venue.helpers import needs_mosquitto, wait_for
from tests.web_helpers import CHROMIUM, browser_fixture, chromium_process_fixture  # noqa: F401  (the shared browser's fixtures)

WAIT = 15_000

pytestmark = [needs_mosquitto, pytest.mark.timeout(180), pytest.mark.slow,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium: deploy/system-packages.sh installs it")]
playwright = pytest.importorskip("playwright.sync_api")


def keep(path: Path) -> None:
    where = os.environ.get("COMPANION_SHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(where) / path.name)


@pytest.fixture
def venue(tmp_path, broker):
    store = EventStore(tmp_path / "event.sqlite3", broker.event, "vtes")
    for i in range(1, 11):
        store.register(f"Joueur {i}", f"30000{i}")
    port: dict[str, int] = {}

    async def serve(hub: Hub) -> None:
        started = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(board.serve(hub, "127.0.0.1", 0, started))
        port["board"] = await started
        await task

    hub = HubThread(Hub(store, "127.0.0.1", broker.port, broker.credentials.hub, seat_iterations=300), serve).start()
    wait_for(lambda: hub.hub.connected and "board" in port, what="hub and board up")
    links = []
    try:
        round_no, _ = hub.call(hub.hub.seat_round)
        for n in (1, 2):
            session = Session(journal_path=tmp_path / f"t{n}" / "games.sqlite3")
            address = VenueAddress("127.0.0.1", broker.port, broker.event, n, broker.credentials.tables[n])
            links.append(TableLink(session, address, auto_start=True).start())
        for link in links:
            wait_for(lambda link=link: link.session.game is not None, what="seated games started")
        yield hub, links, f"http://127.0.0.1:{port['board']}", store.token
    finally:
        for link in links:
            link.stop(drain=0)
        hub.stop()
        store.close()


def _axe(page) -> list:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [(v["id"], v["impact"], v["help"]) for v in results.response["violations"]]


def test_organiser_board_shows_live_tables_and_judge_calls(browser, venue, tmp_path):
    hub, links, base, token = venue
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="fr")
    page = context.new_page()
    page.set_default_timeout(WAIT)
    try:
        page.goto(f"{base}/organiser?token={token}")
        expect = playwright.expect
        expect(page.get_by_role("heading", name="Tables en direct")).to_be_visible()
        expect(page.locator("#live tbody tr")).to_have_count(2)
        first = links[0].session
        name = first.seat_names[0]
        assert first.apply("pool 1 -7").ok
        expect(page.locator("#live tbody tr").first).to_contain_text(f"{name} 23")  # pushed, no reload
        links[1].call_judge(why="Règle de la proie")
        expect(page.locator("#judge")).to_contain_text("Règle de la proie")
        expect(page.locator("#judge")).to_contain_text("Redressement")  # the phase in words, not its id
        hub.call(hub.hub.start_clock, 120)
        expect(page.locator("#clock")).to_contain_text("restantes")
        assert _axe(page) == []
        shot = tmp_path / "venue-organiser.png"
        page.screenshot(path=str(shot), full_page=True)
        keep(shot)
        page.get_by_role("button", name="Traité").click()
        expect(page.locator("#judge")).to_contain_text("Aucun appel en attente.")
        assert hub.hub.store.judge_calls() == []
        # seating printable: the print stylesheet keeps the seating, hides the rest
        page.emulate_media(media="print")
        assert page.locator("#seating").is_visible() and not page.locator("#live").is_visible()
        page.emulate_media(media="screen")
        # the organiser replaces table 2's result, with a reason; a result no oust order gives is refused
        page.get_by_label("Table", exact=True).fill("2")
        page.get_by_label("Points de victoire", exact=False).fill("1,5 0 0 0 0")
        page.get_by_label("Raison").fill("feuille de score")
        page.get_by_role("button", name="Remplacer le résultat").click()
        expect(page.locator("#status")).to_contain_text("aucun ordre d'éliminations ne donne ces points de victoire")
        page.get_by_label("Points de victoire", exact=False).fill("2,5 1 0 0 0,5")
        page.get_by_role("button", name="Remplacer le résultat").click()
        expect(page.locator("#status")).to_contain_text("Résultat remplacé par l'organisateur.")
        assert [(r["table"], r["vp"], r["status"], r["reason"]) for r in hub.hub.store.results()] == [
            (2, [2.5, 1.0, 0.0, 0.0, 0.5], "override", "feuille de score")]
        expect(page.locator("#live tbody tr").nth(1)).to_contain_text("corrigé par l'organisateur (feuille de score)")
        with page.expect_download() as download:
            page.get_by_role("link", name="Export Archon (ZIP de CSV)").click()
        with zipfile.ZipFile(download.value.path()) as archon:
            assert archon.namelist() == ["Methuselahs.csv", "Round-1.csv"]
        # registering a player from the page
        page.get_by_role("textbox", name="Joueur", exact=True).fill("Nouvelle Joueuse")
        page.get_by_role("button", name="Inscrire").click()
        expect(page.locator("#status")).to_contain_text("Nouvelle Joueuse est inscrit.")
        assert any(p["name"] == "Nouvelle Joueuse" for p in hub.hub.store.players())
    finally:
        context.close()


def test_public_tv_page_reads_only_and_passes_axe(browser, venue, tmp_path):
    hub, links, base, token = venue
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="fr")
    page = context.new_page()
    page.set_default_timeout(WAIT)
    try:
        page.goto(f"{base}/tv")
        expect = playwright.expect
        expect(page.locator("#seating section")).to_have_count(2)
        expect(page.locator("#standings tbody tr")).to_have_count(10)
        hub.call(hub.hub.start_clock, 90)
        expect(page.locator("#clock")).to_contain_text("restantes")
        assert page.locator("#live").count() == 0 and page.locator("button").count() == 0
        assert _axe(page) == []
        shot = tmp_path / "venue-tv.png"
        page.screenshot(path=str(shot), full_page=True)
        keep(shot)
        # without the token, the organiser's views and actions are refused
        for path, method in (("/api/organiser", "GET"), ("/api/action", "POST")):
            r = page.request.fetch(base + path, method=method, data='{"action": "seat"}')
            assert r.status == 403
        r = page.request.fetch(base + "/api/action?token=" + token, method="POST", data='{"action": [[[')
        assert r.status == 400
        assert len(hub.hub.store.rounds()) == 1
    finally:
        context.close()


def test_the_organiser_seats_a_staggered_round_and_reads_who_sits_out(browser, broker, tmp_path):
    store = EventStore(tmp_path / "event.sqlite3", broker.event, "vtes")
    for i in range(1, 8):
        store.register(f"Joueur {i}")
    port: dict[str, int] = {}

    async def serve(hub: Hub) -> None:
        started = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(board.serve(hub, "127.0.0.1", 0, started))
        port["board"] = await started
        await task

    hub = HubThread(Hub(store, "127.0.0.1", broker.port, broker.credentials.hub, seat_iterations=300), serve).start()
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="fr")
    page = context.new_page()
    page.set_default_timeout(WAIT)
    try:
        wait_for(lambda: hub.hub.connected and "board" in port, what="hub and board up")
        page.goto(f"http://127.0.0.1:{port['board']}/organiser?token={store.token}")
        expect = playwright.expect
        page.get_by_role("button", name="Placer le tour suivant").click()
        expect(page.locator("#status")).to_contain_text("ne joue pas ce tour")
        seated = {p for t in store.seating(1) for p in t}
        out = {f"Joueur {i}" for i in range(1, 8)} - seated
        assert len(seated) in (4, 5) and out
        for name in out:
            expect(page.locator("#status")).to_contain_text(f"{name} ne joue pas ce tour")
        expect(page.locator("#seating li")).to_have_count(len(seated))
    finally:
        context.close()
        hub.stop()
        store.close()
