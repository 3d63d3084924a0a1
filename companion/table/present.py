"""What a table shows, worked out from a game's state: words and numbers, no widgets.

Everything game-specific comes from the game's rules module and the ``present`` block of its
game.yaml (main counters, the other counters, seat marks, seat actions and the command each one
sends, the lines of the middle of the table), so that a front end renders a ``TableView`` and
never names a game. Marks and actions carry ids (``edge``, ``prey``, ``passed``...) that a front
end may draw as a sign; words always go with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from companion.i18n import language, t

# Which question each ``{name}`` of a command template asks, in the order the template uses them.
ASKS = ("target", "amount", "text", "vampire", "component", "essence", "essences", "confirm")


@dataclass(frozen=True)
class CounterView:
    seat: int | None
    cid: str
    name: str
    value: int | None
    note: str = ""
    locked: bool = False
    main: bool = False  # shown big; the first main counter of a seat is its main number


@dataclass(frozen=True)
class ActionView:
    """Something a seat (or the table) can do by touch: the command lines it sends once its
    questions (``ask``) are answered, e.g. ``bleed {target} {amount}``."""

    id: str
    mark: str
    words: str
    commands: tuple[str, ...]
    ask: tuple[str, ...] = ()
    seat: int | None = None
    urgent: bool = False  # the rules wait for it (a restoration each turn): shown on the seat itself

    def command_lines(self, answers: dict[str, Any] | None = None) -> list[str]:
        return [fill(c, self.seat, answers or {}) for c in self.commands]


@dataclass(frozen=True)
class SeatView:
    index: int
    name: str
    header: str  # "Ann, à toi !" for the active player
    active: bool
    out: bool
    winner: bool
    marks: tuple[tuple[str, str], ...]  # (mark id, words)
    counters: tuple[CounterView, ...]  # the main counters first
    actions: tuple[ActionView, ...] = ()

    @property
    def main(self) -> CounterView | None:
        return next((c for c in self.counters if c.main), None)


@dataclass(frozen=True)
class TableView:
    game: str
    title: str
    turn: str  # "Ann joue — manche 2", or the end of the game
    turn_mark: str  # "active", "winner" or ""
    phase: str  # "Phase 2/5 : Maître"
    reminder: str
    over: bool
    seats: tuple[SeatView, ...]
    shared: tuple[CounterView, ...] = ()
    info: tuple[tuple[str, str], ...] = ()  # (mark id, words): the ring, the last coin toss...
    actions: tuple[ActionView, ...] = field(default_factory=tuple)  # the table's own (a coin toss)
    round: int = 0
    active: int | None = None


def fill(template: str, seat: int | None, answers: dict[str, Any]) -> str:
    """A command line from its template: ``{seat}`` is the seat's number (1 for the first);
    the other names are the answers to the action's questions."""
    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "seat":
            return "" if seat is None else str(seat + 1)
        value = answers.get(key, "")
        if isinstance(value, list | tuple):
            return " ".join(str(v) for v in value)
        return str(value)

    return " ".join(re.sub(r"\{(\w+)\}", one, template).split())


def asks_of(commands: tuple[str, ...], declared: list[str] | None) -> tuple[str, ...]:
    if declared:
        return tuple(a for a in declared if a in ASKS)
    found = [m for c in commands for m in re.findall(r"\{(\w+)\}", c) if m in ASKS]
    return tuple(dict.fromkeys(found))


def _action(spec: dict[str, Any], seat: int | None, lang: str) -> ActionView:
    command = spec.get("command") or []
    commands = (command,) if isinstance(command, str) else tuple(str(c) for c in command)
    names = spec.get("names") or {}
    words = str(names.get(lang) or names.get("fr") or spec["id"])
    return ActionView(str(spec["id"]), str(spec.get("mark", "")), words, commands,
                      asks_of(commands, spec.get("ask")), seat, bool(spec.get("urgent")))


def seat_actions(rules: Any, s: dict[str, Any], seat: int, lang: str) -> tuple[ActionView, ...]:
    return tuple(_action(spec, seat, lang) for spec in rules.data.present.get("actions", [])
                 if rules.action_ready(s, seat, spec.get("when") or {}))


def table_actions(rules: Any, s: dict[str, Any], lang: str) -> tuple[ActionView, ...]:
    return tuple(_action(spec, None, lang) for spec in rules.data.present.get("table_actions", [])
                 if rules.action_ready(s, None, spec.get("when") or {}))


def _counter(rules: Any, s: dict[str, Any], seat: int, cid: str, lang: str, main: bool) -> CounterView:
    note = rules.counter_note(s, seat, cid, lang)
    words = t(note[0], lang, **note[1]) if note else ""
    me = s["seats"][seat]
    return CounterView(seat, cid, rules.data.counters[cid].name(lang), me["counters"][cid], words, me["out"], main)


def seat_counters(rules: Any) -> list[str]:
    """The counters a seat shows, in the order the table draws them: the main ones, then the
    small ones. What the keys visit too: a counter with no box (points counted from the seat's cards
    at the end, set from the seat's menu) is never a stop of the arrows."""
    main = rules.main_counters()
    return [*main, *(cid for cid in rules.small_counters() if cid not in main)]


def shared_counters(data: Any, s: dict[str, Any]) -> list[str]:
    """The shared counters the table shows now (the honor beyond the pool only once there is some)."""
    return [cid for cid, c in data.shared.items() if not c.hidden and (cid != "extra" or s["shared"][cid])]


def table_view(game: Any, lang: str | None = None) -> TableView:
    """Everything a table shows, as words and numbers, from the game's state."""
    lang = lang or language()
    data, rules, s = game.data, game.rules, game.state
    over = bool(s.get("over"))
    active = s.get("active")
    names = [seat["name"] for seat in s["seats"]]
    if over:
        winners = [names[w] for w in s.get("winner", [])]
        turn, turn_mark = t("ui.over", lang, winners=t("table.and", lang).join(winners) or "—"), "winner"
        phase = reminder = ""
    elif active is not None and s.get("phase") is not None:
        ph = data.phases[s["phase"]]
        # The name first: a narrow strip cuts the end of a line, never the player's name.
        turn, turn_mark = t("ui.table.turn", lang, name=names[active], round=s["round"]), "active"
        phase = t("ui.phase", lang, n=s["phase"] + 1, count=len(data.phases), name=ph.name(lang))
        reminder = ph.remind(lang)
    else:
        turn, turn_mark, phase, reminder = t("ui.drawing", lang), "", "", ""

    main, shown = set(rules.main_counters()), seat_counters(rules)
    seats = []
    for i, seat in enumerate(s["seats"]):
        is_active = i == active and not over
        counters = tuple(_counter(rules, s, i, cid, lang, cid in main) for cid in shown)
        # The name first: a narrow panel cuts the end of the words, never the name.
        header = t("ui.table.your_turn", lang, name=seat["name"]) if is_active else seat["name"]
        seats.append(SeatView(i, seat["name"], header, is_active, seat["out"], over and i in s.get("winner", []),
                              tuple(rules.seat_marks(s, i, lang)), counters, seat_actions(rules, s, i, lang)))
    shared = tuple(CounterView(None, cid, data.shared[cid].name(lang), s["shared"][cid], locked=True)
                   for cid in shared_counters(data, s))
    return TableView(data.id, data.name(lang), turn, turn_mark, phase, reminder, over, tuple(seats), shared,
                     tuple(rules.table_info(s, lang)), table_actions(rules, s, lang), int(s.get("round") or 0),
                     None if over else active)
