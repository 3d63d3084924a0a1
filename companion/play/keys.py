"""The key controller, for every front end: it takes one key at a time (``press``), keeps what a
key sequence waits for (the keypad's slash, a digit after B, a value being typed), and resolves
the key map's actions (companion/play/keymap.py) to the core Session's intents, as table command
words (docs/commands.md). The Kivy window and the console both feed it key names: one path. What
it acts on is a ``Host`` (companion/play/key_hosts.py: the Session and a front end's screens);
the focus among a screen's widgets is the window's own (companion/ui/a11y.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from companion.i18n import t
from companion.play.keymap import Binding, KeyMap, load_keymap
from companion.play.keynames import CANCEL_KEYS, ENTER_KEYS, PAGE_KEYS, digit_of, is_text_key, known_lang


@runtime_checkable
class Host(Protocol):
    """What the keys act on: the core Session a table plays through, and the screens of the front
    end (companion.play.key_hosts.SessionHost)."""

    @property
    def game(self) -> Any: ...  # companion.table.engine.Game or None

    @property
    def screen(self) -> str: ...

    @property
    def selected_seat(self) -> int | None: ...  # the seat a key or a touch picked (0-based), or None

    def select_seat(self, seat: int | None) -> None: ...

    @property
    def proposal(self) -> Any: ...  # what the card just laid proposes, or None

    def confirm(self) -> Any: ...  # apply the proposal

    def dismiss(self) -> bool: ...  # leave the proposal: the card was laid only to read it

    def run(self, words: str) -> Any: ...  # a table command line; the result is announced by the host

    def go(self, screen: str) -> bool: ...

    def back(self) -> bool: ...

    def quit(self) -> None: ...

    def screen_names(self) -> list[str]: ...

    def show_cursor(self, seat: int | None, counter: str | None) -> None: ...  # where the keys' cursor is

    def last_card(self) -> Any: ...  # the last card laid, or None


@dataclass
class Cursor:
    """The table's focus: a seat's counters (the session's selected seat, else the active
    player's, followed from turn to turn) or the shared ones, and one of those counters."""

    shared: bool = False
    counter: int = 0


class Keys:
    def __init__(self, host: Host, announcer: Any, speaker: Any = None, keymap: KeyMap | None = None,
                 lang: str = "fr", focus: Any = None) -> None:
        self.host = host
        self.announcer = announcer
        self.speaker = speaker  # repeat_message, stop, spell: a companion.play.voice.Voice, or None
        self.map = keymap or load_keymap()
        self.lang = known_lang(lang)
        self.focus = focus  # a FocusManager for the widgets of the current screen, or None
        self.cursor = Cursor()
        self.pending: tuple[str, ...] = ()
        self.awaiting: Binding | None = None  # an action that waits for a digit
        self.entry: str | None = None  # a value being typed for the cursor's counter
        self.mode = "cursor"  # which focus Enter acts on: the table cursor or a widget
        self.log: list[tuple[str, str]] = []  # (key, action) handled, for tests and the log
        # Keypad help is read one key at a time: the lines left, and where the reading is.
        self.pages: list[str] = []
        self.page = 0

    # -- keys -----------------------------------------------------------------------------
    def press(self, key: str, typing: bool = False) -> bool:
        """One key, by its key map name; True when it did something. ``typing``: a text field
        has the keyboard, so plain letters and digits are its own."""
        if self.entry is not None:
            return self._entry_key(key)
        if self.pages:
            if key in PAGE_KEYS:
                self._turn_page(PAGE_KEYS[key])
                return True
            self.pages = []  # any other key leaves the help and does what it does
        if self.awaiting is not None:
            return self._amount_key(key)
        if typing and not self.pending and is_text_key(key):
            return False
        game = self.host.game
        gid = game.data.id if game is not None else None
        sequence = (*self.pending, key)
        binding, longer = self.map.match(self.host.screen, gid, sequence)
        if longer:
            self.pending = sequence
            if len(sequence) == 1:
                self.say_prompt("prefix")
            return True
        self.pending = ()
        if binding is None:
            if len(sequence) > 1:
                self.say_prompt("cancelled")
                return True
            if key.startswith("numpad"):
                self.say_prompt("not_here")
                return True
            return False
        self.log.append((" ".join(sequence), binding.action))
        self.do(binding)
        return True

    def do(self, binding: Binding) -> None:
        """Carry out one action of the map."""
        if binding.amount:
            if self._need_game():
                self.awaiting = binding
                self.say_prompt("amount")
            return
        if binding.command:
            self.command(binding.command)
            return
        handler = getattr(self, f"a_{binding.action}", None)
        if handler is not None:
            handler(binding)
        elif binding.action.startswith("go_"):
            self.go(binding.action[3:])

    def _amount_key(self, key: str) -> bool:
        binding, self.awaiting = self.awaiting, None
        digit = digit_of(key)
        if digit is None or digit == "0":
            self.say_prompt("cancelled")
            return True
        self.log.append((key, binding.action))
        self.command(binding.command or "", amount=digit)
        return True

    # -- table commands -------------------------------------------------------------------
    def _need_game(self) -> bool:
        if self.host.game is None:
            self.say_prompt("no_game")
            return False
        return True

    def command(self, template: str, **extra: str) -> Any:
        """Fill a command template from the cursor and send it to the game."""
        if not self._need_game():
            return None
        self.sync()
        seat, cid = self.cursor_target()
        words = template.format(seat="" if seat is None else seat + 1, counter=cid or "", **extra)
        return self.host.run(" ".join(words.split()))

    @property
    def chosen(self) -> int | None:
        """The seat picked by a key or a touch (the session's, so that both agree), or None."""
        return self.host.selected_seat

    def choose(self, seat: int | None) -> None:
        self.host.select_seat(seat)

    def sync(self) -> None:
        """Keep the cursor on a real seat and counter."""
        game = self.host.game
        if game is None:
            return
        chosen = self.chosen
        if chosen is not None and not 0 <= chosen < len(game.state["seats"]):
            self.choose(None)
        counters = self.counters(self.seat())
        if counters:
            self.cursor.counter %= len(counters)

    def seat(self) -> int | None:
        """The seat the cursor is on: the chosen one, else the active player's; None when on the
        shared counters."""
        if self.cursor.shared:
            return None
        chosen = self.chosen
        if chosen is not None:
            return chosen
        game = self.host.game
        active = game.state.get("active") if game is not None else None
        return active if active is not None else 0

    def counters(self, seat: int | None) -> list[str]:
        """The counters the arrows visit on a seat (None: the shared ones): those the table shows."""
        game = self.host.game
        if game is None:
            return []
        # Imported with the first game: what the table shows is not needed before the first frame
        # (its module's dataclasses are 8 ms of CPU at import, more on a Raspberry Pi).
        from companion.table.present import seat_counters, shared_counters

        if seat is None:
            return shared_counters(game.data, game.state)
        shown = set(seat_counters(game.rules))
        return [cid for cid in game.data.counters if cid in shown]  # in the game's order, as before

    def cursor_target(self) -> tuple[int | None, str | None]:
        seat = self.seat()
        counters = self.counters(seat)
        if not counters:
            return seat, None
        return seat, counters[self.cursor.counter % len(counters)]

    def _seat_stops(self) -> list[int | None]:
        game = self.host.game
        stops: list[int | None] = list(range(len(game.state["seats"])))
        if self.counters(None):
            stops.append(None)  # the shared counters come after the last seat
        return stops

    def say_cursor(self) -> None:
        game = self.host.game
        seat, cid = self.cursor_target()
        if cid is None:
            self.say_prompt("no_focus")
            return
        self.announcer.say(self.announcer.cursor_text(game, seat, cid), interrupt=True)
        self.host.show_cursor(seat, cid)

    # -- actions --------------------------------------------------------------------------
    def a_help(self, _b: Binding) -> None:
        game = self.host.game
        from_keypad = bool(self.log) and self.log[-1][0].startswith("numpad")
        lines = self.map.help_lines(self.host.screen, game.data.id if game else None, self.lang, from_keypad)
        if not from_keypad:
            self.announcer.say(lines, interrupt=True)
            return
        # From the keypad, one key at a time: 2 for the next, 8 for the previous, any other key leaves.
        head, intro, *keys = lines  # "Écran Table. Touches :", "Au pavé numérique :", then a key a line
        self.pages, self.page = keys, 0
        self.announcer.say([head, self.map.prompt("help_pages", self.lang), keys[0]], interrupt=True)

    def _turn_page(self, step: int) -> None:
        here = self.page + step
        if not 0 <= here < len(self.pages):
            self.say_prompt("help_end" if step > 0 else "help_start")
            return
        self.page = here
        self.announcer.say(self.pages[here], interrupt=True)

    def a_repeat(self, _b: Binding) -> None:
        if self.speaker is not None:
            self.speaker.repeat_message()

    def a_history_prev(self, _b: Binding, step: int = -1) -> None:
        if not self.announcer.history_step(step):
            self.announcer.say(t("talk.history_empty" if step < 0 else "talk.history_end", self.lang), interrupt=True)

    def a_history_next(self, b: Binding) -> None:
        self.a_history_prev(b, 1)

    def a_repeat_card(self, _b: Binding) -> None:
        if self.speaker is None or not self.speaker.repeat():
            self.announcer.say(t("talk.no_card", self.lang), interrupt=True)

    def a_stop(self, _b: Binding) -> None:
        if self.speaker is not None:
            self.speaker.stop()

    def a_spell(self, _b: Binding) -> None:
        card = self.host.last_card()
        if card is None or self.speaker is None:
            self.say_prompt("no_card")
            return
        # The name as the listener knows it, spelt with the letter names of their language.
        names = getattr(card, "names", {}) or {}
        self.speaker.spell(names.get(self.lang) or card.name)

    def reset(self) -> None:
        """Forget a sequence in progress (a keypad slash, an amount asked, a value being typed):
        the console calls it at the end of each line, the window when the screen changes."""
        self.pending = ()
        self.awaiting = None
        self.entry = None

    def amount(self, text: str) -> Any:
        """``+2``, ``-3`` or ``=5`` for the selected counter (the console's short form)."""
        text = "".join(text.split())
        if len(text) < 2 or text[0] not in "+-=" or not text[1:].isdigit() or len(text) > 7:
            return None
        self.log.append((text, "amount"))
        return self.command("{counter} {seat} " + text)

    def a_read_seat(self, _b: Binding) -> None:
        if not self._need_game():
            return
        self.sync()
        seat = self.seat()
        if seat is None:
            self.announcer.say(self.announcer.table_texts(self.host.game)[-1:], interrupt=True)
        else:
            self.announcer.read_seat(self.host.game, seat, short=self._short())

    def a_result(self, _b: Binding) -> None:
        ask = getattr(self.host, "ask_result", None)
        if ask is not None:
            ask()

    def a_contest(self, _b: Binding) -> None:
        contest = getattr(self.host, "contest_result", None)
        if contest is not None:
            contest()

    def a_judge(self, _b: Binding) -> None:
        judge = getattr(self.host, "judge", None)  # a host without a venue: the runtime says so
        if judge is not None:
            judge()

    def a_read_table(self, _b: Binding) -> None:
        self.announcer.read_table(self.host.game, short=self._short())

    def _short(self) -> bool:
        """At the short verbosity, readings leave out the counters at zero."""
        return getattr(self.speaker, "verbosity", "normal") == "short"

    def a_read_focus(self, _b: Binding) -> None:
        if self.mode == "widget" and self.focus is not None and self.focus.current() is not None:
            self.focus.speak()
        elif self.host.screen == "table" and self.host.game is not None:
            self.sync()
            self.say_cursor()
        elif self.focus is not None:
            self.focus.speak()
        else:
            self.say_prompt("no_focus")

    def a_focus_next(self, _b: Binding, step: int = 1) -> None:
        if self.focus is None or not self.focus.move(step):
            self.say_prompt("no_focus")
            return
        self.mode = "widget"

    def a_focus_prev(self, b: Binding) -> None:
        self.a_focus_next(b, -1)

    def a_activate(self, _b: Binding) -> None:
        if self.focus is None or not self.focus.activate():
            self.say_prompt("no_focus")

    def a_screen_next(self, _b: Binding, step: int = 1) -> None:
        names = [n for n in self.map.screen_order if n in self.host.screen_names() and n not in self.map.out_of_round]
        if not names:
            self.say_prompt("no_screen")
            return
        here = names.index(self.host.screen) if self.host.screen in names else -1
        self.go(names[(here + step) % len(names)])

    def a_screen_prev(self, b: Binding) -> None:
        self.a_screen_next(b, -1)

    def a_back(self, _b: Binding) -> None:
        if self.host.proposal is not None:
            self.host.dismiss()  # the card was laid only to read it: leave it, stay on the table
            self.announcer.say(t("play.dismissed", self.lang), interrupt=True)
            return
        close = getattr(self.host, "close_overlay", None)
        if close is not None and close():
            self.say_prompt("closed")
            return
        if not self.host.back():
            self.say_prompt("no_back")

    def a_quit(self, _b: Binding) -> None:
        self.host.quit()

    def go(self, screen: str) -> None:
        if screen not in self.host.screen_names() or not self.host.go(screen):
            self.say_prompt("no_screen")
            return
        self.mode = "cursor"
        self.pending = ()

    def a_seat(self, b: Binding) -> None:
        if not self._need_game():
            return
        n = int(b.n or 1)
        seats = len(self.host.game.state["seats"])
        if n > seats:
            self.say_prompt("no_seat", n=n)
            return
        self.cursor.shared = False
        self.choose(n - 1)
        self.mode = "cursor"
        self.announcer.read_seat(self.host.game, n - 1)
        self.host.show_cursor(*self.cursor_target())

    def a_seat_next(self, _b: Binding, step: int = 1) -> None:
        if not self._need_game():
            return
        self.sync()
        stops = self._seat_stops()
        here = self.seat()
        seat = stops[((stops.index(here) if here in stops else 0) + step) % len(stops)]
        self.cursor.shared = seat is None
        if seat is not None:
            self.choose(seat)
        self.cursor.counter = min(self.cursor.counter, max(0, len(self.counters(seat)) - 1))
        self.mode = "cursor"
        self.say_cursor()

    def a_seat_prev(self, b: Binding) -> None:
        self.a_seat_next(b, -1)

    def a_counter_next(self, _b: Binding, step: int = 1) -> None:
        if not self._need_game():
            return
        self.sync()
        counters = self.counters(self.seat())
        if counters:
            self.cursor.counter = (self.cursor.counter + step) % len(counters)
        self.mode = "cursor"
        self.say_cursor()

    def a_counter_prev(self, b: Binding) -> None:
        self.a_counter_next(b, -1)

    def a_enter_value(self, b: Binding) -> None:
        if self.mode == "widget" and self.focus is not None and self.focus.current() is not None:
            self.a_activate(b)
            return
        if not self._need_game():
            return
        if self.host.proposal is not None:
            self.log.append(("enter", "confirm"))
            self.host.confirm()  # the card laid: its action applied, or refused with the reason
            return
        if getattr(self.host, "result_pending", None) is not None:
            self.log.append(("enter", "confirm_result"))
            self.host.confirm_result()  # the venue's result, as its touch button and a phone confirm it
            return
        self.sync()
        seat, cid = self.cursor_target()
        if cid is None:
            self.say_prompt("no_focus")
            return
        game = self.host.game
        who = game.state["seats"][seat]["name"] if seat is not None else ""
        self.entry = ""
        self.say_prompt("value", seat=who, counter=game.data.counter(cid).name(self.lang))

    # -- typing a value -------------------------------------------------------------------
    def _entry_key(self, key: str) -> bool:
        text = self.entry or ""
        digit = digit_of(key)
        if digit is not None:
            self.entry = text + digit
            self.announcer.say(digit, interrupt=True)
        elif key in ("+", "numpadadd", "-", "numpadsubstract") and not text.lstrip("+-"):
            self.entry = ("+" if key in ("+", "numpadadd") else "-")
            self.announcer.say(self.map.key_words((key,), self.lang), interrupt=True)
        elif key == "backspace":
            self.entry = text[:-1]
        elif key in ENTER_KEYS:
            self.entry = None
            if not text.lstrip("+-"):
                self.say_prompt("cancelled")
                return True
            amount = text if text[0] in "+-" else "=" + text
            self.log.append((key, "enter_value"))
            self.command("{counter} {seat} " + amount)
        elif key in CANCEL_KEYS:
            self.entry = None
            self.say_prompt("cancelled")
        # Any other key is ignored while a value is typed: a stray key must not act on the game.
        return True

    def say_prompt(self, key: str, **values: Any) -> None:
        self.announcer.say(self.map.prompt(key, self.lang, **values), interrupt=True)
