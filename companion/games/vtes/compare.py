"""``bench compare``: the project and krcg side by side, in one process, on the same card work.

Three kinds of work:

- search by a card's name (or part of it, or a text word): ours against krcg's text search
  (krcg 4: ``VTES.search(text=)``, prefix search over names and texts; krcg 5: its name and card
  text searches) and its name completion;
- search with a typo: the same, and how many of the typed cards each one finds at all;
- loading the cards: our warm start (the compiled index) against krcg loading its own lists.

Fair by construction: the same queries, each side warmed by a whole untimed round first, the
same count of results asked for where krcg takes a count (krcg 5's ``n``; krcg 4 returns every
match, unranked, where ours ranks and keeps the best ``LIMIT``), and turns: query after query,
ours then krcg's in even rounds, krcg's then ours in odd ones, so that whatever the machine
does, and the state each call leaves in the processor's caches, falls on both alike. Each call is
timed twice: processor time of this process (``time.process_time``: what the call cost, whatever
else runs on the machine) and wall time. The medians are of every call of every round.

The ratios are ours / krcg's: below 1, ours is faster. The budget (DESIGN.md): our search's
median processor time at most krcg's text search's, and ours finds every typed card first
(krcg's finds none).
"""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from companion.benchmarks import NAME_QUERIES, TYPO_QUERIES

LIMIT = 20  # results asked for: what the card screen shows


class _Krcg:
    """krcg's own search and load, for either krcg line (4: ``krcg.vtes.VTES``; 5: a
    ``CardDict`` from ``krcg.collections``)."""

    def __init__(self, adapter: Any) -> None:
        self.version = adapter.krcg_version()
        self.major = adapter.krcg_major()
        self._backend = adapter.backend()
        self.cards = self.load()

    def load(self) -> Any:
        cards = self._backend.load(None)  # krcg's bundled lists, read by krcg's own loader
        if self.major >= 5:
            cards.index()  # krcg 5's search tries, which its own loaders build and the companion skips
        return cards

    def text(self, query: str, limit: int | None = None) -> set[Any]:
        if self.major >= 5:
            return set(self.cards.search(name=[query], n=limit)) | set(self.cards.search(card_text=[query], n=limit))
        return self.cards.search(text=query)  # no count to ask for: every match

    def complete(self, query: str) -> list[Any]:
        return self.cards.complete(query)

    def ids(self, found: set[Any]) -> set[str]:
        return {str(card.id) for card in found}


def _timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """(processor ms, wall ms) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return cpu * 1000, wall * 1000


def _median(samples: list[float]) -> float:
    return round(statistics.median(samples), 4)


def _ratio(ours: float, theirs: float) -> float | None:
    return round(ours / theirs, 2) if theirs > 0 else None


def compare_search(library: Any, krcg: _Krcg, queries: list[str], rounds: int, game: str) -> dict[str, Any]:
    sides: dict[str, Callable[[str], Any]] = {
        "ours": lambda q: library.search(q, game=game, limit=LIMIT),
        "krcg_search_text": lambda q: krcg.text(q, LIMIT),
        "krcg_complete": krcg.complete,
    }
    for q in queries:  # warm: every structure either side builds or caches on first use
        for fn in sides.values():
            fn(q)
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    wall: dict[str, list[float]] = {name: [] for name in sides}
    turns = list(sides.items())
    for r in range(rounds):
        for q in queries:
            for name, fn in turns if r % 2 == 0 else turns[::-1]:
                c, w = _timed(lambda fn=fn, q=q: fn(q))
                cpu[name].append(c)
                wall[name].append(w)
    result: dict[str, Any] = {"queries": len(queries), "samples": len(cpu["ours"])}
    for name in sides:
        result[f"{name}_cpu_p50_ms"] = _median(cpu[name])
        result[f"{name}_wall_p50_ms"] = _median(wall[name])
    o = result["ours_cpu_p50_ms"]
    result["ratio_to_search_text"] = _ratio(o, result["krcg_search_text_cpu_p50_ms"])
    result["ratio_to_complete"] = _ratio(o, result["krcg_complete_cpu_p50_ms"])
    result["wall_ratio_to_search_text"] = _ratio(result["ours_wall_p50_ms"], result["krcg_search_text_wall_p50_ms"])
    return result


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


def verdict(every: dict[str, Any], typos: dict[str, Any]) -> bool:
    """The budget: our median processor time at most krcg's text search's, every typed card
    found first."""
    return (every["ours_cpu_p50_ms"] <= every["krcg_search_text_cpu_p50_ms"]
            and typos["ours_first_hit"] == typos["typed"])


def compare_load(krcg: _Krcg, runs: int, krcg_runs: int) -> dict[str, Any]:
    from companion.cards import index

    index.load()  # the index exists, as after a first start
    ours = [_timed(index.load)[0] for _ in range(runs)]
    theirs = [_timed(krcg.load)[0] for _ in range(krcg_runs)]
    o, t = _median(ours), _median(theirs)
    return {"ours_warm_cpu_p50_ms": o, "krcg_load_cpu_p50_ms": t, "ratio": _ratio(o, t), "runs": [runs, krcg_runs]}


def _krcg_game() -> tuple[str, Any] | None:
    """The game whose cards come from krcg, and its adapter module (through the registry)."""
    from companion import registry

    for game_id in registry.builtin_ids():
        source = registry.hook(game_id, "card_source")
        if source is not None and source.name() == "krcg":
            return game_id, registry.code(game_id, "cards")
    return None


def bench_compare(rounds: int = 30, load_runs: int = 10, krcg_load_runs: int = 3) -> dict[str, Any]:
    from companion.cards.library import CardLibrary

    found = _krcg_game()
    if found is None:
        return {"ok": False, "error": "no game reads its cards with krcg"}
    game, adapter = found
    library = CardLibrary()
    if not library.load(game):
        return {"ok": False, "error": f"no {game} cards: {library.errors().get(game)}"}
    krcg = _Krcg(adapter)
    gc.collect()  # what loading left behind is not collected during a timed call of either side
    by_name = compare_search(library, krcg, NAME_QUERIES, rounds, game)
    with_typo = compare_search(library, krcg, list(TYPO_QUERIES), rounds, game)
    every = compare_search(library, krcg, NAME_QUERIES + list(TYPO_QUERIES), rounds, game)
    typos = found_typos(library, krcg, game)
    load = compare_load(krcg, load_runs, krcg_load_runs)
    return {
        "ok": verdict(every, typos),
        "krcg": krcg.version,
        "game": game,
        "cards": len(library.load(game)),
        "limit": LIMIT,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "search_by_name": by_name,
        "search_with_typo": {**with_typo, **typos},
        "search_all": every,
        "load": load,
        "budget": "our search's median processor time at most krcg's text search's (search_all), "
                  "every typed card found first",
    }
