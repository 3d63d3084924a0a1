"""The window as a user starts it (``python -m companion run --demo``, issue 22 item 4) with a
FIFO, a link to /dev/zero and a dangling link (a USB stick not mounted) in the user's cards
folder, next to one good user card file: the window comes up, every built-in game's cards load
and are found, the good user card too, the skipped files are named on the Home screen and said
in the user's language, and SIGTERM closes the window cleanly. Before the fix the FIFO held the
card loading forever (and the window then ignored SIGTERM), the dangling link disabled every
game's cards."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cards_index import warm_index
from tests.window_child import driver, run_window, window_env

pytestmark = pytest.mark.timeout(240)

GOOD = "cards:\n  - id: mine\n    name: Mine\n    type: invocateur\n    text: Un texte.\n"

# A probe on Kivy's clock, then the program's own entry point, as typed.
DRIVER = driver("""
def probe(_dt):
    app = App.get_running_app()
    if app is None or app.root is None or not app.root.has_screen("home"):
        return
    home = app.root.get_screen("home")
    speaker = app.voice.speaker()
    spoken = [" ".join(u.text for u in m) for m in (speaker.history if speaker is not None else [])]
    ready = dict(laid=app.last_scan is not None, search=app.library.search_ready, said=any(
        "FIFO" in s for s in spoken), status=home.status)
    if not (ready["laid"] and ready["search"] and ready["said"]):
        (out.parent / "waiting.json").write_text(json.dumps(ready, ensure_ascii=False))
        return
    games = list(app.library.games)
    found = {}
    for g in games:
        cards = list(app.library.load(g).values())
        hits = app.library.search(cards[0].name, game=g) if cards else []
        found[g] = [len(cards), [h.item.ref for h in hits][:3], cards[0].ref if cards else None]
    mine = app.library.search("Mine", game="rise")
    report = dict(games=games, found=found, mine=[h.item.ref for h in mine], status=home.status,
                  spoken=spoken, laid=app.last_scan.card.ref if app.last_scan.card else None)
    out.write_text(json.dumps(report, ensure_ascii=False))
    return False
""", '["--lang", sys.argv[2], "run", "--demo"]')


@pytest.fixture(scope="module")
def cards_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The user's home with the special files, made once: the card search over every game
    (computed again once the user's files changed a game, 5 s of CPU here) is computed by the
    first window, which keeps it in this home's card index; the next window reads it."""
    home = tmp_path_factory.mktemp("special") / "home"
    cards = home / "data" / "cards"
    cards.mkdir(parents=True)
    os.mkfifo(cards / "res-arcana.yaml")
    (cards / "astral.yaml").symlink_to("/dev/zero")
    (cards / "ascension.yaml").symlink_to(home.parent / "usb-stick" / "ascension.yaml")
    (cards / "rise.yaml").write_text(GOOD)
    warm_index(home)  # from the session's: only the games of the special files are rebuilt
    return home


@pytest.fixture
def home(cards_home: Path) -> Path:
    """``cards_home`` as a user who starts the window again: only their card files and the card
    index are kept of what the last window wrote (no settings, no journal, no other cache). The
    games whose skipped files were named in another language are read again all the same (the
    index keeps such a game's reasons in the language they were said in)."""
    keep = {cards_home / "data", cards_home / "data" / "cards", cards_home / "cache",
            cards_home / "cache" / "cards-index.sqlite3"}
    for path in sorted(cards_home.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path in keep or (cards_home / "data" / "cards") in path.parents:
            continue
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        else:
            path.unlink()
    return cards_home


@pytest.mark.parametrize("lang,fifo_word", [("en", "named pipe (FIFO)"), ("fr", "tube nommé (FIFO)")])
def test_the_window_loads_every_game_past_special_files_and_names_them(tmp_path: Path, home: Path, lang: str,
                                                                       fifo_word: str) -> None:
    report_path = tmp_path / "report.json"
    env = window_env(home)
    env.pop("COMPANION_CACHE", None)  # the user's files in this home: its own card index
    ended = run_window(DRIVER, [str(report_path), lang], env, report_path, missing=tmp_path / "waiting.json",
                       poll=0.2)
    err = ended.err
    report = json.loads(report_path.read_text())
    assert ended.returncode == 0 and "Traceback" not in err, err
    assert ("Goodbye." if lang == "en" else "Au revoir") in err, err
    # Every built-in game's cards: loaded and found by search; the demo laid its first card.
    assert set(report["games"]) >= {"vtes", "ascension", "astral", "res-arcana", "rise"}
    for game, (count, hits, first) in report["found"].items():
        assert count > 0 and first in hits, (game, count, hits)
    assert report["laid"] and report["laid"].startswith("vtes:")
    assert "rise:mine" in report["mine"]
    # The skipped files, named on the Home screen and said, in the user's language.
    said = " ".join(report["spoken"])
    for name in ("res-arcana.yaml", "astral.yaml", "ascension.yaml"):
        assert name in report["status"], report["status"]
    assert fifo_word in report["status"] and fifo_word in said
