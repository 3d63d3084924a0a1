"""Said right (issue 24, item 3): groups, fractions, numbers and ordinals, symbols, agreement and
elision in both languages, through the one pluralisation helper; written lines without "(s)".
Each sentence below was heard wrong in a whole evening by ear before."""

from __future__ import annotations

import pytest

from companion.i18n import t
from companion.i18n.grammar import agree, count, plural
from companion.play.announcer import ear
from companion.speech.numbers import fraction_words, ordinal_words


@pytest.mark.parametrize(("text", "fr", "en"), [
    ("Anson (G1)", "Anson, groupe un", "Anson, group one"),  # was "Anson (Gun)", "(Gone)"
    ("Nathan Turner (G6)", "Nathan Turner, groupe six", "Nathan Turner, group six"),  # was "Gsix"
    ("Anson 3/4", "Anson trois sur quatre", "Anson three of four"),  # was "trois ou quatre"
    ("actions 0/2", "actions zéro sur deux", "actions zero of two"),
    ("Partie n° 1", "Partie numéro un", "Partie number one"),  # was "N un"
    ("(7e tour)", "(septième tour)", "(seventh tour)"),  # was "sept e"
    ("1re manche, 21e, 80e", "première manche, vingt et unième, quatre-vingtième",
     "first manche, twenty-first, eightieth"),
])
def test_groups_fractions_numbers_ordinals_symbols(text: str, fr: str, en: str) -> None:
    assert ear(text, "fr") == fr
    assert ear(text, "en") == en


def test_a_card_mark_slash_still_says_or() -> None:
    assert ear("dom/pot", "fr") == "dom ou pot" and ear("dom/pot", "en") == "dom or pot"


@pytest.mark.parametrize(("text", "said"), [
    ("Bob pioche 1 carte(s).", "Bob pioche une carte."),  # was "une cartes"
    ("Bob commence avec 4 cartes et 1 pièce(s).", "Bob commence avec quatre cartes et une pièce."),  # "une pièces"
    ("son Navigateur perdra 1 points de vie", "son Navigateur perdra un point de vie"),  # "un points de vie"
    ("Bob n'en a que 1.", "Bob n'en a qu'un."),  # was "que un"
    ("Bob subit une perte de 1 Vie.", "Bob subit une perte d'une Vie."),  # was "de une Vie"
    ("Ann reçoit 1 transfert(s).", "Ann reçoit un transfert."),
    ("Ann reçoit 3 transfert(s).", "Ann reçoit trois transferts."),
    ("Ann pioche 0 carte(s).", "Ann pioche zéro carte."),  # French: zero is singular
    ("Bob a 1 voix et 1 réserve.", "Bob a une voix et une réserve."),  # was "un voix", "un réserve"
])
def test_french_agreement_and_elision_by_ear(text: str, said: str) -> None:
    assert ear(text, "fr") == said


def test_english_agreement_by_ear() -> None:
    assert ear("Ann draws 1 card(s).", "en") == "Ann draws one card."
    assert ear("Ann draws 0 card(s).", "en") == "Ann draws zero cards."  # English: zero is plural
    assert ear("Bob loses 1 points.", "en") == "Bob loses one point."


def test_one_pluralisation_helper() -> None:
    assert [plural(n, "carte", "fr") for n in (0, 1, 2)] == ["carte", "carte", "cartes"]
    assert [plural(n, "card", "en") for n in (0, 1, 2)] == ["cards", "card", "cards"]
    assert plural(2, "point de vie", "fr") == "points de vie" and plural(3, "voix", "fr") == "voix"
    assert plural(2, "animal", "fr") == "animaux" and plural(2, "copy", "en") == "copies"
    assert count(3, "transfert", "fr") == "3 transferts" and count(1, "transfert", "fr") == "1 transfert"
    assert agree("3 événement(s) illisible(s) du journal ignoré(s)", "fr") == (
        "3 événements illisibles du journal ignorés")
    assert agree("1 événement(s) illisible(s)", "fr") == "1 événement illisible"
    assert agree("+1 votes", "en") == "+1 votes"  # card text: a bonus, not a count


def test_written_lines_have_no_bracketed_plurals() -> None:
    # the translation table's fill: what the console prints and a braille display shows
    assert t("cards.load_more", "fr", n=1) == " (et 1 autre problème)"
    assert t("cards.load_more", "fr", n=3) == " (et 3 autres problèmes)"
    assert t("table.skipped_events", "en", count=1, ids="4").startswith("1 unreadable journal event skipped")


def test_ordinals_and_fractions_as_words() -> None:
    assert [ordinal_words(n, "fr") for n in (1, 2, 4, 5, 9, 21, 71, 80, 100)] == [
        "premier", "deuxième", "quatrième", "cinquième", "neuvième", "vingt et unième", "soixante et onzième",
        "quatre-vingtième", "centième"]
    assert ordinal_words(1, "fr", feminine=True) == "première"
    assert [ordinal_words(n, "en") for n in (1, 2, 3, 5, 12, 20, 21, 47)] == [
        "first", "second", "third", "fifth", "twelfth", "twentieth", "twenty-first", "forty-seventh"]
    assert fraction_words(3, 4, "fr") == "trois sur quatre" and fraction_words(1, 2, "en") == "one of two"


def test_a_games_abbreviation_said_in_full_agrees_with_its_number() -> None:
    """ASTRAL's SuperNova, heard at the end of every turn: "1 PV" is "un point de vie"."""
    from companion.speech.phrases import for_the_ear

    assert for_the_ear("SuperNova : le Navigateur de Bob perd 1 PV.", "fr", "astral") == \
        "SuperNova : le Navigateur de Bob perd un point de vie."
    assert for_the_ear("Le Navigateur perd 3 PV.", "fr", "astral") == "Le Navigateur perd trois points de vie."
