"""Search finds cards by misspelled, accent-less and English names; filters narrow it."""

from pathlib import Path

import pytest

from companion.cards import catalog
from companion.cards.search import SearchIndex, normalize
from companion.games.vtes import cards as vtes

FIXTURE = Path(__file__).parents[1] / "fixtures" / "cardmap"


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    fixture = catalog.build(FIXTURE, overlay=FIXTURE / "none", with_sources=False)
    cards = list(vtes.iter_cards()) + list(fixture.cards["res-arcana"].values())
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
