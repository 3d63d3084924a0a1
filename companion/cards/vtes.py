"""VTES cards from krcg's official lists (read offline, never copied into the repo).

krcg has two lines with different APIs: krcg 4 (``krcg.vtes``, ``krcg.deck``; the only one on
Python 3.11) and krcg 5 (``krcg.models``, ``krcg.collections``; Python 3.12 and later). The
rest of the program sees neither: this module turns either one into the same ``Card`` (same
references, names, fields) and the same parsed deck, through ``vtes_krcg4`` or ``vtes_krcg5``.

The lists read are krcg's bundled ones, or the newer official lists ``cards update`` stored in
the user cache (``vtes_update``) when there are some.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import ModuleType
from typing import Any

from companion.cards.model import Card

# krcg 4 reads these at import time: force its offline mode before the first import.
os.environ.setdefault("LOCAL_CARDS", "1")
os.environ.setdefault("NO_TRANSLATIONS", "1")

log = logging.getLogger(__name__)
CRYPT_TYPES = {"Vampire", "Imbued"}
LANGS = ("fr", "es")  # the official translations, besides English


def krcg_version() -> str:
    """krcg's installed version, or "missing" (the library then says VTES could not load)."""
    try:
        return version("krcg")
    except PackageNotFoundError:
        return "missing"


def krcg_major() -> int:
    head = krcg_version().split(".")[0]
    if not head.isdigit():
        raise ImportError("krcg is not installed: pip install -e . installs it")
    return int(head)


def backend() -> ModuleType:
    """The adapter for the installed krcg line."""
    if krcg_major() >= 5:
        from companion.cards import vtes_krcg5 as module
    else:
        from companion.cards import vtes_krcg4 as module
    return module


# krcg's own card collection and the source it came from. One at a time: krcg 4 keeps its
# cards in one global map, so reading other lists replaces the ones read before.
_loaded: dict[str, Any] = {}
_lock = threading.RLock()  # the card library and a deck check may ask from two threads at once
warnings: list[str] = []  # why updated lists were set aside, for the library's load problems


def read_lists(lists: Path | None) -> Any:
    """krcg's collection read from ``lists`` (None: krcg's bundled lists); errors propagate."""
    with _lock:
        _loaded.clear()
        cards = backend().load(lists)
        _loaded[str(lists or "")] = cards
        return cards


def load_krcg(lists: Path | None = None, *, use_updates: bool = True) -> Any:
    """krcg's card collection: from ``lists`` (a folder of official CSVs) when given, else from
    the user's updated lists when ``cards update`` stored some, else from krcg's own files."""
    if lists is None and use_updates:
        from companion.cards import vtes_update

        lists = vtes_update.current()
    key = str(lists or "")
    with _lock:
        if key in _loaded:
            return _loaded[key]
        if lists is None:
            return read_lists(None)
        try:
            return read_lists(lists)
        except Exception as exc:  # stored lists this krcg cannot read: the bundled ones still work
            log.warning("updated VTES lists in %s unreadable: %s", lists, exc)
            warnings.append(f"{lists}: {type(exc).__name__}: {exc}")
            cards = read_lists(None)
            _loaded[key] = cards  # not again in this process
            return cards


def forget() -> None:
    """Read the lists again on next use (after ``cards update`` swapped them)."""
    with _lock:
        _loaded.clear()
        warnings.clear()


def make_card(*, id: int | str, name: str, printed: str, types: list[str], text: str, crypt: bool,
              capacity: int | None = None, group: str | None = None, title: str | None = None,
              costs: dict[str, Any] | None = None, clans: list[str] | None = None,
              disciplines: list[str] | None = None, rulings: list[str] | None = None,
              aliases: set[str] | None = None, i18n: dict[str, dict[str, str]] | None = None) -> Card:
    """The one shape of a VTES card, whichever krcg line read it."""
    extra: dict[str, Any] = {}
    if crypt:
        extra.update(capacity=capacity, group=group, title=title)
    for key, value in (costs or {}).items():
        if value not in (None, ""):
            extra[f"{key}_cost"] = str(value)
    extra["clans"] = list(clans or [])
    extra["disciplines"] = list(disciplines or [])
    extra["crypt"] = crypt
    extra["printed_name"] = printed  # "Anson", not "Anson (G1)"
    names = {"en": name}
    translations: dict[str, dict[str, str]] = {}
    for lang, tr in sorted((i18n or {}).items()):
        if lang in LANGS and tr.get("name") and tr.get("text"):
            # A vampire keeps its group in every language: "Anson (G1)".
            suffix = name[len(printed):] if name.startswith(printed) else ""
            translations[lang] = {"name": tr["name"] + suffix, "text": tr["text"]}
            names[lang] = tr["name"] + suffix
    if translations:
        extra["i18n"] = translations
    cost = ""
    if crypt:
        cost = f"capacity {capacity}" if capacity else ""
    else:
        cost = ", ".join(f"{v} {k}" for k, v in (costs or {}).items() if v not in (None, ""))
    return Card(
        game="vtes",
        id=str(id),
        name=name,
        types=tuple(types),
        cost=cost,
        text=text or "",
        lang="en",
        names=names,
        aliases=tuple(sorted((aliases or set()) - {name, *names.values()})),
        keywords=tuple(extra["disciplines"]),
        rulings=tuple(rulings or ()),
        extra=extra,
    )


def iter_cards(lists: Path | None = None) -> Iterator[Card]:
    yield from cards_of(load_krcg(lists))


def cards_of(collection: Any) -> Iterator[Card]:
    module = backend()
    for c in module.iter_krcg(collection):
        yield module.to_card(c)


@dataclass(frozen=True)
class DeckEntry:
    """One line of a parsed VTES deck, whichever krcg line parsed it."""

    id: str
    count: int
    crypt: bool
    name: str
    group: str = ""  # "1"…"7" or "ANY" for crypt cards
    banned: str = ""  # the date it was banned, ISO, or ""


@dataclass
class ParsedDeck:
    entries: list[DeckEntry]
    failed: list[tuple[int, str]]  # (line as krcg counted it, the text it could not read)


class _Collect(logging.Handler):
    """krcg reports unreadable lines as warnings on its logger: they become the deck's report."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[tuple[int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        import re

        line = getattr(record, "line", None)
        match = re.search(r'failed to parse "(.*)"', record.getMessage())
        if match and line is not None:
            self.lines.append((int(line), match.group(1)))


def parse_deck(text: str) -> ParsedDeck:
    """A deck list in any format krcg reads (TWD, JOL, Lackey, VDB/Amaranth text)."""
    module = backend()
    cards = load_krcg()
    collector = _Collect()
    logger = logging.getLogger("krcg")
    logger.addHandler(collector)
    propagate, logger.propagate = logger.propagate, False
    try:
        entries = module.parse_deck(text, cards)
    finally:
        logger.removeHandler(collector)
        logger.propagate = propagate
    return ParsedDeck(entries, collector.lines)
