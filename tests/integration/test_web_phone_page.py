"""The phone page's first screen in each game (issue 23, item 7), in Debian's Chromium at a
phone's size (390x844): whose turn it is and the seat's main actions without scrolling, one row
per counter, axe-core finding no serious violation; the spectator page labelled read-only; a
game's urgent action (Rise's restoration) played from the phone's own button; the favicon.
Screenshots go to COMPANION_SHOTS when it is set."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.play.runtime import Runtime
from companion.web.server import PhoneServer
from tests.integration.test_web_browser import CHROMIUM, keep, phone
from tests.web_helpers import browser_fixture, chromium_process_fixture  # noqa: F401  (the shared browser's fixtures)

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium: deploy/system-packages.sh installs it")]
playwright = pytest.importorskip("playwright.sync_api")
GAMES = ("vtes", "ascension", "res-arcana", "rise", "astral")


def served(tmp_path: Path, game: str) -> tuple[Runtime, PhoneServer]:
    runtime = Runtime(journal_path=tmp_path / f"{game}.sqlite3", lang="fr", speak=False)
    assert runtime.session.new_game(game, ["Ann", "Bob"], seed=1, first="Ann").ok
    server = PhoneServer(runtime, port=0)
    server.start()
    return runtime, server


def on_first_screen(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844


@pytest.mark.parametrize("game", GAMES)
def test_whose_turn_and_the_main_actions_are_on_the_first_screen(browser, tmp_path: Path, game: str) -> None:  # noqa: F811
    from axe_playwright_python.sync_playwright import Axe

    runtime, server = served(tmp_path, game)
    context, page = phone(browser, server.invitations()["seats"][0]["join"])
    try:
        expect = playwright.expect
        expect(page.locator("#turn-h")).to_have_text("C'est votre tour.")
        for selector in ("#turn-h", "#phase-text", "#next", "#undo", "#counters .counter >> nth=0"):
            assert on_first_screen(page, selector), (game, selector)
        assert "null" not in page.locator("#counters").inner_text() + page.locator("#seats").inner_text()
        rows = page.locator("#counters .counter")
        assert rows.count() >= 1
        for n in range(rows.count()):  # one row each: − value + side by side
            boxes = [rows.nth(n).locator(s).bounding_box() for s in (".step >> nth=0", ".value", ".step >> nth=1")]
            assert len({round(b["y"]) for b in boxes}) == 1, game
        bad = [v for v in Axe().run(page).response["violations"] if v["impact"] in ("serious", "critical")]
        assert bad == [], [(v["id"], v["help"]) for v in bad]
        shot = tmp_path / f"phone-first-{game}.png"
        page.screenshot(path=str(shot))
        keep(shot, shot.name)
    finally:
        context.close()
        server.stop()
        runtime.close()


def test_a_phone_whose_turn_it_is_not_says_why_and_the_spectator_page_says_what_it_is(browser, tmp_path: Path) -> None:  # noqa: F811
    from axe_playwright_python.sync_playwright import Axe

    runtime, server = served(tmp_path, "res-arcana")
    inv = server.invitations()
    cb, bob = phone(browser, inv["seats"][1]["join"])
    cs, watcher = phone(browser, inv["spectator"])
    try:
        expect = playwright.expect
        expect(bob.locator("#turn-h")).to_have_text("À Ann de jouer")
        expect(bob.locator("#next")).to_be_disabled()
        expect(bob.locator("#wait-text")).to_contain_text("attendent le tour de votre place")
        expect(watcher.locator("h1")).to_have_text("Spectateur (lecture seule)")
        expect(watcher.locator("#role-line")).to_contain_text("rien ne peut être changé")
        assert watcher.locator("#next").is_hidden() and watcher.locator("#mine").is_hidden()
        assert watcher.locator(".skip").is_hidden()  # no "my seat" to skip to
        bad = [v for v in Axe().run(watcher).response["violations"] if v["impact"] in ("serious", "critical")]
        assert bad == [], [(v["id"], v["help"]) for v in bad]
        icon = watcher.request.get(server.url + "/favicon.ico")
        assert icon.ok and icon.headers["content-type"].startswith("image/svg+xml")
        for name, page in (("bob-waiting", bob), ("spectator", watcher)):
            shot = tmp_path / f"phone-{name}.png"
            page.screenshot(path=str(shot))
            keep(shot, shot.name)
    finally:
        cb.close()
        cs.close()
        server.stop()
        runtime.close()


def test_rise_restoration_from_the_phones_own_button_and_the_log_says_who(browser, tmp_path: Path) -> None:  # noqa: F811
    """Before: Rise stopped at Restoration on the phones ("restore 2" could not be sent)."""
    runtime, server = served(tmp_path, "rise")
    inv = server.invitations()
    ca, ann = phone(browser, inv["seats"][0]["join"])
    cb, bob = phone(browser, inv["seats"][1]["join"])
    try:
        expect = playwright.expect
        pages = {1: ann, 2: bob}
        expect(ann.locator("#turn-h")).to_have_text("C'est votre tour.")
        for _ in range(12):  # each player presses "Phase suivante" on their own phone
            seat = runtime.session.game.to_json()["active_seat"]
            page = pages[seat]
            urgent = page.locator("#turn-actions button[data-action='restore2']")
            if urgent.count():
                break
            before = page.locator("#phase-text").inner_text()
            page.locator("#next").click()
            expect(page.locator("#phase-text")).not_to_have_text(before)
        assert on_first_screen(page, "#turn-actions button[data-action='restore2']")
        page.locator("#turn-actions button[data-action='restore2']").click()
        expect(page.locator("#turn-actions button[data-action='restore2']")).to_have_count(0)  # done: gone
        other = ann if page is bob else bob
        name = "Ann" if page is ann else "Bob"
        expect(other.locator("#log-list li").last).to_contain_text(name)  # who did it, newest last
        assert runtime.session.game.state["seats"][seat - 1].get("restored")
        shot = tmp_path / "phone-rise-restoration.png"
        page.screenshot(path=str(shot))
        keep(shot, shot.name)
    finally:
        ca.close()
        cb.close()
        server.stop()
        runtime.close()


def test_a_phone_comes_back_by_itself_after_the_table_crashes_and_resumes(browser, tmp_path: Path) -> None:  # noqa: F811
    """kill -9 of ``serve``, then ``serve --resume ID`` on the same port: the phone that joined
    with its code reconnects with no new code and shows the table again. Before: "Jeton inconnu ou
    révoqué" and "Connexion perdue, nouvel essai…" for ever."""
    import json
    import signal
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    journal = tmp_path / "games.sqlite3"

    def serve(*args: str) -> tuple[subprocess.Popen, dict]:
        proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", *args, "--port", str(port), "--json",
                                 "--journal", str(journal)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return proc, json.loads(proc.stdout.readline())

    proc, invitation = serve("--game", "res-arcana", "--players", "Ann,Bob", "--first", "Ann")
    context, page = phone(browser, invitation["seats"][0]["join"])
    try:
        expect = playwright.expect
        expect(page.locator("h1")).to_have_text("Ma place : Ann")
        expect(page.locator("#status")).to_have_text("Connecté.")
        page.get_by_role("button", name="Or plus 1").click()
        expect(page.locator("#seats")).to_contain_text("Or 2")
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        expect(page.locator("#status")).to_have_text("Connexion perdue, nouvel essai…")
        proc, again = serve("--resume", str(invitation["game"]))
        expect(page.locator("#status")).to_have_text("Connecté.", timeout=30_000)
        page.get_by_role("button", name="Or plus 1").click()  # the same token acts again
        expect(page.locator("#seats")).to_contain_text("Or 3")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        context.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
