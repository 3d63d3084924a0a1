"""The game data in cardmap/<game>/game.yaml: shape, both languages, and every term the rule
texts of ../shared/seeds/ define has a glossary entry."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from tests.data_files import game_file

ROOT = Path(__file__).resolve().parents[2]
CARDMAP = ROOT / "cardmap"
GAMES = ("vtes", "ascension", "res-arcana", "rise", "astral")
SEED_FILES = {
    "ascension": "000_7ffc4e755ddb2a50.txt",
    "rise": "001_a632c2f53482be12.txt",
    "astral": "002_d2f21cbf1f2dacc0.txt",
    "vtes": "003_e40ff16177784588.txt",
    "res-arcana": "004_723a17db5ff466c9.txt",
}
KINDS = {
    "keyword", "ability-passive", "ability-active", "term", "discipline", "clan", "phase", "resource", "card-type",
}
SECTIONS = {"overview", "setup", "turn", "combat", "actions", "end", "scoring", "variants", "faq", "deck"}
ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
LANGS = ("fr", "en")

# Terms each seed defines (its glossary, lexicon, ability lists, card types, phases and the
# words its rules explain), as printed in the seed. Each must be findable in the glossary.
SEED_TERMS: dict[str, list[str]] = {
    "ascension": [
        # Glossaire
        "Bannir", "Détruire", "Énergisé", "Énergie", "Héros", "Honneur", "Monstres", "Puissance",
        "Runes", "Trésor", "Trophée",
        # other terms the rules explain
        "Artefacts", "Constructs", "Ligne Centrale", "Center Row", "Néant", "Void",
        "Deck central", "Toujours Disponibles", "Fanatique", "Cultist", "Mystique",
        "Soldat Lourd", "Heavy Infantry", "Apprenti", "Milicien", "Éclat d'Énergie",
        "Energy Shard", "Destin", "Fate", "Énergisé", "Energize", "Acquérir", "Vaincre",
        "Réserve d'Honneur", "Défausse", "Culte", "Méchana", "Enracinés", "Lifebound",
        "Éclairés", "Enlightened", "Faction", "Rareté", "Texte d'ambiance",
    ],
    "rise": [
        # card types
        "Niveau", "Créature", "Créature Imminente", "Incantation", "Incantation Imminente",
        "Porte", "Porte Créature", "Porte Imminente", "Imminente",
        # passive abilities
        "Avantage", "Bonbon", "Constance", "Distance", "Drain", "Électrique", "Ensemble",
        "Équipement", "Feu", "Horde", "Immunité", "Maladie", "Morpher", "Multicible",
        "Nourriture", "Passe-Muraille", "Peau de fer", "Percée", "Poison", "Portée",
        "Prix fixe", "Riposte", "Saignement", "Vélocité", "Vol",
        # active abilities
        "Clonage", "Diversion", "Exhumation", "Possession", "Rage", "Réanimation", "Retour",
        # pictograms
        "Invocateur", "Éther", "Lancer de toss", "Coût de l'action", "Point de vie",
        "Carré plein", "Tilde", "Rond plein",
        # lexicon
        "Cycle", "Tour", "Incliner", "Redresser", "Réinitialiser", "Cimetière", "Exclure",
        "Charge +1/+1", "Charge -1/-1", "Plan terrestre", "Plan céleste", "Mal d'invocation",
        "Imbloquable", "Zone d'incantation",
        # phases and other words of the rules
        "Éveil", "Restauration", "Première phase d'invocation",
        "Déclaration de la phase d'attaque", "Combat", "Seconde phase d'invocation",
        "Fin de tour", "Succès", "Échec", "Pièce", "Aptitudes passives", "Aptitudes actives",
        "Bloqueur", "Champ de bataille",
    ],
    "astral": [
        # card types
        "Navigateur", "Environnement", "Sbire", "Pouvoir", "Cosmique", "Spéciale",
        # resources, stats, states
        "Energy", "Étoile", "PV", "PP", "PA", "État Cosmique", "État Astral", "Deck Cosmique",
        "SuperNova", "Vortex", "Mort subite", "Reforger",
        # actions and positions
        "Action principale", "Invoqué normalement", "Invoqué spécialement", "Redressé",
        "Incliné", "Terrain", "Chaîne de résolution", "Tour global", "Tapis de jeu",
        # faculties and effect words
        "Faculté", "Effet", "Actif", "Turbo", "Black-Hole", "Infinity", "Apparition",
        "Destruction", "Conquérant", "Retour", "Tank", "Multiples",
    ],
    "vtes": [
        # the 17 disciplines the seed lists
        "Animalisme", "Auspex", "Célérité", "Chimerstry", "Dementation", "Dominate",
        "Fortitude", "Nécromancie", "Obfuscate", "Obtenebration", "Potence", "Présence",
        "Protean", "Quietus", "Serpentis", "Thaumaturgie", "Viscissitude",
        # sects and clans
        "Camarilla", "Sabbat", "Indépendants", "Laibon", "Brujah", "Malkavian", "Nosferatu",
        "Toreador", "Tremere", "Ventrue", "Caitiff", "Brujah antitribu", "Gangrel antitribu",
        "Malkavian antitribu", "Nosferatu antitribu", "Toreador antitribu",
        "Tremere antitribu", "Ventrue antitribu", "Pander", "Lasombra", "Tzimisce",
        "Giovanni", "Ravnos", "Assamite", "Setite", "Gangrel", "Akunanse", "Guruhi",
        "Ishtarri", "Osebo",
        # titles
        "Primogen", "Prince", "Justicar", "Inner Circle", "Bishop", "Archbishop", "Priscus",
        "Cardinal", "Baron", "Magaji", "Kholo",
        # phases
        "Untap", "Master", "Minion", "Influence", "Phase de défausse",
        # terms the rules explain
        "Methuselah", "Pool", "Blood", "Proie", "Prédateur", "Crypte", "Library", "Cendres",
        "Capacité", "Edge", "Torpeur", "Bleed", "Chasser", "Transferts", "Éliminé",
        "Stealth", "Intercept", "Action politique", "Titre", "Vote", "Directed", "Nondirected",
        "Acting Minion", "Blocking Minion", "Tap", "Ready", "Contestation", "Unique",
        "Location", "Out-of-turn", "Action modifier", "Réaction", "Retainer", "Allié",
        "Equipement", "Range", "Manoeuvre", "Strike", "Dodge", "First Strike", "Combat ends",
        "Hand Damage", "Aggravé", "Prevent", "Destroy Equipement", "Steal Equipement",
        "Steal Blood", "Paralyse", "Press", "Strikes additionnels", "Diablerie", "Blood Hunt",
        "Wyld Hunt", "Sortir de Torpeur", "Prendre la fuite", "Points de Victoire",
        "Banque de sang", "Brûler", "Do not replace", "Vampire", "Master Discipline",
        "Version supérieure", "Villes contestées", "Employer un Retainer", "Recruter un Allié",
        "Région Inactive", "Région Active", "Round", "Dommages",
    ],
    "res-arcana": [
        # Glossaire
        "Capacité", "Coût de mise en jeu", "Créature", "Désengager", "Détruire",
        "Élément de jeu", "Dragon", "Engager", "Essence", "Lieu de Puissance", "Mage",
        "Monument", "Objet magique", "Passer", "Perte de vie", "Pouvoir", "Pouvoir de Réaction",
        "Réduction de coût", "Réserve d'essences", "Rivaux",
        # the five essences
        "Mort", "Sérénité", "Vie", "Vigueur", "Or",
        # other terms the rules explain
        "Artefact", "Collecte", "Défausser", "Premier joueur", "Contrôle de victoire",
        "Manche", "Points de victoire", "x5", "Face solaire",
        "Contrôle de victoire immédiat", "Transmutation", "Actions", "Pioche",
    ],
}


def fold(text: str) -> str:
    """Lower-case, accent-free, single-spaced: how a player might type a term."""
    text = unicodedata.normalize("NFKD", str(text))
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = text.replace("’", "'").replace("-", " ")
    return " ".join(text.split())


def spellings(entry: dict) -> set[str]:
    """Every way an entry can be looked up: id, names, aliases, and the parts of a name such as
    "Saigner / Saignée" or "Étoile (✦)"."""
    raw = [entry["id"], *entry.get("names", {}).values(), *entry.get("aliases", [])]
    out: set[str] = set()
    for item in raw:
        item = str(item)
        out.add(fold(item))
        for part in re.split(r"\s*/\s*|\s*\(|\)", item):
            if part.strip():
                out.add(fold(part))
    return out


def load(game: str) -> dict:
    """The game's game.yaml, parsed once a process (tests.data_files): read only."""
    data = game_file(game)
    assert isinstance(data, dict), f"{CARDMAP / game / 'game.yaml'} is not a mapping"
    return data


@pytest.fixture(scope="module", params=GAMES)
def game(request: pytest.FixtureRequest) -> tuple[str, dict]:
    return request.param, load(request.param)


def both(value: object, where: str) -> None:
    assert isinstance(value, dict), f"{where}: expected {{fr, en}}, got {value!r}"
    for lang in LANGS:
        assert isinstance(value.get(lang), str) and value[lang].strip(), f"{where}: {lang} missing"


def test_top_level_keys(game: tuple[str, dict]) -> None:
    name, data = game
    assert data["id"] == name
    both(data["names"], f"{name}.names")
    players = data["players"]
    assert isinstance(players["min"], int) and isinstance(players["max"], int)
    assert 1 <= players["min"] <= players["max"]
    assert data["card_language"] in LANGS
    for key in ("card_types", "glossary", "rules"):
        assert isinstance(data[key], list) and data[key], f"{name}.{key} empty"
    both(data["deck"]["text"], f"{name}.deck.text")
    assert isinstance(data["deck"]["rules"], dict)


def test_card_types(game: tuple[str, dict]) -> None:
    name, data = game
    ids = [t["id"] for t in data["card_types"]]
    assert len(ids) == len(set(ids)), f"{name}: duplicate card type ids"
    for t in data["card_types"]:
        assert ID.match(t["id"]), f"{name}: bad card type id {t['id']!r}"
        both(t["names"], f"{name}.card_types.{t['id']}.names")
        both(t["text"], f"{name}.card_types.{t['id']}.text")


def test_glossary_entries(game: tuple[str, dict]) -> None:
    name, data = game
    ids = [g["id"] for g in data["glossary"]]
    dupes = {i for i in ids if ids.count(i) > 1}
    assert not dupes, f"{name}: duplicate glossary ids {sorted(dupes)}"
    rule_ids = {r["id"] for r in data["rules"]}
    for g in data["glossary"]:
        where = f"{name}.glossary.{g['id']}"
        assert ID.match(g["id"]), f"{where}: bad id"
        assert g["kind"] in KINDS, f"{where}: kind {g['kind']!r}"
        both(g["names"], f"{where}.names")
        both(g["text"], f"{where}.text")
        assert all(isinstance(a, str) and a for a in g.get("aliases", [])), f"{where}.aliases"
        assert set(g.get("see", [])) <= rule_ids, f"{where}.see: {set(g['see']) - rule_ids}"
        assert g.get("confirmed", True) in (True, False)


def test_rules_sections(game: tuple[str, dict]) -> None:
    name, data = game
    ids = [r["id"] for r in data["rules"]]
    assert len(ids) == len(set(ids)), f"{name}: duplicate rules ids"
    for r in data["rules"]:
        where = f"{name}.rules.{r['id']}"
        assert ID.match(r["id"]), f"{where}: bad id"
        assert r["section"] in SECTIONS, f"{where}: section {r['section']!r}"
        both(r["title"], f"{where}.title")
        both(r["text"], f"{where}.text")
    sections = {r["section"] for r in data["rules"]}
    # Every game must answer set-up, turn and end-of-game questions and explain its deck.
    assert {"overview", "setup", "turn", "end", "deck"} <= sections, f"{name}: {sections}"


@pytest.mark.parametrize("name", GAMES)
def test_every_seed_term_has_an_entry(name: str) -> None:
    data = load(name)
    known: set[str] = set()
    for g in data["glossary"]:
        known |= spellings(g)
    missing = [t for t in SEED_TERMS[name] if fold(t) not in known]
    assert not missing, f"{name}: no glossary entry for {missing}"


@pytest.mark.parametrize("name", GAMES)
def test_seed_terms_are_really_in_the_seed(name: str, rulebooks: Path) -> None:
    """Guards the lists above against typos: each term is printed in its seed."""
    seed = rulebooks / SEED_FILES[name]
    if not seed.exists():
        pytest.skip(f"seed {seed} not available")
    text = fold(seed.read_text(encoding="utf-8"))
    absent = [t for t in SEED_TERMS[name] if fold(t) not in text]
    assert not absent, f"{name}: not in the seed: {absent}"


def test_deck_rules_numbers() -> None:
    assert load("vtes")["deck"]["rules"] == {
        "crypt_min": 12, "library_min": 40, "library_max": 90, "max_group_span": 2,
    }
    astral = load("astral")
    assert astral["deck"]["rules"] == {
        "max_cards": 40,
        "composition": {
            "navigateur": {"exactly": 1},
            "environnement": {"exactly": 1},
            "sbire": {"min": 15},
            "pouvoir": {"min": 15},
            "cosmique": {"exactly": 4},
            "speciale": {"min": 0, "max": 4},
        },
        "duplicates": False,
        "duplicates_keyword": "multiples",
    }
    type_ids = {t["id"] for t in astral["card_types"]}
    assert set(astral["deck"]["rules"]["composition"]) <= type_ids
    assert "multiples" in {g["id"] for g in astral["glossary"]}
    assert load("rise")["deck"]["rules"] == {"deck_size": 50, "summoners": 2}
    res = load("res-arcana")["deck"]["rules"]
    assert res["artifacts"] == 8 and res["starting_hand"] == 3
    assert load("ascension")["deck"]["rules"] == {}


def test_player_counts() -> None:
    counts = {g: (load(g)["players"]["min"], load(g)["players"]["max"]) for g in GAMES}
    assert counts == {
        "vtes": (2, 6), "ascension": (1, 6), "res-arcana": (2, 4), "rise": (2, 2), "astral": (2, 2),
    }


@pytest.mark.timeout(120)
def test_vtes_glossary_covers_krcg_disciplines_and_clans(card_library) -> None:
    """Every discipline abbreviation and clan on a krcg card can be looked up."""
    known: set[str] = set()
    kinds: dict[str, str] = {}
    for g in load("vtes")["glossary"]:
        for s in spellings(g):
            known.add(s)
            kinds.setdefault(s, g["kind"])
    discs, clans = set(), set()
    # krcg 4 or 5, through the adapter, as the session's card index holds them (krcg read them
    # once for the session, not again here).
    for card in card_library.cards("vtes"):
        discs.update(d.lower() for d in card.extra["disciplines"])
        clans.update(card.extra["clans"])
    assert discs and clans  # the cards were there to read
    missing = sorted(d for d in discs if d not in known)
    assert not missing, f"disciplines without an entry: {missing}"
    missing = sorted(c for c in clans if fold(c) not in known)
    assert not missing, f"clans without an entry: {missing}"
    assert all(kinds[d] == "discipline" for d in discs)
