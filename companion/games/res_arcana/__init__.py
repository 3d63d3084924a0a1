"""Res Arcana: its code beside cardmap/res-arcana/ (rules.py: the table and its command
parsers)."""

from __future__ import annotations

from typing import Any

from companion.cards.gamedata import plain
from companion.cards.validate import Checker

# Its own fields in cards.yaml (cardmap/README.md): what a component collects, its powers, and
# the component it pairs with (a mage and its familiar).
card_fields = frozenset({"collect", "powers", "pair"})
POWER_KINDS = frozenset({"action", "reaction", "static"})


def read_card_fields(c: Checker, extra: dict[str, Any]) -> None:
    item = c.mapping()
    collect = c.get("collect", list, default=[])
    for i, option in enumerate(collect):
        Checker(c.path, option, f"{c.where}.collect[{i}]").own_counts()
    extra["collect"] = plain(collect)
    powers = c.get("powers", list, default=[])
    for i, power in enumerate(powers):
        p = Checker(c.path, power, f"{c.where}.powers[{i}]")
        p.only({"kind", "tap", "cost", "effect", "gain", "when"})
        kind = p.get("kind", str, required=True)
        if kind not in POWER_KINDS:
            raise p.fail("kind", f"expected one of {', '.join(sorted(POWER_KINDS))}, got {kind!r}")
        p.get("tap", bool)
        p.counts("cost")
        p.get("effect", str, required=True)
    extra["powers"] = plain(powers)
    if "pair" in item:
        extra["pair"] = c.ident("pair")
