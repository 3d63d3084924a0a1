"""The table may choose who starts (issue 14, item 8): ``--first NAME`` on ``console`` and
``serve`` as on ``table``, recorded in the game's first event; a name nobody has is refused with
the players' names; without it the first player is drawn."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from companion.table.engine import Game
from companion.table.journal import Journal
from tests.cli_run import run_cli

pytestmark = pytest.mark.timeout(90)
ROOT = Path(__file__).resolve().parents[2]


def first_player(journal: Path) -> str:
    with Journal(journal) as j:
        game = Game.open(j, j.games()[0].id)
        state = game.state
        name = state["seats"][state["active"]]["name"]
        game.close()
        return name


def console(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    return run_cli("console", "--reader", "sim", "--game", "res-arcana", "--players", "Ann,Bob", "--seed", "3",
                   "--journal", str(tmp_path / "games.sqlite3"), *extra, cwd=ROOT, stdin="quit\n")


def test_console_first_chosen_by_the_table(tmp_path: Path) -> None:
    drawn = console(tmp_path / "drawn")
    assert drawn.returncode == 0, drawn.stderr
    assert first_player(tmp_path / "drawn" / "games.sqlite3") == "Ann"  # seed 3 draws Ann
    chosen = console(tmp_path / "chosen", "--first", "bob")  # case forgiven
    assert chosen.returncode == 0, chosen.stderr
    assert "Premier joueur choisi par la table : Bob commence." in chosen.stdout
    assert first_player(tmp_path / "chosen" / "games.sqlite3") == "Bob"
    nobody = console(tmp_path / "nobody", "--first", "Cy")
    assert nobody.returncode == 2 and "joueurs : Ann, Bob" in nobody.stdout + nobody.stderr


def test_serve_first_chosen_by_the_table(tmp_path: Path) -> None:
    journal = tmp_path / "games.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--game", "res-arcana", "--players",
                             "Ann,Bob", "--seed", "3", "--first", "Bob", "--port", "0", "--json", "--journal",
                             str(journal)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        invitation = json.loads(proc.stdout.readline())
        assert [s["name"] for s in invitation["seats"]] == ["Ann", "Bob"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert first_player(journal) == "Bob"
