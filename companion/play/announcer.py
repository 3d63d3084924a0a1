"""What the companion says on its own, for a player who cannot see the screen: every change of the
table (briefly: who, what, the new value, the seat's name first), every refusal and error, every
screen that opens, the focused element, and the whole state of a seat or of the table on demand.

Every front end speaks through one ``Announcer``: a change typed in the console, pressed on the
keypad, touched on the screen or sent from a phone is said in the same words (signs and numbers
as words, an undo says what it undid, durations as "dix secondes"). It turns results, screens and
states into utterances, each with its own language, and hands them to
``say(utterances, priority, interrupt)`` (``Voice.say_all``). The words are data:
companion/speech/table_phrases.yaml, phrases.yaml (change_speech) and the game's own names.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from typing import Any

from companion import kept
from companion.i18n import elide, t
from companion.i18n.grammar import agree
from companion.speech.lexicon import game_changed, game_once, game_tells, game_words
from companion.speech.numbers import duration_words, number_words
from companion.speech.phrases import Utterance, change_speech, for_the_ear
from companion.speech.speaker import Priority

log = logging.getLogger(__name__)

Say = Callable[[Sequence[Utterance], Priority, bool], None]


@functools.cache
def _phrases() -> dict[str, Any]:
    text = resources.files("companion.speech").joinpath("table_phrases.yaml").read_text(encoding="utf-8")
    return kept.load_yaml("table_phrases.marshal", text)  # read at every start: kept parsed


def phrase(key: str, lang: str, **values: Any) -> str:
    """A template of table_phrases.yaml filled in; integers are spelled out."""
    return _fill((_phrases().get(lang) or _phrases()["fr"])[key], values, lang)


def _fill(template: str, values: dict[str, Any], lang: str) -> str:
    """A template for the ear: integers spelled out, and in French "de" elided before a vowel
    once the names are in ("au tour d'Ann")."""
    spoken = {k: number_words(v, lang) if isinstance(v, int) and not isinstance(v, bool) else v
              for k, v in values.items()}
    text = template.format(**spoken)
    return elide(text) if lang == "fr" else text


def _feminine(game: str, cid: str, lang: str) -> bool:
    entry = (game_words(lang, game).get("counters") or {}).get(cid) or {}
    return bool(entry.get("feminine"))


def ear(text: str, lang: str, game: str = "") -> str:
    """A sentence of the engine made speakable: numbers and signs as words, its numbered nouns
    agreeing (no "(s)"), "n°" as a word."""
    return for_the_ear(agree(text, lang), lang, game)


def _resolve(table_data: Any, values: dict[str, Any], lang: str) -> dict[str, Any]:
    """The values of a note with their game references named (as the engine's ``render``), and
    durations in words."""
    from companion.table.engine import resolve_values

    return resolve_values(table_data, values, lang, duration=duration_words)


def snapshot(game: Any) -> dict[str, Any]:
    """The numbers and marks of a game that undo and redo can move, to say what they did."""
    state = game.state if game is not None else None
    if not state:
        return {}
    counters = {(i, cid): v for i, seat in enumerate(state.get("seats", [])) for cid, v in seat["counters"].items()}
    counters.update({(None, cid): v for cid, v in (state.get("shared") or {}).items()})
    marks = [(key, tuple(sorted(values.items()))) for key, values in game.rules.held_marks(state)]
    out = tuple(i for i, seat in enumerate(state.get("seats", [])) if seat.get("out"))
    return {"game": game.id, "counters": counters, "active": state.get("active"), "phase": state.get("phase"),
            "round": state.get("round"), "marks": marks, "out": out}


class Announcer:
    def __init__(self, say: Say, lang: str = "fr") -> None:
        self.say_to = say
        self.lang = lang
        # A front end that also writes what is said (the console, for a braille display) gets
        # every utterance here, but for the results of the table, which it writes itself.
        self.echo: Callable[[list[str]], None] | None = None
        self._snap: dict[str, Any] = {}
        # How much is said (the voice's verbosity: "short", "normal", "full"), asked each time.
        self.verbosity: Callable[[], str] = lambda: "normal"
        # The phase reminders and once-a-game notes already said in this game (docs/speech.md).
        self._reminded: set[tuple[str, ...]] = set()
        self._round: tuple[Any, int] | None = None  # the (game, round) whose number was said
        # (game, seat's name) → its main numbers as its last turn's sentence said them: a turn
        # says those that changed since (all of them on the seat's first turn).
        self._turn_said: dict[tuple[Any, str], dict[str, int]] = {}
        self._last_note: dict[tuple[str, str, str], str] = {}  # (game, note, seat) → said last (changed)
        self._ended: Any = None  # the game whose end ("Partie terminée…") was said: not said again
        self._said_for: dict[int, str] = {}  # event id → what it did, said (for an undo to name it)
        # The last messages, newest last, for a player who missed one or wants an older one;
        # ``_back`` is how far back the history steps are (1: at the newest, said last).
        self._held: list[tuple[Any, ...]] | None = None  # what waits while a front end holds speech
        self.history: deque[tuple[list[str], list[str]]] = deque(maxlen=30)  # (said, written)
        self._back = 1

    # -- output ---------------------------------------------------------------------------
    def say(self, texts: str | Sequence[str], priority: Priority = Priority.CHANGE, interrupt: bool = False,
            echo: bool = True, written: Sequence[str] | None = None) -> None:
        """``written``: the lines as a braille display or a screen reader should get them (digits,
        not number words), when they differ from what is said."""
        if self._held is not None:
            self._held.append((texts, priority, interrupt, echo, written))
            return
        items = [texts] if isinstance(texts, str) else list(texts)
        utterances = [Utterance(x.strip(), self.lang) for x in items if x and x.strip()]
        if not utterances:
            return
        if echo and self.echo is not None:
            self.echo(list(written) if written is not None else [u.text for u in utterances])
        said = [u.text for u in utterances]
        self.history.append((said, list(written) if written is not None else said))
        self._back = 1
        try:
            self.say_to(utterances, priority, interrupt)
        except Exception:  # a broken voice must never take the game down
            log.exception("speaking failed")

    @contextlib.contextmanager
    def held(self) -> Iterator[Callable[..., None]]:
        """Hold what is said while a game opens, so that the front end's opening ("Partie numéro
        un : …") comes first, then the draw, the turn, the phase and its reminder, in order.
        Yields a ``say`` that speaks at once."""
        self._held = []

        def now(*args: Any, **kwargs: Any) -> None:
            held, self._held = self._held, None
            try:
                self.say(*args, **kwargs)
            finally:
                self._held = held

        try:
            yield now
        finally:
            held, self._held = self._held or [], None
            for texts, priority, _interrupt, echo, written in held:
                self.say(texts, priority, False, echo, written)  # after the opening, not over it

    # -- the table ------------------------------------------------------------------------
    def watch(self, game: Any) -> None:
        """Remember the state of a game just opened, so that a first undo can say what it did."""
        self._snap = snapshot(game)
        self._reminded.clear()
        self._turn_said.clear()
        self._last_note.clear()

    def result(self, result: Any, game: Any) -> None:
        """A result of ``Game.apply``: its changes said briefly, or its refusal said as an error."""
        lang = self.lang
        if not result.ok:
            reason = ear(self.reason_text(result), lang)
            # just said (why a proposal cannot be paid): not again, only that it is refused
            just_said = bool(self.history) and reason in self.history[-1][0]
            self.say(phrase("refused_bare", lang) if just_said else phrase("refused", lang, reason=reason),
                     Priority.ERROR, True, echo=False)
            return
        texts, hints = self.result_texts(result, game)
        interrupt = getattr(result.intent, "source", "") == "key"
        self.say(texts, Priority.CHANGE, interrupt, echo=False)
        if hints:
            self.say(hints, Priority.HINT, echo=False)

    def reason_text(self, result: Any) -> str:
        """Why a command was refused, for the ear: the short spoken form of table_phrases.yaml
        ``reasons`` when it has one (what the player typed is not said back to them), else as
        written."""
        key, values = result.reason if result.reason else ("", {})
        spoken = ((_phrases().get(self.lang) or _phrases()["fr"]).get("reasons") or {}).get(key)
        if not spoken:
            return result.reason_text(self.lang)
        text = spoken.format(**_resolve(getattr(result, "data", None), dict(values), self.lang))
        return elide(text) if self.lang == "fr" else text

    def result_texts(self, result: Any, game: Any) -> tuple[list[str], list[str]]:
        """(what to say now, reminders to say after) for an accepted result.

        docs/speech.md: a new turn is one sentence with what its player needs ("Manche deux, au
        tour de Bob : réserve vingt-quatre."), the counters its start moved folded into it; a
        phase is its name, its reminder the first time it comes in a game (every time at the full
        verbosity, never at the short one: ``rappel`` says it on request); a rule reminder the
        game notes each turn is said once a game."""
        lang = self.lang
        gid = game.data.id if game is not None else ""
        before, after = self._snap, snapshot(game)
        if before.get("game") != after.get("game"):
            before = {}  # another game was opened: nothing to compare with
            self._reminded.clear()
            self._turn_said.clear()
            self._last_note.clear()
        self._snap = after
        verb = result.intent.verb
        answer = result.answer_lines(lang) if hasattr(result, "answer_lines") else result.answer
        if answer:  # a question (status, help): its lines, as written
            return [ear(x, lang, gid) for x in self._without_end_again(answer, game)], []
        if verb in ("undo", "redo"):
            event = getattr(result, "event", None)
            targets = (getattr(event, "payload", None) or {}).get("targets") or []
            done = [self._said_for[i] for i in targets if i in self._said_for]
            return [self._undo_text(verb, before, after, game, done)], []
        texts: list[str] = []
        hints: list[str] = []
        changes = list(result.changes)
        turn_at: int | None = None  # where the new turn's sentence goes
        turn_values: dict[str, Any] = {}
        folded: dict[str, int] = {}  # counters of the new turn's player moved as the turn began
        once, changed, tells = game_once(gid), game_changed(gid), game_tells(gid)
        level = self.verbosity()
        own = _typed_change(result)
        # a game's short forms of the notes of a command the player typed or pressed themselves
        # (game.yaml speech: typed: verb: {note: template}): "Anson, sept." for "blood 1 Anson -1"
        typed = {} if getattr(result.intent, "source", "") == "scan" else \
            ((game_words(lang, gid).get("typed") or {}).get(verb) or {})
        note_at = -1  # where the last note's sentence is in ``texts``
        told: str | None = None  # the seat whose next change a note of this result said (game.yaml tells)
        for key, values in result.notes:
            if key == "table.counter":
                change = self._take_change(changes, values)
                if change is None:
                    continue
                if turn_at is not None and change.seat_name == turn_values.get("name") and change.seat is not None:
                    folded[change.counter] = change.value
                    continue
                mine = own == (change.seat, change.counter) or (told is not None and told == change.seat_name)
                if told == change.seat_name:
                    told = None
                texts.append(self.change_text(change, gid, own=mine))
                heard = self._turn_said.get((game.id if game is not None else None, change.seat_name))
                if heard is not None:
                    heard[change.counter] = int(change.value)  # heard now: not again at their turn
                continue
            if key in tells:
                told = str(values.get(tells[key]) or "") or None
            if key == "table.turn":
                turn_at, turn_values = len(texts), dict(values)
                texts.append("")
                continue
            if key in once:
                if (gid, key) in self._reminded and level != "full":
                    continue
                self._reminded.add((gid, key))
            text = self.note_text(key, values, game)
            if key in typed:  # the player's own command: they know what and by how much (docs/speech.md)
                text = self.note_text(key, values, game, typed[key])
            again = (game_words(lang, gid).get("again") or {}).get(key)
            if again:  # the whole sentence the first time in a game, then its short form
                if (gid, "@again", key) in self._reminded and level != "full":
                    text = _fill(again, _resolve(game.data if game else None, values, lang), lang)
                self._reminded.add((gid, "@again", key))
            if key in changed:  # the same as this player last heard: they know it
                last = (gid, key, str(values.get("name", "")))
                if self._last_note.get(last) == text and level != "full":
                    continue
                self._last_note[last] = text
            if key in ("table.phase", "table.phase_bare") and (
                    _named(text, texts) or _opens(text, [self.note_text(k, v, game) for k, v in result.notes
                                                         if k not in ("table.phase", "table.phase_bare",
                                                                      "table.counter", "table.turn")])
                    or (turn_at is not None and _phase(game, values).said == "with_turn")):
                # "Manche deux : collecte." or "Contrôle de victoire : Ann dix, Bob dix." names
                # the phase; a turn's sentence stands for the phase it opens in (game.yaml)
                text = ""
            if text and texts and note_at == len(texts) - 1 and text.startswith(texts[-1].rstrip(". ") + " "):
                texts.pop()  # "Bob passe." then "Bob passe en premier et prend la tuile…": the longer one
            note_at = len(texts)
            texts.append(text)
            if key == "table.phase" and level != "short":
                phase_key = (gid, "@phase", str(values.get("phase")))
                if phase_key not in self._reminded or level == "full":
                    reminder = _resolve(game.data if game else None, values, lang).get("reminder")
                    if reminder:
                        self._reminded.add(phase_key)
                        hints.append(ear(reminder, lang, gid))
        if turn_at is not None:
            texts[turn_at] = self.turn_start_text(game, turn_values, folded)
        self._remember(result, game)
        over = game is not None and bool(game.state.get("over"))
        self._ended = after.get("game") if over and (self._ended == after.get("game") or texts) else None
        if verb == "resume" and game is not None and not game.state.get("over"):
            texts.append(self.turn_text(game))  # where the game stands: whose turn, which phase
            self._round = (game.id, int(game.state.get("round") or 1))
        return [x for x in texts if x], hints

    def _ended_here(self, game: Any) -> bool:
        return game is not None and bool(game.state.get("over")) and self._ended == game.id

    def _won_text(self, game: Any) -> str:
        """Who won, without "game over" again: the end was said once already."""
        s = game.state
        winners = t("table.and", self.lang).join(s["seats"][w]["name"] for w in s.get("winner", [])) or "—"
        return phrase("won", self.lang, winners=winners)

    def _without_end_again(self, lines: list[str], game: Any) -> list[str]:
        """A status asked after the end was said: its first line says who won, not "Partie
        terminée" a second time (the written status keeps its full line)."""
        if not self._ended_here(game) or not lines:
            return lines
        from companion.table.engine import render

        s = game.state
        full = render(game.data, "table.status.over",
                      {"winners": [s["seats"][w]["name"] for w in s.get("winner", [])] or ["—"]}, self.lang)
        return [self._won_text(game), *lines[1:]] if lines[0] == full else lines

    def turn_start_text(self, game: Any, values: dict[str, Any], moved: dict[str, int]) -> str:
        """A new turn, once: the round, whose turn, and that player's main numbers that changed
        since they last heard them (the game's main counters when there are one or two, all of
        them on their first turn, and those the turn's start moved)."""
        lang = self.lang
        name = values.get("name", "")
        if game is None:
            return self.note_text("table.turn", values, game)
        s = game.state
        seat = next((i for i, x in enumerate(s["seats"]) if x["name"] == name), None)
        main = list((game.data.present or {}).get("main") or [])
        shown = main if len(main) <= 2 else []
        shown += [cid for cid in moved if cid not in shown]
        parts = []
        last = self._turn_said.get((game.id, name))
        now: dict[str, int] = {}
        for cid in shown:
            counter = game.data.counters.get(cid)
            value = s["seats"][seat]["counters"].get(cid) if seat is not None else None
            if counter is None or counter.hidden or value is None:
                continue
            now[cid] = int(value)
            if last is not None and cid not in moved and last.get(cid) == int(value):
                continue  # as this player last heard it at their turn: they know it
            parts.append(phrase("counter", lang, counter=counter.name(lang),
                                value=number_words(int(value), lang, _feminine(game.data.id, cid, lang))))
        self._turn_said[(game.id, name)] = now
        # The round once, on its first turn (and on the game's first); then only whose turn it is.
        round_ = int(values.get("round") or s.get("round") or 1)
        new_round = self._round != (game.id, round_)
        self._round = (game.id, round_)
        key = "turn_start" if new_round else "turn_next"
        if parts:
            return phrase(key, lang, round=round_, name=name, counters=", ".join(parts))
        return phrase(f"{key}_bare", lang, round=round_, name=name)

    def reminder_text(self, game: Any) -> str:
        """The reminder of the phase the game is in (``rappel``), or "" when it has none."""
        if game is None or game.state.get("phase") is None:
            return ""
        phase = game.data.phases[game.state["phase"]]
        text = phase.remind(self.lang)
        return ear(f"{phase.name(self.lang)} : {text}" if self.lang == "fr" else f"{phase.name(self.lang)}: {text}",
                   self.lang, game.data.id) if text else ""

    @staticmethod
    def _take_change(changes: list[Any], values: dict[str, Any]) -> Any:
        name, counter = values.get("name"), str(values.get("counter", ""))
        for i, change in enumerate(changes):
            if change.seat_name == name and counter == f"@c:{change.counter}":
                return changes.pop(i)
        return None

    def change_text(self, change: Any, game_id: str = "", own: bool = False) -> str:
        """A counter's change in one sentence; ``own``: the change the player just typed or
        pressed, said by its new value only ("Bob, vingt-sept."): they know the counter and the
        amount, they need to hear whose it is and where it stands."""
        names = dict(change.counter_names)
        entry = (game_words(self.lang, game_id).get("counters") or {}).get(change.counter)
        if own and not (entry and "on" in entry):
            value = number_words(int(change.value), self.lang, bool((entry or {}).get("feminine")))
            if change.seat is None:
                return phrase("own_shared", self.lang, counter=ear(change.counter_names.get(self.lang) or
                                                                   change.counter, self.lang, game_id), value=value)
            return phrase("own", self.lang, name=change.seat_name, value=value)
        key: Any = f"{game_id}.{change.counter}" if entry and "on" in entry else names
        spoken = change_speech(change.seat_name if change.seat is not None else None, key, change.delta,
                               change.value, self.lang, game_id)
        return " ".join(u.text for u in spoken)

    def note_text(self, key: str, values: dict[str, Any], game: Any, template: str | None = None) -> str:
        """A note of the engine as said: its short spoken form (table_phrases.yaml notes, the
        game's own), or ``template``, or as written, numbers spelled out."""
        lang = self.lang
        table_data = game.data if game is not None else None
        gid = table_data.id if table_data is not None else ""
        resolved = _resolve(table_data, values, lang)
        notes = {**(_phrases().get(lang) or _phrases()["fr"])["notes"], **(game_words(lang, gid).get("notes") or {})}
        if template is not None:
            notes[key] = template
        if key in notes:
            if not notes[key]:
                return ""
            text = _fill(notes[key], resolved, lang)
            # a value written with its digits ("Ann 5 points, Bob 1 point"): said as words too
            return ear(text, lang, gid) if any(c.isdigit() for c in text) else text
        return ear(t(key, lang, **resolved), lang, gid)

    def _remember(self, result: Any, game: Any) -> None:
        """What an event did, in words, for an undo to name it ("Annulé. Bob joue Anson."): its
        first sentence that is not a counter, a turn or a phase (those the undo says anyway)."""
        event = getattr(result, "event", None)
        if event is None or result.intent.verb in ("next", "end", "undo", "redo"):
            return
        for key, values in result.notes:
            if key not in ("table.counter", "table.turn", "table.phase", "table.phase_bare"):
                self._said_for[event.id] = self.note_text(key, values, game)
                break
        while len(self._said_for) > 200:
            self._said_for.pop(next(iter(self._said_for)))

    def _undo_text(self, verb: str, before: dict[str, Any], after: dict[str, Any], game: Any,
                   done: list[str] | None = None) -> str:
        what = [x for x in (done or []) if x] + self.difference(before, after, game)
        if not what:
            return phrase(f"{verb}_bare", self.lang)
        return phrase(verb, self.lang, what=". ".join(x.rstrip(". ") for x in what))

    def difference(self, before: dict[str, Any], after: dict[str, Any], game: Any) -> list[str]:
        """What moved between two snapshots, said as changes (for undo and redo)."""
        if not before or not after or game is None:
            return []
        lang, gid, s = self.lang, game.data.id, game.state
        out: list[str] = []
        for (seat, cid), value in after["counters"].items():
            old = before["counters"].get((seat, cid))
            if old == value or value is None:
                continue
            counter = game.data.counter(cid)
            if counter.hidden:
                continue
            name = s["seats"][seat]["name"] if seat is not None else None
            out.append(" ".join(u.text for u in change_speech(name, dict(counter.names), value - (old or 0),
                                                               value, lang, gid)))
        for seat in before.get("out", ()):
            if seat not in after.get("out", ()):  # an oust or a withdrawal undone
                out.append(phrase("back_in", lang, name=s["seats"][seat]["name"]))
        if after["active"] != before["active"] and after["active"] is not None:
            out.append(self.note_text("table.turn", {"name": s["seats"][after["active"]]["name"]}, game))
        elif after["phase"] != before["phase"] and after["phase"] is not None:
            phase = game.data.phases[after["phase"]]
            out.append(phrase("phase", lang, phase=phase.name(lang)))
        for key, values in after.get("marks", []):
            if (key, values) not in before.get("marks", []):
                out.append(self.note_text(key, dict(values), game))
        return out

    def history_step(self, step: int) -> bool:
        """Say an older (step -1) or a newer (+1) message of the history again; False at either end.
        Saying it again does not add it to the history, so that steps go on from where they are."""
        back = self._back - step
        if not self.history or back < 1 or back > len(self.history):
            return False
        self._back = back
        texts, lines = self.history[-back]
        if self.echo is not None:
            self.echo(lines)
        try:
            self.say_to([Utterance(x, self.lang) for x in texts], Priority.CHANGE, True)
        except Exception:
            log.exception("speaking failed")
        return True

    def refused(self, reason: str) -> None:
        self.say(phrase("refused", self.lang, reason=ear(reason, self.lang)), Priority.ERROR, True)

    def error(self, text: str) -> None:
        """Any error the player must hear (a bad command, a reader lost, a failed save)."""
        self.say(phrase("error", self.lang, text=ear(text, self.lang)), Priority.ERROR, True)

    # -- reading the state ------------------------------------------------------------------
    def seat_text(self, game: Any, seat: int, short: bool = False, digits: bool = False) -> str:
        """Everything about one seat: its counters, then its marks (turn, edge, passed...); the
        short form leaves out counters at zero or not given yet."""
        lang = self.lang
        if game is None:
            return phrase("no_game", lang)
        s, gid = game.state, game.data.id
        me = s["seats"][seat]
        parts = []
        for cid, counter in game.data.counters.items():
            if counter.hidden:
                continue
            value = me["counters"].get(cid)
            if short and not value:
                continue
            if value is None:
                parts.append(phrase("unset", lang, counter=counter.name(lang)))
            else:
                parts.append(phrase("counter", lang, counter=counter.name(lang),
                                    value=str(int(value)) if digits else
                                    number_words(int(value), lang, _feminine(gid, cid, lang))))
        text = phrase("seat", lang, seat=me["name"], counters=", ".join(parts)) if parts else f"{me['name']}."
        marks = []
        if seat == s.get("active") and not s.get("over"):
            marks.append(phrase("active", lang))
        if me.get("out"):
            marks.append(phrase("out", lang))
        marks += [ear(m, lang, gid) for m in game.rules.seat_extra(s, seat, lang)]
        if marks:
            text += " " + _capital(phrase("marks", lang, marks="; ".join(marks)))
        return text

    def table_texts(self, game: Any, short: bool = False, digits: bool = False) -> list[str]:
        """The whole table: whose turn and which phase, then each seat, then shared counters."""
        lang = self.lang
        if game is None:
            return [phrase("no_game", lang)]
        s = game.state
        out = []
        if s.get("over") and self._ended_here(game):
            out.append(self._won_text(game))
        elif s.get("over"):
            winners = [s["seats"][w]["name"] for w in s.get("winner", [])]
            out.append(phrase("over", lang, winners=t("table.and", lang).join(winners) or "—"))
        elif s.get("active") is not None:
            out.append(self.turn_text(game, digits))
        out += [self.seat_text(game, i, short, digits) for i in range(len(s["seats"]))]
        shared = [phrase("counter", lang, counter=c.name(lang),
                         value=str(int(s["shared"][cid])) if digits else
                         number_words(int(s["shared"][cid]), lang, _feminine(game.data.id, cid, lang)))
                  for cid, c in game.data.shared.items() if not c.hidden and s["shared"].get(cid) is not None]
        if shared:
            out.append(phrase("shared", lang, counters=", ".join(shared)))
        return out

    def turn_text(self, game: Any, digits: bool = False) -> str:
        s = game.state
        if s.get("active") is None or s.get("phase") is None:
            return ""
        round_ = str(int(s["round"])) if digits else int(s["round"])
        return phrase("turn", self.lang, round=round_, seat=s["seats"][s["active"]]["name"],
                      phase=game.data.phases[s["phase"]].name(self.lang))

    def read_seat(self, game: Any, seat: int, short: bool = False) -> None:
        written = [self.seat_text(game, seat, short, digits=True)] if game is not None else None
        self.say(self.seat_text(game, seat, short), Priority.CHANGE, True, written=written)

    def read_table(self, game: Any, short: bool = False) -> None:
        written = self.table_texts(game, short, digits=True) if game is not None else None
        self.say(self.table_texts(game, short), Priority.CHANGE, True, written=written)

    # -- screens and focus ------------------------------------------------------------------
    def screen(self, name: str, shows: str, summary: str = "") -> None:
        """A screen that opens: its name and what it shows (or what it shows now)."""
        key = "screen_table" if summary else "screen"
        self.say(phrase(key, self.lang, name=name, shows=shows, summary=summary), Priority.CHANGE, True)

    def focus(self, label: str, value: str = "") -> None:
        text = phrase("focus", self.lang, label=label, value=value) if value else phrase("focus_plain", self.lang,
                                                                                         label=label)
        self.say(text, Priority.CHANGE, True)

    def cursor_text(self, game: Any, seat: int | None, cid: str) -> str:
        lang = self.lang
        counter = game.data.counter(cid)
        value = game.state["shared"][cid] if seat is None else game.state["seats"][seat]["counters"][cid]
        who = game.state["seats"][seat]["name"] if seat is not None else t("table.shared", lang)
        spoken = "?" if value is None else number_words(int(value), lang, _feminine(game.data.id, cid, lang))
        return phrase("cursor", lang, seat=who, counter=counter.name(lang), value=spoken)


def _typed_change(result: Any) -> tuple[int | None, str] | None:
    """(seat, counter) of a counter the player changed by a command of their own (typed, pressed,
    touched), or None: the one change they know before it is said."""
    intent = result.intent
    if intent.verb != "counter" or intent.source == "scan":
        return None
    cid = intent.args.get("counter")
    changes = [c for c in result.changes if c.counter == cid]
    return (changes[0].seat, cid) if len(changes) == 1 else None


def _phase(game: Any, values: dict[str, Any]) -> Any:
    """The phase a ``table.phase`` note names (``@p:<id>``), or an empty phase."""
    from companion.table.data import Phase

    pid = str(values.get("phase", "")).removeprefix("@p:")
    if game is not None:
        for p in game.data.phases:
            if p.id == pid:
                return p
    return Phase(pid, {}, {})


def _named(text: str, said: list[str]) -> bool:
    """Whether a short sentence (a phase's name) is already in one said just before it."""
    from companion.table.data import fold

    words = fold(text.rstrip(". "))
    return bool(words) and any(f" {words}" in f" {fold(x)}" for x in said if x)


def _opens(text: str, said: list[str]) -> bool:
    """Whether a sentence of the same result starts with a phase's name ("Contrôle de victoire :
    Ann dix, Bob dix." after the phase "Contrôle de victoire.")."""
    from companion.table.data import fold

    words = fold(text.rstrip(". "))
    return bool(words) and any(fold(x).startswith(f"{words} :") for x in said if x)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
