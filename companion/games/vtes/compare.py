"""``bench compare``: the project and krcg side by side, in one process, on the same card work.

Three kinds of work, each timed in turns (one of ours, then krcg's, query after query) so that
whatever else the machine is doing falls on both alike:

- search by a card's name (or part of it, or a text word): ours against krcg's
  ``VTES.search(text=)`` (prefix search over names and texts) and its name completion;
- search with a typo: the same, and how many of the typed cards each one finds at all;
- loading the cards: our warm start (the compiled index) against krcg loading its own lists.

The ratios are ours / krcg's: below 1, ours is faster. The budget (DESIGN.md): our search median
at most krcg's text search median.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from companion.benchmarks import NAME_QUERIES, TYPO_QUERIES


class _Krcg:
    """krcg's own search and load, for either krcg line (4: ``krcg.vtes.VTES``; 5: a
    ``CardDict`` from ``krcg.collections``)."""

    def __init__(self, adapter: Any) -> None:
        self.version = adapter.krcg_version()
        self.major = adapter.krcg_major()
        self._backend = adapter.backend()
        self.cards = self.load()

    def load(self) -> Any:
        return self._backend.load(None)  # krcg's bundled lists, read by krcg's own loader

    def text(self, query: str) -> set[Any]:
        if self.major >= 5:
            return set(self.cards.search(name=[query], n=None)) | set(self.cards.search(card_text=[query], n=None))
        return self.cards.search(text=query)

    def complete(self, query: str) -> list[Any]:
        return self.cards.complete(query)

    def ids(self, found: set[Any]) -> set[str]:
        return {str(card.id) for card in found}


def _ms(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def _median(samples: list[float]) -> float:
    return round(statistics.median(samples), 4)


def _ratio(ours: float, theirs: float) -> float | None:
    return round(ours / theirs, 2) if theirs > 0 else None


def compare_search(library: Any, krcg: _Krcg, queries: list[str], rounds: int, game: str) -> dict[str, Any]:
    ours: list[float] = []
    text: list[float] = []
    complete: list[float] = []
    for _ in range(rounds):
        for q in queries:
            ours.append(_ms(lambda q=q: library.search(q, game=game)))
            text.append(_ms(lambda q=q: krcg.text(q)))
            complete.append(_ms(lambda q=q: krcg.complete(q)))
    o, t, c = _median(ours), _median(text), _median(complete)
    return {"queries": len(queries), "samples": len(ours), "ours_p50_ms": o, "krcg_search_text_p50_ms": t,
            "krcg_complete_p50_ms": c, "ratio_to_search_text": _ratio(o, t), "ratio_to_complete": _ratio(o, c)}


def found_typos(library: Any, krcg: _Krcg, game: str) -> dict[str, Any]:
    """How many typed cards each search finds: ours as its first hit, krcg's anywhere in what
    it returns (its search has no ranking)."""
    ours = theirs = 0
    for typo, right in TYPO_QUERIES.items():
        wanted = library.search(right, game=game, limit=1)
        if not wanted:
            continue
        ref = wanted[0].card.ref
        hits = library.search(typo, game=game, limit=1)
        ours += bool(hits) and hits[0].card.ref == ref
        theirs += ref.split(":", 1)[1] in krcg.ids(krcg.text(typo))
    return {"typed": len(TYPO_QUERIES), "ours_first_hit": ours, "krcg_found": theirs}


def compare_load(krcg: _Krcg, runs: int, krcg_runs: int) -> dict[str, Any]:
    from companion.cards import index

    index.load()  # the index exists, as after a first start
    ours = [_ms(index.load) for _ in range(runs)]
    theirs = [_ms(krcg.load) for _ in range(krcg_runs)]
    o, t = _median(ours), _median(theirs)
    return {"ours_warm_p50_ms": o, "krcg_load_p50_ms": t, "ratio": _ratio(o, t), "runs": [runs, krcg_runs]}


def _krcg_game() -> tuple[str, Any] | None:
    """The game whose cards come from krcg, and its adapter module (through the registry)."""
    from companion import registry

    for game_id in registry.builtin_ids():
        source = registry.hook(game_id, "card_source")
        if source is not None and source.name() == "krcg":
            return game_id, registry.code(game_id, "cards")
    return None


def bench_compare(rounds: int = 20, load_runs: int = 10, krcg_load_runs: int = 3) -> dict[str, Any]:
    from companion.cards.library import CardLibrary

    found = _krcg_game()
    if found is None:
        return {"ok": False, "error": "no game reads its cards with krcg"}
    game, adapter = found
    library = CardLibrary()
    if not library.load(game):
        return {"ok": False, "error": f"no {game} cards: {library.errors().get(game)}"}
    krcg = _Krcg(adapter)
    library.search("warm up", game=game)  # both build their search structures first
    krcg.text("warm up")
    krcg.complete("warm up")
    by_name = compare_search(library, krcg, NAME_QUERIES, rounds, game)
    with_typo = compare_search(library, krcg, list(TYPO_QUERIES), rounds, game)
    every = compare_search(library, krcg, NAME_QUERIES + list(TYPO_QUERIES), rounds, game)
    load = compare_load(krcg, load_runs, krcg_load_runs)
    ok = every["ours_p50_ms"] <= every["krcg_search_text_p50_ms"]
    return {
        "ok": ok,
        "krcg": krcg.version,
        "game": game,
        "cards": len(library.load(game)),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "search_by_name": by_name,
        "search_with_typo": {**with_typo, **found_typos(library, krcg, game)},
        "search_all": every,
        "load": load,
        "budget": "our search median at most krcg's VTES.search(text=) median (search_all)",
    }
