"""The game on the table: one entry point, ``Game.apply(intent) -> Result``.

An intent is what someone asked (``pool 2 -3``); the game's rules turn it into a new state or
refuse it with a reason. An accepted intent becomes one event in the journal, holding the
effects it had (see ``effects``), and the event is durable before ``apply`` returns, so before
the change is shown or spoken. The state is only ever the fold of those events: opening a game
replays its journal, and a test checks that replay gives the live state.
"""

from __future__ import annotations

import copy
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from companion.i18n import language, t
from companion.table import effects as fx
from companion.table.data import TableData, load_table
from companion.table.journal import Event, Journal, JournalConflict, JournalError

# The vocabulary of the engine lives in model.py (shared with the rules); it is named here too,
# where its callers have always found it.
from companion.table.model import (  # noqa: F401
    AFTER_OVER,
    NOT_UNDOABLE,
    QUERIES,
    SHARED,
    Change,
    Ctx,
    Intent,
    Refusal,
    Result,
    duration_text,
    render,
    resolve_values,
)

log = logging.getLogger(__name__)


class Game:
    def __init__(self, journal: Journal, game_id: int, data: TableData, clock: Callable[[], float] = time.time) -> None:
        from companion.registry import rules_for

        self.journal = journal
        self.id = game_id
        self.data = data
        self.rules = rules_for(data)
        self.clock = clock
        self.state: dict[str, Any] = {}
        self._undo: list[int] = []
        self._redo: list[int] = []
        self._effects: dict[int, list[fx.Effect]] = {}
        # Who made each undoable change: a seat (0-based) acting from its own device, or None
        # for the table (its screen, the host). A seat's undo takes back its own changes only.
        self._by: dict[int, int | None] = {}
        self.last_event_id: int | None = None
        self.opening: Result | None = None  # what the draw of the first player said
        self.skipped: list[int] = []  # events of the journal that could not be replayed

    # -- creating and opening -------------------------------------------------------------

    @classmethod
    def new(cls, journal: Journal, game: str, players: list[str], seed: int | None = None,
            options: dict[str, Any] | None = None, source: str = "script",
            clock: Callable[[], float] = time.time, data: TableData | None = None,
            first: str | None = None) -> Game:
        """A new game; ``first`` names the first player the table chose (by name, any unambiguous
        beginning, or seat number), otherwise the first player is drawn."""
        data = data or load_table(game)
        names = [p.strip() for p in players]
        from companion.registry import rules_for

        rules = rules_for(data)
        options = dict(options or {})
        rules.check_players(names, options)  # raises Refusal before anything is written
        first = first if first is not None else options.pop("first", None)
        if first is not None and str(first).strip():
            # The choice is an option of the game, so it is in the journal's first event.
            options["first"] = names[rules.chosen_first(names, str(first).strip())]
        seed = secrets.randbits(48) if seed is None else int(seed)
        now = clock()
        initial = rules.initial_state(names, seed, options, now)
        notes = [["table.started", {"game": f"@g:{data.id}", "players": names}]]
        payload = {"players": names, "seed": seed, "options": options, "game": data.id, "notes": notes,
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
            by = _author(payload)
            self._undo.append(eid)
            self._by[eid] = by
            # A new change ends what its author could redo (the table's ends everyone's).
            self._redo = [] if by is None else [e for e in self._redo if self._by.get(e) != by]
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

    def check(self, intent: Intent) -> Result:
        """What ``apply`` would answer now, recording nothing and changing nothing: a proposal
        can say at once why it cannot be applied ("Ann n'a que 1 runes")."""
        verb = intent.verb
        handler = getattr(self.rules, f"verb_{verb}", None)
        if verb in ("undo", "redo") or handler is None:
            return self._refused(intent, "table.refuse.unknown_verb", verb=verb)
        if self.state.get("over") and verb not in AFTER_OVER and verb not in self.rules.after_over:
            return self._refused(intent, "table.refuse.over")
        ctx = Ctx(self, copy.deepcopy(self.state), intent, self.clock())
        try:
            handler(ctx, intent)
        except Refusal as r:
            return Result(False, intent, reason=(r.key, r.values), data=self.data)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):  # see _run
            log.exception("game %s: the rules cannot work on this state", self.id)
            return self._refused(intent, "table.refuse.journal", cause="@t:journal.cause.state")
        return Result(True, intent, notes=ctx.notes, changes=ctx.changes, answer=ctx.answer, data=self.data)

    def _refused(self, intent: Intent, key: str, **values: Any) -> Result:
        return Result(False, intent, reason=(key, values), data=self.data)

    def _run(self, intent: Intent, handler: Callable[[Ctx, Intent], None]) -> Result:
        work = copy.deepcopy(self.state)
        ctx = Ctx(self, work, intent, self.clock())
        try:
            handler(ctx, intent)
            summary = None if intent.verb in QUERIES else _summary(self.rules.summary(work))
        except Refusal as r:
            return Result(False, intent, reason=(r.key, r.values), data=self.data)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            # Only a state the rules never make gets here: a hand-edited or damaged journal
            # (found by tests/unit/test_fuzz.py). The change is refused; the program goes on.
            log.exception("game %s: the rules cannot work on this state", self.id)
            return self._refused(intent, "table.refuse.journal", cause="@t:journal.cause.state")
        if intent.verb in QUERIES:
            return Result(True, intent, notes=ctx.notes, answer=ctx.answer, data=self.data,
                          answer_for=ctx.answer_for)
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
        self._undo, self._redo, self._effects, self.skipped, self._by = [], [], {}, [], {}
        try:
            self.replay(self.journal.iter_events(self.id))
        except JournalError:
            pass  # keep what was shown; the refusal says why

    # -- built-in events ------------------------------------------------------------------

    def _mine(self, stack: list[int], by: int | None) -> list[int]:
        """The changes of ``stack`` its author may take back or redo: a seat's own, or any for the table."""
        return stack if by is None else [e for e in stack if self._by.get(e) == by]

    def _do_undo(self, ctx: Ctx, intent: Intent) -> None:
        n = int(intent.args.get("count", 1))
        by = _author(intent.args)
        mine = self._mine(self._undo, by)
        if not mine:
            ctx.refuse("table.refuse.nothing_to_undo")
        targets = list(reversed(mine[-n:]))
        effects: list[fx.Effect] = []
        for eid in targets:
            effects.extend(fx.inverse(self._effects.get(eid, [])))
        ctx.payload.update(targets=targets, effects=effects)
        if by is None:
            ctx.note("table.undone", count=len(targets))
        else:
            ctx.note("table.undone_by", name=ctx.name(by), count=len(targets))
        self._note_counters(ctx, effects)

    def _do_redo(self, ctx: Ctx, intent: Intent) -> None:
        n = int(intent.args.get("count", 1))
        by = _author(intent.args)
        mine = self._mine(self._redo, by)
        if not mine:
            ctx.refuse("table.refuse.nothing_to_redo")
        targets = list(reversed(mine[-n:]))
        effects: list[fx.Effect] = []
        for eid in targets:
            effects.extend(self._effects.get(eid, []))
        ctx.payload.update(targets=targets, effects=effects)
        if by is None:
            ctx.note("table.redone", count=len(targets))
        else:
            ctx.note("table.redone_by", name=ctx.name(by), count=len(targets))
        self._note_counters(ctx, effects)

    def _note_counters(self, ctx: Ctx, effects: list[fx.Effect]) -> None:
        """What an undo or a redo moves, counter by counter, as any change is told: the net
        move of each counter over all the effects (a value set twice is told once)."""
        moved: dict[tuple[int | None, str], list[Any]] = {}
        for e in effects:
            p = e["p"]
            if len(p) == 4 and p[0] == "seats" and p[2] == "c":
                key: tuple[int | None, str] = (p[1], p[3])
            elif len(p) == 2 and p[0] == "shared":
                key = (None, p[1])
            else:
                continue
            first = moved.setdefault(key, [e.get("o"), e.get("n")])
            first[1] = e.get("n")
        for (seat, cid), (old, new) in moved.items():
            if not isinstance(new, int) or old == new or cid not in {**self.data.counters, **self.data.shared}:
                continue
            counter = self.data.counter(cid)
            if counter.hidden:
                continue
            who = ctx.name(seat) if seat is not None else SHARED
            delta = new - (old if isinstance(old, int) else 0)
            ctx.changes.append(Change(seat, who, cid, dict(counter.names), delta, new))
            ctx.note("table.counter", name=who, counter=f"@c:{cid}", delta=f"{delta:+d}", value=new)

    # -- reading ----------------------------------------------------------------------------

    @property
    def can_undo(self) -> int:
        return len(self._undo)

    @property
    def can_redo(self) -> int:
        return len(self._redo)

    def undoable_by(self, by: int | None) -> tuple[int, int]:
        """How many changes ``by`` (a 0-based seat, or None: the table) may undo and redo now."""
        return len(self._mine(self._undo, by)), len(self._mine(self._redo, by))

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


def _author(payload: dict[str, Any]) -> int | None:
    by = payload.get("by")
    return by if isinstance(by, int) and not isinstance(by, bool) else None


def _summary(note: tuple[str, dict[str, Any]] | None) -> str:
    return json.dumps(list(note), ensure_ascii=False, separators=(",", ":")) if note else ""


def summary_text(game_id: str, summary: str, lang: str | None = None) -> str:
    """A game's one-line summary from the journal's listing, in the reader's language (journals
    written before summaries were language-free hold plain text: shown as it is)."""
    if not summary.startswith("["):
        return summary
    try:
        key, values = json.loads(summary)
        return render(load_table(game_id), key, values, lang)
    except Exception:  # a damaged or foreign summary must not stop a listing
        return ""
