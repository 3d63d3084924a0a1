"""The phone page in Debian's Chromium through Playwright, continued (issue 23): a card whose cost
is essences of the player's choice, confirmed from the phone; the page over HTTPS (wss)."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.play.runtime import Runtime
from companion.readers.events import TagEvent
from companion.tags.records import encode_ref
from companion.web.server import PhoneServer
from tests.web_helpers import CHROMIUM, browser_fixture, chromium_process_fixture  # noqa: F401  (the shared browser's fixtures)

WAIT = 15_000  # ms, for any one thing the page must show

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium: deploy/system-packages.sh installs it")]
playwright = pytest.importorskip("playwright.sync_api")


def test_a_card_paid_in_essences_of_your_choice_is_chosen_and_applied_on_the_phone(
        browser, tmp_path: Path, card_library
) -> None:
    from playwright.sync_api import expect

    runtime = Runtime(library=card_library, journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    runtime.load_cards()
    assert runtime.session.new_game("res-arcana", ["Ann", "Bob"], seed=1).ok
    server = PhoneServer(runtime, port=0)
    server.start()
    context = None
    try:
        game = runtime.session.game
        assert runtime.session.apply("next").ok  # from collection to the actions phase
        me = game.state["active"] + 1  # the seat whose turn it is plays the card
        assert runtime.session.apply(f"essence {me} mort +2").ok
        dead = game.state["seats"][me - 1]["counters"]["mort"]
        seat = server.invitations()["seats"][me - 1]
        context = browser.new_context(viewport={"width": 390, "height": 844}, locale="fr")
        page = context.new_page()
        page.set_default_timeout(WAIT)
        page.goto(seat["join"])
        expect(page.locator("#title")).to_contain_text(seat["name"])
        # Arbre de vie: 2 essences of your choice, read on this seat's reader, so asked on its phone.
        scan = runtime.scans.resolve(TagEvent("laid", reader="sim", uid="04A1",
                                              ndef=encode_ref("res-arcana:arbre-de-vie"), seat=me))
        runtime.lay(scan)
        expect(page.locator("#proposal")).to_be_visible()
        expect(page.locator("#proposal-ask")).to_contain_text("2 essences")
        choices = page.locator("#proposal-choices button")
        expect(choices).to_have_count(5)  # mort, sérénité, vie, vigueur, or: the table screen's row
        death = page.locator("#proposal-choices button[data-essence=mort]")
        death.click()
        death.click()
        expect(page.locator("#proposal-chosen")).to_contain_text("Mort, Mort")
        page.locator("#proposal-ok").click()
        expect(page.locator("#proposal")).to_be_hidden()
        expect(page.locator("#refusal")).to_be_empty()
        assert runtime.session.game.state["seats"][me - 1]["counters"]["mort"] == dead - 2  # paid what was chosen
    finally:
        if context is not None:
            context.close()
        server.stop()
        runtime.close()


def test_the_seat_page_over_https_in_chromium_gets_its_feed_by_wss(browser, tmp_path: Path, card_library) -> None:
    """``--cert``/``--key`` as a venue would serve them (here a throwaway CA's, by trustme):
    Chromium loads the page over https and its socket is wss (a mixed ws:// would be blocked)."""
    import ssl

    from playwright.sync_api import expect

    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    context_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(context_tls)
    runtime = Runtime(library=card_library, journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    runtime.load_cards()
    assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
    server = PhoneServer(runtime, port=0, ssl_context=context_tls)
    server.start()
    context = None
    try:
        seat = server.invitations()["seats"][0]
        assert seat["join"].startswith("https://127.0.0.1:")
        context = browser.new_context(viewport={"width": 390, "height": 844}, locale="fr", ignore_https_errors=True)
        page = context.new_page()
        page.set_default_timeout(WAIT)
        sockets = []
        page.on("websocket", lambda ws: sockets.append(ws.url))
        page.goto(seat["join"])
        expect(page.locator("#title")).to_contain_text("Ann")  # the hello, by the socket
        assert sockets and all(url.startswith("wss://127.0.0.1:") for url in sockets)
        assert runtime.session.apply("pool 1 -1").ok  # a change at the table reaches the page
        expect(page.locator("#log-list")).to_contain_text("maintenant 29", timeout=WAIT)
    finally:
        if context is not None:
            context.close()
        server.stop()
        runtime.close()


def test_the_judge_button_on_the_phone_calls_the_venue(browser, tmp_path: Path, card_library) -> None:
    from playwright.sync_api import expect

    from companion.venue.link import TableLink, VenueAddress

    runtime = Runtime(library=card_library, journal_path=tmp_path / "games.sqlite3", lang="fr", speak=False)
    assert runtime.session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
    link = TableLink(runtime.session, VenueAddress.parse("mqtt://table-2:pw@127.0.0.1:9/night", 2),
                     outbox_path=tmp_path / "outbox.sqlite3").start()
    runtime.venue = link  # as companion.venue.join's extension does for --venue
    server = PhoneServer(runtime, port=0)
    server.start()
    context = None
    try:
        seat = server.invitations()["seats"][1]
        context = browser.new_context(viewport={"width": 390, "height": 844}, locale="fr")
        page = context.new_page()
        page.set_default_timeout(WAIT)
        page.goto(seat["join"])
        page.get_by_role("button", name="Appeler un juge").click()
        expect(page.locator("#refusal")).to_be_empty()
        for _ in range(50):
            calls = [body for _seq, kind, body in link.outbox.pending() if kind == "judge"]
            if calls:
                break
            page.wait_for_timeout(100)
        assert len(calls) == 1 and calls[0]["seat"] == 2 and "Bob" in calls[0]["why"]
    finally:
        if context is not None:
            context.close()
        server.stop()
        link.stop(timeout=2, drain=0)
        runtime.close()
