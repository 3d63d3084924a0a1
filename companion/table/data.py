"""The table data of a game: the ``table:`` section of ``cardmap/<game>/game.yaml`` (plus ``id``
and ``names``): counters with their bounds and start values, phases with their reminders, and
the numbers the game's rules module uses.

The file is read by the one game.yaml reader (``companion.cards.gamedata.read_game``), which
checks the whole file; this module checks the ``table:`` section. Every error names file, line
and field; a broken file disables its game, for the table as for the card library.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion import paths, registry
from companion.cards.validate import TEXTS, kind_name
from companion.cards.yamlload import file_identity, line_of
from companion.i18n import t

log = logging.getLogger(__name__)


class TableDataError(Exception):
    """The table section of a game is missing or wrong; the message names file and field."""


@dataclass(frozen=True)
class Counter:
    id: str
    names: dict[str, str]
    words: tuple[str, ...]
    scope: str  # "seat" or "shared"
    start: int | None = 0  # None: to be entered at set-up (a Summoner's PV)
    min: int | None = None
    max: int | str | None = None  # a number, or "@other" for another counter of the same seat
    group: str | None = None  # e.g. "essence": `essence 2 or -1`
    key: str | None = None  # this counter's word inside its group
    clear: str | None = None  # "turn": back to its start value at the end of its seat's turn
    hidden: bool = False  # internal counters, not shown in the status line
    floor: bool = False  # life points: damage beyond what is left stops at the minimum (death at 0)

    def name(self, lang: str = "fr") -> str:
        return self.names.get(lang) or self.names.get("fr") or self.id


@dataclass(frozen=True)
class Phase:
    id: str
    names: dict[str, str]
    reminder: dict[str, str]
    # docs/speech.md, "nothing for a phase in which nothing can happen": ``said: with_turn`` is a
    # phase a turn opens in that the turn's sentence stands for (its name is not said then);
    # ``skip`` the conditions (as a seat action's ``when``, plus ``round``) under which ``next``
    # passes over it without a word, nothing being possible in it for the seat whose turn it is.
    said: str = ""
    skip: dict[str, Any] = field(default_factory=dict)

    def name(self, lang: str = "fr") -> str:
        return self.names.get(lang) or self.names.get("fr") or self.id

    def remind(self, lang: str = "fr") -> str:
        return self.reminder.get(lang) or self.reminder.get("fr") or ""


@dataclass(frozen=True)
class TableData:
    id: str
    names: dict[str, str]
    seats_min: int
    seats_max: int
    counters: dict[str, Counter]  # per seat, in display order
    shared: dict[str, Counter]
    phases: tuple[Phase, ...]
    params: dict[str, Any] = field(default_factory=dict)
    path: str = ""
    # What a front end shows (main counters, seat actions and their commands): see present.py.
    present: dict[str, Any] = field(default_factory=dict)
    # The game's own command verbs: verb → language → its words (``edge: {en: [edge], ...}``).
    verbs: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    # What laying a card does (game.yaml ``effects:``): actions, resource keys, what ``any`` is.
    effects: dict[str, Any] = field(default_factory=dict)

    def name(self, lang: str = "fr") -> str:
        return self.names.get(lang) or self.names.get("fr") or self.id

    def counter(self, cid: str) -> Counter:
        return self.counters.get(cid) or self.shared[cid]

    def phase_index(self, pid: str) -> int:
        for i, p in enumerate(self.phases):
            if p.id == pid:
                return i
        raise KeyError(pid)

    @functools.cached_property
    def words(self) -> dict[str, str]:
        """Command word (normalised) → counter id."""
        out: dict[str, str] = {}
        for c in (*self.counters.values(), *self.shared.values()):
            for w in (c.id, *c.words, *c.names.values()):
                out.setdefault(fold(w), c.id)
        return out

    @functools.cached_property
    def groups(self) -> dict[str, dict[str, str]]:
        """Group word → {key word → counter id}, e.g. essence → {or: or, gold: or, ...}."""
        out: dict[str, dict[str, str]] = {}
        for c in (*self.counters.values(), *self.shared.values()):
            if c.group:
                keys = out.setdefault(fold(c.group), {})
                for w in (c.key or c.id, c.id, *c.words, *c.names.values()):
                    keys.setdefault(fold(w), c.id)
        return out


def fold(word: str) -> str:
    """Lower case without accents, so that `Sérénité`, `serenite` and `SERENITE` are one word."""
    import unicodedata

    text = unicodedata.normalize("NFKD", word.strip().casefold())
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def cardmap_dir() -> Path:
    """Same place as the card library's (``COMPANION_CARDMAP`` overrides, for tests)."""
    return registry.builtin_dir()


class _Where:
    """Names file, line and field in each message about the table section."""

    def __init__(self, shown: str) -> None:
        self.shown = shown

    def __call__(self, node: Any, key: str | int | None, field: str, message: str) -> TableDataError:
        line = line_of(node, key)
        place = f"{self.shown}:{line}" if line else self.shown
        return TableDataError(f"{place}: {field}: {message}")


def _texts(value: Any, fail: _Where, node: Any, key: str | int, where: str) -> dict[str, str]:
    if isinstance(value, str):
        return {"fr": value}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise fail(node, key, where, t("data.expected", shape=TEXTS))
    return dict(value)


def _int_or_none(value: Any, fail: _Where, node: Any, key: str, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(node, key, where, t("data.expected_got", kind=kind_name(int), got=repr(value)))
    return value


PHASE = "{id, names, reminder}"  # the shapes a message shows as they are written, in every language
VERB_WORDS = "{fr: [words], en: [words]}"
COUNTER_FIELDS = frozenset({"names", "words", "start", "min", "max", "group", "key", "clear", "hidden", "floor"})


def _counters(raw: Any, scope: str, fail: _Where, parent: Any, key: str, where: str) -> dict[str, Counter]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise fail(parent, key, where, t("data.counters_mapping"))
    out: dict[str, Counter] = {}
    for cid, d in raw.items():
        w = f"{where}.{cid}"
        if not isinstance(d, dict):
            raise fail(raw, cid, w, t("data.expected_mapping"))
        unknown = set(d) - COUNTER_FIELDS
        if unknown:
            raise fail(d, sorted(unknown)[0], w, t("data.unknown_fields", fields=", ".join(sorted(map(str, unknown))),
                                                   allowed=", ".join(sorted(COUNTER_FIELDS))))
        mx = d.get("max")
        if not (mx is None or isinstance(mx, int) or (isinstance(mx, str) and mx.startswith("@"))):
            raise fail(d, "max", f"{w}.max", t("data.counter_max"))
        if d.get("clear") not in (None, "turn"):
            raise fail(d, "clear", f"{w}.clear", t("data.expected", shape="turn"))
        words = d.get("words") or []
        if not isinstance(words, list) or not all(isinstance(x, str) for x in words):
            raise fail(d, "words", f"{w}.words", t("data.words_list"))
        out[str(cid)] = Counter(
            id=str(cid), names=_texts(d.get("names", cid), fail, d, "names", f"{w}.names"), words=tuple(words),
            scope=scope, start=_int_or_none(d.get("start", 0), fail, d, "start", f"{w}.start"),
            min=_int_or_none(d.get("min"), fail, d, "min", f"{w}.min"),
            max=mx, group=d.get("group"), key=d.get("key"), clear=d.get("clear"), hidden=bool(d.get("hidden")),
            floor=bool(d.get("floor")))
    return out


def parse_table(doc: dict[str, Any], shown: str, effects: dict[str, Any] | None = None) -> TableData:
    """The table section of a game's document (as ``cards.gamedata.read_game`` gives it, with
    the line of each value), checked: every error names file, line and field."""
    # The game.yaml reader's module: only when a game's table is read, never for the games menu
    # before the first frame (header() reads a small cache file).
    from companion.cards.gamedata import plain

    fail = _Where(shown)
    table = doc.get("table")
    if not isinstance(table, dict):
        raise fail(doc, "table", "table", t("data.no_table"))
    where = "table"
    seats = table.get("seats") or {}
    if not isinstance(seats, dict) or not isinstance(seats.get("min"), int) or not isinstance(seats.get("max"), int):
        raise fail(table, "seats", f"{where}.seats", t("data.expected", shape="{min: N, max: N}"))
    phases = []
    raw_phases = table.get("phases") or []
    if not isinstance(raw_phases, list):
        raise fail(table, "phases", f"{where}.phases", t("data.expected_list_of", shape=PHASE))
    for i, p in enumerate(raw_phases):
        if not isinstance(p, dict) or "id" not in p:
            raise fail(raw_phases, i, f"{where}.phases[{i}]", t("data.expected", shape=PHASE))
        names = _texts(p.get("names", p["id"]), fail, p, "names", f"{where}.phases[{i}].names")
        said = p.get("said", "")
        if said not in ("", "with_turn"):
            raise fail(p, "said", f"{where}.phases[{i}].said", "expected with_turn (or nothing)")
        skip = p.get("skip") or {}
        if not isinstance(skip, dict):
            raise fail(p, "skip", f"{where}.phases[{i}].skip", "expected conditions, e.g. {round: 1}")
        phases.append(Phase(str(p["id"]), names,
                            _texts(p.get("reminder", ""), fail, p, "reminder", f"{where}.phases[{i}].reminder"),
                            said=str(said), skip=plain(skip)))
    if not phases:
        raise fail(table, "phases", f"{where}.phases", t("data.one_phase"))
    counters = _counters(table.get("counters"), "seat", fail, table, "counters", f"{where}.counters")
    shared = _counters(table.get("shared"), "shared", fail, table, "shared", f"{where}.shared")
    for c in counters.values():
        if isinstance(c.max, str) and c.max[1:] not in counters:
            raise fail(table["counters"][c.id], "max", f"{where}.counters.{c.id}.max",
                       t("data.no_counter", id=repr(c.max[1:])))
    params = table.get("params") or {}
    if not isinstance(params, dict):
        raise fail(table, "params", f"{where}.params", t("data.expected_mapping"))
    present = table.get("present") or {}
    if not isinstance(present, dict):
        raise fail(table, "present", f"{where}.present", t("data.expected_mapping"))
    return TableData(id=str(doc.get("id") or shown), names=_texts(doc.get("names") or {}, fail, doc, "names", "names"),
                     seats_min=seats["min"], seats_max=seats["max"], counters=counters, shared=shared,
                     phases=tuple(phases), params=plain(params), path=shown, present=plain(present),
                     verbs=_verbs(table.get("verbs"), fail, table, f"{where}.verbs"),
                     effects=dict(effects or {}))


def _verbs(raw: Any, fail: _Where, table: Any, where: str) -> dict[str, dict[str, tuple[str, ...]]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise fail(table, "verbs", where, t("data.verbs_mapping", shape=VERB_WORDS))
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for verb, by_lang in raw.items():
        w = f"{where}.{verb}"
        if not isinstance(by_lang, dict) or not by_lang:
            raise fail(raw, verb, w, t("data.expected", shape=VERB_WORDS))
        words: dict[str, tuple[str, ...]] = {}
        for lang, listed in by_lang.items():
            if not isinstance(listed, list) or not listed or not all(isinstance(x, str) and x.strip() for x in listed):
                raise fail(by_lang, lang, f"{w}.{lang}", t("data.words_list"))
            words[str(lang)] = tuple(x.strip() for x in listed)
        out[str(verb)] = words
    return out


def shown_path(path: Path) -> str:
    """How a game file is named in messages: ``cardmap/<id>/game.yaml`` for a shipped game,
    the full path for a user's own."""
    try:
        return f"cardmap/{path.relative_to(registry.builtin_dir())}"
    except ValueError:
        return str(path)


# game id, root → (its file, the file's identity when read, the table read from it)
_tables: dict[tuple[str, str | None], tuple[Path, tuple[int, int, int], TableData]] = {}
registry.on_forget(_tables.clear)


def load_table(game: str, root: str | None = None) -> TableData:
    """The table data of one game through the one game.yaml reader: read once, and again when
    its file changed (a user's own game edited while the program runs: one stat a call, no
    parsing). A broken edit keeps the last good reading, for a game being played, and is said
    in the log; the card library and ``cards validate`` name it with its line."""
    key = (game, root)
    held = _tables.get(key)
    if held is not None:
        path, known, data = held
        try:
            now = file_identity(path)
        except OSError:
            now = None  # moved or removed: looked for again below
        if now == known:
            return data
        if now is not None:
            try:
                fresh = _read_table(path, game, root)
            except TableDataError as exc:
                log.warning("%s changed and cannot be read (%s): the last good reading is kept", path, exc)
                _tables[key] = (path, now, data)  # not parsed again until the next change
                return data
            _tables[key] = (path, now, fresh)
            return fresh
        del _tables[key]
    path = Path(root) / game / "game.yaml" if root else registry.game_file(game)
    if path is None or not path.exists():
        raise TableDataError(f"{path or game}: {t('data.no_game_file')}")
    try:
        known = file_identity(path)
    except OSError as exc:
        raise TableDataError(f"{path}: {t('data.cannot_read', why=exc.strerror or exc)}") from exc
    data = _read_table(path, game, root)
    _tables[key] = (path, known, data)
    return data


def _read_table(path: Path, game: str, root: str | None) -> TableData:
    from companion.cards.gamedata import read_game
    from companion.cards.yamlload import DataError

    shown = shown_path(path) if not root else f"cardmap/{game}/game.yaml"
    try:
        info, doc = read_game(path, shown)
    except DataError as exc:
        raise TableDataError(str(exc)) from exc
    return parse_table(doc, shown, info.effects)


# -- the games menu's facts of each game, before the first frame ---------------------------------

@dataclass(frozen=True)
class Header:
    """What the games menu shows of a game: its names and how many may sit at it."""

    id: str
    names: dict[str, str]
    seats_min: int
    seats_max: int

    def name(self, lang: str = "fr") -> str:
        return self.names.get(lang) or self.names.get("fr") or self.id


_HEADERS_FORMAT = 1
_headers: dict[str, Any] | None = None  # the cache file's games, read once per process


def headers_path() -> Path:
    return paths.cache_dir() / "game-headers.json"


def forget_headers() -> None:
    """Read the cache file again on next use (a test's new process)."""
    global _headers
    _headers = None


def _stored_headers() -> dict[str, Any]:
    global _headers
    if _headers is None:
        _headers = {}
        path = headers_path()
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(stored, dict) and stored.get("format") == _HEADERS_FORMAT and isinstance(
                    stored.get("games"), dict):
                _headers = stored["games"]
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:
            log.warning("%s unreadable (%s): the games' files are read again", path, exc)
    return _headers


def _from_stored(game: str, entry: Any, key: str) -> Header | None:
    """The stored header, when it was stored for this very file and has the shape written."""
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    names, seats = entry.get("names"), entry.get("seats")
    if not (isinstance(names, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in names.items())
            and isinstance(seats, list) and len(seats) == 2 and all(type(n) is int for n in seats)
            and 0 < seats[0] <= seats[1]):
        return None
    return Header(game, dict(names), seats[0], seats[1])


def _save_headers(games: dict[str, Any]) -> None:
    path = headers_path()
    if not paths.writable(path.parent):
        return
    try:
        # A temporary file renamed: another process reading at once sees the old file or the new.
        fd, tmp = tempfile.mkstemp(prefix="game-headers-", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"format": _HEADERS_FORMAT, "games": games}, f, ensure_ascii=False)
        os.replace(tmp, path)
    except OSError as exc:
        log.info("cannot write %s: %s", path, exc)


def header(game: str) -> Header:
    """The games menu's facts of ``game``: from a small cache file (one entry per game.yaml, by
    the hash of its content) that the full reader fills when it does not know the file. The Home
    screen's buttons need only these, and parsing every game.yaml was a quarter of the time to
    the first frame. Raises TableDataError as ``load_table`` does, for a broken or unknown game."""
    path = registry.game_file(game)
    try:
        # Its content's hash, not its date: an edit within the file system's clock tick counts.
        key = hashlib.sha256(path.read_bytes()).hexdigest() if path is not None else None
    except OSError:
        key = None
    if path is None or key is None:
        load_table(game)  # says what is wrong
        raise TableDataError(f"{game}: {t('data.no_game_file')}")
    headers = _stored_headers()
    found = _from_stored(game, headers.get(str(path)), key)
    if found is not None:
        return found
    try:
        data = _read_table(path, game, None)  # this very content: only what it says is stored
    except TableDataError:
        # A game being played keeps its last good reading (load_table), stored for no file;
        # a game never read well raises.
        data = load_table(game)
        return Header(game, dict(data.names), data.seats_min, data.seats_max)
    headers[str(path)] = {"key": key, "names": dict(data.names), "seats": [data.seats_min, data.seats_max]}
    _save_headers(headers)
    return Header(game, dict(data.names), data.seats_min, data.seats_max)
