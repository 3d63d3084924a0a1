"""A whole simulated event: 12 real tables (Sessions, journals, links) of 5, 2 rounds seated by
krcg and a final, through a real Mosquitto and the hub; 60 players seated, played, validated and
exported (in this process, once); and the ``venue --simulate`` command, on a small event."""

from __future__ import annotations

import csv
import io
import json

import pytest

from companion.venue import export, scoring
from companion.venue.simulate import Simulation
from tests.cli_run import run_cli
from tests.venue.helpers import ROOT, needs_mosquitto

pytestmark = [needs_mosquitto, pytest.mark.slow, pytest.mark.timeout(300)]


def test_simulate_command_prints_the_final_standings_last():
    # Two tables are enough for the command's output; the 60 players of a full event are the next test's.
    # In this process (tests/cli_run.py: the program's entry point, what it prints and its status):
    # the command's broker, hub and tables are the same; a child's start and imports only cost more.
    # A seating search of 300 iterations, as the venue bench's (the simulation's 2000 were a third
    # of this test's CPU): the seating's rules are the next test's, at 3000.
    done = run_cli("venue", "--simulate", "2", "--rounds", "2", "--json", "--seat-iterations", "300",
                   env={"COMPANION_LANG": "fr"}, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    last = json.loads(done.stdout.strip().splitlines()[-1])
    assert (last["tables"], last["rounds"]) == (2, 2)
    players = last["players"]
    assert len(players) == 10 and set(players[0]) == {"name", "gw", "vp", "tp"}
    assert len(last["final"]) == 5 and set(last["final"]) == {p["name"] for p in players[:5]}
    # every table of every round counted once: 4 tables' TP (180 each) and at most 5 VP each
    assert sum(p["tp"] for p in players) == pytest.approx(4 * 180)
    assert sum(p["vp"] for p in players) <= 4 * 5
    # the final's winner first, the other finalists next (VEKN rules 3.7.5), then GW, VP, TP
    assert players[0]["name"] == last["final"][0]
    ranked = [(-p["gw"], -p["vp"], -p["tp"]) for p in players[5:]]
    assert ranked == sorted(ranked)


def test_sixty_players_seated_played_validated_and_exported(tmp_path):
    sim = Simulation(12, tmp_path, seed=5, seat_iterations=3000).start()
    try:
        sim.play_round()
        sim.play_round()
        sim.play_round(final=True)
        store = sim.store
        r1, r2 = store.seating(1), store.seating(2)
        assert [len(t) for t in r1] == [5] * 12 and sorted(sum(r2, [])) == sorted(sum(r1, []))
        # VEKN R1: nobody is the same player's predator twice
        prey = set()
        for tables in (r1, r2):
            for table in tables:
                for i, p in enumerate(table):
                    pair = (p, table[(i + 1) % len(table)])
                    assert pair not in prey
                    prey.add(pair)
        tour = scoring.tournament("vtes")
        assert all(r["status"] == "validated" and tour.check(r["vp"]) is None for r in store.results())
        assert len(store.results()) == 25
        files = export.archon_files(store)
        assert list(files) == ["Methuselahs.csv", "Round-1.csv", "Round-2.csv", "Finals.csv"]
        rows = list(csv.reader(io.StringIO(files["Methuselahs.csv"])))
        assert len(rows) == 60 and all(r[4].startswith("100") and len(r) == 7 for r in rows)
        assert [len(list(csv.reader(io.StringIO(files[f"Round-{n}.csv"])))) for n in (1, 2)] == [60, 60]
        standings = list(csv.reader(io.StringIO(export.standings_csv(store))))
        assert standings[0] == ["rank", "name", "vekn", "gw", "vp", "tp", "games"]
        assert [r[1] for r in standings[1:6]] == scoring.finalists(store.standings())
        assert ["final", "name", "vp"] in standings
    finally:
        sim.stop()
