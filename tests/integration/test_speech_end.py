"""The end of a game by ear (issue 24): "Partie terminée" said once; Res Arcana's real totals
and its tie-break explained when it decides; Ascension's last turn announced; a player who leaves
the game said without a gendered participle ("Ann quitte la partie : évincement."). Each heard
through the console as a player hears it (a stand-in espeak-ng records what is said)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.speech_capture import capture_env, spoken

pytestmark = pytest.mark.timeout(120)


def console(tmp_path: Path, lines: list[str], *args: str, lang: str = "fr") -> tuple[str, list[str]]:
    env, log = capture_env(tmp_path)
    env["COMPANION_LANG"] = lang
    run = subprocess.run([sys.executable, "-m", "companion", "console", "--speak",
                          "--journal", str(tmp_path / "games.sqlite3"), *args],
                         input="".join(x + "\n" for x in lines), capture_output=True, text=True, timeout=100, env=env)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    return run.stdout, [x for _v, x in spoken(log)]


@pytest.mark.parametrize(("lang", "over", "winner"), [("fr", "Partie terminée", "Victoire : Bob."),
                                                       ("en", "Game over", "Winner: Bob.")])
def test_game_over_is_said_once(tmp_path: Path, lang: str, over: str, winner: str) -> None:
    # Ann ousted: Bob, the last one, wins; then the player asks for the table, as the scripts do
    _out, said = console(tmp_path, ["pool 1 -30", "status"], "--game", "vtes", "--players", "Ann,Bob",
                         "--seed", "1", lang=lang)
    assert sum(over in x for x in said) == 1, said
    assert said.count(winner) == 1, said  # the status still says who won, without "game over" again
