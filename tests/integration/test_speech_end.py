"""The end of a game by ear (issue 24): "Partie terminée" said once; Res Arcana's real totals
and its tie-break explained when it decides; Ascension's last turn announced; a player who leaves
the game said without a gendered participle ("Ann quitte la partie : évincement."). Each heard
through the console as a player hears it (a stand-in espeak-ng records what is said)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_run import run_cli
from tests.speech_capture import capture_env, spoken

pytestmark = pytest.mark.timeout(120)


def console(tmp_path: Path, lines: list[str], *args: str, lang: str = "fr") -> tuple[str, list[str]]:
    env, log = capture_env(tmp_path)
    env["COMPANION_LANG"] = lang
    run = run_cli("console", "--speak", "--journal", str(tmp_path / "games.sqlite3"), *args,
                  stdin="".join(x + "\n" for x in lines), env=env)  # in this process: output and voice only
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


def test_res_arcana_says_each_real_total_and_the_tie_break(tmp_path: Path) -> None:
    # Ann 10 points; Bob 9 and the first-player tile: 10 each. Essences: 1 of each for both, gold
    # counting twice (6), and Bob 2 more gold (10): Bob wins the tie-break.
    lines = ["points 1 +10", "points 2 +9", "or 2 +2", "next", "pass", "pass", "next", "status"]
    out, said = console(tmp_path, lines, "--game", "res-arcana", "--players", "Ann,Bob", "--seed", "1")
    # the phase's name (and its reminder, the first time), then the totals, not the name again
    at = said.index("Contrôle de victoire.")
    assert said[at + 2] == "Ann dix points, Bob dix points, tuile premier joueur comprise.", said[at:]
    assert not any(x.startswith("Contrôle de victoire :") for x in said), said
    assert ("Égalité à dix points : l'emporte qui a le plus d'essences en réserve, l'or comptant double. "
            "Bob dix, Ann six." in said), said
    assert said.count("Partie terminée. Victoire : Bob.") == 1, said
    # the status gives Bob's real total, not only the nine points of the counter
    assert any(x.startswith("deux. Bob") and "points de victoire neuf [" in x and "total dix]" in x for x in said), said
    assert "total 10]" in out


def test_res_arcana_a_tie_that_stays_is_shared(tmp_path: Path) -> None:
    lines = ["points 1 +10", "points 2 +9", "next", "pass", "pass", "next"]
    _out, said = console(tmp_path, lines, "--game", "res-arcana", "--players", "Ann,Bob", "--seed", "1")
    assert "Égalité à dix points : l'emporte qui a le plus d'essences en réserve, l'or comptant double. " \
           "Ann six, Bob six. Nouvelle égalité : la victoire est partagée." in said, said
    assert "Partie terminée. Victoire : Ann et Bob." in said, said


def test_ascension_announces_the_last_turn(tmp_path: Path) -> None:
    # Bob plays first: the pool empties in his turn, so Ann's turn, the round's last, is the last one
    lines = ["honneur 1 +60", "end", "end"]
    _out, said = console(tmp_path, lines, "--game", "ascension", "--players", "Ann,Bob", "--seed", "1")
    assert ("La réserve d'honneur est vide : on finit la manche pour que chacun ait joué autant de tours ; "
            "le dernier tour est celui d'Ann." in said), said
    turn = said.index("Au tour d'Ann : honneur soixante.")
    assert said[turn + 1] == "Dernier tour de la partie.", said[turn:]
    assert any(x.startswith("Fin de partie.") for x in said), said


def test_ascension_pool_empty_in_the_last_players_turn(tmp_path: Path) -> None:
    lines = ["end", "honneur 2 +60"]
    _out, said = console(tmp_path, lines, "--game", "ascension", "--players", "Ann,Bob", "--seed", "1", lang="en")
    assert "The honor pool is empty: this turn is the game's last." in said, said


def test_an_ousted_player_is_said_without_gender(tmp_path: Path) -> None:
    out, said = console(tmp_path, ["pool 1 -30"], "--game", "vtes", "--players", "Ann,Bob,Cy", "--seed", "1")
    assert "Ann quitte la partie : évincement." in said, said
    assert "Ann quitte la partie : évincement." in out
    assert "évincé" not in out and not any("évincé" in x for x in said)


def test_ascension_explains_its_tie_break(tmp_path: Path) -> None:
    # 30 honor each: the pool (60) is empty in Bob's turn, Bob played first, Ann later: Ann wins
    lines = ["honneur 1 +30", "honneur 2 +30", "end", "end"]
    _out, said = console(tmp_path, lines, "--game", "ascension", "--players", "Ann,Bob", "--seed", "1")
    final = next(i for i, x in enumerate(said) if x.startswith("Fin de partie."))
    assert "Victoire : Ann." in said[final], said[final]
    # the tie-break after the tied totals and the winner: only why that one wins; then the card honor
    assert said[final + 1] == "Égalité : l'emporte qui a joué le plus tard dans l'ordre du tour.", said[final:]
    assert said[final + 2] == "Entrez l'honneur des cartes de chacun : « cartes N égale X ».", said[final:]
