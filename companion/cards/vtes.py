"""VTES cards from krcg's bundled official lists (read offline, never copied into the repo)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from companion.cards.model import Card

# krcg reads these at import time: force its offline mode before the first import.
os.environ.setdefault("LOCAL_CARDS", "1")
os.environ.setdefault("NO_TRANSLATIONS", "1")

CRYPT_TYPES = {"Vampire", "Imbued"}


def krcg_version() -> str:
    from importlib.metadata import version

    return version("krcg")


def load_krcg() -> Any:
    """Load krcg's VTES card map from the files bundled with krcg (about one second)."""
    from krcg import vtes

    if not len(vtes.VTES):
        vtes.VTES.load_from_vekn()
    return vtes.VTES


def _cost(c: Any) -> str:
    parts = []
    if getattr(c, "pool_cost", None):
        parts.append(f"{c.pool_cost} pool")
    if getattr(c, "blood_cost", None):
        parts.append(f"{c.blood_cost} blood")
    if getattr(c, "conviction_cost", None):
        parts.append(f"{c.conviction_cost} conviction")
    return ", ".join(parts)


def card_from_krcg(c: Any) -> Card:
    types = tuple(c.types)
    extra: dict[str, Any] = {}
    crypt = bool(CRYPT_TYPES & set(types))
    if crypt:
        extra.update(
            capacity=getattr(c, "capacity", None),
            group=getattr(c, "group", None),
            title=getattr(c, "title", None),
        )
    for key in ("pool_cost", "blood_cost", "conviction_cost"):
        value = getattr(c, key, None)
        if value not in (None, ""):
            extra[key] = value
    extra["clans"] = list(getattr(c, "clans", []) or [])
    extra["disciplines"] = list(getattr(c, "disciplines", []) or [])
    extra["crypt"] = crypt
    extra["printed_name"] = getattr(c, "printed_name", None) or c.name  # "Anson", not "Anson (G1)"
    rulings = tuple(r["text"] if isinstance(r, dict) else str(r) for r in (c.rulings or []))
    name = c.name  # krcg's unique name, e.g. "Anson (G1)" for a crypt card
    printed = getattr(c, "printed_name", None) or name
    return Card(
        game="vtes",
        id=str(c.id),
        name=name,
        types=types,
        cost="" if crypt else _cost(c),  # a vampire's capacity is not a cost: it is extra["capacity"]
        text=c.card_text or "",
        lang="en",
        names={"en": name},
        aliases=tuple(sorted({printed, *getattr(c, "name_variants", [])} - {name})),
        keywords=tuple(extra["disciplines"]),
        rulings=rulings,
        extra=extra,
    )


def iter_cards() -> Iterator[Card]:
    for c in load_krcg():
        yield card_from_krcg(c)
