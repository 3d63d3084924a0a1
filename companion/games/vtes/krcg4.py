"""The krcg 4 line (``krcg.vtes``, ``krcg.deck``): the one Python 3.11 installs."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.games.vtes.common import CRYPT_TYPES, DeckEntry, fast_yaml, make_card

_lock = threading.Lock()  # krcg 4 keeps one global card map and reads module-level switches


class _LibYaml:
    """PyYAML as krcg 4 sees it, with ``safe_load`` on libyaml's parser when PyYAML has it: the
    rulings krcg reads at each load (600 kB of YAML) took two thirds of the first deck check
    (0.7 s here, seconds on a Raspberry Pi) with the pure-Python parser, for the same data."""

    def __getattr__(self, name: str) -> Any:
        import yaml

        return getattr(yaml, name)

    @staticmethod
    def safe_load(stream: Any) -> Any:
        import yaml

        return yaml.load(stream, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - a safe loader


def load(lists: Path | None) -> Any:
    """krcg's global card map, loaded from its bundled files, or from a folder of official
    lists (``common.FILES``) through krcg's own VEKN loader, translations included."""
    from krcg import cards as kcards
    from krcg import vtes

    fast_yaml(kcards)  # its rulings, read at every load
    with _lock:
        if not isinstance(kcards.yaml, _LibYaml):
            kcards.yaml = _LibYaml()  # only krcg's card module reads YAML
        vtes.VTES.clear()
        if lists is None:
            vtes.VTES.load_from_vekn()
            return vtes.VTES
        from companion.games.vtes.common import FILES, TRANSLATIONS

        cardmap = vtes.VTES._cards
        # krcg 4 fetches with urllib, which reads file: URLs: point its loader at the folder.
        base = lists.resolve().as_uri() + "/"
        cardmap._GITHUB_BRANCH = (base, list(FILES[:3]))
        cardmap._VEKN_CSV_I18N = {
            code: (base + archive, [f"vtessets.{code}.csv", f"vtescrypt.{code}.csv", f"vteslib.{code}.csv"])
            for code, archive in TRANSLATIONS.items()
        }
        switches = (kcards.LOCAL_CARDS, kcards.NO_TRANSLATIONS, kcards.VEKN_NET_CSV)
        kcards.LOCAL_CARDS = kcards.NO_TRANSLATIONS = kcards.VEKN_NET_CSV = None
        try:
            cardmap.load_from_vekn()
        finally:
            kcards.LOCAL_CARDS, kcards.NO_TRANSLATIONS, kcards.VEKN_NET_CSV = switches
        cardmap.load_rulings()  # krcg's bundled rulings (LOCAL_CARDS is back on)
        return vtes.VTES


def release() -> None:
    """Empty krcg's global card map (the next ``load`` fills it again)."""
    from krcg import vtes

    with _lock:
        vtes.VTES.clear()


def bundled_folder() -> Path:
    """Where krcg 4 keeps its bundled lists (its top-level ``cards`` package)."""
    import cards

    return Path(cards.__file__).parent


def iter_krcg(cards: Any) -> Iterator[Any]:
    return iter(cards)


def _cost_value(value: Any) -> Any:
    return None if value in (None, "") else value


def to_card(c: Any) -> Any:
    types = list(c.types)
    crypt = bool(CRYPT_TYPES & set(types))
    i18n = {}
    for lang in ("fr", "es"):
        tr = c.i18n(lang)
        if tr and tr.get("name"):
            i18n[lang] = {"name": str(tr["name"]), "text": str(tr.get("card_text") or "")}
    rulings = [r["text"] if isinstance(r, dict) else str(r) for r in (c.rulings or [])]
    printed = getattr(c, "printed_name", None) or c.name
    return make_card(
        id=c.id, name=c.name, printed=printed, types=types, text=c.card_text or "", crypt=crypt,
        capacity=getattr(c, "capacity", None), group=getattr(c, "group", None), title=getattr(c, "title", None),
        costs={"pool": _cost_value(getattr(c, "pool_cost", None)), "blood": _cost_value(getattr(c, "blood_cost", None)),
               "conviction": _cost_value(getattr(c, "conviction_cost", None))},
        clans=list(getattr(c, "clans", []) or []), disciplines=list(getattr(c, "disciplines", []) or []),
        rulings=rulings, aliases={printed, *getattr(c, "name_variants", [])}, i18n=i18n,
    )


def parse_deck(text: str, cards: Any) -> list[DeckEntry]:
    from krcg import deck as krcg_deck

    with _lock:
        parsed = krcg_deck.Deck.from_txt(io.StringIO(text))
    return [DeckEntry(id=str(c.id), count=n, crypt=bool(c.crypt), name=c.name,
                      group=str(c.group) if c.crypt and c.group else "", banned=str(c.banned or ""))
            for c, n in parsed.cards()]
