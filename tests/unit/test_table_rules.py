"""Rules of the five games through the API, and the engine's promises: refusals change nothing
and say why (fr and en), fair recorded draws, replay, the timer from event times."""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path

import pytest

from companion.table.commands import ParseError, Parser
from companion.table.engine import Game, Refusal, render
from companion.table.journal import Journal


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def journal(tmp_path: Path):
    j = Journal(tmp_path / "games.sqlite3")
    yield j
    j.close()


def new(journal: Journal, game: str, players: list[str], seed: int = 3, **kw) -> tuple[Game, Parser]:
    g = Game.new(journal, game, players, seed=seed, **kw)
    return g, Parser(g.data, [s["name"] for s in g.state["seats"]])


def do(game: Game, parser: Parser, *lines: str):
    result = None
    for line in lines:
        result = game.apply(parser.parse(line))
    return result


def refused(game: Game, parser: Parser, line: str) -> tuple[str, str]:
    before = copy.deepcopy(game.state)
    events = len(game.events())
    result = game.apply(parser.parse(line))
    assert not result.ok, line
    assert game.state == before and len(game.events()) == events
    return result.reason_text("fr"), result.reason_text("en")


def test_refusals_named_in_the_issue(journal: Journal) -> None:
    g, p = new(journal, "res-arcana", ["Ann", "Bob"])  # Ann opens
    fr, en = refused(g, p, "essence 1 or -2")
    assert fr == "Ann n'a que 1 Or : impossible d'en retirer 2." and en == "Ann has only 1 Gold: cannot take away 2."
    do(g, p, "next", "pass")
    fr, en = refused(g, p, "essence 1 vie -1")
    assert "Ann a passé" in fr and "Ann has passed" in en
    refused(g, p, "pass 1")
    g, p = new(journal, "astral", ["Ann", "Bob"])
    for _ in range(14):
        do(g, p, "end")
    assert g.state["seats"][0]["counters"]["max_energy"] == 7
    fr, en = refused(g, p, "max 1 +1")
    assert "ne peut pas dépasser 7" in fr and "cannot go above 7" in en
    g, p = new(journal, "vtes", ["Ann", "Bob"])
    fr, _ = refused(g, p, "pool 2 -31")
    assert fr == "Bob n'a que 30 réserve : impossible d'en retirer 31."


def test_first_player_and_dice_are_fair_and_recorded(journal: Journal) -> None:
    firsts = Counter(Game.new(journal, "vtes", ["A", "B", "C"], seed=s).state["first"] for s in range(300))
    assert set(firsts) == {0, 1, 2} and min(firsts.values()) > 70  # 100 expected each
    g, p = new(journal, "vtes", ["A", "B", "C"], seed=11)
    rolls = [do(g, p, "dice 6").event.payload["result"][0] for _ in range(600)]
    counts = Counter(rolls)
    assert set(counts) == set(range(1, 7)) and min(counts.values()) > 65  # 100 expected each
    ev = [e for e in g.events() if e.type == "first_player"][0]
    assert ev.payload["draw"] == g.state["first"] and ev.payload["of"] == 3
    again = Game.new(journal, "vtes", ["A", "B", "C"], seed=11)
    assert again.state["first"] == g.state["first"]
    # the same seed resumed goes on drawing where it stopped, and undo cannot re-throw
    g2, p2 = new(journal, "rise", ["A", "B"], seed=5)
    first = do(g2, p2, "toss").event.payload["result"]
    do(g2, p2, "pv 1 a =5", "undo")
    resumed = Game.open(journal, g2.id)
    r = do(resumed, p2, "toss")
    assert r.event.payload["result"] in (0, 1) and resumed.state["rng"] == g2.state["rng"] + 1
    assert first in (0, 1)


def test_undo_redo_many_steps_and_replay(journal: Journal) -> None:
    g, p = new(journal, "vtes", ["Ann", "Bob", "Cy"], seed=5)
    start = copy.deepcopy(g.state)
    do(g, p, "pool 2 -3", "next", "vp 1 +1", "edge 3", "toss", "end")
    middle = copy.deepcopy(g.state)
    assert do(g, p, "undo 5").ok
    undone = {k: v for k, v in g.state.items() if k not in ("rng", "roll")}
    assert undone == {k: v for k, v in start.items() if k not in ("rng", "roll")}
    assert do(g, p, "redo 5").ok and g.state == middle
    assert not do(g, p, "redo").ok
    types = [e.type for e in g.events()]
    assert types.count("undo") == 1 and types.count("redo") == 1  # history is never rewritten
    assert Game.open(journal, g.id).state == g.state


def test_timer_comes_from_event_times(journal: Journal) -> None:
    clock = Clock()
    g = Game.new(journal, "vtes", ["Ann", "Bob"], seed=3, clock=clock)
    p = Parser(g.data, ["Ann", "Bob"])
    clock.now += 95
    do(g, p, "end")
    clock.now += 61
    r = do(g, p, "timer")
    assert r.lines("fr") == ["Ce tour : 1:01. Cette manche : 2:36. Partie : 2:36."]
    assert Game.open(journal, g.id, clock=clock).state["clock"] == g.state["clock"]


def test_vtes_transfers_edge_ring_and_withdrawal(journal: Journal) -> None:
    names = ["A", "B", "C", "D", "E"]
    g, p = new(journal, "vtes", names, seed=3)
    first = g.state["first"]
    got = []
    for _ in range(6):
        do(g, p, "next", "next", "next")
        got.append(g.state["seats"][g.state["active"]]["counters"]["transfers"])
        do(g, p, "end")
    assert got == [1, 2, 3, 4, 4, 4]
    # the edge at untap
    active = g.state["active"]
    do(g, p, f"edge {active + 1}", "end", "end", "end", "end", "end")
    assert g.state["active"] == active and g.state["seats"][active]["counters"]["pool"] == 31
    # ousting closes the ring
    prey = (active + 1) % 5
    do(g, p, f"oust {prey + 1}")
    assert g.state["seats"][active]["counters"]["vp"] == 1 and g.state["seats"][active]["counters"]["pool"] == 37
    assert g.rules.prey(g.state, active) == (active + 2) % 5
    # withdrawal fails when the Methuselah loses blood
    do(g, p, f"withdraw {active + 1}", f"pool {active + 1} -1")
    assert not g.state["seats"][active]["withdrawing"]
    assert first is not None


def test_ascension_solo_and_teams(journal: Journal) -> None:
    g, p = new(journal, "ascension", ["Ann"])
    assert g.state["shared"]["pool"] == 50 and [s["name"] for s in g.state["seats"]] == ["Ann", "Culte"]
    do(g, p, "honor culte +20", "honor 1 +25")
    assert not g.state["over"]
    r = do(g, p, "honor 1 +10")
    assert g.state["shared"]["extra"] == 5 and g.state["last_round"] and not g.state["over"]
    r = do(g, p, "end", "end")  # the Cult's last take (none here), then the count
    assert g.state["over"] and g.state["winner"] == [0] and "Culte" in r.text("fr")
    refused(g, p, "runes 1 +1")
    do(g, p, "cards culte =15")
    assert g.state["winner"] == [1]  # 35 each: the Cult plays after the player
    with pytest.raises(Refusal):
        Game.new(journal, "ascension", ["A", "B", "C"], options={"teams": True})
    g, p = new(journal, "ascension", ["A", "B", "C", "D"], options={"teams": True})
    assert g.state["shared"]["pool"] == 120 and g.state["teams"] == [[0, 2], [1, 3]]


def test_res_arcana_life_loss(journal: Journal) -> None:
    g, p = new(journal, "res-arcana", ["Ann", "Bob"])
    do(g, p, "next")
    fr, _ = refused(g, p, "lifeloss 2 2")  # 1 Vie: the second costs two other essences, to be named
    assert "nommez 2 autres essences" in fr
    refused(g, p, "lifeloss 2 2 or vie")
    do(g, p, "lifeloss 2 2 or mort")
    assert g.state["seats"][1]["counters"] == {"mort": 0, "serenite": 1, "vie": 0, "vigueur": 1, "or": 0, "vp": 0}
    do(g, p, "lifeloss 2 3")  # too few left: everything goes
    assert g.state["seats"][1]["counters"] == {"mort": 0, "serenite": 0, "vie": 0, "vigueur": 0, "or": 0, "vp": 0}


def test_rise_first_turn_phase_3_only_for_the_first_player(journal: Journal) -> None:
    g, p = new(journal, "rise", ["Ann", "Bob"])
    assert g.rules.phase_id(g.state) == "summon1" and g.state["seats"][0]["counters"]["coins"] == 2
    do(g, p, "end")
    assert g.rules.phase_id(g.state) == "awakening" and g.state["seats"][1]["counters"]["coins"] == 1
    refused(g, p, "restore 2")  # not in the restoration phase yet
    do(g, p, "next", "restore 2")
    assert g.state["seats"][1]["counters"]["coins"] == 2 and g.rules.phase_id(g.state) == "summon1"
    refused(g, p, "restore 1")
    do(g, p, "end", "next")
    refused(g, p, "end")  # the restoration choice is not optional
    do(g, p, "restore 1", "end")
    assert g.rules.phase_id(g.state) == "awakening"


def test_rise_first_round_passes_over_attack_and_combat(journal: Journal) -> None:
    """Nothing can attack in the first round (a creature never attacks on the turn it arrives):
    game.yaml ``skip: {round: 1}`` makes ``next`` pass over those phases without a word."""
    g, p = new(journal, "rise", ["Ann", "Bob"])
    result = do(g, p, "next")
    assert g.rules.phase_id(g.state) == "summon2"
    assert [v["phase"] for k, v in result.notes if k.startswith("table.phase")] == ["@p:summon2"]
    do(g, p, "end", "next", "restore 2", "next")
    assert g.rules.phase_id(g.state) == "summon2"  # Bob's first turn: round 1 still
    do(g, p, "end", "next", "restore 2", "next")
    assert g.state["round"] == 2 and g.rules.phase_id(g.state) == "attack"  # from round 2 on
    do(g, p, "next")
    assert g.rules.phase_id(g.state) == "combat"


def test_astral_twelve_stars_win_at_once(journal: Journal) -> None:
    g, p = new(journal, "astral", ["Ann", "Bob"])
    do(g, p, "stars 2 +11")
    assert not g.state["over"]
    r = do(g, p, "stars 2 +1")
    assert g.state["over"] and g.state["winner"] == [1] and "12 étoiles" in r.text("fr")


def test_a_change_is_told_and_recorded(journal: Journal) -> None:
    g, p = new(journal, "vtes", ["Ann", "Bob"])
    r = do(g, p, "pool 2 -3")
    assert [render(r.data, k, v, "fr") for k, v in r.notes] == ["Bob : réserve -3, maintenant 27."]
    assert [render(r.data, k, v, "en") for k, v in r.notes] == ["Bob: pool -3, now 27."]
    (change,) = r.changes
    assert (change.seat_name, change.counter, change.delta, change.value) == ("Bob", "pool", -3, 27)


def test_parser_words(journal: Journal) -> None:
    g, p = new(journal, "res-arcana", ["Ann", "Annabel", "Bob"])
    assert p.parse("essence bob OR -1").seat == 2
    assert p.parse("Sérénité 2 +1").args == {"counter": "serenite", "amount": 1, "mode": "+"}
    assert p.parse("or 1+2").args["amount"] == 2
    assert p.parse("  # a comment") is None
    with pytest.raises(ParseError) as exc:
        p.parse("or an -1")
    assert "Ann, Annabel" in exc.value.text("fr")
    with pytest.raises(ParseError) as exc:
        p.parse("or 1 2")
    assert exc.value.text("en") == '"2": write +2 to add, -2 to take away or =2 to set.'
    with pytest.raises(ParseError):
        p.parse("or 7 +1")
    with pytest.raises(ParseError):
        p.parse("edge 1")  # a VTES word, not a Res Arcana one


def test_vtes_vampire_capacity_comes_from_the_card(journal: Journal) -> None:
    from companion.cards.library import CardLibrary
    from companion.play.session import crypt_card_finder

    g, p = new(journal, "vtes", ["Ann", "Bob"])
    with pytest.raises(ParseError):  # no card library given: the capacity is asked for, none is loaded behind
        p.parse("vampire 1 anson")
    p = Parser(g.data, ["Ann", "Bob"], crypt_card=crypt_card_finder(CardLibrary(), g.data.id))
    do(g, p, "vampire 1 anson")  # the crypt card's capacity, its printed name, typos forgiven
    assert g.state["seats"][0]["vampires"] == {"Anson": {"capacity": 8, "blood": 8}}
    do(g, p, "vampire 2 Aneke 10 4")  # a capacity given is taken as given
    assert g.state["seats"][1]["vampires"] == {"Aneke": {"capacity": 10, "blood": 4}}
    do(g, p, "blood 1 Anson -3")
    assert g.state["seats"][0]["vampires"]["Anson"]["blood"] == 5
    with pytest.raises(ParseError) as err:
        p.parse("vampire 1 Zzyzzyx Qwerty")
    assert "Zzyzzyx Qwerty" in err.value.text("fr")
    # Replay does not ask the card list again: the capacity is in the journal.
    assert Game.open(journal, g.id).state == g.state


# -- issue 14: rules checked against the rulebooks ------------------------------------------


def test_res_arcana_a_passed_player_no_longer_acts(journal: Journal) -> None:
    g, p = new(journal, "res-arcana", ["Ann", "Bob"])  # Ann opens
    do(g, p, "next", "end", "pass")  # Bob passes
    assert g.state["seats"][1]["passed"]
    fr, en = refused(g, p, "put bob Athanor vigueur +1")
    assert "Bob a passé" in fr and "Bob has passed" in en
    refused(g, p, "vp bob +2")
    # a rival's power can still give essences to a player who has passed
    assert do(g, p, "essence bob vie +1").ok
    assert g.state["seats"][1]["counters"]["vie"] == 2


def test_res_arcana_life_loss_hits_rivals_only_and_its_hint_uses_what_was_typed(journal: Journal) -> None:
    g, p = new(journal, "res-arcana", ["Ann", "Bob", "Cy"], first="Ann")
    do(g, p, "next")
    fr, en = refused(g, p, "lifeloss ann 1")
    assert "Ann" in fr and "adversaires" in fr and "rivals" in en
    fr, en = refused(g, p, "lifeloss cy 2")  # 1 Vie: 1 missing, 2 other essences to name
    assert "« lifeloss 3 2 " in fr and "nommez 2 autres essences" in fr
    example = fr.split("« lifeloss 3 2 ")[1].split(" »")[0].split()
    assert len(example) == 2 and "vie" not in example
    assert do(g, p, f"lifeloss cy 2 {' '.join(example)}").ok


def test_rise_restoration_cannot_be_skipped_by_ending_the_turn(journal: Journal) -> None:
    g, p = new(journal, "rise", ["Ann", "Bob"])
    do(g, p, "end")  # Bob's turn, phase 1
    assert g.rules.phase_id(g.state) == "awakening"
    fr, _ = refused(g, p, "end")
    assert "restauration 2" in fr  # the French command word, not the English one
    do(g, p, "next", "restore 1", "end")
    assert g.state["active"] == 0 and g.state["seats"][1]["counters"]["coins"] == 3


def test_ascension_solo_the_cults_last_take_is_recorded_before_the_count(journal: Journal) -> None:
    g, p = new(journal, "ascension", ["Ann"])
    do(g, p, "honor 1 +45")  # the pool holds 5
    do(g, p, "honor 1 +5")  # the pool is empty: this round is the last
    r = do(g, p, "end")  # the end of Ann's last turn: the Cult still takes its two cards
    assert not g.state["over"] and "Culte" in r.text("fr")
    assert do(g, p, "honor culte +8").ok  # counted apart, the pool being empty
    assert do(g, p, "cards culte =45").ok
    r = do(g, p, "end")
    assert g.state["over"] and g.state["winner"] == [1] and "Culte 53" in r.text("fr")
    assert Game.open(journal, g.id).state == g.state


def test_damage_beyond_what_is_left_goes_to_zero(journal: Journal) -> None:
    g, p = new(journal, "rise", ["Ann", "Bob"])
    do(g, p, "pv 1 a =3", "pv 1 b =10")
    r = do(g, p, "pv 1 a -5")
    assert r.ok and g.state["seats"][0]["counters"]["pv_a"] == 0 and "mort" in r.text("fr")
    g, p = new(journal, "astral", ["Ann", "Bob"])
    do(g, p, "nav 2 =3")
    r = do(g, p, "nav 2 -5")
    assert r.ok and g.state["seats"][1]["counters"]["pv"] == 0 and g.state["over"] and g.state["winner"] == [0]
    # coins are not damage: spending more than one has is still refused
    g, p = new(journal, "rise", ["Ann", "Bob"])
    refused(g, p, "coins 1 -5")


def test_vtes_transfers_follow_the_order_of_play(journal: Journal) -> None:
    g, p = new(journal, "vtes", ["A", "B", "C", "D"], first="A")
    do(g, p, "oust 2")  # B is ousted before its first turn
    got = []
    for _ in range(3):
        do(g, p, "next", "next", "next")
        got.append((g.state["active"], g.state["seats"][g.state["active"]]["counters"]["transfers"]))
        do(g, p, "end")
    assert got == [(0, 1), (2, 2), (3, 3)]


def test_astral_lowering_the_energy_maximum_lowers_the_energy(journal: Journal) -> None:
    g, p = new(journal, "astral", ["Ann", "Bob"])
    for _ in range(6):
        do(g, p, "end")
    me = g.state["seats"][g.state["active"]]["counters"]
    assert me["energy"] == me["max_energy"] == 4
    do(g, p, f"max {g.state['active'] + 1} -2")
    me = g.state["seats"][g.state["active"]]["counters"]
    assert me["max_energy"] == 2 and me["energy"] == 2


def test_the_players_choose_the_first_player(journal: Journal) -> None:
    for seed in range(6):
        g, p = new(journal, "res-arcana", ["Ann", "Bob", "Cy"], seed=seed, first="cy")
        assert g.state["first"] == 2 and g.state["active"] == 2 and g.state["tile"] == 2
    ev = [e for e in g.events() if e.type == "first_player"][0]
    assert ev.payload["chosen"] is True and ev.payload["draw"] == 2
    assert [e for e in g.events() if e.type == "start"][0].payload["options"]["first"] == "Cy"
    assert Game.open(journal, g.id).state == g.state
    g, _ = new(journal, "rise", ["Ann", "Bob"], first="Bob")
    assert g.state["first"] == 1 and g.state["seats"][1]["counters"]["coins"] == 2
    g, _ = new(journal, "rise", ["Ann", "Bob"], options={"first": "bo"})  # the same choice as an option
    assert g.state["first"] == 1 and g.state["options"]["first"] == "Bob"
    with pytest.raises(Refusal) as err:
        Game.new(journal, "vtes", ["Ann", "Bob"], first="Zed")
    assert err.value.key == "table.refuse.first_unknown"
