"""Its events at a venue are VEKN tournaments: the ``tournament`` hook the venue asks through
the registry (companion.venue.scoring, .seating, .hub, .link, .event). Pure logic: no I/O but
its own data file, no threads; krcg is imported only to seat a round.

A table's victory points must match a possible oust order (each oust gives its predator 1 VP,
the last one standing 1 VP, a withdrawal 1 VP to the one who leaves, and 0.5 VP to each survivor
when time is called); the game win goes to the most VP, alone, with at least 2; tournament points
by rank at the table. Standings rank by game wins, then VP, then TP (``order``); what is still
tied at the top five is drawn by the venue (a toss). The numbers are data (``tournament.yaml``).

Checked against the VEKN Tournament Rules (https://www.vekn.net/tournament-rules, sections 3.1,
3.7.1 to 3.7.5), whose text the VEKN's own tool carries (github.com/vtes-biased/archon,
``src/archon/templates/document/tournament-rules.html.j2``), and against that tool's code
(``src/archon/scoring.py`` ``compute_table_scores``; ``src/archon/engine.py`` ``standings`` and
``toss_for_finals``).

Seating by krcg's seating module (the VEKN criteria R1-R9 by simulated annealing; krcg 4.19 on
Python 3.11 and krcg 5 on 3.12+ have the same ``Round``/``optimise`` API). 6, 7 or 11 players
cannot sit at tables of 4 and 5: VEKN Tournament Rules 3.1.2 let some sit out each round, every
player playing the same number of games (usually one less than the rounds). krcg plans that
(``get_rounds``: who sits out which round, one more round than each one plays) and ``optimise``
seats the whole plan at once; ``plan_staggered`` returns it for the hub to seat round after round.
The venue keeps the pins (a player who must sit at a given table) itself.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from typing import Any

import yaml

# Standings: game wins, then VP, then TP (VEKN rules 3.1); the venue reads these fields.
order = ("gw", "vp", "tp")
MAX_PASSES = 6
STAGGERED = frozenset({6, 7, 11})


@functools.cache
def params() -> dict[str, Any]:
    return yaml.safe_load(resources.files(__package__).joinpath("tournament.yaml").read_text(encoding="utf-8"))


def finalists() -> int:
    """How many of the top play the final (its table)."""
    return int(params()["finalists"])


# -- what the tracked game says --------------------------------------------------------------

def leaving_order(events: Iterable[Any]) -> list[int]:
    """The seats (0-based) in the order they left the game (ousted or withdrawn), folded from the
    journal's events: each event holds the effects it had, undo's included, so an oust taken
    back leaves the order too."""
    out: list[int] = []
    for ev in events:
        payload = ev.payload if hasattr(ev, "payload") else ev.get("payload", {})
        for eff in payload.get("effects", []) or []:
            path = eff.get("p") if isinstance(eff, dict) else None
            if isinstance(path, list) and len(path) == 3 and path[0] == "seats" and path[2] == "out":
                seat = path[1]
                if eff.get("n") and seat not in out:
                    out.append(seat)
                elif not eff.get("n") and seat in out:
                    out.remove(seat)
    return out


def propose(state: dict[str, Any], events: Iterable[Any], time_called: bool) -> dict[str, Any]:
    """The result a game proposes: each player's VP (survivors get half a VP each when time is
    called before the end), the order they left in."""
    seats = state["seats"]
    vps: list[float] = [float(s["counters"].get("vp", 0)) for s in seats]
    if time_called and not state.get("over"):
        left = [i for i, s in enumerate(seats) if not s["out"]]
        if len(left) > 1:
            for i in left:
                vps[i] += float(params()["time_vp"])
    return {"players": [s["name"] for s in seats], "vp": vps, "out": leaving_order(events),
            "over": bool(state.get("over"))}


# -- checking a table's result ---------------------------------------------------------------

def possible_vps(size: int) -> set[tuple[float, ...]]:
    """Every VP split a table of ``size`` can end with, in seat order (seat i's prey is i+1),
    over every order of ousts and withdrawals, ended by the last one standing or by time."""
    tvp = float(params()["time_vp"])
    found: set[tuple[float, ...]] = set()

    @functools.cache
    def walk(left: tuple[int, ...], vps: tuple[float, ...]) -> None:
        if len(left) == 1:
            found.add(tuple(v + (1 if i == left[0] else 0) for i, v in enumerate(vps)))
            return
        # time called now: each survivor gets half a VP (with 2 or more left)
        found.add(tuple(v + (tvp if i in left else 0) for i, v in enumerate(vps)))
        for k, seat in enumerate(left):
            predator = left[k - 1]
            rest = left[:k] + left[k + 1:]
            ousted = list(vps)
            ousted[predator] += 1
            walk(rest, tuple(ousted))
            withdrawn = list(vps)
            withdrawn[seat] += 1
            walk(rest, tuple(withdrawn))

    walk(tuple(range(size)), tuple(0.0 for _ in range(size)))
    return found


def check(vps: Sequence[float]) -> str | None:
    """None when these VP (in seat order) can happen at a table; else the message key of why not."""
    if len(vps) not in params()["table_sizes"]:
        return "venue.check.size"
    if any(v < 0 or (v * 2) != int(v * 2) for v in vps):
        return "venue.check.values"
    total = sum(vps)
    if total > len(vps):
        return "venue.check.total"
    if tuple(float(v) for v in vps) not in _possible(len(vps)):
        return "venue.check.order"
    return None


@functools.cache
def _possible(size: int) -> frozenset[tuple[float, ...]]:
    return frozenset(possible_vps(size))


def game_winner(vps: Sequence[float]) -> int | None:
    """The seat with the game win, or None (a tie at the top, or fewer than 2 VP)."""
    if not vps:
        return None
    best = max(vps)
    if best < params()["game_win_min_vp"] or list(vps).count(best) > 1:
        return None
    return list(vps).index(best)


def tp_by_rank(size: int) -> list[int]:
    """The TP of each rank at a table of ``size``. VEKN rules 3.7.3: 60/48/36/24/12 at five; at four
    the third rank is the "table bye", so 60/48/24/12. Other sizes (``check`` refuses their
    results; kept for a caller that asks) as Archon's ``compute_table_scores`` does: 12 more per
    rank above five players, the top of the four-player list below four."""
    table = params()["tournament_points"]
    if size in table:
        return list(table[size])
    if size > 5:
        return [12 * (size - i) for i in range(size)]
    return list(table[4][:size])


def tournament_points(vps: Sequence[float]) -> list[float]:
    """TP by rank at the table; tied players share (average) the points of the ranks they cover
    (VEKN rules 3.7.3 and its examples in 3.7.4)."""
    table = tp_by_rank(len(vps))
    ranked = sorted(range(len(vps)), key=lambda i: -vps[i])
    tps = [0.0] * len(vps)
    i = 0
    while i < len(ranked):
        j = i
        while j + 1 < len(ranked) and vps[ranked[j + 1]] == vps[ranked[i]]:
            j += 1
        share = sum(table[i:j + 1]) / (j - i + 1)
        for k in range(i, j + 1):
            tps[ranked[k]] = share
        i = j + 1
    return tps


def score(vps: Sequence[float]) -> list[tuple[int, float, float]]:
    """Each seat's (game win, VP, TP) for a validated table result."""
    winner = game_winner(vps)
    tps = tournament_points(vps)
    return [(1 if winner == i else 0, float(v), tps[i]) for i, v in enumerate(vps)]


def final_winner(players: Sequence[str], vps: Sequence[float]) -> str:
    """Who won the final: the most VP in it, a tie going to the better seed (VEKN rules 3.7.5;
    its players are in seed order)."""
    return players[max(range(len(players)), key=lambda i: (vps[i], -i))]


# -- seating ------------------------------------------------------------------------------------

def staggered(count: int) -> bool:
    """Whether ``count`` players need a staggered plan (some sit out each round)."""
    return count in STAGGERED


def _krcg() -> None:
    from companion.games.vtes.common import without_krcg_loader

    without_krcg_loader()  # before krcg's first import: see there


def table_sizes(count: int) -> list[int]:
    """Tables of 5, with tables of 4 as needed (krcg's own split); 6, 7 and 11 players cannot be seated."""
    _krcg()
    from krcg.seating import Round

    return [len(t) for t in Round.from_players(list(range(count)))]


def plan_staggered(previous: Sequence[Sequence[Sequence[str]]], players: Sequence[str], games: int,
                   iterations: int = 20000) -> list[list[list[str]]]:
    """The staggered rounds of ``players`` (6, 7 or 11) so that each plays ``games`` games (2 or
    more): krcg's plan of who sits out when, seated by its annealing over the whole plan with
    ``previous`` rounds fixed. A list of rounds, each a list of tables (names in seat order)."""
    _krcg()
    from krcg.seating import Round, get_rounds, optimise

    names = list(players)
    random.shuffle(names)  # get_rounds sits out the first names first
    plan = get_rounds(names, max(2, int(games)))
    fixed = [Round([list(t) for t in r]) for r in previous if r]
    rounds = fixed + plan
    if iterations > 0:
        for _ in range(MAX_PASSES):  # R1 is mandatory: go on from the best found until it holds
            rounds, found = optimise(rounds, iterations, fixed=len(fixed))
            if not found.rules[0]:
                break
    return [[list(t) for t in r] for r in rounds[len(fixed):]]


def seat(previous: Sequence[Sequence[Sequence[str]]], players: Sequence[str],
         iterations: int = 20000) -> list[list[str]]:
    """The tables of the next round (lists of names, seat order). ``previous``: the earlier rounds'
    tables, for the VEKN criteria across rounds. A ValueError's text is the message key of why
    the players cannot be seated."""
    _krcg()
    from krcg.seating import Round, optimise

    names = list(players)
    if len(names) < 4:
        raise ValueError("venue.seating.too_few")
    random.shuffle(names)
    try:
        new = Round.from_players(names)
    except ValueError as exc:
        raise ValueError("venue.seating.staggered") from exc
    rounds = [Round([list(t) for t in r]) for r in previous if r] + [new]
    if iterations <= 0:
        return [list(t) for t in new]
    # Only the last round moves. R1 (no predator-prey pair twice) is mandatory: go on from the
    # best found until it holds (a few passes; a short search can stop before it does).
    for _ in range(MAX_PASSES):
        best, found = optimise(rounds, iterations)
        rounds = best
        if not found.rules[0]:
            break
    return [list(t) for t in rounds[-1]]


# -- a simulated event -----------------------------------------------------------------------

def play_some(apply: Callable[[str], Any], state: Callable[[], dict[str, Any]], rng: random.Random,
              moves: int) -> None:
    """A few legal changes a simulated table makes (``apply(command)``; ``state()`` the game's
    state now): pool lost and won, turns passed, an oust now and then."""
    for _ in range(moves):
        now = state()
        if now.get("over"):
            return
        alive = [i + 1 for i, s in enumerate(now["seats"]) if not s["out"]]
        roll = rng.random()
        if roll < 0.25 and len(alive) > 1:
            apply(f"oust {rng.choice(alive)}")
        elif roll < 0.6:
            apply(f"pool {rng.choice(alive)} -{rng.randint(1, 3)}")
        else:
            apply("next")
