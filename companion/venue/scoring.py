"""Results and standings of a venue, pure logic (no I/O, no threads).

VTES, as the VEKN rules and Archon do it: a table's victory points must match a possible oust
order (each oust gives its predator 1 VP, the last one standing 1 VP, a withdrawal 1 VP to the one
who leaves, and 0.5 VP to each survivor when time is called); the game win goes to the most VP,
alone, with at least 2; tournament points by rank at the table. Standings rank by game wins, then
VP, then TP; what is still tied at the top five is drawn (a toss). The numbers are data
(``vtes.yaml``).

Checked against the VEKN Tournament Rules (https://www.vekn.net/tournament-rules, sections 3.1,
3.7.1 to 3.7.5), whose text the VEKN's own tool carries (github.com/vtes-biased/archon,
``src/archon/templates/document/tournament-rules.html.j2``), and against that tool's code
(``src/archon/scoring.py`` ``compute_table_scores``; ``src/archon/engine.py`` ``standings`` and
``toss_for_finals``).

Other games (a league night): points for a game played and a game won.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml


@functools.cache
def params() -> dict[str, Any]:
    return yaml.safe_load(resources.files(__package__).joinpath("vtes.yaml").read_text(encoding="utf-8"))


# -- what the tracked game says --------------------------------------------------------------

def leaving_order(events: Iterable[Any]) -> list[int]:
    """The seats (0-based) in the order they left the game (ousted or withdrawn), folded from the
    journal's events: each event holds the effects it had, undo's included, so an oust taken
    back leaves the order too."""
    order: list[int] = []
    for ev in events:
        payload = ev.payload if hasattr(ev, "payload") else ev.get("payload", {})
        for eff in payload.get("effects", []) or []:
            path = eff.get("p") if isinstance(eff, dict) else None
            if isinstance(path, list) and len(path) == 3 and path[0] == "seats" and path[2] == "out":
                seat = path[1]
                if eff.get("n") and seat not in order:
                    order.append(seat)
                elif not eff.get("n") and seat in order:
                    order.remove(seat)
    return order


def propose_vtes(state: dict[str, Any], events: Iterable[Any], time_called: bool) -> dict[str, Any]:
    """The result a VTES game proposes: each player's VP (survivors get half a VP each when time is
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


def propose_league(state: dict[str, Any]) -> dict[str, Any]:
    """A league game's result: who won (the rules' own verdict) among who played."""
    seats = state["seats"]
    return {"players": [s["name"] for s in seats], "winners": [seats[w]["name"] for w in state.get("winner", [])],
            "over": bool(state.get("over"))}


# -- checking a VTES table's result ------------------------------------------------------------

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


def check_vtes(vps: Sequence[float]) -> str | None:
    """None when these VP (in seat order) can happen at a table; else the message key of why not."""
    if not 2 <= len(vps) <= 6:
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
    the third rank is the "table bye", so 60/48/24/12. Other sizes (only an organiser's override
    can seat them) as Archon's ``compute_table_scores`` does: 12 more per rank above five players,
    the top of the four-player list below four."""
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


# -- standings ------------------------------------------------------------------------------

@dataclass
class Standing:
    name: str
    gw: int = 0
    vp: float = 0.0
    tp: float = 0.0
    games: int = 0
    rounds: list[int] = field(default_factory=list)
    toss: int = 0  # drawn when ties are left at the top five (0: not drawn)
    final: int = 0  # 2: won the final, 1: played it

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "gw": self.gw, "vp": self.vp, "tp": self.tp}


def vekn(game: str) -> bool:
    """Whether the game's events are VEKN tournaments (GW, VP and TP; seating by the VEKN rules):
    its game.yaml says so (``table.params.tournament: vekn``); any other game is a league night."""
    from companion.table.data import TableDataError, load_table

    try:
        return load_table(game).params.get("tournament") == "vekn"
    except TableDataError:
        return False


def natural(name: str) -> tuple[Any, ...]:
    """A name's sort key with its numbers as numbers: 'Joueur 2' before 'Joueur 10'."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name.casefold()))


def standings(players: Iterable[str], results: Iterable[dict[str, Any]], game: str,
              toss: dict[str, int] | None = None, final: dict[str, Any] | None = None) -> list[Standing]:
    """Everyone registered, best first: GW, then VP, then TP (VTES rules 3.1), then the toss drawn
    for the final if there was one; points, then wins (league). Players still equal are listed by
    name in natural order, and share their rank (``ranks``). ``results``: each table's validated
    result, ``{"round", "players", "vp"}`` (VTES) or ``{"round", "players", "winners"}``. ``final``:
    the final's result once counted (its players in seed order): its winner comes first, the other
    finalists next (rules 3.7.5); GW, VP and TP stay the preliminary rounds' (rules 3.1)."""
    table = {name: Standing(name) for name in players}
    league = params()["league"]
    tournament = vekn(game)
    for r in results:
        names = r["players"]
        if tournament:
            vps = [float(v) for v in r["vp"]]
            winner = game_winner(vps)
            tps = tournament_points(vps)
            for i, name in enumerate(names):
                s = table.setdefault(name, Standing(name))
                s.vp += vps[i]
                s.tp += tps[i]
                s.gw += 1 if winner == i else 0
                s.games += 1
        else:
            winners = r.get("winners") or []
            for name in names:
                s = table.setdefault(name, Standing(name))
                s.games += 1
                s.tp += league["played"]
                if name in winners:
                    s.gw += 1
                    s.tp += league["win"] / len(winners)
    drawn = toss or {}
    for s in table.values():
        s.toss = int(drawn.get(s.name, 0))
    if final and final.get("players"):
        for name in final["players"]:
            table.setdefault(name, Standing(name)).final = 1
        table[final_winner(final, tournament)].final = 2
    return sorted(table.values(), key=lambda s: (*_score(s, tournament), natural(s.name)))


def _score(s: Standing, tournament: bool) -> tuple[float, ...]:
    return (-s.final, -s.gw, -s.vp, -s.tp, s.toss) if tournament else (-s.final, -s.tp, -s.gw, s.toss)


def final_winner(final: dict[str, Any], tournament: bool = True) -> str:
    """Who won the final: the most VP in it, a tie going to the better seed (VEKN rules 3.7.5;
    its players are in seed order); a league final: its first winner in seat order."""
    players = list(final["players"])
    if not tournament:
        winners = [p for p in players if p in (final.get("winners") or [])]
        return winners[0] if winners else players[0]
    vps = [float(v) for v in final.get("vp") or [0] * len(players)]
    return players[max(range(len(players)), key=lambda i: (vps[i], -i))]


def ranks(ranked: Sequence[Standing]) -> list[int]:
    """Each player's rank: players with the same score (and toss) share one, the next rank skips
    them (1, 2, 2, 4), as Archon's standings show."""
    out: list[int] = []
    for i, s in enumerate(ranked):
        if s.final:
            out.append(3 - s.final)  # the final's winner 1, the other finalists tie for 2 (3.7.5)
        elif i and not ranked[i - 1].final and _same(ranked[i - 1], s):
            out.append(out[-1])
        else:
            out.append(i + 1)
    return out


def _same(a: Standing, b: Standing) -> bool:
    return (a.gw, a.vp, a.tp, a.toss) == (b.gw, b.vp, b.tp, b.toss)


def toss_for_final(ranked: Sequence[Standing], seed: int | None = None) -> dict[str, int]:
    """VEKN rules 3.1: ties left for any of the top five ranks after GW, VP and TP are resolved by a
    fair random method. Each tied group with a rank in the top five draws 1..n (as Archon's
    ``toss_for_finals``); the organiser's hub keeps the draw, so the final's seeds stand."""
    rng = random.Random(seed)
    cut = int(params()["finalists"])
    out: dict[str, int] = {}
    at = ranks(ranked)
    groups: dict[int, list[Standing]] = {}
    for rank, s in zip(at, ranked, strict=True):
        groups.setdefault(rank, []).append(s)
    for rank, group in groups.items():
        if rank > cut or len(group) < 2:
            continue
        draw = rng.sample(range(1, len(group) + 1), len(group))
        out.update({s.name: d for s, d in zip(group, draw, strict=True)})
    return out


def finalists(ranked: Sequence[Standing]) -> list[str]:
    """The top five in seed order (break their ties with ``toss_for_final`` first)."""
    return [s.name for s in ranked[: int(params()["finalists"])]]
