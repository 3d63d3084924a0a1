"""The compiled card index (companion/cards/index.py): a warm start gives the cards built from
the YAML, decodes a card's long fields (text, rulings, flavour, extra) only when something asks
for them, and never trusts a damaged file: it is rebuilt, with a warning saying so."""

import dataclasses
import json
import logging
import os
import shutil
import sqlite3
from collections.abc import Mapping
from pathlib import Path

import pytest

from companion.cards import index
from companion.cards.catalog import Catalog, build, known_ids, overlay_dir
from companion.cards.library import CardLibrary
from companion.cards.model import Card
from companion.cards.overlay import add_card
from companion.cards.search import SearchIndex

FIXTURE = Path(__file__).parents[1] / "fixtures" / "cardmap"
GAME, CARD = "res-arcana", "dragon-de-feu"


@pytest.fixture
def cardmap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("COMPANION_CACHE", raising=False)  # an index of its own
    target = tmp_path / "cardmap"
    shutil.copytree(FIXTURE, target)
    return target


def load(cardmap: Path) -> tuple[Catalog, bool]:
    return index.load(cardmap, overlay=cardmap / "no-overlay")


def test_a_warm_start_gives_the_cards_built_from_yaml(cardmap: Path) -> None:
    built, rebuilt = load(cardmap)
    assert rebuilt
    warm, rebuilt = load(cardmap)
    assert not rebuilt
    assert warm.cards == built.cards and warm.games == built.games
    card, fresh = warm.cards[GAME][CARD], built.cards[GAME][CARD]
    assert card.to_json() == fresh.to_json()
    assert card.extra["powers"][0]["cost"] == {"vigueur": 1}
    other = dataclasses.replace(warm.cards[GAME]["alchimiste"], name="Autre")
    assert other.text == built.cards[GAME]["alchimiste"].text and other.name == "Autre"
    assert repr(card) == repr(fresh)


def test_long_fields_are_decoded_on_first_use(cardmap: Path) -> None:
    built, _ = load(cardmap)
    warm, _ = load(cardmap)
    card = warm.cards[GAME][CARD]
    assert card.name == built.cards[GAME][CARD].name
    assert "text" not in vars(card) and "extra" not in vars(card)  # a warm start left them encoded
    assert card.text == built.cards[GAME][CARD].text
    assert card.rulings == built.cards[GAME][CARD].rulings and isinstance(card.rulings, tuple)
    assert "text" in vars(card)  # decoded once, kept
    with pytest.raises(AttributeError):
        card.no_such_field  # noqa: B018
    assert not hasattr(card, "no_such_field")


@pytest.mark.parametrize("column", ["data", "bodies"])
def test_a_damaged_index_is_rebuilt_with_a_warning(cardmap: Path, column: str,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    built, _ = load(cardmap)
    with sqlite3.connect(index.index_path()) as db:
        (blob,) = db.execute(f"SELECT {column} FROM cards WHERE game = ?", (GAME,)).fetchone()
        damaged = bytearray(blob.encode() if isinstance(blob, str) else blob)
        at = next(i for i in range(len(damaged) // 2, len(damaged)) if chr(damaged[i]).islower())
        damaged[at] ^= 0x20  # one letter's case: still JSON, no longer what was written
        db.execute(f"UPDATE cards SET {column} = ? WHERE game = ?", (bytes(damaged), GAME))
    with caplog.at_level(logging.WARNING, logger="companion.cards.index"):
        again, rebuilt = load(cardmap)
    assert rebuilt and again.cards == built.cards
    assert "rebuilding" in caplog.text
    warm, rebuilt = load(cardmap)
    assert not rebuilt and warm.cards == built.cards


@pytest.fixture
def games(cardmap: Path) -> Path:
    """The fixture's game beside two shipped ones: three games, each keyed and stored apart."""
    shipped = Path(__file__).parents[2] / "cardmap"
    for game in ("ascension", "astral"):
        shutil.copytree(shipped / game, cardmap / game)
    return cardmap


def search_rows() -> dict[str, tuple[bytes, ...]]:
    """The search's parts as the card index keeps them, by key."""
    with sqlite3.connect(index.index_path()) as db:
        rows = db.execute("SELECT key, context, meta, data, stats, crc FROM search").fetchall()
    return {key: tuple(rest) for key, *rest in rows}


def ranked_only(search: SearchIndex, before: dict[str, str], part: str) -> None:
    """``search`` ranked the ``part`` whose cards changed; any other part it ranked has the very
    cards it had (``before``: each part's key → its context), ranked again only because what is
    too common to count across games moved (here: 114 cards, then 115, so "too common" went
    from 22 cards to 23; one game has a word in 23); every other part was read as kept."""
    assert part in search.built
    records = {r.key: r.context for r in search.records()}
    for game, keys in search.layout().items():
        for key in keys:
            if key in before and game in search.built:
                assert before[key] != records[key], game  # its cards as they were: its context moved
    assert {g for g in search.built if g != part} <= {g for g, keys in search.layout().items()
                                                       if any(k in before for k in keys)}


def load_reporting(cardmap: Path) -> tuple[Catalog, bool, list[str]]:
    """``load`` with the users' overlay, and the games it said it was rebuilding (its progress)."""
    built: list[str] = []
    catalog, rebuilt = index.load(cardmap, overlay=overlay_dir(),
                                  progress=lambda done, total, game: built.append(game))
    return catalog, rebuilt, built


def test_a_card_added_to_one_game_rebuilds_that_game_only(games: Path) -> None:
    first, rebuilt, built = load_reporting(games)
    assert rebuilt and built == ["ascension", "astral", GAME]
    assert index.read_search(first) is not None  # a first build keeps the search's index too
    add_card(first.games[GAME], {"name": "Golem de verre", "type": "artifact", "text": "Un golem."},
             known_ids(first.cards[GAME]))
    again, rebuilt, built = load_reporting(games)
    assert rebuilt and built == [GAME]
    assert again.cards[GAME]["golem-de-verre"].name == "Golem de verre"
    assert {g: c for g, c in again.cards.items() if g != GAME} == {g: c for g, c in first.cards.items() if g != GAME}
    assert list(again.games) == list(first.games) and list(again.cards) == list(first.cards)
    warm, rebuilt, built = load_reporting(games)
    assert not rebuilt and built == [] and warm.cards == again.cards and warm.games == again.games
    # The search is kept in parts: the first search since the change ranks the user's own cards
    # of that game (a part of their own), reads every other part as kept, and keeps the new one.
    assert index.read_search(warm) is None
    parts = search_rows()
    before = {key: context for key, (context, *_) in parts.items()}
    search = index.search_index(warm)
    ranked_only(search, before, f"{GAME} (own)")
    hits = search.search("golem de verre")
    assert hits[0].card.ref == f"{GAME}:golem-de-verre"
    stored = index.read_search(warm)
    assert stored is not None and len(stored) == 4  # three games, and the user's own cards of one
    kept = {key for key, (context, *_) in parts.items() if key not in {r.key for r in search.new_records()}}
    assert kept and {k: parts[k] for k in kept}.items() <= search_rows().items()  # untouched rows
    again = index.search_index(warm)
    assert again.built == ()
    assert [(h.card.ref, h.score) for h in again.search("golem de verre")] == [(h.card.ref, h.score) for h in hits]
    assert [(h.card.ref, h.score) for h in CardLibrary(warm).search("golem de verre")] == [
        (h.card.ref, h.score) for h in hits]
    # The same card added to one index of all the cards: the same answers.
    whole = SearchIndex(index.all_cards(warm))
    for query in ("golem de verre", "golem", "dragon de feu", "verre", "golme"):
        assert ([(h.card.ref, h.score, h.where) for h in again.search(query)]
                == [(h.card.ref, h.score, h.where) for h in whole.search(query)]), query


def test_a_damaged_row_of_one_game_rebuilds_that_game_only(games: Path, caplog: pytest.LogCaptureFixture) -> None:
    built_first, _, _ = load_reporting(games)
    with sqlite3.connect(index.index_path()) as db:
        (blob,) = db.execute("SELECT bodies FROM cards WHERE game = 'astral'").fetchone()
        damaged = bytearray(blob)
        at = next(i for i in range(len(damaged) // 2, len(damaged)) if chr(damaged[i]).islower())
        damaged[at] ^= 0x20
        db.execute("UPDATE cards SET bodies = ? WHERE game = 'astral'", (bytes(damaged),))
    with caplog.at_level(logging.WARNING, logger="companion.cards.index"):
        again, rebuilt, built = load_reporting(games)
    assert rebuilt and built == ["astral"] and "rebuilding" in caplog.text
    assert again.cards == built_first.cards and again.games == built_first.games
    warm, rebuilt, built = load_reporting(games)
    assert not rebuilt and built == [] and warm.cards == built_first.cards


def test_a_game_removed_or_broken_leaves_the_others_stored(games: Path) -> None:
    first, _, _ = load_reporting(games)
    (games / "astral" / "game.yaml").write_text("id: [broken\n", encoding="utf-8")
    again, rebuilt, built = load_reporting(games)
    assert rebuilt and built == ["astral"] and "astral" in again.errors and "astral" not in again.games
    warm, rebuilt, built = load_reporting(games)
    assert not rebuilt and built == [] and warm.errors == again.errors
    shutil.rmtree(games / "astral")
    gone, rebuilt, built = load_reporting(games)
    assert not rebuilt and built == [] and list(gone.games) == ["ascension", GAME] and not gone.errors
    assert gone.cards == {g: c for g, c in first.cards.items() if g != "astral"}


def test_homes_without_cards_of_their_own_share_the_index(games: Path, tmp_path: Path) -> None:
    """Several homes may share one card index (``COMPANION_CACHE``): a home with no overlay file
    of a game takes that game's row as another such home stored it."""
    index.load(games, overlay=tmp_path / "one" / "cards")
    _, rebuilt = index.load(games, overlay=tmp_path / "other" / "cards")
    assert not rebuilt


def test_a_game_built_again_with_the_same_cards_keeps_the_search(games: Path) -> None:
    """A user's card file that cannot be read (here a FIFO) builds its game again with the very
    cards it had: the search's parts stored for them are kept, not computed again at the first
    search (seconds for a large game); a file that does change the cards ranks that part again."""
    first, _, _ = load_reporting(games)
    stored = index.read_search(first)
    assert stored is not None
    overlay = overlay_dir()
    overlay.mkdir(parents=True, exist_ok=True)
    os.mkfifo(overlay / "astral.yaml")
    again, rebuilt, built = load_reporting(games)
    assert rebuilt and built == ["astral"] and any("FIFO" in m for m in again.errors["astral"])
    assert again.cards == first.cards
    assert index.search_index(again).built == ()
    assert index.read_search(again) == stored
    name = next(iter(first.cards[GAME].values())).name
    assert [(h.card.ref, h.score) for h in CardLibrary(again).search(name)] == [
        (h.card.ref, h.score) for h in CardLibrary(first).search(name)]
    (overlay / "astral.yaml").unlink()
    add_card(first.games[GAME], {"name": "Golem de verre", "type": "artifact", "text": "Un golem."},
             known_ids(first.cards[GAME]))
    changed, rebuilt, built = load_reporting(games)
    assert rebuilt and set(built) == {"astral", GAME}
    assert index.read_search(changed) is None  # other cards: the first search ranks their part
    ranked_only(index.search_index(changed), {key: context for key, context in stored}, f"{GAME} (own)")
    assert index.read_search(changed) is not None


@pytest.mark.parametrize("damage", ["a byte", "numbers of another order", "numbers of another size"])
def test_a_damaged_search_part_is_ranked_again_with_a_warning(games: Path, damage: str,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    """A search part whose bytes are not what was written (its CRC), or whose arrays are of
    another byte order or item size than this machine reads (their record says so), is never
    used: that game's part is ranked again, with a warning, the same hits found, the other
    games' parts read as kept."""
    first, _, _ = load_reporting(games)
    search = index.search_index(first)
    queries = ["golem", "dragon de feu", "alchimiste", "dragn"]
    hits = [[(h.card.ref, h.score, h.where) for h in search.search(q)] for q in queries]
    (key,) = search.layout()["astral"]
    with sqlite3.connect(index.index_path()) as db:
        meta, data, stats = db.execute("SELECT meta, data, stats FROM search WHERE key = ?", (key,)).fetchone()
        if damage == "a byte":
            data = data[:100] + bytes([data[100] ^ 0x20]) + data[101:]
            crc = db.execute("SELECT crc FROM search WHERE key = ?", (key,)).fetchone()[0]
        else:  # written so by another program: its CRC holds
            head = json.loads(meta)
            if damage == "numbers of another order":
                head["order"] = "big"
            else:
                head["segments"]["docs"][1] *= 2
            meta = json.dumps(head).encode()
            context = db.execute("SELECT context FROM search WHERE key = ?", (key,)).fetchone()[0]
            crc = index._crc((key, context, meta, data, stats))
        db.execute("UPDATE search SET meta = ?, data = ?, crc = ? WHERE key = ?", (meta, data, crc, key))
    with caplog.at_level(logging.WARNING):
        again = index.search_index(first)
    assert again.built == ("astral",)
    assert "rebuilding" in caplog.text or "ranking it again" in caplog.text
    assert [[(h.card.ref, h.score, h.where) for h in again.search(q)] for q in queries] == hits
    assert index.search_index(first).built == ()  # kept again, whole


def test_a_warm_start_makes_a_game_s_cards_when_first_asked(games: Path) -> None:
    """A warm start reads and checks every game's row and makes no card: the first question
    about a game's cards makes them, whichever it is, and they are the very mapping its files
    give (the same ids in the same order, equal cards); how many there are is known before. A
    game without cards too."""
    shutil.copytree(Path(__file__).parents[2] / "cardmap" / "rise", games / "rise")
    files = build(games, overlay=overlay_dir()).cards  # dicts of cards made from the files
    assert files["rise"] == {} and len(files[GAME]) > 1
    index.load(games, overlay=overlay_dir())

    def warm() -> dict[str, Mapping[str, Card]]:
        catalog, rebuilt = index.load(games, overlay=overlay_dir())
        assert not rebuilt
        return catalog.cards

    cards = warm()
    assert list(cards) == list(files)
    assert {g: len(c) for g, c in cards.items()} == {g: len(c) for g, c in files.items()}
    assert all(isinstance(c, index.StoredCards) and not c.made for c in cards.values())  # counted, not made
    some = next(iter(files[GAME]))
    for ask in (list, len, dict, lambda c: some in c, lambda c: c[some], lambda c: c.get(some),
                lambda c: list(c.keys()), lambda c: list(c.values()), lambda c: list(c.items()),
                lambda c: c == files[GAME]):
        stored = warm()[GAME]
        ask(stored)
        assert stored.made == (ask is not len)
    cards = warm()
    for game, built in files.items():
        stored = cards[game]
        assert list(stored) == list(built) and list(stored.values()) == list(built.values())
        assert stored == built and built == stored and not stored != built and dict(stored) == built
        assert list(stored.items()) == list(built.items()) and len(stored) == len(built)
        assert [repr(c) for c in stored.values()] == [repr(c) for c in built.values()]
    stored = cards[GAME]
    assert stored.get("no-such-card") is None and "no-such-card" not in stored and stored != {}
    with pytest.raises(KeyError):
        stored["no-such-card"]  # noqa: B018
    assert CardLibrary(index.load(games, overlay=overlay_dir())[0]).get(f"{GAME}:{some}") == files[GAME][some]


def test_a_row_that_cannot_be_made_into_cards_is_built_from_its_files(games: Path,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    """A row whose CRC holds but whose cards cannot be made (written by a program of the same
    index format with another idea of it) is never trusted: when its cards are first asked, its
    game is built from its files, with a warning, and its row dropped: the next start builds it
    again and keeps it."""
    first, _, _ = load_reporting(games)
    expected = dict(first.cards["astral"])
    with sqlite3.connect(index.index_path()) as db:
        row = db.execute("SELECT key, lang, info, errors, count, data, bodies FROM cards"
                         " WHERE game = 'astral'").fetchone()
        data = json.loads(row[5])
        data["n"] += 1  # one card more than its columns hold
        wrong = json.dumps(data).encode()
        db.execute("UPDATE cards SET data = ?, crc = ? WHERE game = 'astral'",
                   (wrong, index._crc((*row[:5], wrong, row[6]))))
    db.close()
    again, rebuilt, built = load_reporting(games)
    assert not rebuilt and built == []  # the row is what was written: read, its cards not made yet
    with caplog.at_level(logging.WARNING, logger="companion.cards.index"):
        assert again.cards["astral"] == expected
    assert "cannot be made" in caplog.text
    fixed, rebuilt, built = load_reporting(games)
    assert rebuilt and built == ["astral"] and fixed.cards == first.cards
    warm, rebuilt, built = load_reporting(games)
    assert not rebuilt and built == [] and warm.cards == first.cards
