"""Words people say (issue 24, item 5), in the console as a player types them, by ear: the
welcome and help with no game, a game started from there, the French and English synonyms, a
typo suggested and applied by Enter, a card name typed with typos, a script's notes ignored."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli_run import run_cli
from tests.speech_capture import capture_env, spoken

pytestmark = pytest.mark.timeout(120)


def console(tmp_path: Path, lines: list[str], *args: str, lang: str = "fr") -> tuple[subprocess.CompletedProcess,
                                                                                     list[str]]:
    env, log = capture_env(tmp_path)
    env["COMPANION_LANG"] = lang
    run = run_cli("console", "--speak", "--seed", "1", "--journal", str(tmp_path / "games.sqlite3"), *args,
                  stdin="".join(x + "\n" for x in lines), env=env)  # in this process: output and voice only
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    return run, [text for _v, text in spoken(log)]


def test_the_console_with_no_game_says_what_can_be_done(tmp_path: Path) -> None:
    # what `make run` starts without a display: the console, no game
    run, said = console(tmp_path, ["aide", "plus", "govrn unalined", "partie ascension Ann Bob", "qui joue",
                                   "quitter"])
    # the first words say how to lay a card, start a game and get help
    assert said[0].startswith("Compagnon de table. Posez une carte sur le lecteur, ou tapez son nom")
    assert "partie vtes Ann Bob" in said[0] and "Aide pour l'aide" in said[0]
    assert "Posez une carte" in run.stderr.splitlines()[0]
    # aide answers there; plus lists the games
    assert said[1].startswith("Aucune partie en cours. Posez une carte") and "Plus pour la liste des jeux" in said[1]
    assert said[2] == "Jeux : ascension, astral, res-arcana, rise, vtes."
    # a card name with typos is found as after `play`
    assert "vtes:100845  Govern the Unaligned" in run.stdout
    # a game started from the console: its opening first, then its turn
    opening = next(i for i, x in enumerate(said) if x.startswith("Partie numéro un : Ascension"))
    assert said[opening + 2].startswith("Manche un, au tour d")
    assert said[-2].startswith("Manche un, au tour d") and ", phase " in said[-2]  # "qui joue"


def test_a_typo_is_suggested_and_enter_applies_it(tmp_path: Path) -> None:
    _run, said = console(tmp_path, ["suivnat", "", "anuler", "ok", "poll 2 -3", ""], "--game", "vtes",
                         "--players", "Ann,Bob,Cy")
    assert "suivnat : vouliez-vous dire suivant ? Entrée pour oui." in said
    at = said.index("suivnat : vouliez-vous dire suivant ? Entrée pour oui.")
    assert said[at + 1] == "Maître."  # Enter applied "suivant"
    assert "anuler : vouliez-vous dire annuler ? Entrée pour oui." in said
    assert any(x.startswith("Annulé.") for x in said)
    assert "poll : vouliez-vous dire pool ? Entrée pour oui." in said
    assert said[-2] == "Bob, vingt-sept."
    assert not any(x.startswith("Refusé") for x in said), said


def test_synonyms_french_and_english(tmp_path: Path) -> None:
    lines = ["# a note of the script, not a command", "qui joue", "c'est à qui", "phase suivante", "répète",
             "fin de tour", "place 2", "score", "pile ou face", "passe", "exclure 3", "whose turn", "again"]
    run, said = console(tmp_path, lines, "--game", "vtes", "--players", "Ann,Bob,Cy")
    assert not any(x.startswith("Refusé") for x in said), said
    assert "commande vide" not in run.stdout + run.stderr  # a note is not played
    turn = [x for x in said if x.startswith("Manche ") and ", au tour d" in x and ", phase " in x]
    assert len(turn) >= 3, said  # qui joue, c'est à qui, whose turn
    assert said.count("Maître.") == 2  # "phase suivante", then said again by "répète"
    assert "Au tour d'Ann : réserve trente." in said  # "fin de tour"
    assert any(x.startswith("Bob : réserve trente") for x in said)  # "place 2"
    assert any(x.startswith("Lancer de pièce") for x in said)  # "pile ou face"
    assert any("quitte la partie : évincement" in x for x in said)  # "exclure 3"
    assert said[-3] == said[-2]  # "again" says the last message again (then the goodbye at the end)


def test_a_card_name_typed_alone_with_typos_in_a_game(tmp_path: Path) -> None:
    run, said = console(tmp_path, ["aprenti", "non"], "--game", "ascension", "--players", "Ann,Bob")
    assert "ascension:apprenti  Apprenti" in run.stdout
    assert any(x.startswith("Apprenti. Carte de départ.") for x in said), said


@pytest.mark.parametrize(("game", "rule"), [("vtes", "fin"), ("ascension", "decompte"), ("rise", "but"),
                                            ("astral", "victoire"), ("res-arcana", "victoire")])
def test_rules_answer_questions(game: str, rule: str) -> None:
    """A question, in French or English, finds the rule that answers it: the words that only
    make a question left out (companion/cards/questions.yaml), the game's own question words
    (cardmap/<game>/questions.yaml) in their place, section titles weighed first."""
    from companion.cards.library import CardLibrary
    from companion.cards.rules import search_rules

    info = CardLibrary().game(game)
    for question in ("comment gagner", "how do I win", "qui gagne ?"):
        ids = [h.item.id for h in search_rules(info, question, limit=3)]
        assert rule in ids[:2], (question, ids)  # was "Saigner" for "comment gagner" in VTES
    if game == "vtes":
        assert search_rules(info, "combien de transferts", limit=1)[0].item.id == "transfers"  # was nothing
        assert search_rules(info, "edge", limit=1)[0].item.id == "edge"  # a plain word as before


def test_a_rule_question_by_ear(tmp_path: Path) -> None:
    _run, said = console(tmp_path, ["regle comment gagner", "règle combien de transferts"], "--game", "vtes",
                         "--players", "Ann,Bob")
    assert any(x.startswith("Fin de partie et points de victoire (règles") for x in said), said
    assert any(x.startswith("Transferts (glossaire") for x in said), said
