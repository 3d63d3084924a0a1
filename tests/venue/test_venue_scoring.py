"""VEKN scoring of the venue: VP checked against the possible oust orders, game wins, TP,
standings; the oust order read from a real game's journal."""

from __future__ import annotations

from companion import registry
from companion.table.commands import Parser
from companion.table.engine import Game
from companion.table.journal import Journal
from companion.venue import scoring

# The game's own tournament, as the venue reaches it: through the registry.
TOUR = registry.hook("vtes", "tournament")


def test_vp_must_match_a_possible_oust_order():
    assert TOUR.check([5, 0, 0, 0, 0]) is None  # seat 1 ousted everyone, then last standing
    assert TOUR.check([2, 1, 1, 1, 0]) is None
    assert TOUR.check([0.5, 0.5, 0.5, 0.5, 0.5]) is None  # time called, nobody ousted
    assert TOUR.check([4, 0, 0, 0]) is None
    assert TOUR.check([2.5, 0, 0, 0.5]) is None
    assert TOUR.check([3, 0, 0, 0]) == "venue.check.order"  # the third oust makes a last one standing
    assert TOUR.check([6, 0, 0, 0, 0]) == "venue.check.total"
    assert TOUR.check([1.5, 0, 0, 0, 0]) == "venue.check.order"  # half a VP only with time, for survivors
    assert TOUR.check([0.3, 0, 0, 0, 0]) == "venue.check.values"
    # seat 1 ousts seat 2, seat 4 ousts seat 5, time called with three left
    assert TOUR.check([1.5, 0, 0.5, 1.5, 0]) is None
    # seat 5 gave nobody its VP although its predator, seat 4, is still there
    assert TOUR.check([1, 1, 0.5, 0.5, 0]) == "venue.check.order"
    assert TOUR.check([2.5, 0, 0, 0.5, 0.5]) is None
    assert TOUR.check([2, 0, 0, 0.5, 0.5]) == "venue.check.order"  # seat 1 survived: half a VP too
    assert TOUR.check([0, 0, 0, 0, 0.5]) == "venue.check.order"


def test_a_vekn_table_has_four_or_five_players_and_a_league_table_two_to_five(tmp_path):
    from companion.i18n import t
    from companion.venue.event import EventStore

    # every one of these could end a game of that size; a VEKN tournament seats only 4 or 5 (as Archon)
    for vps in ([2, 1, 0], [1, 1, 1, 1, 1, 1], [2, 0]):
        assert TOUR.check(vps) == "venue.check.size"
    assert t("venue.check.size", "fr") == "une table de tournoi VEKN compte 4 ou 5 joueurs"
    assert t("venue.check.size", "en") == "a VEKN tournament table has 4 or 5 players"
    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]
    vekn = EventStore(tmp_path / "vekn.sqlite3", "v", "vtes")
    league = EventStore(tmp_path / "league.sqlite3", "l", "ascension")
    try:
        round_no = vekn.add_round([names])  # six at one table: only by hand
        assert vekn.override(round_no, 1, {"players": names, "vp": [1, 1, 1, 1, 1, 1]},
                             "the players' sheets") == "venue.check.size"
        assert vekn.results() == []
        round_no = league.add_round([names[:2], names[2:5]])
        assert league.override(round_no, 1, {"players": names[:2], "winners": ["Ann"]}, "sheet") is None
        assert league.override(round_no, 2, {"players": names[2:5], "winners": []}, "sheet") is None
    finally:
        vekn.close()
        league.close()


def test_game_win_and_tournament_points():
    assert TOUR.game_winner([3, 1, 1, 0, 0]) == 0
    assert TOUR.game_winner([2, 2, 1, 0, 0]) is None  # a tie at the top: no game win
    assert TOUR.game_winner([1.5, 1, 1, 1, 0.5]) is None  # under 2 VP
    assert TOUR.tournament_points([3, 1, 1, 0, 0]) == [60, 42, 42, 18, 18]


def test_tournament_points_follow_the_vekn_rules_examples():
    """VEKN Tournament Rules 3.7.3 and 3.7.4 (www.vekn.net/tournament-rules; the same text and
    code in vtes-biased/archon): at a table of four the third rank is the "table bye"."""
    # 3.7.4, example 1 (five players): A and C 1.5 VP, E 0.5, B and D nothing
    assert TOUR.tournament_points([1.5, 0, 1.5, 0, 0.5]) == [54, 18, 54, 18, 36]
    # 3.7.4, example 2 (four players): A 1.5, B ousted, C and D 0.5 each: 60, 12, then 36 each
    assert TOUR.tournament_points([1.5, 0, 0.5, 0.5]) == [60, 12, 36, 36]
    assert TOUR.tournament_points([4, 0, 0, 0]) == [60, 28, 28, 28]  # (48 + 24 + 12) / 3
    assert TOUR.tournament_points([1, 2, 0, 1]) == [36, 60, 12, 36]
    assert TOUR.tournament_points([0.5] * 5) == [36] * 5
    assert sum(TOUR.tournament_points([1, 1, 1, 1])) == 144  # 60 + 48 + 24 + 12, whatever the ties


def test_standings_rank_by_gw_then_vp_then_tp():
    results = [{"round": 1, "players": ["A", "B", "C", "D", "E"], "vp": [3, 1, 1, 0, 0]},
               {"round": 2, "players": ["B", "C", "D", "E", "A"], "vp": [0, 4, 0, 1, 0]}]
    ranked = scoring.standings(["A", "B", "C", "D", "E", "F"], results, "vtes")
    assert [s.name for s in ranked][:3] == ["C", "A", "B"]  # B and E: 1 VP and 66 TP each, then by name
    c = ranked[0]
    assert (c.gw, c.vp, c.tp) == (1, 5.0, 102.0)
    assert ranked[-1].name == "F" and ranked[-1].games == 0
    assert scoring.finalists(ranked) == ["C", "A", "B", "E", "D"]


def test_equal_scores_list_names_in_natural_order_and_share_their_rank():
    """After GW, VP and TP the VEKN rules (3.1) leave ties to a fair random method for the top
    five only: on the boards tied players share a rank, listed 'Joueur 2' before 'Joueur 10'."""
    names = [f"Joueur {i}" for i in (10, 2, 1, 11, 3)]
    ranked = scoring.standings(names, [], "vtes")
    assert [s.name for s in ranked] == ["Joueur 1", "Joueur 2", "Joueur 3", "Joueur 10", "Joueur 11"]
    assert scoring.ranks(ranked) == [1, 1, 1, 1, 1]
    results = [{"round": 1, "players": ["Joueur 10", "Joueur 2", "Joueur 1", "Joueur 11", "Joueur 3"],
                "vp": [3, 1, 1, 0, 0]}]
    ranked = scoring.standings(names, results, "vtes")
    assert [s.name for s in ranked] == ["Joueur 10", "Joueur 1", "Joueur 2", "Joueur 3", "Joueur 11"]
    assert scoring.ranks(ranked) == [1, 2, 2, 4, 4]


def test_a_toss_breaks_the_ties_left_at_the_top_five():
    names = [f"P{i}" for i in range(1, 9)]
    results = [{"round": 1, "players": names[:4], "vp": [4, 0, 0, 0]},
               {"round": 1, "players": names[4:], "vp": [4, 0, 0, 0]}]
    ranked = scoring.standings(names, results, "vtes")
    assert scoring.ranks(ranked) == [1, 1, 3, 3, 3, 3, 3, 3]
    toss = scoring.toss_for_final(ranked, seed=3)
    assert set(toss) == set(names)  # every player tied with a top-five rank draws
    again = scoring.standings(names, results, "vtes", toss=toss)
    assert scoring.ranks(again) == list(range(1, 9))
    assert [s.name for s in again[2:]] == sorted(names[1:4] + names[5:], key=lambda n: toss[n])


def test_the_oust_order_comes_from_the_journal_undo_included(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as journal:
        game = Game.new(journal, "vtes", ["Ann", "Bob", "Cy", "Dee", "Eve"], seed=1)
        parser = Parser(game.data, [s["name"] for s in game.state["seats"]])
        for line in ["oust 3", "oust 2", "undo", "oust 5"]:
            assert game.apply(parser.parse(line)).ok, line
        assert TOUR.leaving_order(journal.events(game.id)) == [2, 4]
        proposal = TOUR.propose(game.state, journal.events(game.id), time_called=True)
        assert proposal["vp"] == [0.5, 1.5, 0.0, 1.5, 0.0]  # Bob ousted Cy, Dee ousted Eve, time called
        assert TOUR.check(proposal["vp"]) is None


def test_the_boards_rank_ties_together_and_the_final_keeps_its_draw(tmp_path):
    from companion.venue.event import EventStore
    from companion.venue.hub import Hub

    store = EventStore(tmp_path / "event.sqlite3", "night", "vtes")
    for i in (10, 2, 1, 11, 3, 4, 5, 6):
        store.register(f"Joueur {i}")
    hub = Hub(store, "127.0.0.1", 1, "unused")
    view = hub.public_view()["standings"]
    assert [(s["rank"], s["name"]) for s in view[:5]] == [
        (1, "Joueur 1"), (1, "Joueur 2"), (1, "Joueur 3"), (1, "Joueur 4"), (1, "Joueur 5")]
    number, _ = hub.seat_round(final=True)
    toss = store.get("toss")
    assert sorted(toss.values()) == list(range(1, 9))  # all eight tied for the top five: one draw
    final = store.seating(number)[0]
    assert final == sorted(toss, key=toss.get)[:5]
    assert [s["rank"] for s in hub.public_view()["standings"]] == list(range(1, 9))
    store.close()
    again = EventStore(tmp_path / "event.sqlite3")
    assert scoring.finalists(again.standings()) == final  # the draw stands after a restart
    again.close()


def test_the_final_ranks_its_winner_first_and_the_other_finalists_second():
    """VEKN rules 3.7.5: the most VP in the final wins, a tie going to the better seed; the other
    finalists tie for second. Preliminary GW, VP and TP stay what they were (rules 3.1)."""
    names = ["A", "B", "C", "D", "E", "F", "G", "H", "I"]
    results = [{"round": 1, "players": names[:5], "vp": [3, 1, 1, 0, 0]},
               {"round": 1, "players": names[5:], "vp": [4, 0, 0, 0]}]
    prelim = scoring.standings(names, results, "vtes")
    assert [s.name for s in prelim][:4] == ["F", "A", "B", "C"]
    seeds = ["F", "A", "B", "C", "G"]  # G won the toss among G, H and I
    # A ousts B, C ousts G, time: A and C tie at 1.5, A is the better seed
    final = {"round": 2, "players": seeds, "vp": [0.5, 1.5, 0, 1.5, 0]}
    assert TOUR.check(final["vp"]) is None
    ranked = scoring.standings(names, results, "vtes", final=final)
    assert [s.name for s in ranked] == ["A", "F", "B", "C", "G", "H", "I", "D", "E"]
    assert scoring.ranks(ranked) == [1, 2, 2, 2, 2, 6, 6, 8, 8]
    a = ranked[0]
    assert (a.gw, a.vp, a.tp) == (1, 3.0, 60.0)  # the preliminary rounds' own


def test_the_venue_asks_the_game_for_its_tournament_and_a_game_with_none_is_a_league_night():
    """The venue names no game: a game's tournament is its own code's ``tournament`` hook."""
    assert scoring.tournament("vtes") is TOUR and TOUR.order == ("gw", "vp", "tp")
    assert scoring.tournament("ascension") is None
    state = {"seats": [{"name": "Ann", "counters": {}, "out": False}, {"name": "Bob", "counters": {}, "out": False}],
             "winner": [1], "over": True}
    assert scoring.propose("ascension", state, [], time_called=False) == {
        "players": ["Ann", "Bob"], "winners": ["Bob"], "over": True}
    results = [{"round": 1, "players": ["Ann", "Bob"], "winners": ["Bob"]}]
    ranked = scoring.standings(["Ann", "Bob"], results, "ascension")
    assert [(s.name, s.gw, s.tp) for s in ranked] == [("Bob", 1, 3), ("Ann", 0, 1)]
