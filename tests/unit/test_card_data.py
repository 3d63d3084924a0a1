"""The shipped card data of Res Arcana and Ascension: Rise of Vigil loads through the real loader and
holds the facts the rules (../shared/seeds) state: component counts, pairs, costs, FAQ links."""

from __future__ import annotations

import json
import re
import shutil
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from companion.cards import catalog
from tests.data_files import game_file

CARDMAP = Path(__file__).resolve().parents[2] / "cardmap"
ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

ESSENCES = {"mort", "serenite", "vie", "vigueur", "or", "any"}
RA_TYPES = {"artifact": 40, "mage": 10, "monument": 10, "place-of-power": 10, "magic-item": 8}
ASC_TYPES = ("hero", "construct", "monster", "starting", "energy-shard")
ASC_GIVES = {"runes", "power", "draw", "honor", "energy"}
FACTIONS = {"enlightened", "lifebound", "mechana", "void", "neutral"}

pytestmark = pytest.mark.timeout(60)


def raw_cards(game: str) -> list[dict[str, Any]]:
    return game_file(game, "cards.yaml")["cards"]  # parsed once a process: read only


def by_id(game: str) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in raw_cards(game)}


def fold(text: str) -> str:
    text = text.replace("œ", "oe").replace("Œ", "Oe")
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)).casefold()


def all_names(card: dict[str, Any]) -> set[str]:
    return {fold(n) for n in [card["name"], *card.get("names", {}).values(), *card.get("aliases", [])]}


def minimal_game_yaml(game: str, types: list[str]) -> str:
    lines = [f"id: {game}", 'names: {fr: "Jeu", en: "Game"}', "players: {min: 1, max: 4}", "card_language: fr",
             "card_types:"]
    for t in types:
        lines += [f"  - id: {t}", f"    names: {{fr: {t}, en: {t}}}"]
    lines += ["glossary: []", "rules: []", 'deck: {text: {fr: "x", en: "x"}}']
    # The resources and actions its cards' effects may name, and its own card fields, are the
    # game's (game.yaml effects: and card_fields:).
    real = game_file(game)
    lines.append("effects: " + json.dumps(real["effects"]))
    lines.append("card_fields: " + json.dumps(real.get("card_fields", {})))
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ both games, through the loader

@pytest.mark.parametrize(("game", "types"), [("res-arcana", list(RA_TYPES)), ("ascension", list(ASC_TYPES))])
def test_cards_load_through_the_real_loader(tmp_path: Path, game: str, types: list[str]) -> None:
    # A game.yaml that declares only the card types keeps this test about cards.yaml alone.
    folder = tmp_path / "cardmap" / game
    folder.mkdir(parents=True)
    shutil.copy(CARDMAP / game / "cards.yaml", folder / "cards.yaml")
    (folder / "game.yaml").write_text(minimal_game_yaml(game, types), encoding="utf-8")
    result = catalog.build(tmp_path / "cardmap", overlay=tmp_path / "none", with_sources=False)
    assert result.errors == {}
    assert len(result.cards[game]) == len(raw_cards(game))


# cardmap/res-arcana/game.yaml (not ours) names its card types artefact, lieu-de-puissance and
# objet-magique, while the card schema and companion/cards/decks.py use artifact, place-of-power and
# magic-item. Strict: once the two agree this turns into a failure, and the mark must go.


@pytest.mark.parametrize("game", ["res-arcana", "ascension"])
def test_cards_load_with_the_shipped_game_yaml(tmp_path: Path, game: str) -> None:
    if not (CARDMAP / game / "game.yaml").exists():
        pytest.skip(f"cardmap/{game}/game.yaml not written yet")
    shutil.copytree(CARDMAP / game, tmp_path / "cardmap" / game)
    result = catalog.build(tmp_path / "cardmap", overlay=tmp_path / "none", with_sources=False)
    assert result.errors == {}
    assert set(result.cards[game]) == set(by_id(game))


@pytest.mark.parametrize("game", ["res-arcana", "ascension"])
def test_ids_unique_and_well_formed(game: str) -> None:
    ids = [c["id"] for c in raw_cards(game)]
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    assert [i for i in ids if not ID_RE.match(i)] == []


@pytest.mark.parametrize("game", ["res-arcana", "ascension"])
def test_every_card_has_french_text_and_an_english_name(game: str) -> None:
    for card in raw_cards(game):
        assert isinstance(card["text"], str) and len(card["text"]) >= 10, card["id"]
        assert card["names"]["en"], card["id"]
        assert isinstance(card["points"], int) and card["points"] >= 0, card["id"]


@pytest.mark.parametrize("game", ["res-arcana", "ascension"])
def test_every_card_says_where_its_facts_come_from(game: str) -> None:
    for card in raw_cards(game):
        assert isinstance(card["confirmed"], bool), card["id"]
        assert card.get("source", "").strip(), card["id"]
        if not card["confirmed"]:
            assert len(card["source"]) > 10, f"{card['id']}: an unconfirmed card needs a real note"


# ------------------------------------------------------------------ Res Arcana

def test_res_arcana_component_counts() -> None:
    assert Counter(c["type"] for c in raw_cards("res-arcana")) == Counter(RA_TYPES)


def test_res_arcana_places_of_power_pair_both_ways() -> None:
    cards = by_id("res-arcana")
    places = {i: c for i, c in cards.items() if c["type"] == "place-of-power"}
    for pid, place in places.items():
        other = place["pair"]
        assert other in places and other != pid, pid
        assert places[other]["pair"] == pid, pid
    assert len({frozenset((p, c["pair"])) for p, c in places.items()}) == 5
    assert all("pair" not in c for c in cards.values() if c["type"] != "place-of-power")


def test_res_arcana_uses_only_known_essences() -> None:
    for card in raw_cards("res-arcana"):
        amounts = [card["cost"], *card.get("collect", [])]
        for power in card.get("powers", []):
            assert power["kind"] in {"action", "reaction", "static"}, card["id"]
            if power["kind"] == "reaction":
                assert power.get("when"), f"{card['id']}: a reaction names its trigger"
            amounts += [power.get("cost", {}), power.get("gain", {})]
        for amount in amounts:
            assert set(amount) <= ESSENCES, card["id"]
            assert all(isinstance(n, int) and n > 0 for n in amount.values()), card["id"]


def test_res_arcana_facts_stated_by_the_rules() -> None:
    cards = by_id("res-arcana")
    assert all(c["cost"] == {"or": 4} for c in cards.values() if c["type"] == "monument")
    assert cards["eclat-elementaire"]["cost"] == {} and cards["prisme"]["cost"] == {}
    assert sorted(cards["serpent-de-mer"]["subtypes"]) == ["creature", "dragon"]
    assert cards["statue-sacree"]["points"] == 1
    # Forge Maudite, Bosquet Sacré and Puits Sacrificiel give 1 or 2 points besides their essences.
    assert [cards[i]["points"] for i in ("forge-maudite", "bosquet-sacre", "puits-sacrificiel")] == [1, 2, 2]
    dragons = [i for i, c in cards.items() if "dragon" in c.get("subtypes", [])]
    assert len(dragons) == 6 and all(cards[i]["type"] == "artifact" for i in dragons)


def test_res_arcana_names_used_by_the_french_rules_are_found() -> None:
    # Every component the French rulebook names, as it spells it (names and aliases, any accents).
    in_rules = ["Forge Maudite", "Coffre-Fort", "Automate", "Éclat Élémentaire", "Prisme", "Artificier",
                "Harnais de Dragon", "Repaire des Dragons", "Crypte", "Œuf de Dragon", "Bestiaire du Sorcier",
                "Divination", "Faucon", "Oracle", "Coupe de Feu", "Réanimation", "Sorcière", "Druidesse",
                "Athanor", "Pierre Philosophale", "Étangs de Sérénité", "Tréant", "Autel Corrompu",
                "Fouet Ardent", "Dague Sacrificielle", "Puits Calcifère", "Bosquet Sacré", "Puits Sacrificiel",
                "Manoir de Corail", "Statue Sacrée", "Transmutatrice", "Molosse", "Sirène", "Serpent de Mer",
                "Transmutation"]
    known = set().union(*(all_names(c) for c in raw_cards("res-arcana")))
    assert [n for n in in_rules if fold(n) not in known] == []


# ------------------------------------------------------------------ Ascension

def test_ascension_starting_always_available_and_shard() -> None:
    cards = by_id("ascension")
    expect = {"apprenti": ("starting", "Apprentice", 8), "milicien": ("starting", "Militia", 2),
              "mystique": ("hero", "Mystic", 26), "soldat-lourd": ("hero", "Heavy Infantry", 26),
              "fanatique": ("monster", "Cultist", 1), "eclat-d-energie": ("energy-shard", "Energy Shard", 60)}
    for cid, (ctype, english, count) in expect.items():
        card = cards[cid]
        assert (card["type"], card["names"]["en"], card["count"]) == (ctype, english, count), cid
    assert cards["apprenti"]["gives"] == {"runes": 1}
    assert cards["milicien"]["gives"] == {"power": 1}
    assert cards["eclat-d-energie"]["gives"] == {"energy": 1, "draw": 1}
    assert (cards["mystique"]["cost"], cards["soldat-lourd"]["cost"]) == ({"runes": 3}, {"runes": 2})
    assert cards["fanatique"]["cost"] == {"power": 2}
    for cid in ("mystique", "soldat-lourd", "fanatique"):
        assert "always-available" in cards[cid]["subtypes"], cid


def test_ascension_center_deck_is_the_hundred_cards_of_the_box() -> None:
    center = [c for c in raw_cards("ascension") if c["type"] in ("hero", "construct", "monster")
              and "always-available" not in c.get("subtypes", [])]
    assert sum(c["count"] for c in center) == 100
    per_faction = Counter()
    for c in center:
        per_faction[c["faction"]] += c["count"]
    assert per_faction == {"enlightened": 18, "lifebound": 18, "mechana": 18, "void": 18, "neutral": 28}


def test_ascension_fields_are_well_typed() -> None:
    for card in raw_cards("ascension"):
        assert card["type"] in ASC_TYPES, card["id"]
        assert card["faction"] in FACTIONS, card["id"]
        assert isinstance(card["count"], int) and card["count"] >= 1, card["id"]
        assert set(card.get("gives", {})) <= ASC_GIVES, card["id"]
        cost = card["cost"]
        if card["type"] == "monster":
            assert set(cost) == {"power"}, card["id"]
        elif card["type"] in ("hero", "construct"):
            assert set(cost) == {"runes"}, card["id"]
        else:
            assert cost == {}, card["id"]
        if card["type"] in ("hero", "construct") and card["faction"] == "neutral":
            assert "always-available" in card.get("subtypes", []), card["id"]


def test_ascension_faq_answers_sit_on_their_cards() -> None:
    cards = by_id("ascension")
    # The six FAQ questions of the rules name these cards (French names where the rules give them).
    for cid in ("omnicron", "druide-porteur-de-glaise", "oziah-juge-de-logos", "chercheur-de-verite",
                "marchand-d-esprits", "leotan-le-heraut-des-etoiles"):
        assert cards[cid].get("faq"), cid
    names = {fold(cards[cid]["name"]) for cid in cards}
    for french in ("Fanatique", "Mystique", "Soldat Lourd", "Druide Porteur de Glaise", "Chercheur de Vérité",
                   "Marchand d'Esprits", "Oziah, Juge de Logos", "Leotan le Héraut des Étoiles"):
        assert fold(french) in names, french


def test_ascension_trophies_are_monsters() -> None:
    trophies = [c for c in raw_cards("ascension") if "trophy" in c.get("subtypes", [])]
    assert {c["id"] for c in trophies} == {"serpent-siren", "vault-sphinx"}
    assert all(c["type"] == "monster" and "Trophée" in c["text"] for c in trophies)


# -- issue 14: data checked against the cards and the rulebooks ---------------------------------


def test_dragon_bridle_is_harnais_de_dragon() -> None:
    card = by_id("res-arcana")["harnais-du-dragon"]
    assert card["name"] == "Harnais de Dragon" and card["names"]["en"] == "Dragon Bridle"
    from companion.cards.library import CardLibrary

    assert CardLibrary().lookup("Harnais du Dragon").name == "Harnais de Dragon"  # the old spelling still finds it


def _glossary(game: str) -> dict[str, dict[str, Any]]:
    return {g["id"]: g for g in game_file(game)["glossary"]}


def test_transmutation_same_type_only_for_the_transmutatrice_and_the_magic_item() -> None:
    text = _glossary("res-arcana")["transmutation"]["text"]["fr"]
    same = next(s for s in re.split(r"(?<=[.;])\s", text) if "même type" in s)
    assert "Transmutatrice" in same and "Transmutation" in same
    assert not any(name in same for name in ("Athanor", "Pierre Philosophale", "Prisme"))
    assert "autre type" in text


def test_rise_priority_stops_at_four_levels_and_action_is_defined() -> None:
    rise = _glossary("rise")
    priority = rise["priorite"]["text"]
    assert "quatrième niveau" in priority["fr"] and "Imminente" in priority["fr"]
    assert "fourth level" in priority["en"] and "Imminent" in priority["en"]
    action = rise["action"]["text"]
    assert "pièces" in action["fr"] and "une fois par tour" in action["fr"]
    assert "coins" in action["en"] and "once per turn" in action["en"]
