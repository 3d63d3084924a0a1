"""The compiled card index: the catalog stored in SQLite in the user cache directory, so that a
warm start reads one file instead of parsing YAML and krcg's CSV lists.

Kept per game: each game's row has its own key, a hash of what that game is read from (its
folder's files, the user's own cards of that game, its card source's name, version and files:
the lists ``cards update`` fetched), their paths, sizes and modification times, plus the index
format version. A start reads the games whose key still holds and rebuilds only the others
(a user's card added to one game, on a Raspberry Pi: that game, not the 4,000 cards of the largest game again).

Stored as JSON, never pickle: reading the cache must not be able to run code, whoever wrote the
file. Per game, the cards' short fields are columns (``_rows``: shaped so that a start makes
4,000 cards without a line of Python per card), read at start; their long fields (text,
rulings, flavour, extra: four fifths of the bytes) are one JSON array kept as bytes, each
card's own slice decoded when first asked (``model.Card.__getattr__``). Each game's row carries a CRC of all it holds: a
damaged row is rebuilt, never trusted, and the other games' rows are kept.

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

import dataclasses
import gc
import hashlib
import json
import logging
import os
import sqlite3
import sys
import tempfile
import zlib
from collections import Counter, deque
from itertools import repeat
from operator import le, or_
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion import paths, registry
from companion.cards import catalog as catalog_mod
from companion.cards.catalog import Catalog
from companion.cards.gamedata import GameInfo
from companion.cards.model import LATER, STORED, Card, later_json
from companion.i18n import add_messages, language

if TYPE_CHECKING:
    from companion.cards.search import PartRecord, SearchIndex

log = logging.getLogger(__name__)
FORMAT = 20  # bump when the stored shape of Card/GameInfo or of the search's parts (search.STATE_FORMAT) changes
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


Stored = tuple[str, str, bytes, bytes, bytes, bytes]  # a game's row as written: key, lang, info, errors, rows, bodies


def _crc(row: Stored) -> int:
    crc = 0
    for part in row:
        crc = zlib.crc32(part.encode() if isinstance(part, str) else part, crc)
    return crc


def _read(db_path: Path, keys: dict[str, str]) -> tuple[Catalog, dict[str, Stored]]:
    """The games of ``keys`` whose stored row has that key, intact (and in the language of its
    error messages, if it has some): a catalog of them, and their rows as stored (written again
    as they are when other games are rebuilt)."""
    result, rows = Catalog(), {}
    if not db_path.exists():
        return result, rows
    enabled = gc.isenabled()
    # Tens of thousands of small objects at once: the collector would walk them again and
    # again while they are made (a fifth of a warm start), and none of them is garbage.
    gc.disable()
    try:
        with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
            row = db.execute("SELECT value FROM meta WHERE name = 'format'").fetchone()
            if not row or row[0] != str(FORMAT):
                return result, rows
            current = dict(db.execute("SELECT game, key FROM cards"))
            for game_id, key in keys.items():
                if current.get(game_id) != key:
                    continue  # a game changed, or new: built again
                try:
                    stored = _stored(db, game_id)
                    if _decode(result, game_id, stored):
                        rows[game_id] = stored
                except (ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
                    log.warning("card index %s: the row of %s is unreadable (%s): rebuilding it", db_path, game_id, exc)
                    rows.pop(game_id, None)
                    result.games.pop(game_id, None)
                    result.cards.pop(game_id, None)
                    result.errors.pop(game_id, None)
    except sqlite3.Error as exc:
        log.warning("card index %s unreadable (%s): rebuilding", db_path, exc)
        return Catalog(), {}
    finally:
        if enabled:
            gc.enable()
    return result, rows


def _stored(db: sqlite3.Connection, game_id: str) -> Stored:
    key, lang, info, errors, data, bodies, crc = db.execute(
        "SELECT key, lang, info, errors, data, bodies, crc FROM cards WHERE game = ?", (game_id,)).fetchone()
    stored = (key, lang, info, errors, data, bodies)
    if _crc(stored) != crc:
        raise ValueError(f"the row of {game_id} is not what was written")
    return stored


def _decode(result: Catalog, game_id: str, stored: Stored) -> bool:
    """Add one stored game to ``result``; False when it must be built again all the same."""
    _, lang, info, errors, data, bodies = stored
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
        result.cards[game_id] = _cards(json.loads(data), bodies)
    for message in messages:
        result.error(game_id, message)
    return True


_FIRST = tuple(f.name for f in dataclasses.fields(Card) if f.name not in LATER)  # read at start
_TUPLE_FIELDS = tuple(f.name for f in dataclasses.fields(Card) if f.name in _FIRST and str(f.type).startswith("tuple"))
_SPLIT = ("id", "name")  # one string each, every card its own: a column of text, cut at SEP
# The other short fields: a card's row holds those that differ from its game's commonest value
# (the game's id, its cards' language, an empty cost: the same for thousands of cards).
_PLAIN = tuple(f for f in _FIRST if f not in _TUPLE_FIELDS and f not in _SPLIT and f != "names")
_ROW_FIELDS = frozenset((*_PLAIN, "names"))
_FIELD_COUNT = len(_FIRST) + 1  # with STORED
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


def _rows(cards: dict[str, Card]) -> tuple[bytes, bytes]:
    """The short fields of ``cards`` as one JSON object of columns (``_cards`` reads it back),
    and their long fields as a second blob: a JSON array of them, as UTF-8, each card's place in
    it kept in the columns ``s`` and ``e``.

    Shaped for reading, which every start does: the ids and names are columns of text cut with
    ``str.split``; a card's names are left out when they are only its name in its own language;
    a tuple field is a number into the list of the tuples met, each a list of numbers into one
    list of words; the other fields are left out when they are the game's commonest value. So a
    start parses a tenth of the JSON values it did (a JSON list per card) and makes each card
    with no Python code of its own per card."""
    listed = list(cards.values())
    parts, starts, ends, at = [], [], [], 1
    for card in listed:
        part = later_json(card).encode()
        parts.append(part)
        starts.append(at)
        ends.append(at + len(part))
        at += len(part) + 1
    common = {}
    for name in _PLAIN if listed else ():  # the commonest value of each field
        try:
            common[name] = Counter(getattr(card, name) for card in listed).most_common(1)[0][0]
        except TypeError:  # a value that is no dict key (none of these fields' values today): by its JSON
            common[name] = json.loads(Counter(json.dumps(getattr(card, name)) for card in listed).most_common(1)[0][0])
    rows = []
    for card in listed:
        row = {name: value for name in _PLAIN if (value := getattr(card, name)) != common[name]}
        if card.names != {card.lang: card.name}:
            row["names"] = card.names
        rows.append(row)
    groups: dict[tuple[str, ...], int] = {(): 0}
    tuples = {name: [groups.setdefault(tuple(getattr(card, name)), len(groups)) for card in listed]
              for name in _TUPLE_FIELDS}
    words: dict[str, int] = {}
    numbered = [[words.setdefault(w, len(words)) for w in group] for group in groups]
    data = {"n": len(listed), "common": common, "rows": rows, "tuples": tuples, "groups": numbered,
            "words": list(words), "s": starts, "e": ends,
            **{name: _column([getattr(card, name) for card in listed]) for name in _SPLIT}}
    return (json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(), b"[" + b",".join(parts) + b"]")


def _cards(data: dict[str, Any], bodies: bytes) -> dict[str, Card]:
    """Cards by id from ``_rows``'s columns. What pickle did: fill the frozen dataclass's fields
    without running its __init__ (4,000 cards on every start); the values are plain JSON data,
    checked. Each step runs over all cards inside C (``map``): a Python loop over 4,000 cards,
    a call or a statement each, was most of a warm start."""
    count, size, same = data["n"], len(bodies), sys.intern
    rows, starts, ends = data["rows"], data["s"], data["e"]
    columns = {name: _split(data[name], count) for name in _SPLIT}
    tuples = data["tuples"]
    if not (len(rows) == len(starts) == len(ends) == count) or any(len(tuples[n]) != count for n in _TUPLE_FIELDS):
        raise ValueError(f"card columns of other lengths than {count}")
    if count and not (0 < min(starts) and max(ends) < size and all(map(le, starts, ends))):
        raise ValueError(f"cards' long fields outside the {size} bytes")
    common = {name: same(v) if isinstance(v, str) else v for name, v in data["common"].items()}
    if not (_ROW_FIELDS.issuperset(common) and all(map(_ROW_FIELDS.issuperset, rows))):
        raise ValueError("a card field unknown")
    cards = list(map(or_, repeat(common), rows))  # a dict per card, its fields: the card's __dict__
    # The same words and the same tuples of them come back thousands of times (a type, a clan's
    # keywords, no alias): one string and one tuple each, about a megabyte of 4,000 cards' memory.
    word = list(map(same, data["words"])).__getitem__
    group = list(map(tuple, map(map, repeat(word), data["groups"]))).__getitem__
    for name in _TUPLE_FIELDS:
        deque(map(dict.__setitem__, cards, repeat(name), map(group, tuples[name])), 0)
    for name, values in columns.items():
        deque(map(dict.__setitem__, cards, repeat(name), values), 0)
    # A card's names are in its row when they are more than its name in its own language (the
    # card makes those when first asked: model.Card.__getattr__).
    deque(map(dict.__setitem__, cards, repeat(STORED), zip(repeat(bodies), starts, ends)), 0)  # model.Card.__getattr__
    if not set(map(len, cards)) <= {_FIELD_COUNT - 1, _FIELD_COUNT}:  # with or without their names
        raise ValueError("a card without all its fields")
    made = list(map(object.__new__, repeat(Card, count)))
    deque(map(object.__setattr__, made, repeat("__dict__"), cards), 0)
    return dict(zip(columns["id"], made, strict=True))


def stored_cards(game_id: str) -> dict[str, Card] | None:
    """One game's cards as the card index holds them, when its row is current (built from the
    files that game reads today, its card source's included) and intact: what the next start
    would read, in tens of milliseconds. None otherwise: the caller reads the game's sources."""
    overlay = catalog_mod.overlay_dir()
    for unit, folder in catalog_mod.units(catalog_mod.cardmap_dir(), overlay, registry.user_dir()):
        if unit == game_id:
            found, rows = _read(index_path(), {game_id: game_key(game_id, folder, overlay)})
            return found.cards.get(game_id) if game_id in rows else None
    return None


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
    rows, bodies = _rows(catalog.cards.get(game_id, {})) if info is not None else (b"", b"")
    return (key, language(), b"\n".join(info.stored()) if info is not None else b"",
            json.dumps(catalog.errors.get(game_id, []), ensure_ascii=False).encode(), rows, bodies)


def _write(db_path: Path, keys: dict[str, str], rows: dict[str, Stored], search: SearchRows | None) -> None:
    """Every game's row (``rows``, in the order of ``keys``) and, if given, the search's rows, in
    a new file that replaces the old one."""
    # Written to a temporary file then renamed: a crash mid-write leaves the old index or none.
    fd, tmp = tempfile.mkstemp(prefix="cards-index-", suffix=".tmp", dir=db_path.parent)
    os.close(fd)
    try:
        with sqlite3.connect(tmp) as db:
            db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT)")
            db.execute("CREATE TABLE cards (game TEXT PRIMARY KEY, pos INTEGER, key TEXT, lang TEXT, info BLOB,"
                       " errors BLOB, data BLOB, bodies BLOB, crc INTEGER)")
            db.execute("CREATE TABLE search (key TEXT PRIMARY KEY, context TEXT, meta BLOB, data BLOB, stats BLOB,"
                       " crc INTEGER)")
            db.execute("CREATE TABLE search_map (game TEXT PRIMARY KEY, key TEXT, parts TEXT)")
            db.execute("INSERT INTO meta VALUES ('format', ?)", (str(FORMAT),))
            db.executemany("INSERT INTO cards VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
    cached, rows = (Catalog(), {}) if rebuild else _read(db_path, keys)
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
    stored, stored_rows = _read(db_path, keys)
    if all(g in stored_rows for g in keys):
        stored.index_key, stored.index_games = catalog_key(keys), tuple(keys)
        return stored, True
    result.index_key, result.index_games = catalog_key(keys), tuple(keys)
    return result, True
