"""VTES cards from krcg's official lists (read offline, never copied into the repo).

krcg has two lines with different APIs: krcg 4 (``krcg.vtes``, ``krcg.deck``; the only one on
Python 3.11) and krcg 5 (``krcg.models``, ``krcg.collections``; Python 3.12 and later). The
rest of the program sees neither: this module turns either one into the same ``Card`` (same
references, names, fields) and the same parsed deck, through ``krcg4`` or ``krcg5``.

The lists read are krcg's bundled ones, or the newer official lists ``cards update`` stored in
the user cache (``update``) when there are some.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from companion.cards.model import Card

# The card shape and deck lines both krcg lines share, named here where their callers find them.
from companion.games.vtes.common import CRYPT_TYPES, LANGS, DeckEntry, make_card  # noqa: F401

# krcg 4 reads these at import time: force its offline mode before the first import.
os.environ.setdefault("LOCAL_CARDS", "1")
os.environ.setdefault("NO_TRANSLATIONS", "1")

log = logging.getLogger(__name__)


_versions: dict[str, str] = {}  # krcg's METADATA text → the version it names


def krcg_version() -> str:
    """krcg's installed version, or "missing" (the library then says VTES could not load).

    Part of the card index's key, so asked on every start that reads cards: read from the name of
    its ``krcg-<version>.dist-info`` folder, the first on ``sys.path`` as importlib.metadata finds
    it (an upgrade renames it: seen at once). importlib.metadata itself (email, zipfile, csv with
    it) was a sixth of such a start's CPU; it answers only where the name cannot (an egg-info, a
    zip on the path, no krcg at all), its METADATA parsed as an e-mail header once per process
    and text."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:  # absent, or a zip: importlib.metadata looks there below
            continue
        infos = [n for n in names if n.lower().startswith("krcg-") and n.endswith((".dist-info", ".egg-info"))]
        if len(infos) == 1 and infos[0].endswith(".dist-info"):
            return infos[0][len("krcg-"):-len(".dist-info")]
        if infos:
            break
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution("krcg")
    except PackageNotFoundError:
        return "missing"
    text = dist.read_text("METADATA")
    if not text:
        return dist.version
    found = _versions.get(text)
    if found is None:
        found = _versions[text] = dist.version
    return found


def krcg_major() -> int:
    head = krcg_version().split(".")[0]
    if not head.isdigit():
        from companion.games.vtes.update import _say

        raise ImportError(_say("cards.vtes.krcg_missing"))
    return int(head)


def backend() -> ModuleType:
    """The adapter for the installed krcg line."""
    if krcg_major() >= 5:
        from companion.games.vtes import krcg5 as module
    else:
        from companion.games.vtes import krcg4 as module
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
        from companion.games.vtes.common import current

        lists = current()
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


def moved(lists: Path, to: Path) -> None:
    """The lists read from ``lists`` now live in ``to`` (``cards update`` renamed its folder and
    swapped it in): their collection, if still the one in memory, is kept as read from ``to``;
    the warnings about the lists used before go."""
    with _lock:
        cards = _loaded.get(str(lists))
        _loaded.clear()
        warnings.clear()
        if cards is not None:
            _loaded[str(to)] = cards


def release() -> None:
    """Let krcg's collection go, read again on next use (the warnings stay, for the library's
    load problems): once its cards are ours, nothing in a running app needs it but a deck read,
    which reads it again as it does after a start from the card index. Kept, it held about
    30 MB of krcg's objects for the life of the app after every start that built the index."""
    with _lock:
        _loaded.clear()
        backend().release()


def iter_cards(lists: Path | None = None) -> Iterator[Card]:
    yield from cards_of(load_krcg(lists))


def cards_of(collection: Any) -> Iterator[Card]:
    module = backend()
    for c in module.iter_krcg(collection):
        yield module.to_card(c)


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
