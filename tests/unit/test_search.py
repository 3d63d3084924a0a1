"""Search finds cards by misspelled, accent-less and English names; filters narrow it."""

import json
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
from companion.cards.search import DocIndex, SearchIndex, card_doc, max_edits, normalize
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
    the name words a scan of the whole vocabulary with rapidfuzz finds within the allowed edits."""
    words = index._index._name_words
    rnd = random.Random(25)
    queries = [_typo(rnd, w) for w in rnd.sample([w for w in words if len(w) >= 4], 400)]
    queries += rnd.sample(words, 300) + rnd.sample(sorted(index._index._tokens), 300)  # the cards' words and starts
    for query in queries + ["deflektoin", "govrn", "unalligned", "ansn"]:
        edits = max_edits(query)
        scan = {w for w, dist, _ in process.extract(query, words, scorer=OSA.distance, score_cutoff=edits,
                                                      limit=None) if dist} if edits else set()
        found = {w for near in index._index._near(query, edits) for w in near} if edits else set()
        assert found == scan, query


def test_ranked_words_answer_as_scoring_each_query(index: SearchIndex) -> None:
    """The card index ranks every word and word start of the cards when it is built; what it
    answers is what the same index scoring each query (as the rules' index does) answers, for
    one word, several words and typos, with or without a filter, whatever the count asked."""
    ranked = index._index
    scored = DocIndex([card_doc(c) for c in index._cards])
    rnd = random.Random(11)
    tokens = sorted(ranked._tokens)
    queries = rnd.sample(tokens, 400) + [" ".join(rnd.sample(tokens, 2)) for _ in range(100)]
    queries += [_typo(rnd, t) for t in rnd.sample(tokens, 200)]
    vtes = index._by_game["vtes"]
    for query in map(normalize, queries):
        for allowed in (None, vtes, frozenset(range(0, len(index._cards), 3))):
            for limit in (3, 20):
                assert ([(h.card.ref, h.score, h.where) for h in ranked.search_normalized(query, limit, allowed)]
                        == [(h.card.ref, h.score, h.where) for h in scored.search_normalized(query, limit, allowed)]
                        ), (query, limit)


def test_a_game_filter_whatever_the_order_of_the_cards(index: SearchIndex) -> None:
    """A game's cards listed together are filtered as a range, otherwise as a set: same hits."""
    by_name = SearchIndex(sorted(index._cards, key=lambda c: c.name))
    assert isinstance(index._by_game["vtes"], range) and isinstance(by_name._by_game["vtes"], frozenset)
    for query in ("govrn the unalligned", "dragon", "majesty", "bleed", "fire dragon"):
        for game in ("vtes", "res-arcana"):
            mixed, listed = by_name.search(query, game=game, limit=5000), index.search(query, game=game, limit=5000)
            assert {(h.card.ref, h.score) for h in mixed} == {(h.card.ref, h.score) for h in listed}, (query, game)
            assert all(h.card.game == game for h in mixed)


def test_state_from_the_cache_searches_the_same(index: SearchIndex) -> None:
    cards = index._cards
    restored = SearchIndex(cards, state=json.loads(json.dumps(index.state())))
    rnd = random.Random(5)
    queries = ["govrn the unalligned", "deflektoin", "dragon de feu", "Fire Dragon", "majesty", "bleed",
               "the rack", "sebastien goulet", "qqqqzzzz"]
    queries += [_typo(rnd, c.name) for c in rnd.sample(cards, 50)]
    for query in queries:
        for filters in ({}, {"game": "vtes"}, {"game": "vtes", "type": "vampire"}, {"cost": 1}):
            assert ([(h.card.ref, h.score, h.where) for h in restored.search(query, **filters)]
                    == [(h.card.ref, h.score, h.where) for h in index.search(query, **filters)]), (query, filters)


def test_no_cards_no_hits_and_a_state_all_the_same() -> None:
    empty = SearchIndex([])
    again = SearchIndex([], state=json.loads(json.dumps(empty.state())))
    assert empty.search("majesty") == again.search("majesty") == again.search("majesti", game="vtes") == []


def test_state_for_other_cards_is_refused(index: SearchIndex) -> None:
    state = index.state()
    with pytest.raises(ValueError):
        SearchIndex(index._cards[1:], state=state)


def test_the_card_index_keeps_the_search_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The search's words and typo forms are built with the card index and read back by the
    first search of a warm start; a damaged copy is computed again, with the same hits."""
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))
    # A copy of the session's index: the search state damaged below is not the one the other
    # tests (and other workers' programs) read.
    monkeypatch.setenv("COMPANION_CACHE", str(warm_index(tmp_path / "home", tmp_path / "cache")))
    card_index.load()
    warm, rebuilt = card_index.load()
    assert not rebuilt
    state = card_index.read_search(warm)
    assert state is not None and state["refs"] == [c.ref for c in card_index.all_cards(warm)]
    stored = CardLibrary(warm)
    hits = [(h.card.ref, h.score) for h in stored.search("govrn the unalligned", game="vtes")]
    assert hits[0][0] == "vtes:100845"
    assert card_index.read_search(Catalog()) is None  # a catalog that did not come from the index
    with sqlite3.connect(card_index.index_path()) as db:
        db.execute("UPDATE search SET data = ?", (json.dumps({"format": 1, "refs": ["vtes:1"]}),))
    damaged = CardLibrary(warm)
    assert [(h.card.ref, h.score) for h in damaged.search("govrn the unalligned", game="vtes")] == hits


def test_a_stored_state_builds_no_typo_forms(index: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm start reads the typo forms with the rest of the state (building them was a third
    of a console's start); the restored index finds the same typos."""
    state = json.loads(json.dumps(index.state()))

    def built(*_: object) -> None:
        raise AssertionError("the typo forms were built again from a stored state")

    monkeypatch.setattr(search_module._TypoForms, "build", built)
    restored = SearchIndex(index._cards, state=state)
    for query in ("deflektoin", "govrn the unalligned", "ansn", "majesti", "unalligned"):
        assert ([(h.card.ref, h.score) for h in restored.search(query, game="vtes")]
                == [(h.card.ref, h.score) for h in index.search(query, game="vtes")]), query


def test_typo_forms_of_another_python_are_built_again(index: SearchIndex) -> None:
    """The typo forms are kept as hashes; a state written by a Python that hashes otherwise (its
    check does not match) has them built again here, never trusted: the same typos found."""
    state = json.loads(json.dumps(index.state()))
    state["index"]["typos"]["check"] += 1
    restored = SearchIndex(index._cards, state=state)
    for query in ("deflektoin", "govrn the unalligned", "ansn"):
        assert ([(h.card.ref, h.score) for h in restored.search(query, game="vtes")]
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
