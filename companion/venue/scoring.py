"""Results and standings of a venue, pure logic (no I/O, no threads).

A game may have tournaments of its own (its ``tournament`` hook, through the registry): its
results proposed from the tracked game, checked, scored (game wins, VP, TP) and ranked its way,
its rounds seated its way. Any other game is a league night: points for a game played and a game
won (``league.yaml``). What is still tied at the top of the standings is drawn (a toss) for the
final.
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

from companion import registry

LEAGUE_ORDER = ("tp", "gw")  # a league ranks by points, then wins


@functools.cache
def params() -> dict[str, Any]:
    return yaml.safe_load(resources.files(__package__).joinpath("league.yaml").read_text(encoding="utf-8"))


def tournament(game: str) -> Any:
    """The game's own tournament (its ``tournament`` hook: ``propose``, ``check``, ``score``,
    ``order``, ``final_winner``, ``finalists``, ``seat``, ``staggered``, ``plan_staggered``), or
    None: its events are league nights."""
    return registry.hook(game, "tournament") if game else None


# -- what the tracked game says --------------------------------------------------------------

def propose(game: str, state: dict[str, Any], events: Iterable[Any], time_called: bool) -> dict[str, Any]:
    """The result a game proposes for its table: the tournament's own, or a league game's."""
    tour = tournament(game)
    return tour.propose(state, events, time_called) if tour is not None else propose_league(state)


def game_winner(game: str, vps: Sequence[float]) -> int | None:
    """The seat with the game win by the game's tournament (None: none, or no tournament)."""
    tour = tournament(game)
    return tour.game_winner(vps) if tour is not None else None


def propose_league(state: dict[str, Any]) -> dict[str, Any]:
    """A league game's result: who won (the rules' own verdict) among who played."""
    seats = state["seats"]
    return {"players": [s["name"] for s in seats], "winners": [seats[w]["name"] for w in state.get("winner", [])],
            "over": bool(state.get("over"))}


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


def natural(name: str) -> tuple[Any, ...]:
    """A name's sort key with its numbers as numbers: 'Joueur 2' before 'Joueur 10'."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name.casefold()))


def standings(players: Iterable[str], results: Iterable[dict[str, Any]], game: str,
              toss: dict[str, int] | None = None, final: dict[str, Any] | None = None) -> list[Standing]:
    """Everyone registered, best first: in the tournament's own order (its ``score`` of each
    table), or points, then wins (league); then the toss drawn for the final if there was one.
    Players still equal are listed by name in natural order, and share their rank (``ranks``).
    ``results``: each table's validated result, ``{"round", "players", "vp"}`` (a tournament) or
    ``{"round", "players", "winners"}``. ``final``: the final's result once counted (its players
    in seed order): its winner comes first, the other finalists next; the standing's numbers stay
    the preliminary rounds'."""
    table = {name: Standing(name) for name in players}
    league = params()["league"]
    tour = tournament(game)
    for r in results:
        names = r["players"]
        if tour is not None:
            for name, (gw, vp, tp) in zip(names, tour.score([float(v) for v in r["vp"]]), strict=False):
                s = table.setdefault(name, Standing(name))
                s.vp += vp
                s.tp += tp
                s.gw += gw
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
        table[final_winner(final, tour)].final = 2
    order = tuple(tour.order) if tour is not None else LEAGUE_ORDER
    return sorted(table.values(), key=lambda s: (*_score(s, order), natural(s.name)))


def _score(s: Standing, order: Sequence[str]) -> tuple[float, ...]:
    return (-s.final, *(-getattr(s, key) for key in order), s.toss)


def final_winner(final: dict[str, Any], tour: Any = None) -> str:
    """Who won the final: the tournament's own rule (its players are in seed order); a league
    final: its first winner in seat order."""
    players = list(final["players"])
    if tour is None:
        winners = [p for p in players if p in (final.get("winners") or [])]
        return winners[0] if winners else players[0]
    vps = [float(v) for v in final.get("vp") or [0] * len(players)]
    return tour.final_winner(players, vps)


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


def toss_for_final(ranked: Sequence[Standing], seed: int | None = None, game: str = "") -> dict[str, int]:
    """Ties left for any of the finalists' ranks after the standings' own order are resolved by a
    fair random method (VEKN rules 3.1, as Archon's ``toss_for_finals``): each tied group with a
    rank among the finalists draws 1..n; the organiser's hub keeps the draw, so the final's seeds
    stand."""
    rng = random.Random(seed)
    cut = finalist_count(game)
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


def finalist_count(game: str = "") -> int:
    """How many of the top play the final: the tournament's own number, or the league's."""
    tour = tournament(game)
    return int(tour.finalists()) if tour is not None else int(params()["finalists"])


def finalists(ranked: Sequence[Standing], game: str = "") -> list[str]:
    """The top of the standings in seed order (break their ties with ``toss_for_final`` first)."""
    return [s.name for s in ranked[: finalist_count(game)]]
