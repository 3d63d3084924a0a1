"""The table data of a game: the ``table:`` section of ``cardmap/<game>/game.yaml`` (plus ``id``
and ``names``): counters with their bounds and start values, phases with their reminders, and
the numbers the game's rules module uses.

Only this module reads game.yaml for the table engine. The other sections of the file belong to
the card library; if one of them is broken, the ``table:`` block is still read on its own, so a
typo in a glossary entry never stops a game.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML without libyaml
    _Loader = yaml.SafeLoader

GAMES = ("vtes", "ascension", "res-arcana", "rise", "astral")


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
    override = os.environ.get("COMPANION_CARDMAP")
    return Path(override) if override else Path(__file__).resolve().parents[2] / "cardmap"


_TOP_LINE = re.compile(r"^[^\s#]", re.MULTILINE)  # where a top-level entry (or a stray line) starts
_TOP_KEY = re.compile(r"([A-Za-z_][\w-]*)\s*:")


def _table_block(text: str) -> str:
    """The top-level ``table:`` block and the ``id``/``names`` lines, cut out of the file text."""
    starts = [m.start() for m in _TOP_LINE.finditer(text)] + [len(text)]
    keep = []
    for start, end in zip(starts, starts[1:], strict=False):  # each start with the next
        top = _TOP_KEY.match(text, start)
        if top and top.group(1) in ("table", "id", "names"):
            keep.append(text[start:end].rstrip("\n"))
    return "\n".join(keep) + "\n"


def read_game_file(path: Path) -> dict[str, Any]:
    # Our section alone first: a twentieth of the file, and the home screen reads five of them
    # before its first frame. The whole file when the cut does not stand alone.
    text = path.read_text(encoding="utf-8")
    try:
        doc = yaml.load(_table_block(text), Loader=_Loader)
    except yaml.YAMLError:
        doc = None
    if not isinstance(doc, dict) or not isinstance(doc.get("table"), dict):
        try:
            doc = yaml.load(text, Loader=_Loader)
        except yaml.YAMLError as exc:
            raise TableDataError(f"{path}: the table: section is not valid YAML: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("table"), dict):
        raise TableDataError(f"{path}: no table: section")
    return doc


def _texts(value: Any, where: str) -> dict[str, str]:
    if isinstance(value, str):
        return {"fr": value}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise TableDataError(f"{where}: expected {{fr: ..., en: ...}}")
    return dict(value)


def _int_or_none(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TableDataError(f"{where}: expected a whole number, got {value!r}")
    return value


def _counters(raw: Any, scope: str, where: str) -> dict[str, Counter]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise TableDataError(f"{where}: expected a mapping of counter id → definition")
    out: dict[str, Counter] = {}
    for cid, d in raw.items():
        w = f"{where}.{cid}"
        if not isinstance(d, dict):
            raise TableDataError(f"{w}: expected a mapping")
        unknown = set(d) - {"names", "words", "start", "min", "max", "group", "key", "clear", "hidden",
                              "floor"}
        if unknown:
            raise TableDataError(f"{w}: unknown field(s) {sorted(unknown)}")
        mx = d.get("max")
        if not (mx is None or isinstance(mx, int) or (isinstance(mx, str) and mx.startswith("@"))):
            raise TableDataError(f"{w}.max: expected a number or @counter")
        if d.get("clear") not in (None, "turn"):
            raise TableDataError(f"{w}.clear: expected 'turn'")
        words = d.get("words") or []
        if not isinstance(words, list) or not all(isinstance(x, str) for x in words):
            raise TableDataError(f"{w}.words: expected a list of words")
        out[str(cid)] = Counter(
            id=str(cid), names=_texts(d.get("names", cid), f"{w}.names"), words=tuple(words), scope=scope,
            start=_int_or_none(d.get("start", 0), f"{w}.start"), min=_int_or_none(d.get("min"), f"{w}.min"),
            max=mx, group=d.get("group"), key=d.get("key"), clear=d.get("clear"), hidden=bool(d.get("hidden")),
            floor=bool(d.get("floor")))
    return out


def parse_table(doc: dict[str, Any], shown: str) -> TableData:
    table = doc["table"]
    where = f"{shown}: table"
    seats = table.get("seats") or {}
    if not isinstance(seats, dict) or not isinstance(seats.get("min"), int) or not isinstance(seats.get("max"), int):
        raise TableDataError(f"{where}.seats: expected {{min: N, max: N}}")
    phases = []
    for i, p in enumerate(table.get("phases") or []):
        if not isinstance(p, dict) or "id" not in p:
            raise TableDataError(f"{where}.phases[{i}]: expected {{id, names, reminder}}")
        phases.append(Phase(str(p["id"]), _texts(p.get("names", p["id"]), f"{where}.phases[{i}].names"),
                            _texts(p.get("reminder", ""), f"{where}.phases[{i}].reminder")))
    if not phases:
        raise TableDataError(f"{where}.phases: at least one phase is needed")
    counters = _counters(table.get("counters"), "seat", f"{where}.counters")
    shared = _counters(table.get("shared"), "shared", f"{where}.shared")
    for c in counters.values():
        if isinstance(c.max, str) and c.max[1:] not in counters:
            raise TableDataError(f"{where}.counters.{c.id}.max: no counter {c.max[1:]!r}")
    params = table.get("params") or {}
    if not isinstance(params, dict):
        raise TableDataError(f"{where}.params: expected a mapping")
    present = table.get("present") or {}
    if not isinstance(present, dict):
        raise TableDataError(f"{where}.present: expected a mapping")
    return TableData(id=str(doc.get("id") or shown), names=_texts(doc.get("names") or {}, f"{shown}: names"),
                     seats_min=seats["min"], seats_max=seats["max"], counters=counters, shared=shared,
                     phases=tuple(phases), params=params, path=shown, present=present)


@functools.cache
def load_table(game: str, root: str | None = None) -> TableData:
    """The table data of one game, read once per process."""
    base = Path(root) if root else cardmap_dir()
    path = base / game / "game.yaml"
    if not path.exists():
        raise TableDataError(f"{path}: no such game file")
    return parse_table(read_game_file(path), f"cardmap/{game}/game.yaml")
