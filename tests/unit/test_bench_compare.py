"""``bench compare`` times both searches alike and says ok only by its rule; our search finds every
typed card first (the timings themselves are `bench`'s business, not a test's)."""

import pytest

from companion import registry
from companion.benchmarks import TYPO_QUERIES

# krcg's comparison is the code of the game whose cards krcg reads, reached through the registry.
compare = registry.code("vtes", "compare")


@pytest.fixture(scope="module")
def sides(card_library):
    found = compare._krcg_game()
    assert found is not None
    game, adapter = found
    return card_library, compare._Krcg(adapter), game


def test_both_sides_timed_on_the_same_queries_as_often(sides) -> None:
    library, krcg, game = sides
    result = compare.compare_search(library, krcg, ["majesty", "ansn", "govern the unaligned"], rounds=3, game=game)
    assert result["queries"] == 3 and result["samples"] == 9
    for side in ("ours", "krcg_search_text", "krcg_complete"):
        assert result[f"{side}_cpu_p50_ms"] >= 0 and result[f"{side}_wall_p50_ms"] >= 0


def test_every_typed_card_found_first_by_ours(sides) -> None:
    library, krcg, game = sides
    found = compare.found_typos(library, krcg, game)
    assert found["typed"] == found["ours_first_hit"] == len(TYPO_QUERIES)
    if krcg.major < 5:  # krcg 4's text search is by prefix: a typo finds nothing
        assert found["krcg_found"] == 0


def test_ok_only_when_our_median_is_at_most_krcgs_and_every_typo_is_found() -> None:
    typos = {"typed": 8, "ours_first_hit": 8, "krcg_found": 0}
    assert compare.verdict({"ours_cpu_p50_ms": 0.03, "krcg_search_text_cpu_p50_ms": 0.03}, typos)
    assert not compare.verdict({"ours_cpu_p50_ms": 0.031, "krcg_search_text_cpu_p50_ms": 0.03}, typos)
    assert not compare.verdict({"ours_cpu_p50_ms": 0.01, "krcg_search_text_cpu_p50_ms": 0.03},
                               {**typos, "ours_first_hit": 7})
