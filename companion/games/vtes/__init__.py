"""Vampire: the Eternal Struggle: its code beside ``cardmap/vtes/``.

``rules.py`` the table (the ring, the edge, ousting, vampires' blood) and its command parsers;
``cards.py`` the card source adapter over krcg, with ``krcg4.py``/``krcg5.py`` for each krcg
line, ``common.py`` what they share and ``update.py`` the official lists fetched by
``cards update``; ``tournament.py`` its events at a venue (VEKN scoring, checks and seating); ``compare.py``
``bench compare``, our card search against krcg's.
The hooks below are what the generic packages call (``companion.registry``); each imports krcg
only when called.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.games.vtes import tournament  # noqa: F401 - the venue's hook (pure; krcg when seating)


class CardSource:
    """The VTES cards come from krcg's lists (bundled, or updated by ``cards update``)."""

    @staticmethod
    def name() -> str:
        return "krcg"

    @staticmethod
    def version() -> str:
        from companion.games.vtes.cards import krcg_version

        return krcg_version()

    @staticmethod
    def cards() -> list[Any]:
        from companion.games.vtes import cards

        try:
            return list(cards.iter_cards())
        finally:
            cards.release()  # read for the card index: not kept for the life of the app

    @staticmethod
    def warnings() -> list[str]:
        from companion.games.vtes import cards

        return list(cards.warnings)

    @staticmethod
    def files() -> list[Path]:
        from companion.games.vtes.common import current

        lists = current()
        return sorted(p for p in lists.iterdir() if p.is_file()) if lists is not None else []

    @staticmethod
    def info() -> dict[str, Any] | None:
        from companion.games.vtes.update import info

        return info()

    @staticmethod
    def update(mirror: str | None = None, timeout: float = 60.0) -> Any:
        from companion.games.vtes.update import update

        return update(mirror, timeout=timeout)

    @staticmethod
    def revert() -> bool:
        from companion.games.vtes.update import revert

        return revert()


card_source = CardSource()


def bench_compare() -> dict[str, Any]:
    """``bench compare``: our search and load against krcg's own, on its cards (compare.py)."""
    from companion.games.vtes.compare import bench_compare as compare

    return compare()


def check_deck(text: str, library: Any, rules: dict[str, Any]) -> Any:
    from companion.games.vtes.decks import check_deck as check

    return check(text, library, rules)


def deck_text(cards: list[tuple[Any, int]]) -> str:
    """Scanned cards as a deck list krcg's parser reads: its crypt/library split and bans then
    apply as for a file."""
    crypt = [f"{n} {c.name}" for c, n in cards if c.extra.get("crypt")]
    rest = [f"{n} {c.name}" for c, n in cards if not c.extra.get("crypt")]
    return "\n".join(["Crypt:", *crypt, "Library:", *rest])


def card_intent(action: str, card: Any, args: dict[str, Any]) -> dict[str, Any]:
    """A vampire laid and played is brought out with its capacity (the ``vampire`` verb's
    arguments), its blood paid from its Methuselah's pool; a master card is marked as one."""
    if card.extra.get("crypt") and action == "play" and card.extra.get("capacity"):
        args["vampire"] = {"name": card.extra.get("printed_name") or card.name,
                           "capacity": int(card.extra["capacity"])}
        args.pop("effect", None)
    if "Master" in (card.types or ()):
        args["master"] = True  # played by its owner in their master phase (or out of turn)
    return args


def card_actions(card: Any, actions: list[str]) -> list[str]:
    """A vampire with its capacity can always be played (brought out), whatever its costs."""
    return ["play"] if card.extra.get("crypt") and card.extra.get("capacity") else actions


def effects_of(card: Any) -> dict[str, dict[str, Any]]:
    """What playing a library card does, from krcg's pool cost; blood and conviction costs are
    said with the proposal (the players pay them from a vampire or an imbued)."""
    if card.extra.get("crypt"):
        return {}  # a vampire is influenced out, not paid for: the table's `vampire` verb
    spec: dict[str, Any] = {}
    cost = card.extra.get("pool_cost")
    if isinstance(cost, int) or (isinstance(cost, str) and cost.isdigit()):
        spec["pay"] = {"pool": int(cost)}
    elif cost not in (None, ""):
        spec["ask"] = _said("effects.vtes.pool_variable", cost)
    for key in ("blood_cost", "conviction_cost"):
        value = card.extra.get(key)
        if value not in (None, ""):
            spec["ask"] = _said(f"effects.vtes.{key}", value)
    return {"play": spec} if spec else {}


def _said(key: str, cost: Any) -> dict[str, str]:
    from companion.i18n import t

    return {lang: t(key, lang, cost=cost) for lang in ("fr", "en")}
