"""Res Arcana: its code beside cardmap/res-arcana/ (rules.py: the table and its command
parsers)."""

from __future__ import annotations

from typing import Any

from companion.cards.validate import Checker

# Its own fields in cards.yaml are declared in its game.yaml (card_fields); their closer checks
# are here: each way to collect is a count of essences, each power has a known kind.
POWER_KINDS = frozenset({"action", "reaction", "static"})


def check_card_fields(c: Checker, extra: dict[str, Any]) -> None:
    item = c.mapping()
    for i, option in enumerate(item.get("collect") or []):
        Checker(c.path, option, f"{c.where}.collect[{i}]").own_counts()
    for i, power in enumerate(item.get("powers") or []):
        p = Checker(c.path, power, f"{c.where}.powers[{i}]")
        p.only({"kind", "tap", "cost", "effect", "gain", "when"})
        kind = p.get("kind", str, required=True)
        if kind not in POWER_KINDS:
            raise p.fail("kind", f"expected one of {', '.join(sorted(POWER_KINDS))}, got {kind!r}")
        p.get("tap", bool)
        p.counts("cost")
        p.get("effect", str, required=True)
