"""Search finds cards by misspelled, accent-less and English names; filters narrow it."""

import json
import logging
import os
import random
import sqlite3
import string
import subprocess
import sys
from pathlib import Path

import pytest
from rapidfuzz import process
from rapidfuzz.distance import OSA

from companion.cards import catalog
from companion.cards import index as card_index
from companion.cards import search as search_module
from companion.cards.catalog import Catalog
from companion.cards.library import CardLibrary
from companion.cards.model import Card
from companion.cards.search import DocIndex, PartRecord, SearchIndex, assemble, card_doc, max_edits, normalize
from tests.cards_index import warm_index

FIXTURE = Path(__file__).parents[1] / "fixtures" / "cardmap"


@pytest.fixture(scope="module")
def index(card_library: CardLibrary) -> SearchIndex:
    # krcg's VTES cards as the session's card index holds them (krcg read them once for the
    # session, not again here), and a fixture game's.
    fixture = catalog.build(FIXTURE, overlay=FIXTURE / "none", with_sources=False)
    cards = card_library.cards("vtes") + list(fixture.cards["res-arcana"].values())
    assert len(cards) > 4000
    return SearchIndex(cards)


def restored(index: SearchIndex, cards: list[Card] | None = None,
             records: list[PartRecord] | None = None) -> SearchIndex:
    """``index`` as a later start makes it from the records the card index keeps (bytes)."""
    records = index.records() if records is None else records
    kept = {r.key: PartRecord(*(bytes(f) if isinstance(f, bytes) else f for f in r)) for r in records}
    return assemble(index._cards if cards is None else cards, kept, index.layout(),
                    [[r.key, r.context] for r in index.records()])


def first(index: SearchIndex, query: str, **kw) -> str:
    hits = index.search(query, **kw)
    assert hits, f"nothing found for {query!r}"
    return hits[0].card.ref


def test_normalize() -> None:
    assert normalize("Sérénité, l'Œil!") == "serenite l oeil"


@pytest.mark.parametrize("query", [
    "Govern the Unaligned", "govern the unaligned", "govrn the unalligned", "GOVERN", "gouvern unaligned",
])
def test_exact_misspelled_and_prefix(index: SearchIndex, query: str) -> None:
    assert first(index, query, game="vtes") == "vtes:100845"


def test_two_edits_but_not_three(index: SearchIndex) -> None:
    assert first(index, "deflektoin", game="vtes") == "vtes:100518"  # two edits
    assert all(h.card.ref != "vtes:100518" for h in index.search("dxflxktoin", game="vtes"))


def test_accentless_and_english_names(index: SearchIndex) -> None:
    assert first(index, "dragon de feu") == "res-arcana:dragon-de-feu"
    assert first(index, "Fire Dragon") == "res-arcana:dragon-de-feu"
    assert first(index, "sebastien goulet", game="vtes").startswith("vtes:")
    assert "Sébastien" in index.search("sebastien goulet", game="vtes")[0].card.name


def test_text_match_ranks_below_name_match(index: SearchIndex) -> None:
    hits = index.search("majesty", game="vtes", limit=5)
    assert hits[0].card.name == "Majesty" and hits[0].where == "name"


def test_filters(index: SearchIndex) -> None:
    hits = index.search("", game="vtes", clan="Toreador", type="vampire", limit=500)
    assert hits and all("Toreador" in h.card.extra["clans"] for h in hits)
    assert all(h.card.game == "res-arcana" for h in index.search("dragon", game="res-arcana"))
    costed = index.search("govern", game="vtes", cost=1)
    assert costed and costed[0].card.ref == "vtes:100845"
    assert not index.search("govern the unaligned", game="vtes", cost=3)


def test_nonsense_finds_nothing(index: SearchIndex) -> None:
    assert index.search("qqqqzzzz") == []
    assert index.search("   ") == []


def _typo(rnd: random.Random, word: str) -> str:
    chars = list(word)
    for _ in range(rnd.choice((1, 2, 2, 3))):
        i = rnd.randrange(len(chars))
        op = rnd.choice("dist")
        if op == "d" and len(chars) > 1:
            del chars[i]
        elif op == "i":
            chars.insert(i, rnd.choice(string.ascii_lowercase))
        elif op == "s":
            chars[i] = rnd.choice(string.ascii_lowercase)
        elif i + 1 < len(chars):
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
    return "".join(chars)


def test_deletion_index_finds_what_a_full_scan_finds(index: SearchIndex) -> None:
    """The typo candidates come from a few lookups in the deletion index; they must be exactly
    the name words a scan of the whole vocabulary with rapidfuzz finds within the allowed edits
    (each part's vocabulary: each game's index has its own deletion index)."""
    parts = [part.index for part in index._parts]
    words = sorted({w for part in parts for w in part._name_words})
    tokens = sorted({t for part in parts for t in part._tokens})
    rnd = random.Random(25)
    queries = [_typo(rnd, w) for w in rnd.sample([w for w in words if len(w) >= 4], 400)]
    queries += rnd.sample(words, 300) + rnd.sample(tokens, 300)  # the cards' words and starts
    for part in parts:
        own = part._name_words
        for query in queries + ["deflektoin", "govrn", "unalligned", "ansn"]:
            edits = max_edits(query)
            scan = {w for w, dist, _ in process.extract(query, own, scorer=OSA.distance, score_cutoff=edits,
                                                          limit=None) if dist} if edits else set()
            found = {w for near in part._near(query, edits) for w in near} if edits else set()
            assert found == scan, query


def test_ranked_words_answer_as_scoring_each_query(index: SearchIndex) -> None:
    """The card search ranks every word and word start of each game's cards when it is built,
    each game apart; what it answers, merging the games' hits, is what one index of all the cards
    scoring each query (as the rules' index does) answers, for one word, several words and
    typos, with or without a filter, whatever the count asked."""
    scored = DocIndex([card_doc(c) for c in index._cards])
    rnd = random.Random(11)
    tokens = sorted({t for part in index._parts for t in part.index._tokens})
    queries = rnd.sample(tokens, 400) + [" ".join(rnd.sample(tokens, 2)) for _ in range(100)]
    queries += [_typo(rnd, t) for t in rnd.sample(tokens, 200)]
    # The same filter objects for every query (the search keeps each part's share of the last few)
    filters = (None, index._by_game["vtes"], frozenset(range(0, len(index._cards), 3)))
    for query in map(normalize, queries):
        for allowed in filters:
            for limit in (3, 20):
                assert ([(h.card.ref, h.score, h.where) for h in index._search_normalized(query, limit, allowed)]
                        == [(h.card.ref, h.score, h.where) for h in scored.search_normalized(query, limit, allowed)]
                        ), (query, limit)


def test_a_game_filter_whatever_the_order_of_the_cards(index: SearchIndex) -> None:
    """A game's cards listed together are filtered as a range, otherwise as a set: same hits."""
    # The games' cards interleaved, each game's in its own order: each game's part is the same as
    # the fixture's, read back from its record (not ranked again), only its places differ.
    own: dict[str, list[Card]] = {}
    for card in index._cards:
        own.setdefault(card.game, []).append(card)
    spread = {card.ref: (n + 0.5) / len(mine) for mine in own.values() for n, card in enumerate(mine)}
    cards = sorted(index._cards, key=lambda c: spread[c.ref])
    interleaved = restored(index, cards)
    assert interleaved.built == () and [c.ref for c in interleaved._cards] != [c.ref for c in index._cards]
    assert isinstance(index._by_game["vtes"], range) and isinstance(interleaved._by_game["vtes"], frozenset)
    assert isinstance(index._by_game["res-arcana"], range) and isinstance(interleaved._by_game["res-arcana"], frozenset)
    for query in ("govrn the unalligned", "dragon", "majesty", "bleed", "fire dragon", ""):
        for game in ("vtes", "res-arcana"):
            mixed, listed = interleaved.search(query, game=game, limit=5000), index.search(query, game=game, limit=5000)
            assert {(h.card.ref, h.score) for h in mixed} == {(h.card.ref, h.score) for h in listed}, (query, game)
            assert all(h.card.game == game for h in mixed)


def test_state_from_the_cache_searches_the_same(index: SearchIndex) -> None:
    cards = index._cards
    again = restored(index)
    assert again.built == ()  # every part read back, none ranked
    rnd = random.Random(5)
    queries = ["govrn the unalligned", "deflektoin", "dragon de feu", "Fire Dragon", "majesty", "bleed",
               "the rack", "sebastien goulet", "qqqqzzzz"]
    queries += [_typo(rnd, c.name) for c in rnd.sample(cards, 50)]
    for query in queries:
        for filters in ({}, {"game": "vtes"}, {"game": "vtes", "type": "vampire"}, {"cost": 1}):
            assert ([(h.card.ref, h.score, h.where) for h in again.search(query, **filters)]
                    == [(h.card.ref, h.score, h.where) for h in index.search(query, **filters)]), (query, filters)


def test_no_cards_no_hits_and_a_state_all_the_same() -> None:
    empty = SearchIndex([])
    again = restored(empty)
    assert empty.records() == again.records() == []
    assert empty.search("majesty") == again.search("majesty") == again.search("majesti", game="vtes") == []


def test_state_for_other_cards_is_refused(index: SearchIndex) -> None:
    """A part kept for other cards (here a game with one card fewer) is not used: that part is
    ranked again, the other games' parts are read as kept."""
    gone = index._cards[-1]
    assert gone.game == "res-arcana"
    fewer = restored(index, index._cards[:-1])
    assert fewer.built == ("res-arcana",)
    assert all(h.card.ref != gone.ref for h in fewer.search(gone.name, game="res-arcana", limit=500))
    assert first(fewer, "dragon de feu") == "res-arcana:dragon-de-feu"


def test_the_card_index_keeps_the_search_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               caplog: pytest.LogCaptureFixture) -> None:
    """The search's words and typo forms are built with the card index and read back by the
    first search of a warm start; a damaged part is computed again, with a warning and the same
    hits, the other games' parts read as kept."""
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))
    # A copy of the session's index: the search state damaged below is not the one the other
    # tests (and other workers' programs) read.
    monkeypatch.setenv("COMPANION_CACHE", str(warm_index(tmp_path / "home", tmp_path / "cache")))
    card_index.load()
    warm, rebuilt = card_index.load()
    assert not rebuilt
    state = card_index.read_search(warm)
    assert state is not None and len(state) == len([g for g, cards in warm.cards.items() if cards])
    stored = card_index.search_index(warm)
    assert stored.built == ()
    queries = [("govrn the unalligned", "vtes"), ("athanor", "res-arcana"), ("dragon", None)]
    hits = [[(h.card.ref, h.score) for h in stored.search(q, game=g)] for q, g in queries]
    assert hits[0][0][0] == "vtes:100845"
    assert card_index.read_search(Catalog()) is None  # a catalog that did not come from the index
    (key,) = stored.layout()["res-arcana"]
    with sqlite3.connect(card_index.index_path()) as db:
        (data,) = db.execute("SELECT data FROM search WHERE key = ?", (key,)).fetchone()
        db.execute("UPDATE search SET data = ? WHERE key = ?", (data[:-1] + bytes([data[-1] ^ 1]), key))
    with caplog.at_level(logging.WARNING):
        damaged = card_index.search_index(warm)
    assert damaged.built == ("res-arcana",) and "not what was written" in caplog.text
    assert [[(h.card.ref, h.score) for h in damaged.search(q, game=g)] for q, g in queries] == hits
    assert card_index.search_index(warm).built == ()  # kept again


def test_a_stored_state_builds_no_typo_forms(index: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm start reads the typo forms with the rest of the state (building them was a third
    of a console's start); the restored index finds the same typos."""
    records = index.records()

    def built(*_: object) -> None:
        raise AssertionError("the typo forms were built again from a stored state")

    monkeypatch.setattr(search_module._TypoForms, "build", built)
    again = restored(index, records=records)
    for query in ("deflektoin", "govrn the unalligned", "ansn", "majesti", "unalligned"):
        assert ([(h.card.ref, h.score) for h in again.search(query, game="vtes")]
                == [(h.card.ref, h.score) for h in index.search(query, game="vtes")]), query


def test_typo_forms_of_another_python_are_built_again(index: SearchIndex) -> None:
    """The typo forms are kept as hashes; a state written by a Python that hashes otherwise (its
    check does not match) has them built again here, never trusted: the same typos found."""
    records = []
    for record in index.records():
        meta = json.loads(record.meta)
        meta["index"]["check"] += 1
        records.append(record._replace(meta=json.dumps(meta).encode()))
    again = restored(index, records=records)
    assert again.built == ()
    for query in ("deflektoin", "govrn the unalligned", "ansn"):
        assert ([(h.card.ref, h.score) for h in again.search(query, game="vtes")]
                == [(h.card.ref, h.score) for h in index.search(query, game="vtes")]), query


def test_typo_keys_are_the_same_in_every_process() -> None:
    """The typo forms' keys are kept in the cache and read by other processes: they must not
    depend on the hash seed each process draws for its strings (PYTHONHASHSEED)."""
    code = ("from companion.cards import search; "
            "print(search._check_key(), sorted(search._deletions('deflection', 2)))")
    ours = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=FIXTURE.parents[2], env={**os.environ, "PYTHONHASHSEED": "1"}).stdout
    theirs = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=FIXTURE.parents[2], env={**os.environ, "PYTHONHASHSEED": "2"}).stdout
    assert ours == theirs == f"{search_module._check_key()} {sorted(search_module._deletions('deflection', 2))}\n"


def _card(game: str, i: int, name: str, text: str) -> Card:
    return Card(game=game, id=f"c{i}", name=name, text=text, types=("sort",), lang="en")


def _answers(index: SearchIndex, queries: list[str]) -> list[list[tuple[str, float, str]]]:
    return [[(h.card.ref, h.score, h.where) for h in index.search(q, limit=500)] for q in queries]


def test_a_word_too_common_across_games_ranks_the_games_that_have_it_again() -> None:
    """What is too common to count is the whole catalog's: when a card added to one game makes a
    word too common (or no longer), the other games whose texts have it are ranked again, and
    the search answers as one index of all the cards; a card that moves nothing of the kind
    ranks its own game's part only."""
    first = [_card("alpha", i, f"Golem {i}", f"zap bolt{i}" if i < 20 else f"rune{i}") for i in range(100)]
    second = [_card("beta", i, f"Drake {i}", "zap fire" if i < 2 else "ember") for i in range(10)]
    queries = ["zap", "zap golem", "fire zap", "bolt1 zap", "zapp drake", "golem 7", "ember"]
    before = SearchIndex(first + second)  # "zap" in 22 cards of 110: a fifth is 22, still counted
    assert _answers(before, queries) == [[(h.card.ref, h.score, h.where) for h in DocIndex(
        [card_doc(c) for c in first + second]).search(q, limit=500)] for q in queries]
    calm = [*second, _card("beta", 10, "Drake 10", "ember")]
    after = restored(before, first + calm)
    assert after.built == ("beta",)
    assert _answers(after, queries) == _answers(SearchIndex(first + calm), queries)
    hot = [*second, _card("beta", 10, "Drake 10", "zap")]  # 23 of 111: now too common
    after = restored(before, first + hot)
    assert after.built == ("alpha", "beta")
    assert _answers(after, queries) == _answers(SearchIndex(first + hot), queries)
    assert [h.where for h in after.search("zap", game="alpha", limit=500)] == []  # no longer counted in texts


def test_a_word_start_completes_the_first_words_of_all_the_games() -> None:
    """A query word of four letters or more completes the first 200 text words it starts, of all
    the games together: each game's part is ranked with where that list ends."""
    first = [_card("alpha", i, f"Golem {i}", f"spark{i:03d}a") for i in range(150)]
    second = [_card("beta", i, f"Drake {i}", f"spark{i:03d}b") for i in range(150)]
    cards = first + second
    merged = SearchIndex(cards)
    one = DocIndex([card_doc(c) for c in cards])
    for query in ("spark", "spark0", "spark1", "spark14", "spar golem", "spark drake 3"):
        for allowed in (None, merged._by_game["beta"]):
            assert ([(h.card.ref, h.score, h.where) for h in merged._search_normalized(query, 500, allowed)]
                    == [(h.card.ref, h.score, h.where) for h in one.search_normalized(query, 500, allowed)]), query
    assert len(merged.search("spark", limit=500)) == 200


def test_several_words_forgive_one_only_when_no_game_has_them_all() -> None:
    """A query of several words no card has all of forgives one word; the parts decide that
    together, as one index of all the cards did: a game with a card that has them all keeps the
    others' partial matches out."""
    first = [_card("alpha", 0, "Red Golem", "stone"), _card("alpha", 1, "Blue Golem", "water")]
    second = [_card("beta", 0, "Red Drake", "fire"), _card("beta", 1, "Red Golem Drake", "fire")]
    one = DocIndex([card_doc(c) for c in first + second])
    merged = SearchIndex(first + second)
    for query in ("red golem drake", "red golem", "blue drake", "stone fire", "golem fire zzz"):
        assert ([(h.card.ref, h.score, h.where) for h in merged.search(query)]
                == [(h.card.ref, h.score, h.where) for h in one.search(query)]), query
    assert [h.card.ref for h in merged.search("red golem drake")] == ["beta:c1"]
