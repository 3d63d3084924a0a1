"""The phone page in a real browser: Debian's Chromium driven by Playwright, two browser
contexts as two players' phones, against the phone server on a loopback port; an axe-core audit
of the page; screenshots at a phone's size (390x844) for a person to look at."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from companion.readers.events import TagEvent
from companion.table.journal import Journal
from companion.tags.records import encode_ref
from tests.web_helpers import CHROMIUM, browser_fixture, chromium_process_fixture, served_table  # noqa: F401  (the shared browser's fixtures)

WAIT = 15_000  # ms, for any one thing the page must show

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium: deploy/system-packages.sh installs it")]
playwright = pytest.importorskip("playwright.sync_api")


@pytest.fixture
def table(tmp_path: Path, card_library):
    yield from served_table(tmp_path, library=card_library)


def phone(browser, url: str, lang: str = "fr"):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1, locale=lang)
    page = context.new_page()
    page.set_default_timeout(WAIT)
    page.goto(url)
    return context, page


def keep(path: Path, name: str) -> None:
    """Screenshots go to COMPANION_SHOTS too when it is set, to be looked at after the run."""
    where = os.environ.get("COMPANION_SHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(where) / name)


def test_two_phones_play_and_keep_their_secrets(browser, table, tmp_path: Path) -> None:
    expect = playwright.expect
    runtime, server = table
    inv = server.invitations()
    ca, ann = phone(browser, inv["seats"][0]["join"])
    cb, bob = phone(browser, inv["seats"][1]["join"])
    try:
        expect(ann.get_by_role("heading", name="Ma place : Ann")).to_be_visible()
        expect(bob.get_by_role("heading", name="Ma place : Bob")).to_be_visible()
        # Ann takes 1 from her pool: Bob's phone shows it, the journal has it
        ann.get_by_role("button", name="réserve moins 1").click()
        expect(bob.locator("#seats")).to_contain_text("Ann : réserve 29")
        expect(ann.locator("#live")).to_contain_text("29")
        journal = Journal(runtime.session.journal_path)
        try:
            from companion.table.engine import Game

            assert Game.open(journal, runtime.session.game.id).to_json()["seats"][0]["counters"]["pool"] == 29
        finally:
            journal.close()
        # a value typed in: a tap on the value opens the amount pad
        ann.locator("button[data-pad='pool']").click()
        for key in "25":
            ann.locator(f"#pad-keys button[data-key='{key}']").click()
        ann.locator("#pad-ok").click()
        expect(bob.locator("#seats")).to_contain_text("Ann : réserve 25")
        # a negative value is not ignored in silence: the table's refusal, on Ann's phone alone
        ann.locator("button[data-pad='pool']").click()
        for key in "±3":
            ann.locator(f"#pad-keys button[data-key='{key}']").click()
        ann.locator("#pad-ok").click()
        expect(ann.locator("#refusal")).not_to_be_empty()
        expect(bob.locator("#log-list")).not_to_contain_text(ann.locator("#refusal").inner_text())
        # a card on Ann's reader: Ann's phone has its text, Bob's only hears that she read one
        scan = runtime.scans.resolve(TagEvent("laid", reader="sim", uid="04A1", ndef=encode_ref("vtes:100845"), seat=1))
        runtime.lay(scan)
        name = scan.card.name
        expect(ann.locator("#card-list")).to_contain_text(name)
        # as a screen reader should get it: type, cost and disciplines by name, icons as words, in
        # the page's language; never a raw [dom] code, nor the circled D the font has no glyph for
        expect(ann.locator("#card-list")).to_contain_text("Type : Action · Coût : 1 sang · Disciplines : Domination")
        expect(ann.locator("#card-list")).to_contain_text("Domination, niveau supérieur")
        expect(ann.locator("#card-list")).not_to_contain_text("[dom]")
        expect(ann.locator("#card-list")).not_to_contain_text("\u24b9")
        expect(ann.locator("#live")).to_contain_text(name)
        expect(bob.locator("#log-list")).to_contain_text("Ann a lu une carte.")
        assert name not in bob.content()
        shot = tmp_path / "phone-ann-fr.png"
        ann.screenshot(path=str(shot), full_page=True)
        keep(shot, shot.name)
        # Bob's phone drops off the Wi-Fi and comes back: the state at once
        cb.set_offline(True)
        bob.evaluate("window.__drop = true")
        runtime.session.apply("pool 2 -3", source="key")
        cb.set_offline(False)
        bob.reload()
        expect(bob.locator("#seats")).to_contain_text("Bob : réserve 27")
        # Bob may not change the phase when it is not his turn... it is Bob's turn (seed 1): Ann's button is off
        expect(ann.get_by_role("button", name="Phase suivante")).to_be_disabled()
        bob.get_by_role("button", name="Phase suivante").click()
        expect(ann.locator("#phase-text")).not_to_contain_text("Redressement")
        # English on Bob's phone
        bob.get_by_role("button", name="English").click()
        expect(bob.get_by_role("heading", name="My seat: Bob")).to_be_visible()
        # the log is rewritten in English too, the lines it got before the reload included
        expect(bob.locator("#log-list")).to_contain_text("Ann read a card.")
        expect(bob.locator("#log-list")).not_to_contain_text("Ann a lu une carte.")
        shot = tmp_path / "phone-bob-en.png"
        bob.screenshot(path=str(shot), full_page=True)
        keep(shot, shot.name)
        # Ann shows her card to the table
        ann.get_by_role("button", name=f"Montrer à la table : {name}").click()
        expect(ann.locator("#card-list")).to_contain_text("Aucune carte lue en privé.")
        assert runtime.session.last_scan is scan
    finally:
        ca.close()
        cb.close()


def test_the_phone_page_passes_axe_with_no_serious_violation(browser, table, tmp_path: Path) -> None:
    from axe_playwright_python.sync_playwright import Axe

    runtime, server = table
    scan = runtime.scans.resolve(TagEvent("laid", reader="sim", uid="04A1", ndef=encode_ref("vtes:100845"), seat=1))
    context, page = phone(browser, server.invitations()["seats"][0]["join"])
    try:
        playwright.expect(page.get_by_role("heading", name="Ma place : Ann")).to_be_visible()
        runtime.lay(scan)
        playwright.expect(page.locator("#card-list")).to_contain_text(scan.card.name)
        results = Axe().run(page)
        bad = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
        assert bad == [], [(v["id"], v["impact"], v["help"]) for v in bad]
        # 200% zoom, landscape: still usable (no horizontal scrolling of the page)
        page.set_viewport_size({"width": 844, "height": 390})
        page.evaluate("document.documentElement.style.fontSize = '225%'")
        width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1]
        shot = tmp_path / "phone-ann-landscape-200.png"
        page.screenshot(path=str(shot))
        keep(shot, shot.name)
        (tmp_path / "axe.txt").write_text(results.generate_report())
        keep(tmp_path / "axe.txt", "axe.txt")
    finally:
        context.close()
