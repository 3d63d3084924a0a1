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
from array import array
from collections import Counter
from collections.abc import Callable
from typing import Any

from companion.i18n import language, t
from companion.table import statediff as fx
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
        # The undo and redo stacks hold event ids only, 8 bytes each (a long game stays small in
        # memory); the effects an undo takes back are read from the journal when it is asked.
        self._undo = array("q")
        self._redo = array("q")
        # Who made each undoable change a seat made from its own device (0-based); a change not
        # in it is the table's (its screen, the host). A seat's undo takes back its own changes only.
        self._by: dict[int, int] = {}
        # How many changes of each seat each stack holds, kept as the stacks change, so that what a
        # seat may undo is known without a walk through a long game's stacks.
        self._mine_undo: Counter[int] = Counter()
        self._mine_redo: Counter[int] = Counter()
        self.last_event_id: int | None = None
        self.opening: Result | None = None  # what the draw of the first player said
        self.skipped: list[int] = []  # events of the journal that could not be replayed
        self._recovered_start = False  # the set-up was rebuilt by a recovery (recovery.py)

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
             data: TableData | None = None, read_only: bool = False) -> Game:
        """The game as its journal holds it, held for this program (one writer per game). With
        ``read_only`` (an export, a listing): not held and nothing written, so it works while
        another program plays the game."""
        row = journal.game(game_id)
        if row is None:
            raise KeyError(game_id)
        if read_only:
            g = cls(journal, game_id, data or load_table(row.game), clock)
            g.replay(journal.iter_events(game_id))
            if not isinstance(g.state.get("seats"), list) or not g.state["seats"]:
                raise JournalError(f"{journal.path}: game {game_id} has no readable set-up", "journal.cause.damaged")
            return g
        # One writer per game: a second program gets GameLocked, naming the first.
        journal.lock_game(game_id)
        try:
            g = cls(journal, game_id, data or load_table(row.game), clock)
            g.replay(journal.iter_events(game_id))
            if not isinstance(g.state.get("seats"), list) or not g.state["seats"]:
                raise JournalError(f"{journal.path}: game {game_id} has no readable set-up",
                                   "journal.cause.damaged")
            g.opening = None
            g._complete_recovered()
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

    def _complete_recovered(self) -> None:
        """A game recovered without its ``start`` has the opening state every game shares
        (rebuilt by ``recovery``); what this game's rules add to it is added now, as one event,
        so that the state stays the fold of the journal."""
        if not self._recovered_start:
            return
        names = [str(s.get("name", "")) for s in self.state["seats"] if isinstance(s, dict)]
        try:
            base = self.rules.initial_state(names, 0, {}, self.clock())
        except Exception:  # the rules cannot make an opening for these seats: leave it as it is
            log.exception("game %s: no opening state to complete the recovered one", self.id)
            return
        full = copy.deepcopy(self.state)
        _fill(full, base)
        effects = fx.diff(self.state, full)
        if not effects:
            return
        try:
            ev = self.journal.append(self.id, "recovered", {"effects": effects, "notes": []}, source="script",
                                     after=self.last_event_id)
        except JournalError:
            return  # the game still opens; a change that needs the missing part is refused
        self.state = full
        self.last_event_id = ev.id

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
            if ev.type == "start" and ev.payload.get("recovered"):
                self._recovered_start = True
            elif ev.type == "recovered":
                self._recovered_start = False  # completed already
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
                if _take(self._undo, target):
                    self._redo.append(target)
                    self._move(target, self._mine_undo, self._mine_redo)
        elif etype == "redo":
            for target in targets:
                if _take(self._redo, target):
                    self._undo.append(target)
                    self._move(target, self._mine_redo, self._mine_undo)
        elif payload.get("undoable"):
            by = _author(payload)
            self._undo.append(eid)
            if by is not None:
                self._by[eid] = by
                self._mine_undo[by] += 1
            # A new change ends what its author could redo (the table's ends everyone's).
            if by is None:
                del self._redo[:]
                self._mine_redo.clear()
            elif self._mine_redo[by]:
                self._redo = array("q", (e for e in self._redo if self._by.get(e) != by))
                self._mine_redo[by] = 0

    def _move(self, eid: int, source: Counter[int], target: Counter[int]) -> None:
        by = self._by.get(eid)
        if by is not None:
            source[by] -= 1
            target[by] += 1

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
        ctx = Ctx(self, fx.copy_tree(self.state), intent, self.clock())
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
        work = fx.copy_tree(self.state)
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
        self._undo, self._redo, self.skipped, self._by = array("q"), array("q"), [], {}
        self._mine_undo, self._mine_redo = Counter(), Counter()
        try:
            self.replay(self.journal.iter_events(self.id))
        except JournalError:
            pass  # keep what was shown; the refusal says why

    # -- built-in events ------------------------------------------------------------------

    def _mine(self, stack: array, by: int | None, n: int) -> list[int]:
        """The last ``n`` changes of ``stack`` its author may take back or redo, newest first: any
        for the table, a seat's own for a seat (searched from the top: its last change is near)."""
        if by is None:
            return list(reversed(stack[-n:])) if n > 0 else []
        found: list[int] = []
        for eid in reversed(stack):
            if len(found) >= n:
                break
            if self._by.get(eid) == by:
                found.append(eid)
        return found

    def _do_undo(self, ctx: Ctx, intent: Intent) -> None:
        n = int(intent.args.get("count", 1))
        by = _author(intent.args)
        mine = self._mine(self._undo, by, n) if by is None or self._mine_undo[by] else []
        if not mine:
            ctx.refuse("table.refuse.nothing_to_undo")
        targets = mine
        recorded = self.journal.effects_of(targets)
        effects: list[fx.Effect] = []
        for eid in targets:
            effects.extend(fx.inverse(recorded.get(eid, [])))
        ctx.payload.update(targets=targets, effects=effects)
        if by is None:
            ctx.note("table.undone", count=len(targets))
        else:
            ctx.note("table.undone_by", name=ctx.name(by), count=len(targets))
        self._note_counters(ctx, effects)

    def _do_redo(self, ctx: Ctx, intent: Intent) -> None:
        n = int(intent.args.get("count", 1))
        by = _author(intent.args)
        mine = self._mine(self._redo, by, n) if by is None or self._mine_redo[by] else []
        if not mine:
            ctx.refuse("table.refuse.nothing_to_redo")
        targets = mine
        recorded = self.journal.effects_of(targets)
        effects: list[fx.Effect] = []
        for eid in targets:
            effects.extend(recorded.get(eid, []))
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
            if len(p) == 4 and p[0] == "seats" and p[2] == "counters":
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
        if by is None:
            return len(self._undo), len(self._redo)
        return self._mine_undo[by], self._mine_redo[by]

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


def _take(stack: array, eid: int) -> bool:
    """Remove ``eid`` from an undo or redo stack. An undo written by this program names the top
    of the stack (constant time); one written by another program or by hand may name any."""
    if stack and stack[-1] == eid:
        stack.pop()
        return True
    try:
        stack.remove(eid)
    except ValueError:
        return False
    return True


def _fill(state: dict[str, Any], base: dict[str, Any]) -> None:
    """Add to ``state`` what ``base`` has and it lacks (seat by seat), keeping every value it has."""
    for key, value in base.items():
        if key not in state:
            state[key] = copy.deepcopy(value)
        elif key == "seats" and isinstance(state[key], list) and isinstance(value, list):
            for mine, theirs in zip(state[key], value, strict=False):
                if isinstance(mine, dict) and isinstance(theirs, dict):
                    _fill(mine, theirs)
        elif isinstance(state[key], dict) and isinstance(value, dict) and key != "options":
            _fill(state[key], value)


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
