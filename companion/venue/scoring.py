"""Results and standings of a venue, pure logic (no I/O, no threads).

VTES, as the VEKN rules and Archon do it: a table's victory points must match a possible oust
order (each oust gives its predator 1 VP, the last one standing 1 VP, a withdrawal 1 VP to the one
who leaves, and 0.5 VP to each survivor when time is called); the game win goes to the most VP,
alone, with at least 2; tournament points by rank at the table. Standings rank by game wins, then
VP, then TP. The numbers are data (``vtes.yaml``).

Other games (a league night): points for a game played and a game won.
"""

from __future__ import annotations

import functools
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
    vps: list[float] = [float(s["c"].get("vp", 0)) for s in seats]
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


def tournament_points(vps: Sequence[float]) -> list[float]:
    """TP by rank at the table; tied players share the points of the ranks they cover."""
    table = params()["tournament_points"].get(len(vps)) or params()["tournament_points"][5][:len(vps)]
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


def standings(players: Iterable[str], results: Iterable[dict[str, Any]], game: str) -> list[Standing]:
    """Everyone registered, best first: GW, then VP, then TP (VTES); points, then wins (league).
    ``results``: each table's validated result, ``{"round", "players", "vp"}`` (VTES) or
    ``{"round", "players", "winners"}``."""
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
    if tournament:
        return sorted(table.values(), key=lambda s: (-s.gw, -s.vp, -s.tp, s.name.casefold()))
    return sorted(table.values(), key=lambda s: (-s.tp, -s.gw, s.name.casefold()))


def finalists(ranked: Sequence[Standing]) -> list[str]:
    return [s.name for s in ranked[: int(params()["finalists"])]]
