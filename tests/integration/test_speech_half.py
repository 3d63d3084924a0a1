"""Issue 24, the last cuts to half the words: each thing said once, in the listener's language,
heard on the whole game of each game by ear (tests/scripts/<game>.txt, the same scripts that
tests.speech_measure weighs), as the console says them to a blind player."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli_run import run_cli
from tests.speech_capture import capture_env, spoken
from tests.speech_measure import GAMES, play_by_ear_once

pytestmark = pytest.mark.timeout(300)

# Command words a French game must not teach (it has its own: suivant, fin, cartes, reprendre...).
ENGLISH_COMMANDS = {"cards", "resume", "honor", "next", "end", "help", "undo", "restore", "quit", "status", "pool",
                    "bleed", "edge", "lifeloss", "summon"}


@pytest.fixture(scope="module")
def evening() -> dict[tuple[str, str], list[str]]:
    """What each game's whole script makes a listener hear, in French and in English."""
    out = {}
    # Played once for the session: test_evening_by_ear.py reads the same runs (English first here,
    # French first there: two workers each play a game while the other plays another).
    for lang in ("en", "fr"):
        for game in GAMES:
            out[(game, lang)] = [text for _v, text in play_by_ear_once(game, lang)]
    return out


@pytest.mark.parametrize("game", list(GAMES))
def test_a_french_game_teaches_french_command_words_only(evening: dict, game: str) -> None:
    said = evening[(game, "fr")]
    # (in lower case: a game's name may hold one, "ASTRAL CARDS")
    wrong = [x for x in said if ENGLISH_COMMANDS & set(re.findall(r"\w+", x))]
    assert not wrong, wrong


def test_ascension_asks_for_the_card_honor_with_the_french_command_word(evening: dict) -> None:
    said = evening[("ascension", "fr")]
    assert any(x.endswith("Entrez l'honneur des cartes de chacun : « cartes N égale X ».") for x in said), said
    assert any(x.endswith("Enter each player's card honor: \"cards N equals X\".")
               for x in evening[("ascension", "en")])


def test_the_goodbye_says_how_to_resume_in_a_few_words_of_the_listeners_language(evening: dict) -> None:
    assert evening[("vtes", "fr")][-1] == "Au revoir. Partie numéro un enregistrée : reprendre un."
    assert evening[("vtes", "en")][-1] == "Goodbye. Game number one saved: resume one."


def test_reprendre_resumes_a_saved_game_in_the_console_with_no_game(tmp_path: Path) -> None:
    env, log = capture_env(tmp_path)
    base = ["console", "--speak", "--journal", str(tmp_path / "g.sqlite3")]  # in this process (tests.cli_run)
    first = run_cli(*base, "--game", "vtes", "--players", "Ann,Bob", "--seed", "1", stdin="pool 2 -3\nquitter\n",
                    env=env)
    assert first.returncode == 0, first.stderr
    before = len(spoken(log))
    # what `make run` starts without a display: the console, no game; the goodbye's words resume it
    again = run_cli(*base, stdin="aide\nreprendre 1\netat\nquitter\n", env=env)
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    said = [x for _v, x in spoken(log)[before:]]
    assert "reprendre et son numéro" in said[1], said  # the help with no game says how
    at = next(i for i, x in enumerate(said) if x.startswith("Partie numéro un reprise"))
    assert said[at + 1].startswith("Manche un, au tour d"), said
    assert any(x.startswith("deux. Bob : réserve vingt-sept") for x in said), said
    assert said[-1] == "Au revoir. Partie numéro un enregistrée : reprendre un."


def test_the_opening_says_how_to_get_help_once(evening: dict) -> None:
    # quitting is in the help ("Toujours : ... quitter.") and in the written line
    assert evening[("vtes", "fr")][0] == "Partie numéro un : Vampire : la Lutte Éternelle. Aide pour l'aide."
    assert evening[("vtes", "en")][0] == "Game number one: Vampire: The Eternal Struggle. Help for help."


def test_res_arcana_names_the_victory_check_once(evening: dict) -> None:
    said = evening[("res-arcana", "fr")]
    # the phase's name, then (on "suivant") the totals, not the name again
    assert said.count("Contrôle de victoire.") == 2, said
    assert not any(x.startswith("Contrôle de victoire :") for x in said), said
    at = said.index("Ann cinq points, Bob un point, tuile premier joueur comprise.")
    # the new round is said by the round's sentence, not announced before it
    assert said[at + 1:at + 3] == ["Personne n'a dix points : tout est désengagé.",
                                   "Manche deux : collecte. Bob a la tuile premier joueur."], said[at:]
    # the phase's reminder does not say again that everyone passed (its name and "Ann passe." did)
    assert "La tuile premier joueur vaut un point ; « suivant » fait le contrôle (dix points ou plus)." in said
    # a player's total said once, in its place: "points de victoire neuf [...; total dix]"
    assert said[-2].endswith("points de victoire neuf [tuile premier joueur; a passé; total dix]"), said[-2]
    en = evening[("res-arcana", "en")]
    assert "Ann five points, Bob one point, first-player tile included." in en
    assert not any(x.startswith("Victory check:") for x in en), en


def test_rise_says_a_dead_summoner_in_one_short_sentence(evening: dict) -> None:
    said = evening[("rise", "fr")]
    assert "L'Invocateur A de Bob est mort." in said, said
    # the second one's death is the end: said by it alone
    assert "L'Invocateur B de Bob est mort." not in said
    assert "Les deux Invocateurs de Bob sont morts : Bob perd." in said
    assert "Refusé : L'Invocateur A de Bob est mort." not in said  # (a refusal goes on in lower case)
    assert "Refusé : l'Invocateur A de Bob est mort." in said
    assert not any("l'Invocateur est mort" in x for x in said), said
    assert "Bob's Summoner A is dead." in evening[("rise", "en")]
    # the second summoning phase's reminder points to the first one, by its name, not "phase trois"
    assert "Mêmes règles qu'en première phase d'invocation." in said, said
    # the restoration refused: which words choose it, without the reminder's sentence again
    assert "Refusé : Bob choisit d'abord : « restauration deux » ou « restauration un »." in said, said


def test_ascension_says_the_empty_pool_and_the_winner_once(evening: dict) -> None:
    said = evening[("ascension", "fr")]
    assert "Réserve d'honneur : zéro." not in said, said  # "La réserve d'honneur est vide" says it
    assert "La réserve d'honneur est vide : ce tour est le dernier de la partie." in said
    at = said.index("Scores : Ann cinquante-trois, Bob cinquante-trois. Victoire : Bob.")
    assert said[at + 1] == "Égalité : l'emporte qui a joué le plus tard dans l'ordre du tour.", said[at:]
    en = evening[("ascension", "en")]
    assert "Tied: whoever played later in turn order wins." in en, en


@pytest.mark.parametrize("game", ["vtes", "ascension"])  # (their scripts type one after the end)
def test_a_command_refused_after_the_end_says_undo_still_works_shortly(evening: dict, game: str) -> None:
    assert "Refusé : partie terminée ; annuler reste possible." in evening[(game, "fr")]
    assert "Refused: game over; undo still works." in evening[(game, "en")]


def test_vtes_influence_reminder_says_and_not_a_plural(evening: dict) -> None:
    said = evening[("vtes", "fr")]
    assert any("quatre et un point de réserve" in x for x in said), said
    assert not any(" ets " in x for x in said), said


def test_a_note_of_a_command_the_player_typed_says_whose_and_where_it_stands(evening: dict) -> None:
    # "blood 1 Anson -1", "put 1 Athanor vigueur +2": they know what and by how much
    vtes, res = evening[("vtes", "fr")], evening[("res-arcana", "fr")]
    assert "Anson, sept." in vtes and not any("sang moins un" in x for x in vtes), vtes
    assert "Ann, Athanor, Vigueur deux." in res and not any("maintenant" in x for x in res), res
    assert "Anson, seven." in evening[("vtes", "en")]
    assert "Ann, Athanor, Elan two." in evening[("res-arcana", "en")]


def test_ascension_says_the_honor_counted_apart_after_the_empty_pool(evening: dict) -> None:
    said = evening[("ascension", "fr")]
    at = said.index("Bob, dix-neuf.")
    assert said[at + 1:at + 3] == ["La réserve d'honneur est vide : ce tour est le dernier de la partie.",
                                   "Honneur compté à part : deux."], said[at - 2:at + 3]
    assert not any(x.startswith("Réserve vide") for x in said), said
