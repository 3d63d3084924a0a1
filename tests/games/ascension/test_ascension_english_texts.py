"""Ascension in English (issue 24): every card has its text in English in the data (cards.yaml,
``texts.en``), so an English listener hears the card's name and text in English, in the
English voice, and reads them in English; a French listener still gets the French."""

from __future__ import annotations

import re

from companion.cards.library import CardLibrary
from companion.cards.model import localized
from companion.speech.phrases import card_speech


def test_every_ascension_card_has_an_english_text() -> None:
    lib = CardLibrary()
    cards = list(lib.cards("ascension"))
    assert len(cards) >= 50
    for card in cards:
        english = localized(card, "en")
        assert english.lang == "en" and english.text and english.text != card.text, card.id
        assert english.name == card.names["en"], card.id
        # French words of the game never leak into the English text
        assert not re.search(r"\b(Gagnez|piochez|runes? de|puissance|honneur|Artefact|Énergisé)\b", english.text), \
            (card.id, english.text)


def test_an_english_listener_hears_an_ascension_card_in_english() -> None:
    lib = CardLibrary()
    game = lib.game("ascension")
    said = card_speech(lib.get("ascension:soldat-lourd"), lang="en", game=game)
    assert said[0].text.startswith("Heavy Infantry.") and said[0].lang == "en"
    text = " ".join(u.text for u in said)
    assert "Gain two power." in text, said
    assert all(u.lang == "en" for u in said), said
    french = " ".join(u.text for u in card_speech(lib.get("ascension:soldat-lourd"), lang="fr", game=game))
    assert "Gagnez deux puissance." in french


def test_a_cost_of_one_agrees_in_both_languages() -> None:
    lib = CardLibrary()
    game = lib.game("ascension")
    tutor = lib.get("ascension:monastic-tutor")  # costs 1 rune
    assert "Costs one rune." in " ".join(u.text for u in card_speech(tutor, lang="en", game=game))
    assert "Coûte une rune." in " ".join(u.text for u in card_speech(tutor, lang="fr", game=game))
