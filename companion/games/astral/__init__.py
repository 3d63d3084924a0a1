"""ASTRAL CARDS: its code beside cardmap/astral/ (rules.py: the table and its command parsers)."""

from __future__ import annotations

from typing import Any

from companion.cards.validate import Checker

# Its own fields in cards.yaml (cardmap/README.md): copies allowed in a deck, and the starter
# deck a card comes in.
card_fields = frozenset({"multiples", "deck"})


def read_card_fields(c: Checker, extra: dict[str, Any]) -> None:
    item = c.mapping()
    if c.get("multiples", int) is not None:
        extra["multiples"] = item["multiples"]
    if c.get("deck", str):
        extra["deck"] = item["deck"]  # the starter deck the card comes in
