"""What the companion says: numbers, card text and table changes written for the ear, in
French and English, from the phrase data and real cards (krcg's VTES list)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from companion.cards.library import CardLibrary
from companion.cards.model import Card
from companion.games.vtes import cards as vtes
from companion.speech import phrases
from companion.speech.numbers import number_words, signed_words
from companion.speech.phrases import (
    Utterance,
    card_speech,
    change_speech,
    counter_names,
    for_the_ear,
    game_speech,
    scan_speech,
    spell_speech,
    text_of,
)

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def library(card_library) -> CardLibrary:
    card_library.load("vtes")
    return card_library  # the session's (conftest.py)


# --- numbers ----------------------------------------------------------------------------------

@pytest.mark.parametrize("n, words", [
    (0, "zéro"), (1, "un"), (7, "sept"), (16, "seize"), (17, "dix-sept"), (20, "vingt"),
    (21, "vingt et un"), (22, "vingt-deux"), (27, "vingt-sept"), (30, "trente"), (41, "quarante et un"),
    (61, "soixante et un"), (70, "soixante-dix"), (71, "soixante et onze"), (77, "soixante-dix-sept"),
    (80, "quatre-vingts"), (81, "quatre-vingt-un"), (90, "quatre-vingt-dix"), (91, "quatre-vingt-onze"),
    (99, "quatre-vingt-dix-neuf"), (100, "cent"), (101, "cent un"), (200, "deux cents"),
    (250, "deux cent cinquante"), (1000, "mille"), (1980, "mille neuf cent quatre-vingts"),
    (2000, "deux mille"), (80000, "quatre-vingt mille"), (200000, "deux cent mille"), (-3, "moins trois"),
])
def test_french_numbers(n: int, words: str) -> None:
    assert number_words(n, "fr") == words


@pytest.mark.parametrize("n, words", [
    (0, "zero"), (1, "one"), (13, "thirteen"), (21, "twenty-one"), (40, "forty"), (99, "ninety-nine"),
    (100, "one hundred"), (115, "one hundred fifteen"), (1000, "one thousand"),
    (2024, "two thousand twenty-four"), (-12, "minus twelve"),
])
def test_english_numbers(n: int, words: str) -> None:
    assert number_words(n, "en") == words


def test_feminine_and_signed_numbers() -> None:
    assert number_words(1, "fr", feminine=True) == "une"
    assert number_words(21, "fr", feminine=True) == "vingt et une"
    assert number_words(81, "fr", feminine=True) == "quatre-vingt-une"
    assert number_words(11, "fr", feminine=True) == "onze"
    assert signed_words(2, "fr") == "plus deux"
    assert signed_words(-3, "fr") == "moins trois"
    assert signed_words(2, "en") == "plus two"
    assert number_words(10**7, "fr") == "10000000"  # beyond the speller, the voice reads digits


def test_every_number_up_to_a_hundred_is_words_in_both_languages() -> None:
    for lang in ("fr", "en"):
        seen = set()
        for n in range(101):
            w = number_words(n, lang)
            assert re.fullmatch(r"[a-zéè -]+", w), (lang, n, w)
            seen.add(w)
        assert len(seen) == 101, lang  # no two numbers sound the same


# --- card text for the ear ----------------------------------------------------------------------

# krcg 5 (Python 3.12+) ships the official French texts; krcg 4 (3.11) has English only.
OFFICIAL_FRENCH = vtes.krcg_major() >= 5
GOVERN_FR = ("Diriger les indécis. Action. Coûte un sang. Domination, niveau inférieur : Action dirigée : Mordre à"
             " plus deux en morsure. Domination, niveau supérieur : Action à plus un en discrétion. Ajouter trois "
             "points de sang à un vampire plus jeune dans votre région incontrôlée.")


def english_only(card: Card) -> Card:
    """The card as krcg 4 gives it: no official translation."""
    extra = {k: v for k, v in card.extra.items() if k != "i18n"}
    return replace(card, names={"en": card.names["en"]}, extra=extra)


def test_govern_the_unaligned_in_french(library: CardLibrary) -> None:
    card = library.get("vtes:100845")
    if OFFICIAL_FRENCH:
        # The official French card: one French utterance, name and text included.
        assert card_speech(card, "normal", "fr") == [Utterance(GOVERN_FR, "fr")]
    said = card_speech(english_only(card), "normal", "fr")
    # The name and the text in the card's language (English), the words around them in French.
    assert said == [
        Utterance("Govern the Unaligned.", "en"),
        Utterance("Action. Coûte un sang.", "fr"),
        Utterance("Inferior Dominate: Directed action: Bleed with plus two bleed. Superior Dominate: "
                  "plus one stealth action. Add three blood to a younger vampire in your uncontrolled region.", "en"),
    ]


def test_govern_the_unaligned_in_english_is_one_utterance(library: CardLibrary) -> None:
    said = card_speech(library.get("vtes:100845"), "normal", "en")
    assert len(said) == 1 and said[0].lang == "en"
    assert said[0].text.startswith("Govern the Unaligned. Action. Costs one blood. Inferior Dominate:")


def test_verbosity_levels(library: CardLibrary) -> None:
    card = library.get("vtes:100845")
    short = card_speech(english_only(card), "short", "fr")
    assert short == [Utterance("Govern the Unaligned.", "en"), Utterance("Coûte un sang.", "fr")]
    if OFFICIAL_FRENCH:
        assert card_speech(card, "short", "fr") == [Utterance("Diriger les indécis. Coûte un sang.", "fr")]
    normal, full = text_of(card_speech(card, "normal", "fr")), text_of(card_speech(card, "full", "fr"))
    assert full.startswith(normal)
    assert "Précisions de règles." in full and "You do not reveal the target vampire." in full
    # Rulings exist in English only: the English voice reads them, whatever the card's text.
    rulings = [u for u in card_speech(card, "full", "fr") if "You do not reveal" in u.text]
    assert [u.lang for u in rulings] == ["en"]
    assert "LSJ" not in full and "2001" not in full  # ruling references mean nothing to the ear


def test_full_reads_keyword_definitions_from_a_glossary(library: CardLibrary) -> None:
    card = library.get("vtes:100845")
    glossary = {"dom": "la discipline de la volonté imposée à autrui, 2 niveaux"}.get
    full = card_speech(card, "full", "fr", glossary=glossary)
    text = text_of(full)
    assert "Mots-clés. Domination : la discipline de la volonté imposée à autrui, deux niveaux." in text
    assert Utterance("Mots-clés.", "fr") not in card_speech(card, "full", "fr")  # no glossary, no heading


def test_crypt_card(library: CardLibrary) -> None:
    card = library.get("vtes:200001")  # Aabbt Kindred (G2)
    said = card_speech(card, "normal", "fr")
    assert said[0] == Utterance("Aabbt Kindred.", "en")  # the group is said in words, not "(G2)"
    assert said[1].lang == "fr"
    assert said[1].text == ("Vampire, clan Ministry, capacité quatre, groupe deux. "
                            "Disciplines inférieures : Force d'âme, Présence et Serpentis.")
    assert "unless Nefertiti is ready" in said[2].text  # /Nefertiti/ is a name, not slashes
    assert card_speech(card, "short", "en") == [Utterance("Aabbt Kindred. Capacity four.", "en")]


def test_superior_disciplines_come_first(library: CardLibrary) -> None:
    card = next(c for c in library.cards("vtes")
                if c.extra.get("crypt") and any(d.isupper() for d in c.extra["disciplines"])
                and any(d.islower() for d in c.extra["disciplines"]))
    text = card_speech(card, "normal", "en")[0].text
    assert text.index("Superior disciplines:") < text.index("Inferior disciplines:")


def test_symbols_icons_and_numbers_become_words() -> None:
    assert for_the_ear("[tha] Strike: 2R damage.\n[THA] As above, but for 4R + X ranged damage.", "en", "vtes") == (
        "Inferior Blood Sorcery: Strike: two ranged damage. Superior Blood Sorcery: As above, but for four ranged "
        "plus X ranged damage.")
    assert for_the_ear("[PRE] This vampire gets +2X+1 votes.", "en", "vtes") == (
        "Superior Presence: This vampire gets plus two X plus one votes.")
    assert for_the_ear("[1 CONVICTION] [ACTION MODIFIER] +1 stealth, e.g. {Hidden Lurker}. [LSJ 20010108]",
                       "en", "vtes") == "one conviction action modifier: plus one stealth, for example Hidden Lurker."
    assert for_the_ear("as a +1 stealth Ⓓ action", "en") == "as a plus one stealth directed action"
    assert for_the_ear("[FLIGHT] Move a leg. -1 bleed", "en", "vtes") == "Flight: Move a leg. minus one bleed"
    assert for_the_ear("Gagne 2 ✦ et 1 PV.", "fr", "astral") == "Gagne deux étoiles et un point de vie."
    assert for_the_ear("Gagne 1 ✦.", "fr", "astral") == "Gagne une étoile."
    assert for_the_ear("Gain 3 ✦.", "en", "astral") == "Gain three stars."
    # only a symbol's noun agrees with the number before it: "&", "→", "=" said as words
    # do not ("4 et 1 point", never "quatre ets un point")
    assert for_the_ear("4 et 1 point de réserve", "fr", "vtes") == "quatre et un point de réserve"
    assert for_the_ear("2 & 3, 2 ou 3 cartes, 2 → 3, X = 2", "fr") == "deux et trois, deux ou trois cartes, " \
        "deux donne trois, X égale deux"
    assert for_the_ear("2 and 3, 2 & 3", "en") == "two and three, two and three"


def test_no_digit_or_symbol_is_left_in_any_vtes_card(library: CardLibrary) -> None:
    """Every one of krcg's 4,000 cards, both languages, every verbosity: nothing for the voice
    to spell out as a symbol (ordinals such as "47th" or "47e" excepted, voices read them well)."""
    leftovers = {}
    # (A text without any of these characters has no word with one: it is not searched word by
    # word, which costs the pattern's backtracking on every word of every text.)
    symbol = re.compile(r"[\d\[\]{}Ⓓ/+<>=#*~|_\\]")
    for card in library.cards("vtes"):
        for lang in ("fr", "en"):
            for u in card_speech(card, "full", lang):
                for m in re.findall(r"\S*[\d\[\]{}Ⓓ/+<>=#*~|_\\]\S*", u.text) if symbol.search(u.text) else ():
                    if not re.fullmatch(r"\(?\d+(st|nd|rd|th|e|er|re|ère|ème)[.,;:)]*", m):
                        leftovers[m] = card.ref
    assert len(library.cards("vtes")) > 4000
    assert leftovers == {}


def test_a_text_is_said_with_the_words_of_the_home_the_games_are_read_from(tmp_path, monkeypatch) -> None:
    """What a text becomes is remembered (the same texts are said again and again), but for the
    games of one place: the same game in another home, with its own words, is said its own way."""
    import shutil
    from pathlib import Path

    from companion import registry

    source = Path(__file__).resolve().parents[2] / "cardmap" / "astral"
    said = {}
    for home, hp in (("a", "points de vie"), ("b", "points de santé")):
        folder = tmp_path / home / "data" / "games" / "my-astral"
        shutil.copytree(source, folder)
        text = (folder / "game.yaml").read_text(encoding="utf-8")
        text = re.sub(r"(?m)^id: astral$", "id: my-astral", text).replace("PV: points de vie", f"PV: {hp}")
        (folder / "game.yaml").write_text(text, encoding="utf-8")
        monkeypatch.setenv("COMPANION_HOME", str(tmp_path / home))
        registry.forget()
        said[home] = for_the_ear("Perd 2 PV.", "fr", "my-astral")
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "a"))
    registry.forget()
    again = for_the_ear("Perd 2 PV.", "fr", "my-astral")
    registry.forget()
    assert said == {"a": "Perd deux points de vie.", "b": "Perd deux points de santé."}
    assert again == said["a"]

def test_cards_of_french_games_agree_in_gender() -> None:
    artifact = Card(game="res-arcana", id="test-calice", name="Calice d'essai", types=("Artefact",),
                    cost="1 Vie + 2 Or", text="Engager : +1 Mort.\nGagnez 21 Sérénité.", lang="fr")
    said = card_speech(artifact, "normal", "fr")
    assert said == [Utterance("Calice d'essai. Artefact. Coûte une Vie et deux Or. "
                              "Engager : plus une Mort. Gagnez vingt et une Sérénité.", "fr")]
    # The same French card for an English listener: the UI words in English, the card in French.
    said_en = card_speech(artifact, "normal", "en")
    assert [u.lang for u in said_en] == ["fr", "en", "fr"]
    assert said_en[1].text == "Artefact. Costs une Vie et deux Or."


def test_unconfirmed_card_is_flagged_aloud() -> None:
    card = Card(game="rise", id="x", name="Gobelin", types=("Créature",), cost="3 pièces",
                text="Inflige 2 PV.", lang="fr", confirmed=False)
    text = text_of(card_speech(card, "normal", "fr"))
    assert text == ("Gobelin. Attention : cette carte n'est pas encore vérifiée. Créature. Coûte trois pièces. "
                    "Inflige deux points de vie.")


# --- scans, changes, game events ---------------------------------------------------------------

def test_scan_phrases_are_calm() -> None:
    for lang in ("fr", "en"):
        for status in ("unknown", "unreadable", "lifted"):
            (u,) = scan_speech(status, lang)
            assert u.lang == lang and u.text and not re.search(r"\d|error|erreur", u.text, re.I)
    assert scan_speech("unreadable", "fr")[0].text.startswith("Je n'ai pas pu lire")


def test_change_speech_example_of_the_issue() -> None:
    said = change_speech("Ann", {"fr": "réserve", "en": "pool"}, -3, 27, "fr")
    assert said == [Utterance("Ann, réserve, moins trois, reste vingt-sept.", "fr")]
    said = change_speech("Ann", "vtes.pool", -3, 27, "en")
    assert said == [Utterance("Ann, pool, minus three, twenty-seven left.", "en")]
    assert change_speech(None, "ascension.honor", 2, 12, "fr") == [
        Utterance("plus deux honneur, total douze.", "fr")]
    assert change_speech("Bo", "ascension.honor", 0, 5, "fr") == [Utterance("Bo, honneur : cinq.", "fr")]


GAME_COUNTERS = {
    "vtes": ("pool", "vp", "edge"),
    "ascension": ("honor", "runes", "power", "energy"),
    "res-arcana": ("mort", "serenite", "vie", "vigueur", "or"),
    "rise": ("hp", "coins"),
    "astral": ("energy", "stars", "hp"),
}


@pytest.mark.parametrize("game", sorted(GAME_COUNTERS))
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_counter_of_every_game_speaks_in_both_languages(game: str, lang: str) -> None:
    for counter in GAME_COUNTERS[game]:
        names = counter_names(game, counter)
        assert set(names) == {"fr", "en"}, (game, counter)
        (u,) = change_speech("Ann", f"{game}.{counter}", -1 if counter != "edge" else 1, 1, lang)
        assert u.lang == lang
        assert "Ann" in u.text and not re.search(r"\d", u.text), u.text
        if counter != "edge":
            assert names[lang] in u.text
            # the same change with the names as the table engine passes them
            assert change_speech("Ann", names, -1, 1, lang, game=game) == [u]


def test_essences_by_name_and_gender() -> None:
    assert change_speech("Ann", "res-arcana.vie", 1, 2, "fr") == [Utterance("Ann, Vie, plus une, total deux.", "fr")]
    # from zero, the amount is the new value: said once
    assert change_speech("Ann", "res-arcana.vie", 1, 1, "fr") == [Utterance("Ann, Vie, plus une.", "fr")]
    assert change_speech("Ann", "res-arcana.or", 1, 1, "fr") == [Utterance("Ann, Or, plus un.", "fr")]
    assert change_speech("Ann", "res-arcana.serenite", -2, 3, "en") == [
        Utterance("Ann, Calm, minus two, three left.", "en")]
    assert change_speech("Ann", {"fr": "Mort", "en": "Death"}, 1, 21, "fr", game="res-arcana") == [
        Utterance("Ann, Mort, plus une, total vingt et une.", "fr")]


def test_edge_is_taken_and_lost() -> None:
    assert change_speech("Ann", "vtes.edge", 1, 1, "fr") == [Utterance("Ann prend l'Avantage.", "fr")]
    assert change_speech("Ann", "vtes.edge", -1, 0, "en") == [Utterance("Ann loses the Edge.", "en")]


def test_game_events() -> None:
    assert game_speech("turn_number", "fr", number=3, seat="Ann") == [Utterance("Tour trois, à Ann de jouer.", "fr")]
    assert game_speech("phase", "en", phase="Master") == [Utterance("Phase: Master.", "en")]
    assert game_speech("no-such-phrase", "fr") == []


def test_spelling() -> None:
    assert spell_speech("Épée d'or-2", "fr") == [Utterance(
        "e accent aigu, pé, e accent aigu, eu, espace, dé, apostrophe, o, erre, tiret, deux.", "fr")]
    assert spell_speech("Go x", "en") == [Utterance("gee, oh, space, ex.", "en")]
    assert spell_speech("", "fr") == []


# --- the data itself ------------------------------------------------------------------------------

def _shape(tree: object, skip: frozenset[str]) -> object:
    if isinstance(tree, dict):
        return {k: _shape(v, skip) for k, v in tree.items() if k not in skip}
    return None


def test_french_and_english_phrase_trees_match() -> None:
    # Leaves that are language data (letter names, abbreviations, grammatical gender) may differ.
    skip = frozenset({"letters", "accents", "abbreviations", "replace", "units", "tens", "feminine",
                      "ends"})  # (each language's own ordinal endings)
    fr, en = phrases.data("fr"), phrases.data("en")
    assert _shape(fr, skip) == _shape(en, skip)


def test_templates_use_only_known_placeholders() -> None:
    allowed = {"name", "types", "cost", "n", "clan", "title", "list", "term", "definition", "seat", "counter",
               "delta", "value", "number", "phase", "what", "counters"}
    for lang in ("fr", "en"):
        for section in ("card", "change", "game", "text"):
            for key, template in phrases.data(lang)[section].items():
                if isinstance(template, str):
                    assert set(re.findall(r"{(\w+)}", template)) <= allowed, (lang, section, key)


# --- cards of the other games, with their game data -------------------------------------------------

def test_res_arcana_card_with_its_game_data() -> None:
    from companion.speech import game_info

    lib = CardLibrary()
    card = lib.get("res-arcana:anneau-de-midas")
    game = game_info("res-arcana")
    assert card is not None and game is not None
    said = card_speech(card, "normal", "fr", game=game)
    assert said[0].text.startswith("Anneau de Midas. Artefact. Coûte une Vie et un Or. ")
    assert not re.search(r"\d", text_of(said))
    # For an English listener: the card's English name (names.en) in the English voice with the words
    # around it; its text, French only in the data, stays French in the French voice.
    said = card_speech(card, "normal", "en", game=game)
    assert said[0] == Utterance("Ring of Midas. Artifact. Costs one Life and one Gold.", "en")
    assert said[1].lang == "fr"


def test_full_explains_keywords_from_the_game_glossary() -> None:
    from companion.speech import game_info

    game = game_info("ascension")
    trophy = next(e for e in game.glossary if e.id == "trophee")
    card = Card(game="ascension", id="test-monstre", name="Monstre d'essai", types=("monster",),
                cost="4 puissance", text="Trophée : gagnez 2 honneur.", lang="fr", keywords=("trophee",),
                extra={"cost": {"power": 4}})
    full = text_of(card_speech(card, "full", "fr", game=game))
    assert full.startswith("Monstre d'essai. Monstre. Coûte quatre puissance. Trophée : gagnez deux honneur. "
                           "Mots-clés. Trophée : ")
    assert for_the_ear(trophy.text["fr"], "fr", "ascension") in full
    assert "Mots-clés" not in text_of(card_speech(card, "normal", "fr", game=game))
    # Without game data the type id is still read as words.
    assert card_speech(card, "normal", "en")[1].text.startswith("Monster. Costs four power.")


# --- issue 14: what speech got wrong ------------------------------------------------------------

def test_inline_discipline_icons_are_said_once(library) -> None:
    gabrin = for_the_ear(library.get("vtes:200490").text, "en", "vtes")
    assert "Cards requiring Chimerstry cost Gabrin" in gabrin and "Inferior" not in gabrin
    flight = for_the_ear(library.get("vtes:200039").text, "en", "vtes")
    assert flight.endswith("you control. Flight.") and "Flight Flight" not in flight
    valerius = for_the_ear(library.get("vtes:201422").text, "en", "vtes")
    assert "require Chimerstry or Obfuscate." in valerius
    # an icon at the start of a line is still read with its level
    assert for_the_ear("[chi] +1 bleed.", "en", "vtes").startswith("Inferior Chimerstry:")


def test_trade_marks_are_not_read(library) -> None:
    for lang in ("fr", "en"):
        said = " ".join(u.text for u in card_speech(library.get("vtes:101384"), lang=lang))
        # krcg 5 (Python 3.12+) has the official French name, "Subversion de la Pentex™".
        assert "Pentex" in said and "™" not in said and "trade" not in said.lower()
        assert "Pentex Subversion" in said or (lang == "fr" and "Subversion de la Pentex" in said)
        assert "action Action" not in said  # "en action Ⓓ" is a directed action, said once


def test_ascension_cards_say_their_honor_and_faction() -> None:
    lib = CardLibrary()
    game = lib.game("ascension")
    tutor = " ".join(u.text for u in card_speech(lib.get("ascension:monastic-tutor"), lang="fr", game=game))
    assert "Vaut un point d'honneur." in tutor and "Faction : Éclairés." in tutor
    heavy = " ".join(u.text for u in card_speech(lib.get("ascension:soldat-lourd"), lang="en", game=game))
    assert "Worth one honor point." in heavy and "Faction: neutral." in heavy
    big = next(c for c in lib.cards("ascension") if c.extra.get("points", 0) > 1 and c.extra["type"] != "monster")
    said = " ".join(u.text for u in card_speech(big, lang="fr", game=game))
    assert f"Vaut {number_words(big.extra['points'], 'fr')} points d'honneur." in said


def test_an_unknown_tag_says_why_in_the_listeners_language_and_what_to_do() -> None:
    from companion.readers.events import TagEvent
    from companion.tags import records
    from companion.tags.resolve import Resolver

    resolver = Resolver(CardLibrary())
    scan = resolver.resolve(TagEvent("laid", "sim", uid="04A1B2C3D4E5F6",
                                     ndef=records.encode_ref("vtes:999999")))
    assert scan.status == "unknown"
    assert scan.detail_text("fr") == "l'étiquette nomme vtes:999999, qui n'est pas dans la bibliothèque"
    assert scan.detail_text("en") == "the tag names vtes:999999, which is not in the library"
    for lang, why, step in (("fr", "absente de la bibliothèque", "écran Enregistrer"),
                            ("en", "not in the library", "Enroll screen")):
        (said,) = scan_speech("unknown", lang, scan.detail_text(lang, spoken=True))
        assert said.lang == lang and why in said.text and step in said.text
        assert not re.search(r"\d", said.text)
