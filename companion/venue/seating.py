"""Seating of a round: the game's own tournament seats its tables (its ``tournament`` hook:
``seat`` for a round, ``plan_staggered`` for players who cannot all sit each round), the venue
keeps the pins: a player who must sit at a given table (a reachable one, near the door).

Table numbers do not change a seating's score, so a pin is honoured by swapping whole tables;
only when two pinned players land at the same table is one of them swapped with a player of the
same seat position at their table, which the organiser sees in the returned notes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.i18n import t


def seat_round(tour: Any, previous: Sequence[Sequence[Sequence[str]]], players: Sequence[str],
               pinned: dict[str, int] | None = None, iterations: int = 20000) -> tuple[list[list[str]], list[str]]:
    """The tables of the next round (lists of names, seat order), seated by the game's tournament
    ``tour``, and notes about pins that could not be kept whole. ``previous``: the earlier rounds'
    tables, for the tournament's criteria across rounds."""
    tables = tour.seat(previous, players, iterations)
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
