"""Measurements of the performance budgets, reported as JSON by ``bench``: each result names its
budget and whether it holds (``ok``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

SEARCH_QUERIES = [
    "govern the unaligned", "govrn unaligned", "Govern", "anson", "ansn", "deflection", "deflektion",
    "majesty", "blod doll", "carna", "sebastien", "bleed", "torpor", "dominate", "tremere", "villein",
    "dreams sphinx", "conditioning", "fortitude", "ashur tablets", "rafael", "alexandra", "potence",
    "the rack", "zzzz",
]
# Typed wrong → what was meant (``bench compare`` counts which search finds the card).
TYPO_QUERIES = {
    "govrn unaligned": "govern the unaligned", "ansn": "anson", "deflektion": "deflection",
    "blod doll": "blood doll", "majesti": "majesty", "alexnadra": "alexandra", "condtioning": "conditioning",
    "villien": "villein",
}
NAME_QUERIES = [q for q in SEARCH_QUERIES if q not in TYPO_QUERIES]

# The design's budgets (DESIGN.md, "Budgets"), in milliseconds.
SEARCH_P50_MS = 1.0
WARM_LOAD_P50_MS = 50.0
COLD_INDEX_MS = 5000.0


def timings(fn: Callable[[], Any], runs: int) -> dict[str, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return summarize(samples)


def summarize(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 3),
        "max_ms": round(ordered[-1], 3),
    }


def bench_game() -> tuple[str, str, str]:
    """The game the benchmarks play (the first of the menu) and its first two seat counters."""
    from companion import registry
    from companion.table.data import load_table

    game = registry.ids()[0]
    first, second, *_ = [*load_table(game).counters, "", ""]
    return game, first, second


def bench_search(rounds: int = 20) -> dict[str, Any]:
    from companion.cards.library import CardLibrary

    library = CardLibrary()
    # The budget is stated for the largest card list (4,000+ cards).
    game = max(library.games, key=lambda g: len(library.cards(g)))
    library.search("warm up", game=game)  # builds the search structures once
    samples = []
    for _ in range(rounds):
        for q in SEARCH_QUERIES:
            start = time.perf_counter()
            library.search(q, game=game)
            samples.append((time.perf_counter() - start) * 1000)
    result = summarize(samples)
    result.update(game=game, cards=len(library.cards(game)), budget_p50_ms=SEARCH_P50_MS,
                  ok=result["p50_ms"] < SEARCH_P50_MS)
    return result


def bench_load(runs: int = 20) -> dict[str, Any]:
    """The card index built from the games' files (cold), then read back ``runs`` times (warm),
    each read kept until its clock stopped: a start keeps its catalog, it does not free one."""
    from companion.benchmarks import clocks
    from companion.cards import index

    before = clocks.machine()
    clock = clocks.Clock().start()
    catalog, _ = index.load(rebuild=True)
    cold = clocks.judge([clock.stop()], COLD_INDEX_MS, "p50_ms", before)
    samples = []
    for _ in range(runs):
        clock = clocks.Clock().start()
        loaded = index.load()
        samples.append(clock.stop())
        del loaded
    warm = clocks.judge(samples, WARM_LOAD_P50_MS, "p50_ms", before)
    return {
        "games": sorted(catalog.games),
        "cards": sum(len(c) for c in catalog.cards.values()),
        "cold": cold,
        "warm": warm,
        "ok": cold["ok"] and warm["ok"],
    }


def bench_compare() -> dict[str, Any]:
    """``bench compare``: our card search against the one of a game's card source, by that game's
    own code (its ``bench_compare`` hook, through the registry)."""
    from companion import registry

    for game in registry.builtin_ids():
        compare = registry.hook(game, "bench_compare")
        if compare is not None:
            return compare()
    return {"ok": False, "error": "no game's card source has a search of its own to compare with"}
