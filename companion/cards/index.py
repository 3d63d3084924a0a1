"""The compiled card index: the catalog stored in SQLite in the user cache directory, so that a
warm start reads one file instead of parsing YAML and krcg's CSV lists.

It is rebuilt only when a source file (cardmap, overlay, a game's own card source such as the
lists ``cards update`` fetched) changes or a card source's version changes: the key is a hash of
their paths, sizes and modification times, plus the index format version and the sources' versions.

Stored as JSON, never pickle: reading the cache must not be able to run code, whoever wrote the
file. Per game, the cards' short fields are rows (one list per card, in ``Card`` order, then
where its long fields are), read at start; their long fields (text, rulings, flavour, extra:
four fifths of the bytes) are one JSON array kept as bytes, each card's own slice decoded when
first asked (``model.Card.__getattr__``). Each game's row carries a CRC of both: a damaged file is
rebuilt, never trusted.

The card search's index (its words, name forms for typos: ``search.SearchIndex.state()``) is built
with the cards and kept in the same file, in its own table: a warm start does not read it, the
first search does (``read_search``), instead of computing it again.
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
from pathlib import Path
from typing import Any

from companion import paths, registry
from companion.cards import catalog as catalog_mod
from companion.cards.catalog import Catalog
from companion.cards.gamedata import GameInfo
from companion.cards.model import LATER, STORED, Card, later_json
from companion.i18n import add_messages, language

log = logging.getLogger(__name__)
FORMAT = 15  # bump when the stored shape of Card/GameInfo or of the search state (search.STATE_FORMAT) changes


def index_path() -> Path:
    return paths.cache_dir() / "cards-index.sqlite3"


def source_key(cardmap: Path, overlay: Path, user_games: Path | None = None) -> str:
    h = hashlib.sha256(f"format {FORMAT}".encode())
    files = catalog_mod.source_files(cardmap, overlay, user_games)
    for game_id in registry.builtin_ids():
        source = registry.hook(game_id, "card_source")
        if source is not None:
            h.update(f"; {game_id}: {source.name()} {source.version()}".encode())
            files += source.files()
    for path in files:
        try:
            st = path.stat()
        except OSError as exc:  # a dangling link, a loop: the loader names it; the key notes it
            h.update(f"\n{path}|{exc.errno}".encode())
            continue
        h.update(f"\n{path}|{st.st_mode}|{st.st_size}|{st.st_mtime_ns}".encode())
    return h.hexdigest()


def _read(db_path: Path, key: str) -> Catalog | None:
    if not db_path.exists():
        return None
    enabled = gc.isenabled()
    # Tens of thousands of small objects at once: the collector would walk them again and
    # again while they are made (a fifth of a warm start), and none of them is garbage.
    gc.disable()
    try:
        with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
            row = db.execute("SELECT value FROM meta WHERE name = 'key'").fetchone()
            if not row or row[0] != key:
                return None
            result = Catalog()
            for game_id, blob in db.execute("SELECT game, data FROM games"):
                result.games[game_id] = info = GameInfo.from_json(json.loads(blob))
                add_messages(info.messages)  # a warm start reads no game.yaml: its messages come from here
            for game_id, rows, bodies, crc in db.execute("SELECT game, data, bodies, crc FROM cards"):
                if zlib.crc32(bodies, zlib.crc32(rows)) != crc:
                    raise ValueError(f"the cards of {game_id} are not what was written")
                result.cards[game_id] = _cards(json.loads(rows), bodies)
            for game_id, message in db.execute("SELECT game, message FROM errors ORDER BY rowid"):
                result.error(game_id, message)
            if result.errors:
                # The reasons are words of the language they were written in: another language
                # reads the files again (only then: a catalog with no problem is the same in all).
                row = db.execute("SELECT value FROM meta WHERE name = 'lang'").fetchone()
                if not row or row[0] != language():
                    return None
            result.index_key = key
            return result
    except (sqlite3.Error, ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
        log.warning("card index %s unreadable (%s): rebuilding", db_path, exc)
        return None
    finally:
        if enabled:
            gc.enable()


_FIRST = tuple(f.name for f in dataclasses.fields(Card) if f.name not in LATER)  # read at start
_GAME, _LANG = _FIRST.index("game"), _FIRST.index("lang")
_TUPLES = tuple(i for i, f in enumerate(f for f in dataclasses.fields(Card) if f.name in _FIRST)
                if str(f.type).startswith("tuple"))


def _rows(cards: dict[str, Card]) -> tuple[bytes, bytes]:
    """The short fields of ``cards`` as JSON rows, each ending with where the card's long fields
    are in the second blob (a JSON array of them, as UTF-8)."""
    rows, parts, at = [], [], 1
    for card in cards.values():
        part = later_json(card).encode()
        rows.append([*(getattr(card, name) for name in _FIRST), at, at + len(part)])
        parts.append(part)
        at += len(part) + 1
    return (json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode(),
            b"[" + b",".join(parts) + b"]")


def _cards(rows: list[list[Any]], bodies: bytes) -> dict[str, Card]:
    """Cards by id from their rows. What pickle did: fill the frozen dataclass's fields without
    running its __init__ (4,000 cards on every start); the values are plain JSON data checked by
    each row's length. One loop for them all: a call per card cost a fifth of a warm start."""
    fields, tuples, count, new, size = (*_FIRST, STORED), _TUPLES, len(_FIRST) + 2, object.__new__, len(bodies)
    # The same words come back thousands of times (a game's id, its types, "en", a clan's
    # keywords, aliases): one string each, about a megabyte of 4,000 cards' memory.
    same = sys.intern
    cards = {}
    for row in rows:
        if len(row) != count:
            raise ValueError(f"a card row of {len(row)} fields, not {count}")
        for i in tuples:
            row[i] = tuple(map(same, row[i])) if row[i] else ()  # most are empty: one shared tuple
        row[_GAME], row[_LANG] = same(row[_GAME]), same(row[_LANG])
        end = row.pop()
        start = row[-1]
        if not 0 < start <= end < size:
            raise ValueError(f"a card's long fields at {start}-{end} of {size} bytes")
        row[-1] = (bodies, start, end)  # where model.Card.__getattr__ finds them (STORED)
        card = new(Card)
        card.__dict__.update(zip(fields, row))  # noqa: B905 - the length is checked above
        cards[row[1]] = card
    return cards


def all_cards(catalog: Catalog) -> list[Card]:
    """Every card of every game, in the order the library and its search list them."""
    return [card for cards in catalog.cards.values() for card in cards.values()]


def read_search(catalog: Catalog) -> dict[str, Any] | None:
    """The search state stored with ``catalog`` (None when that catalog was not read from, or
    written to, the index, or the file changed since)."""
    db_path = index_path()
    if not catalog.index_key or not db_path.exists():
        return None
    try:
        with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
            row = db.execute("SELECT value FROM meta WHERE name = 'key'").fetchone()
            if not row or row[0] != catalog.index_key:
                return None
            row = db.execute("SELECT data FROM search").fetchone()
            return json.loads(row[0]) if row else None
    except (sqlite3.Error, ValueError) as exc:
        log.warning("search index in %s unreadable (%s): computing it", db_path, exc)
        return None


def _write(db_path: Path, key: str, result: Catalog) -> None:
    from companion.cards.search import SearchIndex

    search = json.dumps(SearchIndex(all_cards(result)).state(), ensure_ascii=False, separators=(",", ":"))
    # Written to a temporary file then renamed: a crash mid-write leaves the old index or none.
    fd, tmp = tempfile.mkstemp(prefix="cards-index-", suffix=".tmp", dir=db_path.parent)
    os.close(fd)
    try:
        with sqlite3.connect(tmp) as db:
            db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT)")
            db.execute("CREATE TABLE games (game TEXT PRIMARY KEY, data BLOB)")
            db.execute("CREATE TABLE cards (game TEXT PRIMARY KEY, data BLOB, bodies BLOB, crc INTEGER)")
            db.execute("CREATE TABLE errors (game TEXT, message TEXT)")
            db.execute("CREATE TABLE search (data BLOB)")
            db.execute("INSERT INTO search VALUES (?)", (search,))
            db.execute("INSERT INTO meta VALUES ('key', ?)", (key,))
            db.execute("INSERT INTO meta VALUES ('lang', ?)", (language(),))
            db.execute("INSERT INTO meta VALUES ('summary', ?)", (json.dumps(
                {g: len(c) for g, c in result.cards.items()}),))
            db.executemany("INSERT INTO games VALUES (?, ?)",
                           [(g, json.dumps(v.to_json(), ensure_ascii=False)) for g, v in result.games.items()])
            stored = [(g, *_rows(c)) for g, c in result.cards.items()]
            db.executemany("INSERT INTO cards VALUES (?, ?, ?, ?)",
                           [(g, rows, bodies, zlib.crc32(bodies, zlib.crc32(rows))) for g, rows, bodies in stored])
            db.executemany("INSERT INTO errors VALUES (?, ?)",
                           [(g, m) for g, msgs in result.errors.items() for m in msgs])
        db.close()
        os.replace(tmp, db_path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load(cardmap: Path | None = None, overlay: Path | None = None, rebuild: bool = False,
         progress: catalog_mod.Progress | None = None) -> tuple[Catalog, bool]:
    """The catalog, from the index when it is current. Returns (catalog, rebuilt); ``progress``
    hears of each game while the index is being rebuilt (the first start takes seconds)."""
    user_games = registry.user_dir() if cardmap is None else None  # a test's own cardmap comes alone
    cardmap = cardmap or catalog_mod.cardmap_dir()
    overlay = overlay if overlay is not None else catalog_mod.overlay_dir()
    key = source_key(cardmap, overlay, user_games)
    db_path = index_path()
    if not rebuild:
        cached = _read(db_path, key)
        if cached is not None:
            return cached, False
    result = catalog_mod.build(cardmap, overlay, progress=progress, user_games=user_games)
    if result.transient:
        return result, True  # not cached: the next start tries krcg again
    if not paths.writable(db_path.parent):  # a read-only home: the index is rebuilt each start
        log.info("card index not saved: %s is read-only", db_path.parent)
        return result, True
    try:
        _write(db_path, key, result)
    except (OSError, sqlite3.Error) as exc:  # a read-only cache must not stop the game
        log.warning("cannot write the card index %s: %s", db_path, exc)
        return result, True
    # Read back as a warm start reads it: the cards' long fields then stay in the index's bytes
    # until asked for (model.STORED), where the cards just built hold them all as objects, for
    # the life of the app (about 25 MB more after the first start). A warm read costs tens of
    # milliseconds after the seconds of a build.
    stored = _read(db_path, key)
    if stored is not None:
        return stored, True
    result.index_key = key
    return result, True
