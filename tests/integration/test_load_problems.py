"""A game whose data fails to load is never silent: the library names the game and the reason
(French and English), ``doctor`` reports it, the console says it at start. The failures are
made on purpose: krcg made unimportable (as a wrong krcg line on a new Python was), a broken
game.yaml."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cards import catalog, index
from companion.cards.library import CardLibrary
from companion.doctor import Probes, diagnose, install_command, render
from companion.games.vtes import cards as vtes
from tests.cards_index import warm_index, with_kept, without
from tests.cli_run import run_cli

BLOCK_KRCG = "import sys; sys.modules['krcg'] = None\n"  # "import krcg" now raises ModuleNotFoundError


@pytest.fixture
def no_krcg(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("COMPANION_CACHE", raising=False)  # no index built with krcg: this one has none
    for name in [m for m in sys.modules if m == "krcg" or m.startswith("krcg.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "krcg", None)
    vtes.forget()
    yield
    vtes.forget()


def test_vtes_without_krcg_is_named_with_its_reason(no_krcg) -> None:
    library = CardLibrary()
    assert library.load("vtes") == {}
    assert "ModuleNotFoundError" in library.errors()["vtes"][0]
    (fr,) = library.load_problems("fr")
    assert fr.startswith(library.game("vtes").name("fr") + " n'a pas pu être chargé : krcg")
    assert "ModuleNotFoundError" in fr
    (en,) = library.load_problems("en")
    assert " could not be loaded: krcg" in en
    # Not cached: once krcg is back, the next start has every card again.
    assert not index.index_path().exists()


def test_doctor_reports_the_game_that_did_not_load(no_krcg, tmp_path: Path) -> None:
    quiet = Probes(proc_modules=tmp_path / "modules", cmdline=tmp_path / "cmdline",
                   find_library=lambda name: "libusb-1.0.so.0", usb_devices=lambda: [], serial_ports=lambda: [],
                   open_nfcpy_usb=lambda: None, listen=lambda device: None, processes=lambda: set(),
                   groups=lambda: set(), access=lambda path, mode: True, is_root=lambda: False,
                   pi_model=lambda: "", serial0=tmp_path / "serial0")
    report = diagnose(quiet)
    problem = next(p for p in report.problems if p.key == "cards-vtes")
    source = Path(__file__).resolve().parents[2]
    assert "ModuleNotFoundError" in problem.message and problem.fix == install_command(f"-e {source}")
    assert problem.message in render(report)


def test_a_broken_game_file_is_a_load_problem_too(tmp_path: Path) -> None:
    cardmap = tmp_path / "cardmap"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "cardmap", cardmap)
    game = cardmap / "res-arcana" / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("id: res-arcana", "id: [res-arcana", 1), encoding="utf-8")
    library = CardLibrary(catalog.build(cardmap, overlay=cardmap / "none", with_sources=False))
    (problem,) = library.load_problems("fr")
    assert problem.startswith("res-arcana n'a pas pu être chargé : cardmap/res-arcana/game.yaml:")


def test_the_console_says_it_at_start(no_krcg) -> None:
    # In this process (tests/cli_run.py: the program's entry point, what it prints), krcg blocked
    # and no card index by the fixture: a child's start would only add 0.3 CPU-s under each Python.
    done = run_cli("console", "--reader", "sim", "--count", "0")
    assert "n'a pas pu être chargé : krcg" in done.stderr and "ModuleNotFoundError" in done.stderr, done.stderr


APP_WITHOUT_KRCG = BLOCK_KRCG + """
import json, time
from pathlib import Path
from companion.ui.app import run_app
from kivy.app import App
from kivy.clock import Clock

out, started, report = Path(sys.argv[1]), time.monotonic(), {}

def probe(_dt):
    app = App.get_running_app()
    if app is None or app.root is None:
        return
    home = app.root.get_screen("home")
    if time.monotonic() - started > 60:
        report["timeout"] = True
    elif not (app.runtime.scans.wait_ready(0) and "krcg" in home.status and app.voice.wait_idle(0.0)):
        return
    speaker = app.voice.speaker()
    report["status"] = home.status
    report["spoken"] = [" ".join(u.text for u in said) for said in (speaker.history if speaker else [])]
    app.stop()

Clock.schedule_interval(probe, 0.1)
run_app("sim")
out.write_text(json.dumps(report, ensure_ascii=False))
"""


@pytest.mark.ui
@pytest.mark.timeout(180)
def test_the_app_home_shows_and_says_it_at_start(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "COMPANION_HOME": str(tmp_path / "home"), "COMPANION_SPEECH": "silent",
           "SDL_VIDEODRIVER": "offscreen", "KIVY_NO_ARGS": "1", "PYTHONPATH": str(root)}
    # A cache of its own: the session's card index without VTES (built again, and failing, krcg
    # blocked; the other games read as they are) and what the session's programs kept parsed (the
    # games' files, the Kivy rules): what the Home screen says, not a first start, is the point.
    env.pop("COMPANION_CACHE", None)
    with_kept(without(warm_index(tmp_path / "home"), "vtes"))
    out = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-c", APP_WITHOUT_KRCG, str(out)], cwd=root, env=env,
                          capture_output=True, text=True, timeout=150)
    report = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    assert not report.get("timeout") and report.get("status"), (report, done.stderr[-2000:])
    assert "n'a pas pu être chargé : krcg" in report["status"] and "ModuleNotFoundError" in report["status"]
    assert any("n'a pas pu être chargé" in said for said in report["spoken"]), report["spoken"]


@pytest.mark.parametrize("lang,why", [("fr", "c'est un tube nommé (FIFO), pas un fichier"),
                                      ("en", "it is a named pipe (FIFO), not a file")])
def test_a_long_path_never_cuts_the_reason(tmp_path: Path, monkeypatch, lang: str, why: str) -> None:
    """A user's cards folder 300 characters deep (a USB stick mounted under a long name): the
    sentence still gives the reason whole, the file's name and the path's start; only the middle
    of the path is left out."""
    deep = tmp_path.joinpath(*(["un-dossier-au-nom-assez-long-pour-une-cle-usb"] * 7))
    overlay = deep / "cards"
    overlay.mkdir(parents=True)
    os.mkfifo(overlay / "res-arcana.yaml")
    (overlay / "astral.yaml").write_text("cards:\n\t- id: x\n")  # a tab: the reason is YAML's
    assert len(str(overlay / "res-arcana.yaml")) > 300
    from companion import i18n

    monkeypatch.setattr(i18n, "_lang", lang)  # the program's language, as --lang sets it
    library = CardLibrary(catalog.build(catalog.cardmap_dir(), overlay=overlay, with_sources=False))
    problems = library.load_problems(lang)
    fifo = next(p for p in problems if "res-arcana.yaml" in p)
    tab = next(p for p in problems if "astral.yaml" in p)
    assert fifo.endswith(why), fifo
    assert tab.endswith("tab used for indentation; YAML needs spaces" if lang == "en" else
                        "tabulation utilisée pour l'indentation ; YAML demande des espaces"), tab
    for sentence in (fifo, tab):
        assert str(tmp_path)[:20] in sentence and "…" in sentence  # the start kept, the middle left out
        assert len(sentence) < 260, sentence
