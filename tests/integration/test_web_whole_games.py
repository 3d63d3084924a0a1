"""Each of the five games played whole from the players' phones alone (issue 23): the project's
whole-game scripts (tests/scripts, the ones the console plays), every line typed on the phone of
the seat it names (or of the seat whose turn it is) in Debian's Chromium, against the phone
server; the game ends as it does at the console, with the very same final state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.play.runtime import Runtime
from companion.web.server import PhoneServer
from tests.integration.test_web_browser import CHROMIUM, phone
from tests.web_helpers import browser_fixture, chromium_process_fixture  # noqa: F401  (the shared browser's fixtures)

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium: deploy/system-packages.sh installs it")]
playwright = pytest.importorskip("playwright.sync_api")
SCRIPTS = Path(__file__).parents[1] / "scripts"
TABLES = {"vtes": ("Ann,Bob,Cy", 5), "ascension": ("Ann,Bob", 3), "astral": ("Ann,Bob", 3),
          "res-arcana": ("Ann,Bob", 3), "rise": ("Ann,Bob", 3)}


def script(game: str) -> list[str]:
    lines = [raw.split("#", 1)[0].strip() for raw in (SCRIPTS / f"{game}.txt").read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line and line != "status"]


@pytest.mark.parametrize("game", sorted(TABLES))
def test_a_whole_game_from_the_phones_alone(browser, tmp_path: Path, game: str) -> None:  # noqa: F811
    players, seed = TABLES[game]
    names = players.split(",")
    console = Runtime(journal_path=tmp_path / "console.sqlite3", lang="fr", speak=False)
    assert console.session.new_game(game, names, seed=seed).ok
    runtime = Runtime(journal_path=tmp_path / "phones.sqlite3", lang="fr", speak=False)
    assert runtime.session.new_game(game, names, seed=seed).ok
    server = PhoneServer(runtime, port=0, rate=1e6, burst=1e6)
    server.start()
    contexts, pages = [], {}
    try:
        for seat in server.invitations()["seats"]:
            context, page = phone(browser, seat["join"])
            playwright.expect(page.locator("h1")).to_have_text(f"Ma place : {seat['name']}")
            contexts.append(context)
            pages[seat["seat"]] = page
        answers = []
        for line in script(game):
            expected = console.session.apply(line, source="key").ok
            try:
                intent = runtime.session.parser("phone").parse(line)
            except Exception:
                intent = None
            named = intent.seat + 1 if intent is not None and intent.seat is not None else None
            seat = named or runtime.session.game.to_json().get("active_seat") or 1
            page = pages[seat]
            page.locator("#command").fill(line)
            with page.expect_response("**/api/command") as answer:
                page.locator("#command-form button[type=submit]").click()
            ok = json.loads(answer.value.text())["ok"]
            answers.append((line, seat, expected, ok))
        assert [a for a in answers if a[2] != a[3]] == []  # each line accepted or refused as at the console
        final = runtime.session.game.to_json()
        assert final["over"]
        ignore = {"clock"}  # wall-clock stamps of the two runs
        assert {k: v for k, v in final.items() if k not in ignore} == \
            {k: v for k, v in console.session.game.to_json().items() if k not in ignore}
    finally:
        for context in contexts:
            context.close()
        server.stop()
        runtime.close()
        console.close()
