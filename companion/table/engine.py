"""The game on the table: one entry point, ``Game.apply(intent) -> Result``.

An intent is what someone asked (``pool 2 -3``); the game's rules turn it into a new state or
refuse it with a reason. An accepted intent becomes one event in the journal, holding the
effects it had (see ``effects``), and the event is durable before ``apply`` returns, so before
the change is shown or spoken. The state is only ever the fold of those events: opening a game
replays its journal, and a test checks that replay gives the live state.
"""

from __future__ import annotations

import copy
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.i18n import language, t
from companion.table import effects as fx
from companion.table.data import TableData, load_table
from companion.table.journal import Event, Journal, JournalConflict, JournalError

log = logging.getLogger(__name__)

# Events that are part of the game's record but not of what undo takes back: the set-up, the
# draw of the first player, and dice and coins (undoing a toss must not allow throwing again).
NOT_UNDOABLE = frozenset({"start", "first_player", "toss", "dice", "undo", "redo"})
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
    answer: list[str] = field(default_factory=list)  # lines of a query (status, timer, help)
    data: TableData | None = None

    def lines(self, lang: str | None = None) -> list[str]:
        lang = lang or language()
        if not self.ok and self.reason is not None:
            return [t("table.refused", lang, reason=render(self.data, *self.reason, lang=lang))]
        return [*self.answer, *(render(self.data, k, v, lang=lang) for k, v in self.notes)]

    def text(self, lang: str | None = None) -> str:
        return "\n".join(self.lines(lang))

    def reason_text(self, lang: str | None = None) -> str:
        return render(self.data, *self.reason, lang=lang or language()) if self.reason else ""


def render(data: TableData | None, key: str, values: dict[str, Any], lang: str | None = None) -> str:
    """A note in one language. Values may name game data, resolved now: ``@p:ID`` a phase name,
    ``@r:ID`` its reminder, ``@c:ID`` a counter name, ``@t:KEY`` another message."""
    lang = lang or language()
    return t(key, lang, **resolve_values(data, values, lang))


def resolve_values(data: TableData | None, values: dict[str, Any], lang: str) -> dict[str, Any]:
    """The values of a note with their game references named in ``lang`` (see ``render``)."""
    out: dict[str, Any] = {}
    for k, v in values.items():
        if isinstance(v, str) and v[:3] in ("@p:", "@r:", "@c:", "@t:"):
            kind, ref = v[1], v[3:]
            if kind == "t":
                v = t(ref, lang)
            elif data is not None and kind in "pr":
                phase = data.phases[data.phase_index(ref)]
                v = phase.name(lang) if kind == "p" else phase.remind(lang)
            elif data is not None and kind == "c":
                v = data.counter(ref).name(lang)
        elif isinstance(v, list) and all(isinstance(x, str) for x in v):
            v = t("table.and", lang).join(v) if len(v) > 1 else (v[0] if v else "")
        out[k] = v
    return out


class Ctx:
    """What a rule sees while it handles one intent: a working copy of the state."""

    def __init__(self, game: Game, state: dict[str, Any], intent: Intent, now: float) -> None:
        self.game = game
        self.s = state
        self.data = game.data
        self.intent = intent
        self.now = now
        self.notes: list[tuple[str, dict[str, Any]]] = []
        self.changes: list[Change] = []
        self.type = intent.verb
        self.payload: dict[str, Any] = {}
        self.answer: list[str] = []

    def note(self, key: str, **values: Any) -> None:
        self.notes.append((key, values))

    def refuse(self, key: str, **values: Any) -> None:
        raise Refusal(key, **values)

    def name(self, seat: int) -> str:
        return self.s["seats"][seat]["name"]

    def seat(self, seat: int) -> dict[str, Any]:
        return self.s["seats"][seat]

    def rand(self, n: int) -> int:
        """A fair draw in range(n): the n-th draw of the game's seed. Only its result goes in
        the journal; the draw counter lives in the state, so a resumed game goes on drawing."""
        draw = self.s["rng"]
        self.s["rng"] = draw + 1
        return random.Random(f"{self.s['seed']}:{draw}").randrange(n)


class Game:
    def __init__(self, journal: Journal, game_id: int, data: TableData, clock: Callable[[], float] = time.time) -> None:
        from companion.table.rules import rules_for

        self.journal = journal
        self.id = game_id
        self.data = data
        self.rules = rules_for(data)
        self.clock = clock
        self.state: dict[str, Any] = {}
        self._undo: list[int] = []
        self._redo: list[int] = []
        self._effects: dict[int, list[fx.Effect]] = {}
        self.last_event_id: int | None = None
        self.opening: Result | None = None  # what the draw of the first player said
        self.skipped: list[int] = []  # events of the journal that could not be replayed

    # -- creating and opening -------------------------------------------------------------

    @classmethod
    def new(cls, journal: Journal, game: str, players: list[str], seed: int | None = None,
            options: dict[str, Any] | None = None, source: str = "script",
            clock: Callable[[], float] = time.time, data: TableData | None = None) -> Game:
        data = data or load_table(game)
        names = [p.strip() for p in players]
        from companion.table.rules import rules_for

        rules = rules_for(data)
        rules.check_players(names, options or {})  # raises Refusal before anything is written
        seed = secrets.randbits(48) if seed is None else int(seed)
        now = clock()
        initial = rules.initial_state(names, seed, options or {}, now)
        notes = [["table.started", {"game": data.name(), "players": names}]]
        payload = {"players": names, "seed": seed, "options": options or {}, "game": data.id, "notes": notes,
                   "effects": fx.diff({}, initial)}
        gid, start = journal.new_game(data.id, names, ts=now, first=("start", payload, source))
        journal.lock_game(gid)  # nobody else knows its number yet: this cannot be refused
        g = cls(journal, gid, data, clock)
        g.replay([start])
        g.opening = g._draw_first(source)
        return g

    def _draw_first(self, source: str) -> Result:
        return self._run(Intent("first_player", source=source), self.rules.draw_first)

    @classmethod
    def open(cls, journal: Journal, game_id: int, clock: Callable[[], float] = time.time,
             data: TableData | None = None) -> Game:
        row = journal.game(game_id)
        if row is None:
            raise KeyError(game_id)
        # One writer per game: a second program gets GameLocked, naming the first.
        journal.lock_game(game_id)
        try:
            g = cls(journal, game_id, data or load_table(row.game), clock)
            g.replay(journal.iter_events(game_id))
            if not isinstance(g.state.get("seats"), list) or not g.state["seats"]:
                raise JournalError(f"{journal.path}: game {game_id} has no readable set-up",
                                   "journal.cause.damaged")
            g.opening = None
            if g.state.get("first") is None and not g.state.get("over"):
                # Stopped between the set-up and the draw: the seed is recorded, draw now.
                g.opening = g._draw_first("script")
        except BaseException:
            journal.unlock_game(game_id)
            raise
        if g.skipped:
            skipped = Result(True, Intent("resume", source="script"), data=g.data, notes=[
                ("table.skipped_events", {"count": len(g.skipped), "ids": ", ".join(map(str, g.skipped[:10]))})])
            if g.opening is not None:
                g.opening.notes[:0] = skipped.notes
            else:
                g.opening = skipped
        return g

    def close(self) -> None:
        """Let another program open this game."""
        self.journal.unlock_game(self.id)

    def replay(self, events: Any) -> None:
        """Fold events into the state, exactly as living them did."""
        state: dict[str, Any] = {}
        for ev in events:
            effects = ev.payload.get("effects", [])
            try:
                if "damaged" in ev.payload:
                    raise ValueError(ev.payload["damaged"])
                fx.apply_checked(state, effects)
            except ValueError:
                # A hand-edited or damaged event: the others still replay (effects hold values,
                # not steps, so the next change of the same number heals it). The front end says so.
                self.skipped.append(ev.id)
                self.last_event_id = ev.id
                continue
            self._track(ev.id, ev.type, ev.payload, effects)
        self.state = state

    def _track(self, eid: int, etype: str, payload: dict[str, Any], effects: list[fx.Effect]) -> None:
        self.last_event_id = eid
        # An undo names the events it took back; one the journal no longer holds as undoable
        # (written by a second program, or hand-edited) is passed over: replay never fails on a
        # journal this program wrote.
        targets = payload.get("targets") if isinstance(payload.get("targets"), list) else []
        if etype == "undo":
            for target in targets:
                if target in self._undo:
                    self._undo.remove(target)
                    self._redo.append(target)
        elif etype == "redo":
            for target in targets:
                if target in self._redo:
                    self._redo.remove(target)
                    self._undo.append(target)
        elif payload.get("undoable"):
            self._undo.append(eid)
            self._redo.clear()
            self._effects[eid] = effects

    # -- the one entry point --------------------------------------------------------------

    def apply(self, intent: Intent) -> Result:
        verb = intent.verb
        if verb in ("undo", "redo"):
            return self._run(intent, self._do_undo if verb == "undo" else self._do_redo)
        handler = getattr(self.rules, f"verb_{verb}", None)
        if handler is None:
            return self._refused(intent, "table.refuse.unknown_verb", verb=verb)
        if self.state.get("over") and verb not in AFTER_OVER and verb not in self.rules.after_over:
            return self._refused(intent, "table.refuse.over")
        return self._run(intent, handler)

    def _refused(self, intent: Intent, key: str, **values: Any) -> Result:
        return Result(False, intent, reason=(key, values), data=self.data)

    def _run(self, intent: Intent, handler: Callable[[Ctx, Intent], None]) -> Result:
        work = copy.deepcopy(self.state)
        ctx = Ctx(self, work, intent, self.clock())
        try:
            handler(ctx, intent)
            summary = None if intent.verb in QUERIES else self.rules.summary(work)
        except Refusal as r:
            return Result(False, intent, reason=(r.key, r.values), data=self.data)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            # Only a state the rules never make gets here: a hand-edited or damaged journal
            # (found by tests/test_fuzz.py). The change is refused; the program goes on.
            log.exception("game %s: the rules cannot work on this state", self.id)
            return self._refused(intent, "table.refuse.journal", cause="@t:journal.cause.state")
        if intent.verb in QUERIES:
            return Result(True, intent, notes=ctx.notes, answer=ctx.answer, data=self.data)
        effects = ctx.payload.pop("effects", None)
        if effects is None:
            effects = fx.diff(self.state, work)
        payload: dict[str, Any] = {**{k: v for k, v in intent.args.items()}, **ctx.payload}
        if intent.text:
            payload["text"] = intent.text
        payload["notes"] = [[k, v] for k, v in ctx.notes]
        payload["effects"] = effects
        etype = ctx.type
        if etype not in NOT_UNDOABLE:
            payload["undoable"] = True
        status = "over" if work.get("over") else "playing"
        try:
            ev = self.journal.append(self.id, etype, payload, seat=intent.seat, source=intent.source,
                                     ts=ctx.now, status=status, summary=summary,
                                     after=self.last_event_id)
        except JournalConflict as exc:
            # Another program wrote to this game: show what the journal holds, refuse this change.
            self._reload()
            return self._refused(intent, "table.refuse.journal", cause=f"@t:{exc.key}")
        except JournalError as exc:
            # Nothing was written, so nothing moves: the change is refused with its cause in words.
            return self._refused(intent, "table.refuse.journal", cause=f"@t:{exc.key}")
        # The event is on the disk: only now does the live state move.
        if etype in ("undo", "redo"):
            fx.apply(self.state, effects)
        else:
            self.state = work
        self._track(ev.id, etype, payload, effects)
        return Result(True, intent, notes=ctx.notes, event=ev, changes=ctx.changes, answer=ctx.answer,
                      data=self.data)

    def _reload(self) -> None:
        self._undo, self._redo, self._effects, self.skipped = [], [], {}, []
        try:
            self.replay(self.journal.iter_events(self.id))
        except JournalError:
            pass  # keep what was shown; the refusal says why

    # -- built-in events ------------------------------------------------------------------

    def _do_undo(self, ctx: Ctx, intent: Intent) -> None:
        n = int(intent.args.get("count", 1))
        if not self._undo:
            ctx.refuse("table.refuse.nothing_to_undo")
        targets = list(reversed(self._undo[-n:]))
        effects: list[fx.Effect] = []
        for eid in targets:
            effects.extend(fx.inverse(self._effects.get(eid, [])))
        ctx.payload.update(targets=targets, effects=effects)
        ctx.note("table.undone", count=len(targets))

    def _do_redo(self, ctx: Ctx, intent: Intent) -> None:
        n = int(intent.args.get("count", 1))
        if not self._redo:
            ctx.refuse("table.refuse.nothing_to_redo")
        targets = list(reversed(self._redo[-n:]))
        effects: list[fx.Effect] = []
        for eid in targets:
            effects.extend(self._effects.get(eid, []))
        ctx.payload.update(targets=targets, effects=effects)
        ctx.note("table.redone", count=len(targets))

    # -- reading ----------------------------------------------------------------------------

    @property
    def can_undo(self) -> int:
        return len(self._undo)

    @property
    def can_redo(self) -> int:
        return len(self._redo)

    def status(self, lang: str | None = None) -> list[str]:
        try:
            return self.rules.status_lines(self.state, lang or language())
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):  # see _run
            log.exception("game %s: no status for this state", self.id)
            return [t("journal.cause.state", lang or language())]

    def to_json(self) -> dict[str, Any]:
        return self.rules.to_json(self.state)

    def events(self) -> list[Event]:
        return self.journal.events(self.id)
