"""VEKN scoring of the venue: VP checked against the possible oust orders, game wins, TP,
standings; the oust order read from a real game's journal."""

from __future__ import annotations

from companion.table.commands import Parser
from companion.table.engine import Game
from companion.table.journal import Journal
from companion.venue import scoring


def test_vp_must_match_a_possible_oust_order():
    assert scoring.check_vtes([5, 0, 0, 0, 0]) is None  # seat 1 ousted everyone, then last standing
    assert scoring.check_vtes([2, 1, 1, 1, 0]) is None
    assert scoring.check_vtes([0.5, 0.5, 0.5, 0.5, 0.5]) is None  # time called, nobody ousted
    assert scoring.check_vtes([4, 0, 0, 0]) is None
    assert scoring.check_vtes([2.5, 0, 0, 0.5]) is None
    assert scoring.check_vtes([3, 0, 0, 0]) == "venue.check.order"  # the third oust makes a last one standing
    assert scoring.check_vtes([6, 0, 0, 0, 0]) == "venue.check.total"
    assert scoring.check_vtes([1.5, 0, 0, 0, 0]) == "venue.check.order"  # half a VP only with time, for survivors
    assert scoring.check_vtes([0.3, 0, 0, 0, 0]) == "venue.check.values"
    # seat 1 ousts seat 2, seat 4 ousts seat 5, time called with three left
    assert scoring.check_vtes([1.5, 0, 0.5, 1.5, 0]) is None
    # seat 5 gave nobody its VP although its predator, seat 4, is still there
    assert scoring.check_vtes([1, 1, 0.5, 0.5, 0]) == "venue.check.order"
    assert scoring.check_vtes([2.5, 0, 0, 0.5, 0.5]) is None
    assert scoring.check_vtes([2, 0, 0, 0.5, 0.5]) == "venue.check.order"  # seat 1 survived: half a VP too
    assert scoring.check_vtes([0, 0, 0, 0, 0.5]) == "venue.check.order"


def test_game_win_and_tournament_points():
    assert scoring.game_winner([3, 1, 1, 0, 0]) == 0
    assert scoring.game_winner([2, 2, 1, 0, 0]) is None  # a tie at the top: no game win
    assert scoring.game_winner([1.5, 1, 1, 1, 0.5]) is None  # under 2 VP
    assert scoring.tournament_points([3, 1, 1, 0, 0]) == [60, 42, 42, 18, 18]
    assert scoring.tournament_points([1, 2, 0, 1]) == [42, 60, 24, 42]


def test_standings_rank_by_gw_then_vp_then_tp():
    results = [{"round": 1, "players": ["A", "B", "C", "D", "E"], "vp": [3, 1, 1, 0, 0]},
               {"round": 2, "players": ["B", "C", "D", "E", "A"], "vp": [0, 4, 0, 1, 0]}]
    ranked = scoring.standings(["A", "B", "C", "D", "E", "F"], results, "vtes")
    assert [s.name for s in ranked][:3] == ["C", "A", "B"]  # B and E: 1 VP and 66 TP each, then by name
    c = ranked[0]
    assert (c.gw, c.vp, c.tp) == (1, 5.0, 102.0)
    assert ranked[-1].name == "F" and ranked[-1].games == 0
    assert scoring.finalists(ranked) == ["C", "A", "B", "E", "D"]


def test_the_oust_order_comes_from_the_journal_undo_included(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as journal:
        game = Game.new(journal, "vtes", ["Ann", "Bob", "Cy", "Dee", "Eve"], seed=1)
        parser = Parser(game.data, [s["name"] for s in game.state["seats"]])
        for line in ["oust 3", "oust 2", "undo", "oust 5"]:
            assert game.apply(parser.parse(line)).ok, line
        assert scoring.leaving_order(journal.events(game.id)) == [2, 4]
        proposal = scoring.propose_vtes(game.state, journal.events(game.id), time_called=True)
        assert proposal["vp"] == [0.5, 1.5, 0.0, 1.5, 0.0]  # Bob ousted Cy, Dee ousted Eve, time called
        assert scoring.check_vtes(proposal["vp"]) is None
