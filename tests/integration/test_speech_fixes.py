"""The missing sentences and the contradictions of issue 24, each heard through the console as
a player hears it (a stand-in espeak-ng records what is said): the English game in English, who
pays in a proposal, a master in its owner's master phase, a vampire's blood paid from the pool,
a card with no known cost played by a plain "jouer ?", "cannot pay" said once, the undo that
names what it undid and who is back, the VTES edge said without contradiction."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_run import run_cli
from tests.speech_capture import capture_env, spoken

pytestmark = pytest.mark.timeout(120)


def console(tmp_path: Path, lines: list[str], *args: str, lang: str = "fr") -> tuple[str, list[tuple[str, str]]]:
    env, log = capture_env(tmp_path)
    env["COMPANION_LANG"] = lang
    run = run_cli("console", "--speak", "--verbosity", "short", "--journal", str(tmp_path / "games.sqlite3"), *args,
                  stdin="".join(x + "\n" for x in lines), env=env)  # in this process: output and voice only
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    return run.stdout, spoken(log)


def test_the_english_game_speaks_english_where_the_data_has_it(tmp_path: Path) -> None:
    out, said = console(tmp_path, ["apprenti", "ok"], "--game", "ascension", "--players", "Ann,Bob", "--seed", "1",
                        lang="en")
    # the card's English name (names.en), in the English voice, everywhere it is said or written
    assert ("en", "Apprentice.") in said, said
    assert ("en", "Bob, Apprentice: play (plus one rune)?") in said
    assert ("en", "Bob plays Apprentice: plus one rune (one).") in said
    assert "Apprentice  (Type: Starting card)" in out and "Bob plays Apprentice: +1 rune (1)." in out
    assert all(v == "en" for v, _x in said), said  # (the short verbosity reads no French card text)


def test_vtes_masters_vampires_unknown_costs_and_undo(tmp_path: Path) -> None:
    lines = ["Zillah's Valley", "ok",  # during the untap: a master waits for the master phase
             "next", "Zillah's Valley", "ok",  # in the master phase: paid from the pool
             "Information Highway", "ok",  # no known cost: a plain "jouer ?" that ok applies
             "undo",  # the undo names the card
             "Anson", "ok",  # a vampire: its blood paid from the pool (22 left: 30 - 5 - 8 = 17)
             "pool 2 =3", "Anson", "ok",  # (a second Anson is refused: already there)
             "pool 1 -30", "undo"]  # an oust undone: the player is back
    _out, said = console(tmp_path, lines, "--game", "vtes", "--players", "Ann,Bob", "--seed", "1")
    texts = [x for _v, x in said]
    # who pays, in the question
    assert "Bob, Zillah's Valley : jouer pour cinq réserve ?" in texts
    # a master outside its owner's master phase: why, said once; "ok" only says it is refused
    why = "Zillah's Valley est une carte de maître : Bob la joue pendant sa phase Maître."
    assert texts.count(why) == 1 and texts[texts.index(why) + 1] == "Refusé.", texts
    assert "Bob joue Zillah's Valley : moins cinq réserve (vingt-cinq)." in texts
    # a card with no known cost: a plain question, applied by ok, undone by name
    assert "Bob, Information Highway : jouer ?" in texts and "Bob joue Information Highway." in texts
    assert "Annulé. Bob joue Information Highway." in texts
    # a vampire brought out: its capacity in blood, paid from its Methuselah's pool
    assert "Bob, Anson, groupe un : jouer (sort avec huit de sang, payés de la réserve) ?" in texts
    assert "Bob, réserve, moins huit, reste dix-sept." in texts
    # an oust undone: who is back
    assert any(x.startswith("Annulé.") and x.endswith("Ann revient dans la partie.") for x in texts), texts


def test_a_vampire_needs_the_pool_for_its_blood(tmp_path: Path) -> None:
    _out, said = console(tmp_path, ["pool 2 =5", "Anson", "ok"], "--game", "vtes", "--players", "Ann,Bob",
                         "--seed", "1")
    texts = [x for _v, x in said]
    assert any("Anson sort avec huit de sang pris à la réserve de Bob, qui n'en a que cinq" in x for x in texts), texts


def test_the_edge_is_said_once_without_contradiction(tmp_path: Path) -> None:
    # Bob takes the edge on his turn; at Bob's next untap the edge adds its pool point itself
    _out, said = console(tmp_path, ["edge 2", "end", "end"], "--game", "vtes", "--players", "Ann,Bob",
                         "--seed", "1")
    texts = [x for _v, x in said]
    assert "Bob a l'Avantage : un point de réserve de plus." in texts, texts
    assert not any("prenez un point de réserve" in x for x in texts), texts  # the companion adds it
