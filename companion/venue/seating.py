"""Seating of a VTES round by krcg's seating module (the VEKN criteria R1-R9 by simulated
annealing; krcg 4.19 on Python 3.11 and krcg 5 on 3.12+ have the same ``Round``/``optimise``
API), and the pins: a player who must sit at a given table (a reachable one, near the door).

6, 7 or 11 players cannot sit at tables of 4 and 5: VEKN Tournament Rules 3.1.2 let some sit out
each round, every player playing the same number of games (usually one less than the rounds).
krcg plans that (``get_rounds``: who sits out which round, one more round than each one plays)
and ``optimise`` seats the whole plan at once; ``plan_staggered`` returns it for the hub to seat
round after round.

Table numbers do not change a seating's score, so a pin is honoured by swapping whole tables;
only when two pinned players land at the same table is one of them swapped with a player of the
same seat position at their table, which the organiser sees in the returned notes.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from companion.i18n import t

MAX_PASSES = 6


STAGGERED = frozenset({6, 7, 11})


def table_sizes(count: int) -> list[int]:
    """Tables of 5, with tables of 4 as needed (krcg's own split); 6, 7 and 11 players cannot be seated."""
    from krcg.seating import Round

    return [len(t) for t in Round.from_players(list(range(count)))]


def plan_staggered(previous: Sequence[Sequence[Sequence[str]]], players: Sequence[str], games: int,
                   iterations: int = 20000) -> list[list[list[str]]]:
    """The staggered rounds of ``players`` (6, 7 or 11) so that each plays ``games`` games (2 or
    more): krcg's plan of who sits out when, seated by its annealing over the whole plan with
    ``previous`` rounds fixed. A list of rounds, each a list of tables (names in seat order)."""
    from krcg.seating import Round, get_rounds, optimise

    names = list(players)
    random.shuffle(names)  # get_rounds sits out the first names first
    plan = get_rounds(names, max(2, int(games)))
    fixed = [Round([list(t) for t in r]) for r in previous if r]
    rounds = fixed + plan
    if iterations > 0:
        for _ in range(MAX_PASSES):  # R1 is mandatory: go on from the best found until it holds
            rounds, score = optimise(rounds, iterations, fixed=len(fixed))
            if not score.rules[0]:
                break
    return [[list(t) for t in r] for r in rounds[len(fixed):]]


def seat_round(previous: Sequence[Sequence[Sequence[str]]], players: Sequence[str],
               pinned: dict[str, int] | None = None, iterations: int = 20000) -> tuple[list[list[str]], list[str]]:
    """The tables of the next round (lists of names, seat order) and notes about pins that could not
    be kept whole. ``previous``: the earlier rounds' tables, for the VEKN criteria across rounds."""
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
    if iterations > 0:
        # Only the last round moves. R1 (no predator-prey pair twice) is mandatory: go on from the
        # best found until it holds (a few passes; a short search can stop before it does).
        for _ in range(MAX_PASSES):
            best, score = optimise(rounds, iterations)
            rounds = best
            if not score.rules[0]:
                break
        tables = [list(t) for t in rounds[-1]]
    else:
        tables = [list(t) for t in new]
    notes = apply_pins(tables, pinned or {})
    return tables, notes


def apply_pins(tables: list[list[Any]], pinned: dict[Any, int]) -> list[str]:
    notes: list[str] = []
    for player, want in sorted(pinned.items(), key=lambda kv: kv[1]):
        k = want - 1
        if not 0 <= k < len(tables):
            notes.append(t("venue.seating.pin_missing", name=player, table=want))
            continue
        at = next((i for i, t in enumerate(tables) if player in t), None)
        if at is None or at == k:
            continue
        others = [p for p in tables[k] if p in pinned and pinned[p] == want]
        if not others:
            tables[at], tables[k] = tables[k], tables[at]  # whole tables: the seating's score is unchanged
            continue
        # another player is pinned there already: swap this one with an unpinned player of that table
        seat = tables[at].index(player)
        swap = next((j for j in [min(seat, len(tables[k]) - 1), *range(len(tables[k]))]
                     if tables[k][j] not in pinned), None)
        if swap is None:
            notes.append(t("venue.seating.pin_full", name=player, table=want))
            continue
        tables[at][seat], tables[k][swap] = tables[k][swap], tables[at][seat]
        notes.append(t("venue.seating.pin_swapped", name=player, other=tables[at][seat], table=want))
    return notes
