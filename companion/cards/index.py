"""The compiled card index: the catalog stored in SQLite in the user cache directory, so that a
warm start reads one file instead of parsing YAML and krcg's CSV lists.

Kept per game: each game's row has its own key, a hash of what that game is read from (its
folder's files, the user's own cards of that game, its card source's name, version and files:
the lists ``cards update`` fetched), their paths, sizes and modification times, plus the index
format version. A start reads the games whose key still holds and rebuilds only the others
(a user's card added to one game, on a Raspberry Pi: that game, not the 4,000 cards of the largest game again).

Stored as JSON, never pickle: reading the cache must not be able to run code, whoever wrote the
file. Per game, the cards' short fields are columns (``_rows``: shaped so that 4,000 cards are
made without a line of Python per card); their long fields (text, rulings, flavour, extra: four
fifths of the bytes) are one JSON array a line, each card's own line decoded when first asked
(``model.Card.__getattr__``). A start reads and checks every game's row and makes no card: a
game's cards are made when first asked (``StoredCards``). Each game's row carries a CRC of all
it holds: a damaged row is rebuilt, never trusted, and the other games' rows are kept.

The card search is kept in parts (``search.PartRecord``: one per game, one for a user's own
cards of a game), each under the key of what it is made of, as binary segments (SQLite blobs,
read with no parsing; a CRC each), with a map of each game's parts (``search_map``, under the
game's row key) and of the whole catalog's (its row ``*``, under the catalog's key). A warm start
does not read them, the first search does (``search_index``): the parts of the whole catalog at
once when it is the one kept; otherwise each game's parts as kept while its cards are unchanged,
found by what they are made of when they changed (a game built again with the very cards it had:
a user's file that cannot be read, reasons in another language), and the others ranked again
and kept (``keep_search``): a user's card added to one game ranks that card's part, not every
game's 4,000 cards. A first build ranks every part with the cards; after a game was rebuilt,
the first search does, so that a user's card added costs no search to a command that searches
nothing.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import logging
import os
import sqlite3
import sys
import tempfile
import threading
import zlib
from array import array
from collections import Counter, deque
from collections.abc import Callable, ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from itertools import accumulate, chain, islice, repeat
from operator import le, sub
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion import paths, registry
from companion.cards import catalog as catalog_mod
from companion.cards import gcpause
from companion.cards.catalog import Catalog
from companion.cards.gamedata import GameInfo
from companion.cards.model import LATER, STORED, Card, later_json
from companion.i18n import add_messages, language

if TYPE_CHECKING:
    from companion.cards.search import PartRecord, SearchIndex

log = logging.getLogger(__name__)
FORMAT = 21  # bump when the stored shape of Card/GameInfo or of the search's parts (search.STATE_FORMAT) changes
WHOLE = "*"  # the search_map row of the whole catalog's parts (no game has this id)


def index_path() -> Path:
    return paths.cache_dir() / "cards-index.sqlite3"


def game_key(game_id: str, folder: Path | None, overlay: Path | None) -> str:
    """The key of one game's row: what it is read from (see the module's doc)."""
    h = hashlib.sha256(f"format {FORMAT}; {game_id}".encode())
    files = catalog_mod.unit_files(game_id, folder, overlay)
    source = registry.hook(game_id, "card_source") if folder is not None else None
    if source is not None:
        h.update(f"; {source.name()} {source.version()}".encode())
        files += source.files()
    for path in files:
        try:
            st = path.stat()
        except OSError as exc:  # absent, a dangling link, a loop: the loader names it; the key notes it
            h.update(f"\n{path}|{exc.errno}".encode())
            continue
        h.update(f"\n{path}|{st.st_mode}|{st.st_size}|{st.st_mtime_ns}".encode())
    return h.hexdigest()


def catalog_key(keys: dict[str, str]) -> str:
    """The key of the whole catalog (the search's index): its games' keys, in order."""
    return hashlib.sha256("\n".join(f"{g} {k}" for g, k in keys.items()).encode()).hexdigest()


# A game's row as written: key, lang, info, errors, its number of cards, rows, bodies.
Stored = tuple[str, str, bytes, bytes, str, bytes, bytes]
Rebuild = Callable[[str], dict[str, Card]]  # a game's cards built from its files (``StoredCards``'s last resort)


def _crc(row: Stored) -> int:
    crc = 0
    for part in row:
        crc = zlib.crc32(part.encode() if isinstance(part, str) else part, crc)
    return crc


def _read(db_path: Path, keys: dict[str, str], rebuild: Rebuild) -> tuple[Catalog, dict[str, Stored]]:
    """The games of ``keys`` whose stored row has that key, intact (and in the language of its
    error messages, if it has some): a catalog of them, and their rows as stored (written again
    as they are when other games are rebuilt). Their cards are made when first asked
    (``StoredCards``; ``rebuild`` if their row cannot be made into cards then)."""
    result, rows = Catalog(), {}
    if not db_path.exists():
        return result, rows
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT value FROM meta WHERE name = 'format'").fetchone()
            if not row or row[0] != str(FORMAT):
                return result, rows
            # One query for every game's row (a query per game found each through the table's
            # index, a third of the reading): a game whose key changed is read for nothing,
            # once, before it is built again.
            current = {game: (stored, crc) for game, *stored, crc in db.execute(
                "SELECT game, key, lang, info, errors, count, data, bodies, crc FROM cards")}
        finally:
            db.close()
    except sqlite3.Error as exc:
        log.warning("card index %s unreadable (%s): rebuilding", db_path, exc)
        return Catalog(), {}
    # Tens of thousands of small objects at once: the collector would walk them again and
    # again while they are made (a fifth of a warm start), and none of them is garbage.
    with gcpause.paused():
        for game_id, key in keys.items():
            found = current.get(game_id)
            if found is None or found[0][0] != key:
                continue  # a game changed, or new: built again
            try:
                stored = _checked(game_id, *found)
                if _decode(result, game_id, stored, _Remade(db_path, game_id, key, rebuild)):
                    rows[game_id] = stored
            except (ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
                log.warning("card index %s: the row of %s is unreadable (%s): rebuilding it", db_path, game_id, exc)
                rows.pop(game_id, None)
                result.games.pop(game_id, None)
                result.cards.pop(game_id, None)
                result.errors.pop(game_id, None)
    return result, rows


def _checked(game_id: str, row: list[Any], crc: int) -> Stored:
    """A game's row as read, when its CRC says it is what was written."""
    stored = tuple(row)
    if len(stored) != 7 or _crc(stored) != crc:  # type: ignore[arg-type]
        raise ValueError(f"the row of {game_id} is not what was written")
    return stored  # type: ignore[return-value]


def _decode(result: Catalog, game_id: str, stored: Stored, rebuild: Callable[[Exception], dict[str, Card]]) -> bool:
    """Add one stored game to ``result``; False when it must be built again all the same."""
    _, lang, info, errors, count, data, bodies = stored
    messages = json.loads(errors)
    if messages and lang != language():
        # The reasons are words of the language they were written in: another language reads
        # that game's files again (only then: a game with no problem is the same in all).
        return False
    if info:
        short, _, later = info.partition(b"\n")  # GameInfo.stored's two parts (JSON has no raw newline)
        if not later:
            raise ValueError(f"the game {game_id} without its glossary and rules")
        result.games[game_id] = game = GameInfo.from_stored(json.loads(short), later)
        add_messages(game.messages)  # a warm start reads no game.yaml: its messages come from here
        if not count.isdigit():
            raise ValueError(f"the game {game_id} of {count!r} cards")
        result.cards[game_id] = StoredCards(game_id, int(count), data, bodies, rebuild)
    for message in messages:
        result.error(game_id, message)
    return True


class StoredCards(Mapping[str, Card]):
    """One game's cards as the card index holds them, made into ``Card`` objects when something
    first asks for one of them (by id, ``in``, a walk over them, their values or items): a warm
    start reads and checks the bytes of every game, and makes the cards of none. Most starts
    show a menu of games, or one game's table, before any card is named; the first search or
    card shown then makes that game's cards once (the largest game's 4,000 in a few milliseconds here).
    How many there are is known without making them (the index keeps the count).

    The same mapping as the dict of the cards built from the files: same ids in the same order,
    equal cards. Made under a lock (the UI and a worker may ask at once). A row that passed its
    CRC but cannot be made into cards (written by a program of the same index format with
    another idea of it) is not trusted: its game is built again from its files, with a warning,
    and its row dropped so that the next start builds and keeps it again."""

    __slots__ = ("_game", "_count", "_data", "_bodies", "_rebuild", "_made", "_lock")

    def __init__(self, game: str, count: int, data: bytes, bodies: bytes,
                 rebuild: Callable[[Exception], dict[str, Card]]) -> None:
        self._game, self._count, self._data, self._bodies, self._rebuild = game, count, data, bodies, rebuild
        self._made: dict[str, Card] | None = None
        self._lock = threading.Lock()

    def _cards(self) -> dict[str, Card]:
        made = self._made
        if made is None:
            with self._lock:
                made = self._made
                if made is None:
                    made = self._made = self._make()
        return made

    def _make(self) -> dict[str, Card]:
        with gcpause.paused():  # as _read: thousands of objects, none garbage
            try:
                cards = _cards(json.loads(self._data), self._bodies)
                if len(cards) != self._count:
                    raise ValueError(f"{len(cards)} cards where the index counted {self._count}")
            except (ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
                cards = self._rebuild(exc)
        self._data = self._bodies = b""  # in the cards now (each its own long fields)
        return cards

    @property
    def made(self) -> bool:
        """Whether the cards are made (a test's question: nothing else needs to know)."""
        return self._made is not None

    def __getitem__(self, card_id: str) -> Card:
        return self._cards()[card_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._cards())

    def __len__(self) -> int:
        made = self._made
        return self._count if made is None else len(made)

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._cards()

    def get(self, card_id: str, default: Any = None) -> Any:
        return self._cards().get(card_id, default)

    def keys(self) -> KeysView[str]:
        return self._cards().keys()

    def values(self) -> ValuesView[Card]:
        return self._cards().values()

    def items(self) -> ItemsView[str, Card]:
        return self._cards().items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StoredCards):
            other = other._cards()
        elif isinstance(other, Mapping) and not isinstance(other, dict):
            other = dict(other.items())
        return self._cards() == other if isinstance(other, dict) else NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a mapping, as a dict

    def __repr__(self) -> str:
        return f"StoredCards({self._game!r}, {self._count} cards{'' if self._made is not None else ', not made yet'})"


class _Remade:
    """``StoredCards``'s last resort for one game: drop its row from the index (the next start
    builds and keeps it again, as for any row not trusted), then build its cards from its files."""

    def __init__(self, db_path: Path, game_id: str, key: str, rebuild: Rebuild) -> None:
        self.db_path, self.game_id, self.key, self.rebuild = db_path, game_id, key, rebuild

    def __call__(self, exc: Exception) -> dict[str, Card]:
        log.warning("card index %s: the cards of %s cannot be made from their row (%s): rebuilding them",
                    self.db_path, self.game_id, exc)
        try:
            db = sqlite3.connect(self.db_path, isolation_level=None)
            try:
                db.execute("DELETE FROM cards WHERE game = ? AND key = ?", (self.game_id, self.key))
            finally:
                db.close()
        except (OSError, sqlite3.Error) as err:  # a read-only cache: the next start tries again
            log.warning("cannot drop the row of %s from %s: %s", self.game_id, self.db_path, err)
        return self.rebuild(self.game_id)


_FIRST = tuple(f.name for f in dataclasses.fields(Card) if f.name not in LATER)  # read at start
_TUPLE_FIELDS = tuple(f.name for f in dataclasses.fields(Card) if f.name in _FIRST and str(f.type).startswith("tuple"))
_SPLIT = ("id", "name")  # one string each, every card its own: a column of text, cut at SEP
# The other short fields: a card's row holds those that differ from its game's commonest value
# (the game's id, its cards' language, an empty cost: the same for thousands of cards).
_PLAIN = tuple(f for f in _FIRST if f not in _TUPLE_FIELDS and f not in _SPLIT and f != "names")
_ROW_FIELDS = frozenset((*_PLAIN, "names"))
SEP = "\x1f"  # ASCII's unit separator: no card's id or name has one (a column that does is a JSON list)


def _column(values: list[str]) -> str | list[str]:
    return values if any(SEP in v for v in values) else SEP.join(values)


def _split(column: str | list[str], count: int) -> list[str]:
    if isinstance(column, str):  # no card: "" (one card of an empty name: "" too, split to [""])
        values = column.split(SEP) if count or column else []
    else:
        values = column
    if len(values) != count:
        raise ValueError(f"a column of {len(values)} values for {count} cards")
    return values


def _packed(values: Iterable[int]) -> list[str]:
    """Numbers as JSON data: the narrowest array type that holds them and its little-endian
    bytes in base64. A start reads thousands of them with one C call (``_numbers``), where a
    JSON list of them is a number object parsed each."""
    values = list(values)
    top = max(values, default=0)
    packed = array("B" if top < 1 << 8 else "H" if top < 1 << 16 else "I", values)
    if sys.byteorder == "big":
        packed.byteswap()
    return [packed.typecode, base64.b64encode(packed.tobytes()).decode("ascii")]


def _numbers(stored: list[str], count: int | None = None) -> array:
    """``_packed``'s numbers back (``count`` of them, when given). Data, never code."""
    typecode, text = stored
    if typecode not in ("B", "H", "I"):
        raise ValueError(f"a stored array of type {typecode!r}")
    values = array(typecode)
    values.frombytes(base64.b64decode(text, validate=True))
    if sys.byteorder == "big":
        values.byteswap()
    if count is not None and len(values) != count:
        raise ValueError(f"{len(values)} numbers for {count}")
    return values


def _rows(cards: dict[str, Card]) -> tuple[bytes, bytes]:
    """The short fields of ``cards`` as one JSON object of columns (``_cards`` reads it back),
    and their long fields as a second blob: a JSON array of each card's ``later_json``, as UTF-8,
    where each begins in the column ``offsets`` (and ends a byte before the next: a comma, the
    last one's the closing bracket).

    Shaped for reading, which every start does: the ids and names are columns of text cut with
    ``str.split``; a tuple field is a number into the list of the tuples met, each a run of
    numbers into one list of words; the other fields are the game's commonest value, and only
    the cards that differ (or whose names are more than their name in their own language) have
    a row of their own (``at``: their places; ``rows``: those fields). Numbers are packed
    arrays (``_packed``). So a start parses no JSON value per card but its id and name, and
    makes each card with no Python code of its own per card."""
    listed = list(cards.values())
    common = {}
    for name in _PLAIN if listed else ():  # the commonest value of each field
        try:
            common[name] = Counter(getattr(card, name) for card in listed).most_common(1)[0][0]
        except TypeError:  # a value that is no dict key (none of these fields' values today): by its JSON
            common[name] = json.loads(Counter(json.dumps(getattr(card, name)) for card in listed).most_common(1)[0][0])
    at, rows = [], []
    for i, card in enumerate(listed):
        row = {name: value for name in _PLAIN if (value := getattr(card, name)) != common[name]}
        if card.names != {card.lang: card.name}:
            row["names"] = card.names
        if row:
            at.append(i)
            rows.append(row)
    groups: dict[tuple[str, ...], int] = {(): 0}
    tuples = {name: _packed([groups.setdefault(tuple(getattr(card, name)), len(groups)) for card in listed])
              for name in _TUPLE_FIELDS}
    words: dict[str, int] = {}
    numbered = [[words.setdefault(w, len(words)) for w in group] for group in groups]
    parts = [later_json(card).encode() for card in listed]
    data = {"n": len(listed), "common": common, "at": at, "rows": rows, "tuples": tuples,
            "groups": _packed(n for group in numbered for n in group),
            "group_ends": _packed(accumulate(map(len, numbered))), "words": list(words),
            # (no card: "[]", its one offset past the bracket)
            "offsets": _packed(accumulate((len(part) + 1 for part in parts), initial=1) if parts else [2]),
            **{name: _column([getattr(card, name) for card in listed]) for name in _SPLIT}}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(), b"[" + b",".join(parts) + b"]"


def _ascending(values: array, last: int) -> bool:
    """Whether ``values`` never go down and end at ``last`` (or are none)."""
    return not values or (values[-1] == last and all(map(le, values, islice(values, 1, None))))


def _cards(data: dict[str, Any], bodies: bytes) -> dict[str, Card]:
    """Cards by id from ``_rows``'s columns. What pickle did: fill the frozen dataclass's fields
    without running its __init__ (4,000 cards on every start); the values are plain JSON data,
    checked. Each step runs over all cards inside C (``map``, ``zip``): a Python loop over 4,000
    cards, a call or a statement each, was most of a warm start. Each card's __dict__ is made
    whole in one step from the columns (a dict per card from its values), then the few cards
    that differ from the game's common values get their own."""
    count, same = data["n"], sys.intern
    at, rows = data["at"], data["rows"]
    columns = [_split(data[name], count) for name in _SPLIT]
    tuples = [_numbers(data["tuples"][name], count) for name in _TUPLE_FIELDS]
    offsets = _numbers(data["offsets"], count + 1)
    if len(at) != len(rows) or (at and not (0 <= min(at) and max(at) < count)):
        raise ValueError(f"a card's own fields for a card beyond the {count}")
    if offsets[0] != 1 + (not count) or not _ascending(offsets, len(bodies)):
        raise ValueError(f"cards' long fields outside the {len(bodies)} bytes")
    common = {name: same(v) if isinstance(v, str) else v for name, v in data["common"].items()}
    if (common.keys() != set(_PLAIN) and count) or not all(map(_ROW_FIELDS.issuperset, rows)):
        raise ValueError("a card field unknown or missing")
    # The same words and the same tuples of them come back thousands of times (a type, a clan's
    # keywords, no alias): one string and one tuple each, about a megabyte of 4,000 cards' memory.
    words = list(map(same, data["words"]))
    flat, ends = _numbers(data["groups"]), _numbers(data["group_ends"])
    if not _ascending(ends, len(flat)) or (flat and max(flat) >= len(words)):
        raise ValueError("tuples of words that are not there")
    runs = map(flat.__getitem__, map(slice, chain((0,), ends), ends))
    group = list(map(tuple, map(map, repeat(words.__getitem__), runs))).__getitem__
    # A card's names are in its row when they are more than its name in its own language (the
    # card makes those when first asked: model.Card.__getattr__); its long fields are where
    # they are in ``bodies`` (model.STORED), decoded when first asked.
    fields = (*common, *_TUPLE_FIELDS, *_SPLIT, STORED)
    values = zip(*map(repeat, common.values()), *(map(group, numbers) for numbers in tuples),
                 *columns, zip(repeat(bodies), offsets, map(sub, islice(offsets, 1, None), repeat(1))),
                 strict=False)  # the common values repeat: the card columns end it
    dicts = list(map(dict, map(zip, repeat(fields), values)))  # each card's __dict__
    deque(map(dict.update, map(dicts.__getitem__, at), rows), 0)
    made = list(map(object.__new__, repeat(Card, count)))
    deque(map(object.__setattr__, made, repeat("__dict__"), dicts), 0)
    return dict(zip(columns[0], made, strict=True))


def stored_cards(game_id: str) -> dict[str, Card] | None:
    """One game's cards as the card index holds them, when its row is current (built from the
    files that game reads today, its card source's included) and intact: what the next start
    would read, in tens of milliseconds. None otherwise: the caller reads the game's sources."""
    overlay = catalog_mod.overlay_dir()
    for unit, folder in catalog_mod.units(catalog_mod.cardmap_dir(), overlay, registry.user_dir()):
        if unit == game_id:
            found, rows = _read(index_path(), {game_id: game_key(game_id, folder, overlay)}, _rebuild)
            return dict(found.cards[game_id]) if game_id in rows and game_id in found.cards else None
    return None


def _rebuild(game_id: str) -> dict[str, Card]:
    """One game's cards built from its files, where a start finds them (``StoredCards``'s last resort)."""
    return dict(catalog_mod.build(only=[game_id]).cards.get(game_id, {}))


def all_cards(catalog: Catalog) -> list[Card]:
    """Every card of every game, in the order the library and its search list them."""
    return [card for cards in catalog.cards.values() for card in cards.values()]


# The search's rows as written: its parts (key, context, meta, data, stats, crc) and its map
# (game or WHOLE, key, parts as JSON).
SearchRows = tuple[list[tuple[Any, ...]], list[tuple[str, str, str]]]


def _part_row(record: PartRecord) -> tuple[Any, ...]:
    return (*record, _crc(record))  # type: ignore[arg-type]


def _map_rows(keys: dict[str, str], search: SearchIndex) -> list[tuple[str, str, str]]:
    """The map of ``search``'s parts: each game's (under its row's key), and the whole catalog's
    in order with the context each was ranked in (under the catalog's key)."""
    layout = search.layout()
    whole = [[record.key, record.context] for record in search.records()]
    return [*((g, k, json.dumps(layout.get(g, []))) for g, k in keys.items()),
            (WHOLE, catalog_key(keys), json.dumps(whole))]


def _search_rows(keys: dict[str, str], search: SearchIndex) -> SearchRows:
    return [_part_row(record) for record in search.records()], _map_rows(keys, search)


def _old_search_rows(db_path: Path) -> SearchRows | None:
    """The search's rows of the index as it is, written again with the games rebuilt: the first
    search finds there the parts whose cards did not change."""
    try:
        with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
            return (db.execute("SELECT key, context, meta, data, stats, crc FROM search").fetchall(),
                    db.execute("SELECT game, key, parts FROM search_map").fetchall())
    except sqlite3.Error:
        return None


def _records(rows: list[tuple[Any, ...]], db_path: Path) -> dict[str, PartRecord]:
    """The parts of ``rows`` that are what was written (a damaged one is ranked again)."""
    from companion.cards.search import PartRecord

    records = {}
    for *fields, crc in rows:
        record = PartRecord(*fields)
        if _crc(record) != crc:  # type: ignore[arg-type]
            log.warning("card index %s: a part of the search is not what was written: rebuilding it", db_path)
            continue
        records[record.key] = record
    return records


def read_search(catalog: Catalog) -> list[list[str]] | None:
    """The search's parts kept for ``catalog`` as a whole, (key, context) each, in order (None
    when that catalog was not read from, or written to, the index, or no search of these very
    games was kept since)."""
    db_path = index_path()
    if not catalog.index_key or not db_path.exists():
        return None
    try:
        with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
            row = db.execute("SELECT key, parts FROM search_map WHERE game = ?", (WHOLE,)).fetchone()
        return json.loads(row[1]) if row and row[0] == catalog.index_key else None
    except (sqlite3.Error, ValueError) as exc:
        log.warning("search index in %s unreadable (%s): computing it", db_path, exc)
        return None


def search_index(catalog: Catalog) -> SearchIndex:
    """The card search over ``catalog``, from the parts the index keeps where they still hold
    (see the module's doc); what had to be ranked again is kept for the next start."""
    from companion.cards.search import SearchIndex, assemble

    cards = all_cards(catalog)
    db_path = index_path()
    if not catalog.index_key or not db_path.exists():
        return SearchIndex(cards)
    try:
        stored, known, trusted = _kept_search(db_path, catalog)
    except (sqlite3.Error, ValueError, TypeError) as exc:
        log.warning("search index in %s unreadable (%s): computing it", db_path, exc)
        stored, known, trusted = {}, {}, None
    search = assemble(cards, stored, known, trusted)
    if search.built or trusted is None:
        keep_search(catalog, search)
    return search


def _kept_search(db_path: Path, catalog: Catalog) -> tuple[dict[str, PartRecord], dict[str, list[str]], Any]:
    """What the index keeps of the search for ``catalog`` (see ``search.assemble``): the parts
    (only those of the whole catalog when it is the one kept: the usual), each game's parts while
    its row is the one the catalog was read from, and the whole catalog's parts."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        keys = dict(db.execute("SELECT game, key FROM cards"))
        if catalog_key({g: keys.get(g, "") for g in catalog.index_games}) != catalog.index_key:
            return {}, {}, None  # other games' rows since: nothing of it is this catalog's
        mapped = {game: (key, parts) for game, key, parts in db.execute("SELECT game, key, parts FROM search_map")}
        known = {g: json.loads(parts) for g, (key, parts) in mapped.items() if g != WHOLE and keys.get(g) == key}
        whole, trusted = mapped.get(WHOLE), None
        query = "SELECT key, context, meta, data, stats, crc FROM search"
        if whole is not None and whole[0] == catalog.index_key:
            trusted = json.loads(whole[1])
            if not (isinstance(trusted, list) and all(
                    isinstance(t, list) and len(t) == 2 and set(map(type, t)) <= {str} for t in trusted)):
                raise ValueError("a map of the search's parts that is not one")
            wanted = [key for key, _ in trusted]
            rows = db.execute(f"{query} WHERE key IN ({', '.join('?' * len(wanted))})", wanted).fetchall()
        else:
            rows = db.execute(query).fetchall()
    finally:
        db.close()
    return _records(rows, db_path), known, trusted


def keep_search(catalog: Catalog, search: SearchIndex) -> None:
    """Keep the parts just ranked for ``catalog`` and the map of them all in the index, if the
    index still holds that catalog (another start may have rebuilt a game since); parts no map
    names any more go. One SQLite transaction: a crash leaves the index as it was."""
    db_path = index_path()
    if not catalog.index_key or not db_path.exists() or not paths.writable(db_path.parent):
        return
    records, new = search.records(), search.new_records()  # the others are there, as read
    try:
        db = sqlite3.connect(db_path, isolation_level=None)
        try:
            db.execute("BEGIN IMMEDIATE")
            keys = dict(db.execute("SELECT game, key FROM cards ORDER BY pos"))
            games = {g: keys.get(g, "") for g in catalog.index_games}
            if catalog_key(games) == catalog.index_key:
                db.executemany("INSERT OR REPLACE INTO search VALUES (?, ?, ?, ?, ?, ?)", map(_part_row, new))
                db.execute("DELETE FROM search_map")
                db.executemany("INSERT INTO search_map VALUES (?, ?, ?)", _map_rows(games, search))
                wanted = {r.key for r in records}
                db.executemany("DELETE FROM search WHERE key = ?",
                               [(k,) for (k,) in db.execute("SELECT key FROM search").fetchall() if k not in wanted])
            db.execute("COMMIT")
        finally:
            db.close()
    except (OSError, sqlite3.Error) as exc:  # a read-only cache: computed again next time
        log.warning("cannot keep the search index in %s: %s", db_path, exc)


def _row(catalog: Catalog, game_id: str, key: str) -> Stored:
    """One freshly built game as its row is written."""
    info = catalog.games.get(game_id)
    cards = catalog.cards.get(game_id, {}) if info is not None else {}
    rows, bodies = _rows(cards) if info is not None else (b"", b"")
    return (key, language(), b"\n".join(info.stored()) if info is not None else b"",
            json.dumps(catalog.errors.get(game_id, []), ensure_ascii=False).encode(), str(len(cards)), rows, bodies)


def _write(db_path: Path, keys: dict[str, str], rows: dict[str, Stored], search: SearchRows | None) -> None:
    """Every game's row (``rows``, in the order of ``keys``) and, if given, the search's rows, in
    a new file that replaces the old one."""
    # Written to a temporary file then renamed: a crash mid-write leaves the old index or none.
    fd, tmp = tempfile.mkstemp(prefix="cards-index-", suffix=".tmp", dir=db_path.parent)
    os.close(fd)
    try:
        with sqlite3.connect(tmp) as db:
            # Pages of 64 KiB (the largest): a game's cards are megabytes that a start reads whole,
            # and SQLite reads a value longer than a page one page at a time (a third of the
            # reading at its 4 KiB).
            db.execute("PRAGMA page_size = 65536")
            db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT)")
            db.execute("CREATE TABLE cards (game TEXT PRIMARY KEY, pos INTEGER, key TEXT, lang TEXT, info BLOB,"
                       " errors BLOB, count TEXT, data BLOB, bodies BLOB, crc INTEGER)")
            db.execute("CREATE TABLE search (key TEXT PRIMARY KEY, context TEXT, meta BLOB, data BLOB, stats BLOB,"
                       " crc INTEGER)")
            db.execute("CREATE TABLE search_map (game TEXT PRIMARY KEY, key TEXT, parts TEXT)")
            db.execute("INSERT INTO meta VALUES ('format', ?)", (str(FORMAT),))
            db.executemany("INSERT INTO cards VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           [(g, pos, *rows[g], _crc(rows[g])) for pos, g in enumerate(keys)])
            if search is not None:
                db.executemany("INSERT INTO search VALUES (?, ?, ?, ?, ?, ?)", search[0])
                db.executemany("INSERT INTO search_map VALUES (?, ?, ?)", search[1])
        db.close()
        os.replace(tmp, db_path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load(cardmap: Path | None = None, overlay: Path | None = None, rebuild: bool = False,
         progress: catalog_mod.Progress | None = None) -> tuple[Catalog, bool]:
    """The catalog, from the index as far as it is current. Returns (catalog, rebuilt: whether
    some game had to be built again); ``progress`` hears of each game being rebuilt (a first
    start takes seconds)."""
    user_games = registry.user_dir() if cardmap is None else None  # a test's own cardmap comes alone
    cardmap = cardmap or catalog_mod.cardmap_dir()
    overlay = overlay if overlay is not None else catalog_mod.overlay_dir()
    keys = {g: game_key(g, folder, overlay) for g, folder in catalog_mod.units(cardmap, overlay, user_games)}
    db_path = index_path()
    def built(game_id: str) -> dict[str, Card]:  # StoredCards's last resort
        return dict(catalog_mod.build(cardmap, overlay, user_games=user_games, only=[game_id]).cards.get(game_id, {}))

    cached, rows = (Catalog(), {}) if rebuild else _read(db_path, keys, built)
    stale = [g for g in keys if g not in rows]
    if not stale:
        cached.index_key, cached.index_games = catalog_key(keys), tuple(keys)
        return cached, False
    log.info("card index: building %s (%d of %d games)", ", ".join(stale), len(stale), len(keys))
    fresh = catalog_mod.build(cardmap, overlay, progress=progress, user_games=user_games, only=stale)
    result = Catalog(transient=fresh.transient)
    for g in keys:  # in the catalog's own order, whichever games came from where
        part = cached if g in rows else fresh
        if g in part.games:
            result.games[g], result.cards[g] = part.games[g], part.cards[g]
        if g in part.errors:
            result.errors[g] = part.errors[g]
    if result.transient:
        return result, True  # not cached: the next start tries krcg again
    if not paths.writable(db_path.parent):  # a read-only home: the index is rebuilt each start
        log.info("card index not saved: %s is read-only", db_path.parent)
        return result, True
    with gcpause.paused():  # the rows' bytes and the search's tables, none garbage
        rows.update({g: _row(fresh, g, keys[g]) for g in stale})
        # A first build ranks the search's parts with the cards (a first start takes its time
        # anyway); after a change to some games the first search ranks those that changed
        # (``search_index``), finding the others among the parts kept, written again here.
        if len(stale) < len(keys):
            search = _old_search_rows(db_path)
        else:
            from companion.cards.search import SearchIndex

            search = _search_rows(keys, SearchIndex(all_cards(result)))
    try:
        _write(db_path, keys, rows, search)
    except (OSError, sqlite3.Error) as exc:  # a read-only cache must not stop the game
        log.warning("cannot write the card index %s: %s", db_path, exc)
        return result, True
    # Read back as a warm start reads it: the cards' long fields then stay in the index's bytes
    # until asked for (model.STORED), where the cards just built hold them all as objects, for
    # the life of the app (about 25 MB more after the first start). A warm read costs tens of
    # milliseconds after the seconds of a build.
    stored, stored_rows = _read(db_path, keys, built)
    if all(g in stored_rows for g in keys):
        stored.index_key, stored.index_games = catalog_key(keys), tuple(keys)
        return stored, True
    result.index_key, result.index_games = catalog_key(keys), tuple(keys)
    return result, True
