"""Cards scanned one by one are checked as they are: the same counts and rules as their list,
and a card the library does not hold (the demo's made-up cards of a game with no public list)
still counts. The demo deck of the screenshots said "Total : 0" under five cards listed."""

from __future__ import annotations

from companion.cards.decks import check, check_cards
from companion.cards.model import Card


def test_scanned_cards_count_as_their_list_does(card_library) -> None:
    cards = card_library.cards("ascension")[:3]
    scanned = [(cards[0], 2), (cards[1], 1), (cards[2], 3), (cards[0], 1)]
    listed = check("ascension", "\n".join(f"{n} {c.ref}" for c, n in scanned), card_library)
    assert listed.counts["total"] == 7 and not listed.unreadable
    got = check_cards("ascension", scanned, card_library)
    assert (got.counts, got.problems, got.cards) == (listed.counts, listed.problems, listed.cards)


def test_a_card_the_library_does_not_hold_still_counts(card_library) -> None:
    made_up = [Card(game="rise", id="demo-gardienne", name="Gardienne des cendres", types=("Créature",), lang="fr"),
               Card(game="rise", id="demo-appel", name="Appel du vent", types=("Incantation",), lang="fr")]
    assert all(card_library.get(c.ref) is None for c in made_up)
    report = check_cards("rise", [(made_up[0], 3), (made_up[1], 2)], card_library)
    assert report.counts["total"] == 5
    assert report.problems == ["5 cartes, le paquet doit en compter 50"]
