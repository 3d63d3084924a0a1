"""The console companion runs a game with the table's command words typed on standard input,
durably, and still shows the cards laid on its reader."""

import json
import subprocess
from pathlib import Path

from tests.cli_run import run_cli


def console(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return run_cli("console", *args, stdin=stdin)  # in this process (tests.cli_run): output and status


def test_commands_and_cards_in_one_session(tmp_path: Path) -> None:
    journal = tmp_path / "games.sqlite3"
    run = console("--game", "vtes", "--players", "Ann,Bob,Cy", "--seed", "3", "--journal", str(journal),
                  "--json", stdin="pool 1 -3\nGovern the Unaligned\nvp 1 +1\nflibber\npool 2 -99\n")
    assert run.returncode == 0, run.stderr
    objects = [json.loads(line) for line in run.stdout.splitlines()]
    table_lines = [o["table"] for o in objects if "table" in o]
    assert any("Ann" in line and "27" in line for line in table_lines)
    assert any("flibber" in line for line in table_lines)  # refused, with the word it did not know
    cards = [o for o in objects if o.get("status") == "card"]
    assert [c["name"] for c in cards] == ["Govern the Unaligned"]

    # The journal holds the game: the table command resumes it with the same numbers.
    listed = run_cli("table", "--journal", str(journal), "--list", "--json")
    (game,) = json.loads(listed.stdout)
    state = run_cli("table", "--journal", str(journal), "--resume", str(game["id"]), "--json", stdin="")
    final = json.loads(state.stdout)
    pools = [seat["counters"]["pool"] for seat in final["seats"]]
    assert pools[0] == 27 and pools[1] == 30
    assert final["seats"][0]["counters"]["vp"] == 1


def test_bad_game_is_a_clear_message(tmp_path: Path) -> None:
    run = console("--game", "chess", "--players", "A,B", "--journal", str(tmp_path / "j.sqlite3"), stdin="")
    assert run.returncode == 2
    assert "Traceback" not in run.stderr and run.stderr.strip()
