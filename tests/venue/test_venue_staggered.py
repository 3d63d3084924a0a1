"""Staggered rounds (VEKN Tournament Rules 3.1.2): 6, 7 or 11 players cannot all sit at tables of
4 and 5, so some sit out each round while every player plays the same number of games. The plan
is krcg's (``krcg.seating.get_rounds``: who sits out when), its seating krcg's ``optimise`` over
the whole plan; the hub seats it round after round and the standings count the games played."""

from __future__ import annotations

from collections import Counter

import pytest

from companion.venue import scoring
from companion.venue.event import EventStore
from companion.venue.hub import Hub


def _hub(tmp_path, count: int, rounds: int = 2) -> Hub:
    store = EventStore(tmp_path / "event.sqlite3", "night", "vtes")
    for i in range(1, count + 1):
        store.register(f"Joueur {i}")
    store.put("rounds", rounds)
    return Hub(store, "127.0.0.1", 1, "unused", seat_iterations=3000)


@pytest.mark.parametrize("count", [6, 7, 11])
def test_every_player_plays_the_same_number_of_staggered_rounds(tmp_path, count):
    hub = _hub(tmp_path, count)
    store = hub.store
    sat_out: list[set[str]] = []
    for _ in range(3):  # two games each: a third round so that everyone sits out once
        number, notes = hub.seat_round()
        tables = store.seating(number)
        assert tables and all(4 <= len(t) <= 5 for t in tables)
        seated = {p for t in tables for p in t}
        out = {p["name"] for p in store.players()} - seated
        assert out and notes == [f"{name} ne joue pas ce tour" for name in sorted(out, key=scoring.natural)]
        sat_out.append(out)
    games = Counter(p for r in store.rounds() for t in store.seating(r["round"]) for p in t)
    assert set(games.values()) == {2} and len(games) == count  # everyone plays two of the three rounds
    # VEKN R1 across the plan: nobody is the same player's predator twice
    pairs = [(t[i], t[(i + 1) % len(t)]) for r in store.rounds() for t in store.seating(r["round"])
             for i in range(len(t))]
    assert len(pairs) == len(set(pairs))
    # the results of every table: each player's standing counts two games
    for r in store.rounds():
        for n, table in enumerate(store.seating(r["round"]), 1):
            vps = [len(table)] + [0] * (len(table) - 1)  # seat 1 ousts everyone, then last standing
            assert store.apply_entry(n, r["round"], "result", {"round": r["round"], "players": table, "vp": vps})
    assert {s.games for s in store.standings()} == {2}
    view = hub.public_view()["standings"]
    assert {s["games"] for s in view} == {2}
    store.close()


def test_the_plan_survives_a_restart_and_a_new_cycle_starts_after_it(tmp_path):
    hub = _hub(tmp_path, 6)
    first, _ = hub.seat_round()
    plan = hub.store.get("stagger")
    hub.store.close()
    store = EventStore(tmp_path / "event.sqlite3")
    again = Hub(store, "127.0.0.1", 1, "unused", seat_iterations=3000)
    assert store.get("stagger") == plan
    second, _ = again.seat_round()
    assert store.seating(second) == plan["rounds"][1]
    store.close()


def test_a_player_who_drops_makes_a_new_plan(tmp_path):
    hub = _hub(tmp_path, 7)
    hub.seat_round()
    hub.store.drop("Joueur 7")  # six left: still staggered, planned again for these six
    number, _ = hub.seat_round()
    assert "Joueur 7" not in {p for t in hub.store.seating(number) for p in t}
    assert sorted(hub.store.get("stagger")["players"]) == sorted(f"Joueur {i}" for i in range(1, 7))
    hub.store.close()


def test_pins_that_cannot_be_kept_whole_are_told_in_the_organisers_language():
    from companion.venue import seating

    tables = [["A", "B", "C", "D"], ["E", "F", "G", "H"]]
    notes = seating.apply_pins(tables, {"A": 2, "E": 2, "B": 9})
    assert tables == [["F", "B", "C", "D"], ["E", "A", "G", "H"]]
    assert notes == ["A échange sa place avec F pour être à la table 2", "B : pas de table 9 à ce tour"]
