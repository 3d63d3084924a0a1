"""The cards and rules commands end to end, and users' own cards in the overlay."""

import json
import subprocess
from pathlib import Path

import companion
from tests.cards_index import warm_index
from tests.cli_run import run_cli

ROOT = Path(companion.__file__).resolve().parents[1]


def run(*args: str, home: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The command in this process (tests.cli_run): these tests read only its output and status."""
    env: dict[str, str | None] = {}
    if home is not None:  # a home of the test's own, with its own cards: its own card index too
        env["COMPANION_HOME"] = str(home)
        env["COMPANION_CACHE"] = None
        warm_index(home)  # the session's index: only the game the test changed is rebuilt
    return run_cli(*args, env=env, stdin=stdin)


def test_search_show_stats_json() -> None:
    found = run("cards", "search", "--game", "vtes", "govrn", "unaligned", "--json")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert hits[0]["ref"] == "vtes:100845" and hits[0]["name"] == "Govern the Unaligned"
    shown = json.loads(run("cards", "show", "vtes:100845", "--json").stdout)
    assert shown["name"] == "Govern the Unaligned" and shown["rulings"]
    assert "Bleed with +2 bleed" in shown["text"]
    stats = json.loads(run("cards", "stats", "--json").stdout)
    assert stats["vtes"]["cards"] > 4000
    missing = run("cards", "show", "vtes:999999999")
    assert missing.returncode == 2 and "vtes:999999999" in missing.stderr


def test_user_card_is_added_searchable_scannable_and_survives_a_reinstall(tmp_path: Path) -> None:
    home = tmp_path / "home"
    added = run("cards", "add", "--game", "rise", "--name", "Gardienne des Braises", "--type",
                _a_rise_type(), "--text", "Quand elle entre en jeu, gagnez une pièce.", "--stat", "pv=4",
                "--json", home=home)
    assert added.returncode == 0, added.stderr
    card = json.loads(added.stdout)
    assert card["ref"] == "rise:gardienne-des-braises"
    overlay = home / "data" / "cards" / "rise.yaml"
    assert overlay.exists()
    assert ROOT not in overlay.resolve().parents  # never inside the installed program
    # The index is a cache: throwing it away (as a reinstall or an upgrade does) keeps the card.
    for cached in (home / "cache").glob("*"):
        cached.unlink()
    found = json.loads(run("cards", "search", "--game", "rise", "gardiene braise", "--json", home=home).stdout)
    assert found[0]["ref"] == "rise:gardienne-des-braises"
    shown = json.loads(run("cards", "show", "rise:gardienne-des-braises", "--json", home=home).stdout)
    assert shown["extra"]["stats"] == {"pv": 4} and shown["extra"]["overlay"] is True
    # Scannable: a tag holding the reference resolves to the user's card.
    scan = run("console", "--reader", "sim:rise:gardienne-des-braises", "--count", "1", "--json", home=home)
    assert json.loads(scan.stdout.splitlines()[0])["name"] == "Gardienne des Braises"
    again = run("cards", "add", "--game", "rise", "--name", "Gardienne des Braises", "--type", _a_rise_type(),
                "--text", "x", home=home)
    # Said in the user's language (French by default), as every message.
    assert again.returncode == 2 and "l'identifiant 'gardienne-des-braises' est déjà pris" in again.stderr, again.stderr
    assert "already" not in again.stderr


def test_add_refuses_bad_input_clearly(tmp_path: Path) -> None:
    home = tmp_path / "home"
    wrong_type = run("cards", "add", "--game", "rise", "--name", "X", "--type", "dragon-volant", "--text", "t",
                     home=home)
    assert wrong_type.returncode == 2 and "type de carte 'dragon-volant' inconnu" in wrong_type.stderr
    missing = run("cards", "add", "--game", "rise", "--name", "X", home=home, stdin="")
    assert missing.returncode == 2 and "type" in missing.stderr
    assert not (home / "data" / "cards" / "rise.yaml").exists()
    # A user's card file that is not UTF-8 text (saved as Latin-1 by an old editor): refused, in French.
    own = home / "data" / "cards" / "rise.yaml"
    own.parent.mkdir(parents=True)
    own.write_bytes("cards:\n- id: pi\u00e8ce\n".encode("latin-1"))
    latin = run("--lang", "fr", "cards", "add", "--game", "rise", "--name", "X", "--type", _a_rise_type(),
                "--text", "t", home=home)
    assert latin.returncode == 2 and "ce n'est pas du texte UTF-8" in latin.stderr, latin.stderr
    assert own.read_bytes() == "cards:\n- id: pi\u00e8ce\n".encode("latin-1")  # left untouched


def test_rules_search() -> None:
    result = run("rules", "--game", "rise", "invocateur", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)


def _a_rise_type() -> str:
    from companion.cards.catalog import build, cardmap_dir

    game = build(cardmap_dir(), overlay=Path("/nonexistent"), with_sources=False).games["rise"]
    return sorted(game.type_ids())[0]


# -- issue 14: what `cards show` and `cards stats` say -----------------------------------------


def test_show_marks_superior_disciplines_and_names_types_costs_and_imbued_words() -> None:
    from companion.cards.explain import card_lines
    from companion.cards.library import CardLibrary

    library = CardLibrary()
    vtes = library.game("vtes")
    anson = card_lines(library.lookup("Anson"), vtes, "fr")  # a name, as `speak` takes it
    assert "Disciplines : Auspex, Domination, Célérité supérieure, Présence supérieure" in anson
    assert not any(line.startswith("Coût") for line in anson) and "Capacité : 8" in anson
    assert library.lookup("Anson").cost == ""  # its capacity is not a cost, in any front end
    master = card_lines(library.lookup("Pentex™ Loves You!"), vtes, "fr")
    assert master[1] == "Type : Maître" and "Coût : 2 de réserve" in master
    assert card_lines(library.lookup("Absimiliard's Army"), vtes, "fr")[1] == "Type : Événement"
    assert card_lines(library.lookup("Absimiliard's Army"), vtes, "en")[1] == "Type: Event"
    imbued = card_lines(library.get("vtes:200102"), vtes, "fr")
    assert "Vie : 6" in imbued and "Credo : Martyr" in imbued and "Vertus : Martyre, Rédemption, Vision" in imbued
    assert not any(line.startswith(("Capacité", "Clan")) for line in imbued)


def test_show_takes_a_name_and_stats_count_every_type() -> None:
    shown = run("cards", "show", "anson")
    assert shown.returncode == 0 and shown.stdout.startswith("Anson (G1)  [vtes:200107]")
    stats = json.loads(run("cards", "stats", "--json").stdout)["vtes"]
    from companion.cards.library import CardLibrary

    cards = CardLibrary().cards("vtes")
    assert stats["types"]["Reaction"] == sum("Reaction" in c.types for c in cards)
    assert sum(stats["types"].values()) > stats["cards"]  # the cards of two types count under each


def test_astral_starter_decks_are_named_typed_cards_a_player_completes(tmp_path: Path) -> None:
    import csv

    from companion.cards.library import CardLibrary
    from companion.readers.events import TagEvent
    from companion.speech.phrases import card_speech
    from companion.tags import records
    from companion.tags.resolve import Resolver

    library = CardLibrary()
    cards = library.cards("astral")
    assert len(cards) == 60
    game = library.game("astral")
    types = {"Navigateur": "navigateur", "Sbire": "sbire", "Pouvoir": "pouvoir", "Environnement": "environnement",
             "Cosmique": "cosmique", "Spéciale": "speciale"}
    shared = ROOT.parent / "shared" / "data" / "astral-starter-decks.tsv"
    if shared.exists():  # the reference list, where the project's shared folder sits beside the tree
        rows = list(csv.DictReader(shared.open(encoding="utf-8"), delimiter="\t"))
        got = {(c.name, c.types[0], c.extra["deck"]) for c in cards}
        assert got == {(r["name"], types[r["type"]], r["starter_deck"]) for r in rows}
    nisha = library.lookup("Nisha le général de la légion noir")  # spelled as printed
    assert nisha is not None and nisha.extra["deck"]
    # A tag resolves to the named, typed card, and speech says what its type's rules are.
    scan = Resolver(library).resolve(TagEvent("laid", "sim", uid="04A1", ndef=records.encode_ref("astral:zvatas")))
    assert scan.status == "card" and scan.card.name == "Zvatas" and scan.card.types == ("navigateur",)
    said = " ".join(u.text for u in card_speech(scan.card, lang="fr", game=game))
    assert said.startswith("Zvatas. Navigateur.") and "une seule par deck" in said
    hits = library.search("falco demononuageux", game="astral", limit=1)
    assert hits[0].card.ref == "astral:falco-demononuageux"
    # `cards add` with the card's name completes it with its effect instead of refusing the id.
    home = tmp_path / "home"
    added = run("cards", "add", "--game", "astral", "--name", "Zvatas", "--type", "navigateur",
                "--text", "Quand Zvatas est révélé, piochez une carte.", "--json", home=home)
    assert added.returncode == 0, added.stderr
    shown = json.loads(run("cards", "show", "astral:zvatas", "--json", home=home).stdout)
    assert shown["text"].startswith("Quand Zvatas") and shown["extra"]["deck"] == "Démononuageux"
    again = run("--lang", "en", "cards", "add", "--game", "astral", "--name", "Zvatas", "--type", "navigateur",
                "--text", "x", home=home)
    assert again.returncode == 2 and "the id 'zvatas' is already used" in again.stderr, again.stderr
    assert run("cards", "validate", home=home).returncode == 0
