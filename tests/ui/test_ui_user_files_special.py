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
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cards_index import warm_index

pytestmark = pytest.mark.timeout(240)

ROOT = Path(__file__).resolve().parents[2]
GOOD = "cards:\n  - id: mine\n    name: Mine\n    type: invocateur\n    text: Un texte.\n"

# Runs inside the child: a probe on Kivy's clock, then the program's own entry point, as typed.
DRIVER = r"""
import json, sys, time
from pathlib import Path
from companion.ui.app import configure_window
configure_window()
from kivy.app import App
from kivy.clock import Clock
from companion.cli import main

out = Path(sys.argv[1])
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

Clock.schedule_interval(probe, 0.1)
sys.exit(main(["--lang", sys.argv[2], "run", "--demo"]))
"""


@pytest.mark.parametrize("lang,fifo_word", [("en", "named pipe (FIFO)"), ("fr", "tube nommé (FIFO)")])
def test_the_window_loads_every_game_past_special_files_and_names_them(tmp_path: Path, lang: str,
                                                                       fifo_word: str) -> None:
    home = tmp_path / "home"
    cards = home / "data" / "cards"
    cards.mkdir(parents=True)
    os.mkfifo(cards / "res-arcana.yaml")
    (cards / "astral.yaml").symlink_to("/dev/zero")
    (cards / "ascension.yaml").symlink_to(tmp_path / "usb-stick" / "ascension.yaml")
    (cards / "rise.yaml").write_text(GOOD)
    report_path = tmp_path / "report.json"
    env = {**os.environ, "COMPANION_HOME": str(home), "PYTHONPATH": str(ROOT), "COMPANION_WINDOW": "800x480",
           "COMPANION_SPEECH": "silent", "SDL_VIDEODRIVER": "offscreen", "KIVY_NO_ARGS": "1"}
    env.pop("COMPANION_CACHE", None)  # the user's files in this home: its own card index
    warm_index(home)  # from the session's: only the games of the special files are rebuilt
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(report_path), lang], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 180  # a deadline only against a hang
        while not report_path.exists() and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()[1]
        waiting = tmp_path / "waiting.json"
        assert report_path.exists(), waiting.read_text() if waiting.exists() else "no window"
        time.sleep(0.3)  # the report is written whole before the file is seen; let Kivy's loop turn
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    report = json.loads(report_path.read_text())
    assert proc.returncode == 0 and "Traceback" not in err, err
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
