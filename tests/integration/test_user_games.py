"""A user's own game by data alone: a folder ``<data dir>/games/<id>/`` with a game.yaml (and
optionally cards.yaml) is a game like a shipped one, played with the generic rules through the
same doors (``table``, the console, card search, the rules); ``games new`` writes a starting
folder; a broken file is named with its line."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cards_index import warm_index
from tests.cli_run import run_cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One user home for the module (its card index is built once), holding a copy of a shipped
    game under a new id, as a game group would start one."""
    home = tmp_path_factory.mktemp("home")
    folder = home / "data" / "games" / "my-ascension"
    shutil.copytree(ROOT / "cardmap" / "ascension", folder)
    text = (folder / "game.yaml").read_text(encoding="utf-8")
    (folder / "game.yaml").write_text(re.sub(r"(?m)^id: ascension$", "id: my-ascension", text), encoding="utf-8")
    return home


def companion(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """The command in this process (tests.cli_run), in this home: what it prints and its status."""
    warm_index(home)  # from the session's: only this home's own games are built
    # This home's own games make its own card index, not the shared one.
    return run_cli(*args, stdin=stdin,
                   env={"COMPANION_HOME": str(home), "COMPANION_CARDMAP": None, "COMPANION_CACHE": None})


def test_a_copied_game_plays_through_table_with_the_generic_rules(home: Path) -> None:
    listed = json.loads(companion(home, "games", "--json").stdout)
    assert {"id": "my-ascension", "folder": str(home / "data" / "games" / "my-ascension"), "own": True} in listed
    script = "runes +4\nacquire mystique\nhonor 1 +2\nnext\nundo\n"
    run = companion(home, "table", "--game", "my-ascension", "--players", "Ann,Bob", "--seed", "1", "--json",
                    stdin=script)
    assert run.returncode == 0, run.stderr
    state = json.loads(run.stdout)
    active = state["active_seat"] - 1
    seats = state["seats"]
    # Its counters, words and card effects are the data's: the card named was found in the
    # copy's own cards.yaml and paid from the active seat's runes.
    assert seats[active]["counters"]["runes"] == 4 - 3
    assert seats[0]["counters"]["honor"] == 2
    # The rules are the generic ones: Ascension's own (honor taken from a shared pool of 30 per
    # player) belong to its code, which a data folder does not get.
    assert state["shared"]["pool"] == 0
    shipped = json.loads(companion(home, "table", "--game", "ascension", "--players", "Ann,Bob", "--seed", "1",
                                   "--json", stdin=script).stdout)
    assert shipped["shared"]["pool"] == 60 - 2


def test_games_new_writes_a_game_that_is_searched_read_and_played(home: Path) -> None:
    made = companion(home, "games", "new", "duel", "--name", "Duel")
    assert made.returncode == 0, made.stderr
    folder = home / "data" / "games" / "duel"
    assert (folder / "game.yaml").read_text(encoding="utf-8").startswith("# A game of your own")
    assert companion(home, "games", "new", "duel").returncode == 2  # never overwritten
    bad = companion(home, "games", "new", "Échecs")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "Échecs" in bad.stderr

    assert companion(home, "cards", "validate").returncode == 0
    hits = json.loads(companion(home, "cards", "search", "explorateur", "--game", "duel", "--json").stdout)
    assert hits[0]["ref"] == "duel:explorer"
    rules = companion(home, "rules", "--game", "duel", "commerce")
    assert rules.returncode == 0 and "Commerce" in rules.stdout

    run = companion(home, "table", "--game", "duel", "--players", "Ann,Bob", "--seed", "1", "--json",
                    stdin="trade +3\nbuy explorer\ncombat +4\nlife 2 -4\nnext\nnext\n")
    assert run.returncode == 0, run.stderr
    state = json.loads(run.stdout)
    first = 1 - (state["active_seat"] - 1)  # two `next`: the first player's turn is over
    assert state["seats"][first]["counters"]["trade"] == 0  # cleared at the end of the turn
    assert state["seats"][1]["counters"]["life"] == 50 - 4


# After ``games new``'s test, which searched the cards of this home's games: the console's unknown
# word ("flibber") looks among the cards' names, and reads the search that search computed and kept
# (computing it again for every game is 5 s of CPU here, after each change of a home's games).
def test_a_copied_game_plays_through_the_console(home: Path) -> None:
    run = companion(home, "console", "--game", "my-ascension", "--players", "Ann,Bob", "--seed", "2",
                    "--journal", str(home / "console.sqlite3"), "--json", stdin="honneur 2 +5\nflibber\n")
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line)["table"] for line in run.stdout.splitlines() if '"table"' in line]
    assert any("Bob" in line and "5" in line for line in lines), lines
    assert any("flibber" in line for line in lines)


def _broken(home: Path, game_id: str, old: str, new: str) -> tuple[Path, int]:
    folder = home / "data" / "games" / game_id
    folder.mkdir(parents=True)
    text = (ROOT / "companion" / "commands" / "game_template" / "game.yaml").read_text(encoding="utf-8")
    text = text.replace("__ID__", game_id).replace("__NAME__", game_id)
    assert old in text
    text = text.replace(old, new, 1)
    (folder / "game.yaml").write_text(text, encoding="utf-8")
    return folder / "game.yaml", next(i for i, row in enumerate(text.splitlines(), 1) if new.strip() in row)


def test_a_broken_user_game_is_named_with_its_file_and_line(home: Path) -> None:
    # A mistake anywhere in the file: the one reader of game.yaml names it, for the table too.
    path, line = _broken(home, "broken-kind", "kind: resource", "kind: ressource")
    run = companion(home, "table", "--game", "broken-kind", "--players", "Ann,Bob")
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert f"{path}:{line}" in run.stderr and "ressource" in run.stderr, run.stderr
    checked = companion(home, "cards", "validate")
    assert checked.returncode == 1 and f"{path}:{line}" in checked.stdout, checked.stdout

    # A mistake in the table section: the table's own checks name it the same way.
    path, line = _broken(home, "broken-table", "min: 0, floor: true}", "min: 0, flor: true}")
    run = companion(home, "table", "--game", "broken-table", "--players", "Ann,Bob")
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert f"{path}:{line}" in run.stderr and "flor" in run.stderr, run.stderr
    # The other games still load.
    assert json.loads(companion(home, "table", "--game", "duel", "--players", "A,B", "--json").stdout)["seats"]
