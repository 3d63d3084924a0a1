"""Ascension: Rise of Vigil: its code beside cardmap/ascension/ (rules.py: the table and its
command parsers)."""

from __future__ import annotations

from typing import Any

from companion.cards.validate import Checker

# Its own fields in cards.yaml (cardmap/README.md): a hero's faction, the copies in the centre
# deck, and what a card gives when played.
card_fields = frozenset({"faction", "count", "gives"})


def read_card_fields(c: Checker, extra: dict[str, Any]) -> None:
    faction = c.get("faction", str)
    if faction is not None:
        extra["faction"] = faction
    extra["count"] = c.get("count", int, default=1)
    extra["gives"] = c.counts("gives")
