"""Property tests: random command sequences never break the invariants of any game.

- no counter outside its bounds (no negative pool, essences, coins...);
- Ascension's honor is conserved: pool + players' honor = start + honor counted beyond the pool;
- a refused command changes nothing, in memory or in the journal;
- replaying the journal gives the live state;
- undo N then redo N gives back the same state.
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.table.commands import ParseError, Parser
from companion.table.engine import Game
from companion.table.journal import Journal

SEATS = {"vtes": ["Ann", "Bob", "Cy", "Dee"], "ascension": ["Ann", "Bob", "Cy"], "res-arcana": ["Ann", "Bob", "Cy"],
         "rise": ["Ann", "Bob"], "astral": ["Ann", "Bob"]}

amount = st.integers(-12, 12).map(lambda n: f"{n:+d}")
seat = st.sampled_from(["1", "2", "3", "4", "Ann", "bo", ""])


def lines(templates: list[st.SearchStrategy[str]]) -> st.SearchStrategy[list[str]]:
    return st.lists(st.one_of(*templates), min_size=5, max_size=60)


def cmd(*parts: st.SearchStrategy[str] | str) -> st.SearchStrategy[str]:
    return st.tuples(*(p if isinstance(p, st.SearchStrategy) else st.just(p) for p in parts)).map(" ".join)


COMMON = [st.sampled_from(["next", "end", "undo", "redo", "toss", "dice 6", "status", "undo 3", "redo 2"])]
GAMES = {
    "vtes": COMMON + [cmd("pool", seat, amount), cmd("vp", seat, amount), cmd("edge", seat), cmd("oust", seat),
                      cmd("bleed", st.integers(1, 15).map(str)), cmd("withdraw", seat), cmd("transfers", amount),
                      cmd("vampire", seat, "Anson", st.integers(1, 9).map(str)), cmd("blood", seat, "Anson", amount)],
    "ascension": COMMON + [cmd("honor", seat, st.integers(-8, 25).map(lambda n: f"{n:+d}")), cmd("runes", amount),
                           cmd("power", seat, amount), cmd("energy", amount), cmd("cards", seat, amount),
                           cmd("pool", amount)],
    "res-arcana": COMMON + [cmd("essence", seat, st.sampled_from(["or", "vie", "mort", "serenite", "vigueur"]), amount),
                            cmd("vp", seat, amount), cmd("pass", seat), st.just("pass"),
                            cmd("lifeloss", seat, st.integers(1, 4).map(str), st.sampled_from(["", "or mort", "or"])),
                            cmd("put", seat, "Athanor", "vigueur", amount), cmd("take", seat, "athanor")],
    "rise": COMMON + [cmd("pv", seat, st.sampled_from(["a", "b"]), st.sampled_from(["=10", "-3", "-7", "+2"])),
                      cmd("coins", seat, amount), cmd("restore", st.sampled_from(["1", "2"]))],
    "astral": COMMON + [cmd("energy", seat, amount), cmd("max", seat, amount), cmd("stars", seat, amount),
                        cmd("pv", seat, st.sampled_from(["=5", "-1", "-2", "+1"])), st.just("summon 1"),
                        st.just("power"), cmd("empty", seat)],
}


def check_invariants(game: Game) -> None:
    s = game.state
    for i, st_seat in enumerate(s["seats"]):
        for cid, value in st_seat["counters"].items():
            lo, hi = game.rules.bounds(s, i, cid)
            if value is None:
                continue
            assert lo is None or value >= lo, (cid, value)
            if hi is not None and cid != "energy":
                assert value <= hi, (cid, value)
    for value in s["shared"].values():
        assert value >= 0
    if s["game"] == "ascension":
        honors = sum(x["counters"]["honor"] for x in s["seats"])
        assert s["shared"]["pool"] + honors == s["honor_start"] + s["shared"]["extra"]
    if s["game"] == "astral":
        for x in s["seats"]:
            assert 0 <= x["counters"]["max_energy"] <= 7


def play(game_id: str, commands: list[str], seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        journal = Journal(Path(tmp) / "j.sqlite3")
        game = Game.new(journal, game_id, SEATS[game_id], seed=seed)
        parser = Parser(game.data, [x["name"] for x in game.state["seats"]])
        for line in commands:
            try:
                intent = parser.parse(line)
            except ParseError:
                continue
            if intent is None:
                continue
            before = copy.deepcopy(game.state)
            last = game.last_event_id
            result = game.apply(intent)
            if not result.ok:
                assert game.state == before, line
                assert game.last_event_id == last
                assert result.reason_text()  # a reason is given
            check_invariants(game)
        assert len(journal.event_ids(game.id)) == len(journal.events(game.id))
        replayed = Game.open(journal, game.id)
        assert replayed.state == game.state
        assert replayed.can_undo == game.can_undo and replayed.can_redo == game.can_redo
        # undo N then redo N is the identity
        n = game.can_undo
        if n:
            snapshot = copy.deepcopy(game.state)
            k = 1 + seed % n
            assert game.apply(parser.parse(f"undo {k}")).ok
            check_invariants(game)
            assert game.apply(parser.parse(f"redo {k}")).ok
            assert game.state == snapshot
            assert Game.open(journal, game.id).state == snapshot
        journal.close()


def make_test(game_id: str):
    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(commands=lines(GAMES[game_id]), seed=st.integers(0, 10_000))
    def test(commands: list[str], seed: int) -> None:
        play(game_id, commands, seed)

    test.__name__ = f"test_random_{game_id.replace('-', '_')}"
    return test


test_random_vtes = make_test("vtes")
test_random_ascension = make_test("ascension")
test_random_res_arcana = make_test("res-arcana")
test_random_rise = make_test("rise")
test_random_astral = make_test("astral")
