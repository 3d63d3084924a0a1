"""What the table engine and the rules of each game share: intents, results, refusals, the
changes told to the ear, the context a rule works in, and notes written in the reader's language
when they are read (``render``). The engine (engine.py) and the rules (rules/) both build on this
module, so that neither imports the other's callers.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.i18n import language, t
from companion.table.data import TableData, load_table
from companion.table.journal import Event

# Events that are part of the game's record but not of what undo takes back: the set-up, the
# draw of the first player, and dice and coins (undoing a toss must not allow throwing again).
NOT_UNDOABLE = frozenset({"start", "first_player", "toss", "dice", "undo", "redo", "recovered"})
# Who owns the shared counters (the honor pool...), as a note value named in the reader's language.
SHARED = "@t:table.shared"
# Intents that answer a question and record nothing.
QUERIES = frozenset({"status", "timer", "help"})
# What can still be done once a game is over.
AFTER_OVER = frozenset({"status", "timer", "help", "undo", "redo", "toss", "dice"})


class Refusal(Exception):
    """An intent the rules forbid: a message key and its values; nothing was changed."""

    def __init__(self, key: str, **values: Any) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


@dataclass
class Intent:
    verb: str
    seat: int | None = None  # 0-based seat; None: the active seat, or nobody
    args: dict[str, Any] = field(default_factory=dict)
    source: str = "key"  # touch | key | scan | script
    text: str = ""  # the command line as typed, kept in the log


@dataclass
class Change:
    """One counter that moved, for the ear: who, what, by how much, to what."""

    seat: int | None
    seat_name: str
    counter: str
    counter_names: dict[str, str]
    delta: int
    value: int


@dataclass
class Result:
    ok: bool
    intent: Intent
    notes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    reason: tuple[str, dict[str, Any]] | None = None
    event: Event | None = None
    changes: list[Change] = field(default_factory=list)
    answer: list[str] = field(default_factory=list)  # lines of a query, already written
    data: TableData | None = None
    # A query's answer written in the reader's language when it is read (status), so that the
    # engine itself never picks a language.
    answer_for: Callable[[str], list[str]] | None = None

    def answer_lines(self, lang: str | None = None) -> list[str]:
        lang = lang or language()
        return [*self.answer, *(self.answer_for(lang) if self.answer_for is not None else [])]

    def lines(self, lang: str | None = None) -> list[str]:
        lang = lang or language()
        if not self.ok and self.reason is not None:
            return [t("table.refused", lang, reason=render(self.data, *self.reason, lang=lang))]
        return [*self.answer_lines(lang), *(render(self.data, k, v, lang=lang) for k, v in self.notes)]

    def text(self, lang: str | None = None) -> str:
        return "\n".join(self.lines(lang))

    def reason_text(self, lang: str | None = None) -> str:
        return render(self.data, *self.reason, lang=lang or language()) if self.reason else ""


def render(data: TableData | None, key: str, values: dict[str, Any], lang: str | None = None) -> str:
    """A note in one language. Values may name game data, resolved now: ``@p:ID`` a phase name,
    ``@r:ID`` its reminder, ``@c:ID`` a counter name, ``@g:ID`` a game's name, ``@t:KEY`` another
    message, ``@s:N`` a duration of N seconds."""
    lang = lang or language()
    return t(key, lang, **resolve_values(data, values, lang))


# A game's clock that reads more than this was moved by the system clock (a Raspberry Pi without a
# clock battery starts in the past, then jumps when the network sets it): no table plays that long
# in one sitting, and "87600:00:00" helps nobody. Such a duration is said to be unknown.
MAX_DURATION = 48 * 3600


def duration_text(seconds: int) -> str:
    """A duration as a clock shows it: ``0:10``, ``12:05``, ``1:02:03``."""
    seconds = max(0, int(seconds))
    if seconds > MAX_DURATION:
        return "--:--"
    h, rest = divmod(seconds, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def resolve_values(data: TableData | None, values: dict[str, Any], lang: str,
                   duration: Callable[[int, str], str] | None = None) -> dict[str, Any]:
    """The values of a note with their game references named in ``lang`` (see ``render``);
    ``duration(seconds, lang)`` writes ``@s:`` values (for the ear: words, not a clock)."""
    out: dict[str, Any] = {}
    for k, v in values.items():
        if isinstance(v, str) and v[:3] in ("@p:", "@r:", "@c:", "@t:", "@g:", "@s:"):
            kind, ref = v[1], v[3:]
            if kind == "t":
                v = t(ref, lang)
            elif kind == "s":
                seconds = int(ref)
                if seconds > MAX_DURATION:  # the system clock jumped (a board without a clock battery)
                    v = t("table.clock_unknown", lang)
                else:
                    v = duration(seconds, lang) if duration is not None else duration_text(seconds)
            elif kind == "g":
                v = data.name(lang) if data is not None and data.id == ref else _game_name(ref, lang)
            elif data is not None and kind in "pr":
                phase = data.phases[data.phase_index(ref)]
                v = phase.name(lang) if kind == "p" else phase.remind(lang)
            elif data is not None and kind == "c":
                v = data.counter(ref).name(lang)
        elif isinstance(v, list) and all(isinstance(x, str) for x in v):
            v = [resolve_values(data, {"x": x}, lang, duration)["x"] if x[:1] == "@" else x for x in v]
            v = ", ".join(v[:-1]) + t("table.and", lang) + v[-1] if len(v) > 1 else (v[0] if v else "")
        elif isinstance(v, dict) and "deltas" in v:
            v = deltas_text(data, v["deltas"], lang)
        elif isinstance(v, dict) and ("fr" in v or "en" in v):
            v = v.get(lang) or v.get("fr") or v.get("en") or ""  # a card's own words, by language
        out[k] = v
    return out


def deltas_text(data: TableData | None, deltas: list, lang: str) -> str:
    """``[[counter, delta, value], ...]`` as "+2 runes (5), -1 Or (0)", for one line of the log."""
    parts = []
    for cid, delta, value in deltas:
        name = data.counter(cid).name(lang) if data is not None else cid
        parts.append(t("table.card.delta", lang, delta=f"{delta:+d}", counter=counted(name, delta, lang), value=value))
    return ", ".join(parts)


def counted(name: str, n: int, lang: str) -> str:
    """A counter's name after a number: "1 rune", "2 runes" (names are written plural), the
    word that carries the number singular for one: the first in French, the last in English."""
    if abs(n) != 1:
        return name
    words = name.split(" ")
    i = 0 if lang == "fr" else len(words) - 1
    word = words[i]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        words[i] = word[:-1]
    return " ".join(words)


def _game_name(game_id: str, lang: str) -> str:
    try:
        return load_table(game_id).name(lang)
    except Exception:  # an old or foreign journal naming a game this version does not have
        return game_id


class Ctx:
    """What a rule sees while it handles one intent: a working copy of the state."""

    def __init__(self, game: Any, state: dict[str, Any], intent: Intent, now: float) -> None:  # an engine Game
        self.game = game
        self.state = state
        self.data = game.data
        self.intent = intent
        self.now = now
        self.notes: list[tuple[str, dict[str, Any]]] = []
        self.changes: list[Change] = []
        self.type = intent.verb
        self.payload: dict[str, Any] = {}
        self.answer: list[str] = []
        self.answer_for: Callable[[str], list[str]] | None = None

    def note(self, key: str, **values: Any) -> None:
        self.notes.append((key, values))

    def refuse(self, key: str, **values: Any) -> None:
        raise Refusal(key, **values)

    def name(self, seat: int) -> str:
        return self.state["seats"][seat]["name"]

    def seat(self, seat: int) -> dict[str, Any]:
        return self.state["seats"][seat]

    def rand(self, n: int) -> int:
        """A fair draw in range(n): the n-th draw of the game's seed. Only its result goes in
        the journal; the draw counter lives in the state, so a resumed game goes on drawing."""
        draw = self.state["rng"]
        self.state["rng"] = draw + 1
        return random.Random(f"{self.state['seed']}:{draw}").randrange(n)
