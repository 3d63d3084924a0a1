"""The card library: what every card says, for every game. Pure logic: no Kivy, no threads."""

from companion.cards.model import Card, parse_ref

__all__ = ["Card", "parse_ref"]
