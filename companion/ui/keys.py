"""Keys and the numeric keypad: the key map (keymap.yaml, data), the table cursor, and a small
focus manager, so that every action of every screen works without the touchscreen.

``KeyMap`` reads keymap.yaml and answers "what does this key do on this screen in this game".
``Keys`` is the controller: it takes one key at a time (``press``), keeps what a key sequence
waits for (the keypad's slash, a digit after B, a value being typed), and resolves actions to
the session's intents, as table command words (docs/commands.md), so the console and the app
share one path. Everything here except ``FocusManager`` and ``kivy_key`` is plain Python, tested
without a window.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Protocol

import yaml

log = logging.getLogger(__name__)

LANGS = ("fr", "en")
DIGITS = "0123456789"
# Keycodes of the keys the map names (Kivy's Keyboard.keycodes, pygame's numbering; a test checks
# them against Kivy). Held here so that the key logic runs without Kivy.
KEYCODES: dict[str, int] = {
    "backspace": 8, "tab": 9, "enter": 13, "escape": 27, "spacebar": 32, "delete": 127,
    "up": 273, "down": 274, "right": 275, "left": 276, "insert": 277, "home": 278, "end": 279,
    "pageup": 280, "pagedown": 281, "numlock": 300, "capslock": 301, "rshift": 303, "shift": 304,
    "lctrl": 305, "rctrl": 306, "alt-gr": 307, "alt": 308,
    "numpad0": 256, "numpad1": 257, "numpad2": 258, "numpad3": 259, "numpad4": 260, "numpad5": 261,
    "numpad6": 262, "numpad7": 263, "numpad8": 264, "numpad9": 265, "numpaddecimal": 266,
    "numpaddivide": 267, "numpadmul": 268, "numpadsubstract": 269, "numpadadd": 270, "numpadenter": 271,
    **{f"f{i}": 281 + i for i in range(1, 16)},
}
KEYNAMES = {code: name for name, code in KEYCODES.items()}
MODIFIERS = ("ctrl", "alt", "meta", "shift")
# AZERTY types digits with Shift on the symbols of the top row: Shift and the symbol are a digit.
AZERTY_DIGITS = {"&": "1", "é": "2", '"': "3", "'": "4", "(": "5", "-": "6", "è": "7", "_": "8", "ç": "9", "à": "0"}
KEYPAD_DIGITS = {f"numpad{d}": d for d in DIGITS}
ENTER_KEYS = ("enter", "numpadenter")
CANCEL_KEYS = ("escape", "numpaddecimal")


HEX_KEYS = frozenset("0123456789abcdef")  # what a keyboard-wedge reader types (key names are lower case)


def key_name(keycode: int, codepoint: str | None = None, modifiers: Iterable[str] = ()) -> str:
    """A key event as the key map names it: ``numpad8``, ``ctrl+z``, ``shift+tab``, ``3``, ``+``.

    Printable keys are named by the character they type, Shift folded in, so ``+`` is ``+`` on
    every layout, and Shift with an AZERTY digit symbol is the digit."""
    mods = [m for m in MODIFIERS if m in set(modifiers)]
    name = KEYNAMES.get(keycode)
    if name in ("lctrl", "rctrl", "shift", "rshift", "alt", "alt-gr", "capslock", "numlock"):
        return name  # a modifier pressed alone is named alone
    if name is None:
        char = codepoint if codepoint and len(codepoint) == 1 and codepoint.isprintable() else ""
        if not char and 32 < keycode < 0x110000:
            char = chr(keycode)
        if not char:
            return f"key{keycode}"
        if "shift" in mods:
            char = AZERTY_DIGITS.get(char, _SHIFTED.get(char, char.upper() if char.isalpha() else char))
            mods.remove("shift")
        name = char.lower() if char.isalpha() else char
    return "+".join([*mods, name])


# Shift on a US keyboard's unshifted key (Kivy reports the key, not the character typed).
_SHIFTED = {"=": "+", "/": "?", "1": "!", "8": "*"}


def _lang(lang: str) -> str:
    return lang if lang in LANGS else "fr"


# ---------------------------------------------------------------------------------------------
# The map


@dataclass(frozen=True)
class Binding:
    action: str
    screen: str
    keys: tuple[tuple[str, ...], ...]  # each a sequence of key names
    keypad: tuple[tuple[str, ...], ...]
    command: str | None = None
    games: tuple[str, ...] | None = None
    n: int | None = None
    amount: bool = False
    n_range: tuple[int, int] | None = None

    def sequences(self) -> tuple[tuple[str, ...], ...]:
        return self.keys + self.keypad

    def for_game(self, game: str | None) -> bool:
        return self.games is None or (game is not None and game in self.games)


@dataclass(frozen=True)
class ScreenKeys:
    id: str
    name: dict[str, str]
    shows: dict[str, str]
    bindings: tuple[Binding, ...]
    raw: tuple[dict[str, Any], ...] = field(default=(), compare=False)


def _seq(spec: str, n: int | None) -> tuple[str, ...]:
    text = spec.replace("{n}", str(n)) if n is not None else spec
    return tuple(text.split())


class KeyMap:
    def __init__(self, tree: dict[str, Any]) -> None:
        self.tree = tree
        self.actions: dict[str, dict[str, str]] = tree["actions"]
        self.prompts: dict[str, dict[str, str]] = tree["prompts"]
        self.key_names: dict[str, dict[str, str]] = tree["key_names"]
        self.screen_order: list[str] = list(tree["screen_order"])
        self.screens: dict[str, ScreenKeys] = {}
        for sid, entry in tree["screens"].items():
            bindings = []
            for b in entry.get("bindings") or []:
                rng = b.get("n")
                numbers: list[int | None] = list(range(rng[0], rng[1] + 1)) if rng else [None]
                for n in numbers:
                    bindings.append(Binding(
                        action=b["action"], screen=sid,
                        keys=tuple(_seq(k, n) for k in b.get("keys") or []),
                        keypad=tuple(_seq(k, n) for k in b.get("keypad") or []),
                        command=b.get("command"), games=tuple(b["games"]) if b.get("games") else None,
                        n=n, amount=bool(b.get("amount")), n_range=tuple(rng) if rng else None))
            self.screens[sid] = ScreenKeys(sid, entry["name"], entry["shows"], tuple(bindings),
                                           tuple(entry.get("bindings") or []))

    # -- looking up -----------------------------------------------------------------------
    def bindings(self, screen: str, game: str | None) -> list[Binding]:
        """The keys live on a screen: its own first, then the global ones, each global binding
        keeping only the key sequences that the screen left free."""
        own = [b for b in self._screen(screen).bindings if b.for_game(game)] if screen != "global" else []
        taken = {seq for b in own for seq in b.sequences()}
        out = list(own)
        for b in self.screens["global"].bindings:
            if not b.for_game(game):
                continue
            keys = tuple(s for s in b.keys if s not in taken)
            keypad = tuple(s for s in b.keypad if s not in taken)
            if (keys, keypad) == (b.keys, b.keypad):
                out.append(b)
            elif keys or keypad:
                out.append(Binding(b.action, b.screen, keys, keypad, b.command, b.games, b.n, b.amount, b.n_range))
        return out

    def _screen(self, screen: str) -> ScreenKeys:
        return self.screens.get(screen) or self.screens["global"]

    def match(self, screen: str, game: str | None, sequence: tuple[str, ...]) -> tuple[Binding | None, bool]:
        """(the binding this sequence completes, whether a longer sequence starts with it)."""
        exact = None
        longer = False
        for b in self.bindings(screen, game):
            for seq in b.sequences():
                if seq == sequence and exact is None:
                    exact = b
                elif len(seq) > len(sequence) and seq[:len(sequence)] == sequence:
                    longer = True
        return exact, longer

    # -- words ----------------------------------------------------------------------------
    def action_words(self, binding: Binding, lang: str) -> str:
        words = self.actions[binding.action][_lang(lang)]
        return words.format(n=binding.n if binding.n is not None else "")

    def prompt(self, key: str, lang: str, **values: Any) -> str:
        return self.prompts[key][_lang(lang)].format(**values)

    def key_words(self, seq: tuple[str, ...], lang: str) -> str:
        """A key sequence as said and written: "pavé barre oblique, puis pavé 3"."""
        names = self.key_names[_lang(lang)]

        def one(key: str) -> str:
            parts = key.split("+") if key != "+" else ["+"]
            if key.endswith("++"):
                parts = [*key[:-2].split("+"), "+"]
            return " ".join(names.get(p, p.upper() if len(p) == 1 and p.isalpha() else p) for p in parts)

        return f" {self.prompt('then', lang)} ".join(one(k) for k in seq)

    def screen_name(self, screen: str, lang: str) -> str:
        return self._screen(screen).name[_lang(lang)]

    def screen_shows(self, screen: str, lang: str) -> str:
        return self._screen(screen).shows[_lang(lang)]

    def help_lines(self, screen: str, game: str | None, lang: str, keypad: bool = False) -> list[str]:
        """What H says: this screen's keys, then those of every screen; for the keyboard, or for
        the keypad when help was asked from the keypad (a keypad user needs no letter keys)."""
        lang = _lang(lang)
        out = [self.prompt("help_head", lang, screen=self.screen_name(screen, lang))]
        if keypad:
            out.append(self.prompt("help_keypad", lang))
        own = [b for b in self.bindings(screen, game) if b.screen == screen and screen != "global"]
        rest = [b for b in self.bindings(screen, game) if b not in own]
        out += self._binding_lines(own, lang, keypad)
        others = self._binding_lines(rest, lang, keypad)
        if others:
            out += [self.prompt("help_global", lang), *others]
        out.append(self.prompt("help_other_keypad" if not keypad else "help_other_keys", lang))
        return out

    def _binding_lines(self, bindings: list[Binding], lang: str, keypad: bool) -> list[str]:
        lines = []
        seen: set[str] = set()
        for b in bindings:
            seqs = b.keypad if keypad else b.keys
            if not seqs or b.action == "prefix":
                continue
            keys = f" {self.prompt('or', lang)} ".join(self.key_words(s, lang) for s in seqs)
            action = self.action_words(b, lang)
            if b.n_range is not None and b.n is not None:
                # One line for "1 to 6", not six.
                span = self.prompt("range", lang, first=b.n_range[0], last=b.n_range[1])
                keys = span.join(keys.rsplit(str(b.n), 1))
                action = span.join(action.rsplit(str(b.n), 1))
            line = self.prompt("key_action", lang, keys=keys, action=action)
            if line not in seen:
                seen.add(line)
                lines.append(line)
        return lines

    # -- the document ---------------------------------------------------------------------
    def markdown(self) -> str:
        """docs/keys.md: one table per screen, keyboard and keypad side by side, fr and en."""
        out = ["# Keys and keypad / Touches et pavé numérique", "",
               "Generated from `companion/ui/keymap.yaml` by `python -m companion.ui.keys` "
               "(a test checks that this file matches the data). Press **H** on any screen to hear "
               "its keys; with a numeric keypad alone, press **/** twice.", "",
               "Généré depuis `companion/ui/keymap.yaml`. Appuyez sur **H** pour entendre les touches "
               "de l'écran ; au pavé numérique seul, deux fois sur **/**.", "",
               "In the console companion (`python -m companion console --game ...`), type a keypad "
               "sequence then Enter: `*` next phase, `/2` seat 2, `-` minus one, `/73` bleed 3, `7` undo. "
               "Dans la console, tapez les touches du pavé puis Entrée.", ""]
        for screen in self.screens.values():
            if not screen.raw:
                continue
            out += [f"## {screen.name['en']} / {screen.name['fr']}", "",
                    f"{screen.shows['en']} — {screen.shows['fr']}", "",
                    "| Keyboard | Keypad | Action | Action (fr) | Games |", "|---|---|---|---|---|"]
            for b in screen.raw:
                rng = b.get("n")
                n_text = f"{rng[0]}–{rng[1]}" if rng else None

                def keys(specs: list[str], n_text: str | None = n_text) -> str:
                    if not specs:
                        return "—"
                    shown = [self.key_words(tuple(s.split()), "en").replace("{n}", n_text or "") for s in specs]
                    return " / ".join(f"`{x}`" for x in shown)

                words = {lang: self.actions[b["action"]][lang].format(n=n_text or "") for lang in LANGS}
                games = ", ".join(b.get("games") or []) or "all"
                out.append(f"| {keys(b.get('keys') or [])} | {keys(b.get('keypad') or [])} | {words['en']} "
                           f"| {words['fr']} | {games} |")
            out.append("")
        return "\n".join(out)


@functools.cache
def load_keymap() -> KeyMap:
    text = resources.files("companion.ui").joinpath("keymap.yaml").read_text(encoding="utf-8")
    return KeyMap(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))


# ---------------------------------------------------------------------------------------------
# The controller


class Host(Protocol):
    """What the keys act on: the app's session (or the console's)."""

    @property
    def game(self) -> Any: ...  # companion.table.engine.Game or None

    @property
    def screen(self) -> str: ...

    def run(self, words: str) -> Any: ...  # a table command line; the result is announced by the host

    def go(self, screen: str) -> bool: ...

    def screen_names(self) -> list[str]: ...

    def last_card(self) -> Any: ...  # the last card laid, or None


@dataclass
class Cursor:
    """The table's focus: a seat (None: the active player's, followed from turn to turn), or the
    shared counters, and one of their counters."""

    seat: int | None = None
    shared: bool = False
    counter: int = 0


class Keys:
    def __init__(self, host: Host, announcer: Any, speaker: Any = None, keymap: KeyMap | None = None,
                 lang: str = "fr", focus: Any = None) -> None:
        self.host = host
        self.announcer = announcer
        self.speaker = speaker  # repeat, stop, spell (a companion.speech Speaker)
        self.map = keymap or load_keymap()
        self.lang = _lang(lang)
        self.focus = focus  # a FocusManager for the widgets of the current screen, or None
        self.cursor = Cursor()
        self.pending: tuple[str, ...] = ()
        self.awaiting: Binding | None = None  # an action that waits for a digit
        self.entry: str | None = None  # a value being typed for the cursor's counter
        self.mode = "cursor"  # which focus Enter acts on: the table cursor or a widget
        self.log: list[tuple[str, str]] = []  # (key, action) handled, for tests and the log

    # -- keys -----------------------------------------------------------------------------
    def press(self, key: str, typing: bool = False) -> bool:
        """One key, by its key map name; True when it did something. ``typing``: a text field
        has the keyboard, so plain letters and digits are its own."""
        if self.entry is not None:
            return self._entry_key(key)
        if self.awaiting is not None:
            return self._amount_key(key)
        if typing and not self.pending and _is_text_key(key):
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
        digit = _digit(key)
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
        return getattr(self.host, "selected_seat", self.cursor.seat)

    def choose(self, seat: int | None) -> None:
        self.cursor.seat = seat
        select = getattr(self.host, "select_seat", None)
        if callable(select):
            select(seat)

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
        game = self.host.game
        if game is None:
            return []
        pool = game.data.shared if seat is None else game.data.counters
        return [cid for cid, c in pool.items() if not c.hidden]

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
        show = getattr(self.host, "show_cursor", None)
        if callable(show):
            show(seat, cid)

    # -- actions --------------------------------------------------------------------------
    def a_help(self, _b: Binding) -> None:
        game = self.host.game
        from_keypad = bool(self.log) and self.log[-1][0].startswith("numpad")
        lines = self.map.help_lines(self.host.screen, game.data.id if game else None, self.lang, from_keypad)
        self.announcer.say(lines, interrupt=True)

    def a_repeat(self, _b: Binding) -> None:
        if self.speaker is not None:
            self.speaker.repeat()

    def a_stop(self, _b: Binding) -> None:
        if self.speaker is not None:
            self.speaker.stop()

    def a_spell(self, _b: Binding) -> None:
        card = self.host.last_card()
        if card is None or self.speaker is None:
            self.say_prompt("no_card")
            return
        names = getattr(card, "names", {}) or {}
        self.speaker.spell(names.get(self.lang) or card.name, getattr(card, "lang", self.lang))

    def a_read_seat(self, _b: Binding) -> None:
        if not self._need_game():
            return
        self.sync()
        seat = self.seat()
        if seat is None:
            self.announcer.say(self.announcer.table_texts(self.host.game)[-1:], interrupt=True)
        else:
            self.announcer.read_seat(self.host.game, seat)

    def a_read_table(self, _b: Binding) -> None:
        self.announcer.read_table(self.host.game)

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
        names = [n for n in self.map.screen_order if n in self.host.screen_names()]
        if not names:
            self.say_prompt("no_screen")
            return
        here = names.index(self.host.screen) if self.host.screen in names else -1
        self.go(names[(here + step) % len(names)])

    def a_screen_prev(self, b: Binding) -> None:
        self.a_screen_next(b, -1)

    def a_back(self, _b: Binding) -> None:
        back = getattr(self.host, "back", None)
        if not (callable(back) and back()):
            self.say_prompt("no_back")

    def a_quit(self, _b: Binding) -> None:
        quit_app = getattr(self.host, "quit", None)
        if callable(quit_app):
            quit_app()

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
        show = getattr(self.host, "show_cursor", None)
        if callable(show):
            show(*self.cursor_target())

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
        digit = _digit(key)
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


def _digit(key: str) -> str | None:
    if key in KEYPAD_DIGITS:
        return KEYPAD_DIGITS[key]
    return key if len(key) == 1 and key in DIGITS else None


def _is_text_key(key: str) -> bool:
    """A key a text field types into (a letter, a digit, a sign), not a command key."""
    return len(key) == 1 or key in ("spacebar", "backspace")


class SessionHost:
    """The keys' host over the app's Session (companion/ui/session.py): table commands are the
    session's intents (source "key"); screens are the app root's when there is one."""

    def __init__(self, session: Any, root: Any = None, screen: str = "table") -> None:
        self.session = session
        self.root = root  # companion.ui.app.Root, or None (the console, tests)
        self._screen = screen

    @property
    def game(self) -> Any:
        return self.session.game

    @property
    def selected_seat(self) -> int | None:
        return self.session.selected_seat

    def select_seat(self, seat: int | None) -> None:
        self.session.select_seat(seat)

    @property
    def screen(self) -> str:
        return self.root.current if self.root is not None else self._screen

    def run(self, words: str) -> Any:
        return self.session.apply(words, source="key")

    def go(self, screen: str) -> bool:
        if self.root is None:
            self._screen = screen
            return True
        if not self.root.has_screen(screen):
            return False
        self.root.show(screen)
        return True

    def back(self) -> bool:
        return self.root is not None and self.root.back()

    def quit(self) -> None:
        from kivy.app import App

        app = App.get_running_app()
        if app is not None and self.root is not None:
            app.stop()

    def screen_names(self) -> list[str]:
        if self.root is None:
            return list(load_keymap().screen_order)
        return [n for n in load_keymap().screen_order if self.root.has_screen(n)]

    def last_card(self) -> Any:
        scan = getattr(self.session, "last_scan", None)
        return getattr(scan, "card", None)

    def show_cursor(self, seat: int | None, counter: str | None) -> None:
        """Tell the table screen where the keyboard's cursor is, when it can show it."""
        if self.root is None or not self.root.has_screen("table") or counter is None:
            return
        screen = self.root.get_screen("table")
        show = getattr(screen, "show_cursor", None)
        if callable(show):
            show(seat, counter)
            return
        box = getattr(screen, "counter_box", None)
        ring = getattr(self, "ring", None)
        if callable(box) and callable(ring):
            try:
                ring(box(seat, counter))
            except (KeyError, IndexError):
                pass  # the screen is still being built


# The keypad's characters as a terminal receives them (NumLock on): a line of them, then Enter.
KEYPAD_CHARS = {**{d: f"numpad{d}" for d in DIGITS}, "+": "numpadadd", "-": "numpadsubstract",
                "*": "numpadmul", "/": "numpaddivide", ".": "numpaddecimal"}


def keypad_keys(line: str) -> list[str] | None:
    """A line typed on a numeric keypad (``*``, ``/2``, ``/73``, ``7``) as keypad keys; None
    when the line is something else (a command word, a card name)."""
    text = "".join(line.split())
    if not text or any(ch not in KEYPAD_CHARS for ch in text):
        return None
    return [KEYPAD_CHARS[ch] for ch in text]


class TableHost:
    """The keys' host for the console: one game, no screens; results go to ``on_result``."""

    screen = "table"

    def __init__(self, game: Any, parser: Any, on_result: Any) -> None:
        self._game = game
        self.parser = parser
        self.on_result = on_result  # (result) -> None
        self.card: Any = None  # the last card laid, for spelling

    @property
    def game(self) -> Any:
        return self._game

    def run(self, words: str) -> Any:
        from companion.table.commands import ParseError
        from companion.table.engine import Intent, Result

        try:
            intent = self.parser.parse(words)
        except ParseError as exc:
            result = Result(False, Intent("refused", text=words), reason=(exc.key, exc.values), data=self._game.data)
        else:
            if intent is None:
                return None
            intent.source = "key"
            result = self._game.apply(intent)  # durable in the journal before it is said
        self.on_result(result)
        return result

    def go(self, screen: str) -> bool:
        return screen == "table"

    def screen_names(self) -> list[str]:
        return ["table"]

    def last_card(self) -> Any:
        return self.card


# ---------------------------------------------------------------------------------------------
# Focus among a screen's widgets


class FocusManager:
    """Moves a focus through a screen's actionable widgets in reading order (the order the kv file
    declares them), draws a ring around the focused one, and says its label and value.

    A screen may declare ``focus_order()`` returning its widgets; otherwise buttons, text fields,
    toggles, sliders and spinners that are visible and enabled are taken in tree order. A widget
    may give ``a11y_label`` and ``a11y_value`` for what is said."""

    def __init__(self, announcer: Any, screen_getter: Any) -> None:
        self.announcer = announcer
        self.screen_getter = screen_getter  # () -> the current Screen widget
        self.index = -1
        self._widget: Any = None
        self._ring: Any = None

    def widgets(self) -> list[Any]:
        screen = self.screen_getter()
        if screen is None:
            return []
        declared = getattr(screen, "focus_order", None)
        if callable(declared):
            return [w for w in declared() if _usable(w)]
        out: list[Any] = []

        def walk(widget: Any) -> None:
            if not _visible(widget):
                return
            if _actionable(widget):
                out.append(widget)
                return  # a button's own labels are not stops of their own
            for child in reversed(widget.children):  # Kivy keeps children last-added first
                walk(child)

        walk(screen)
        return out

    def current(self) -> Any:
        widgets = self.widgets()
        return self._widget if self._widget in widgets else None

    def move(self, step: int) -> bool:
        widgets = self.widgets()
        if not widgets:
            self.clear()
            return False
        here = widgets.index(self._widget) if self._widget in widgets else (-1 if step > 0 else 0)
        self.set(widgets[(here + step) % len(widgets)])
        return True

    def set(self, widget: Any) -> None:
        self._unring()
        self._widget = widget
        self._ring_on(widget)
        self.speak()

    def clear(self) -> None:
        self._unring()
        self._widget = None

    def ring_only(self, widget: Any) -> None:
        """Show where the table cursor is, without taking the widget focus."""
        self._unring()
        self._widget = None
        self._ring_on(widget)

    def speak(self) -> None:
        widget = self.current()
        if widget is None:
            return
        label, value = describe_widget(widget)
        self.announcer.focus(label, value)

    def activate(self) -> bool:
        widget = self.current()
        if widget is None:
            return False
        from kivy.uix.behaviors import ButtonBehavior, ToggleButtonBehavior
        from kivy.uix.textinput import TextInput

        if isinstance(widget, TextInput):
            widget.focus = True
        elif isinstance(widget, ToggleButtonBehavior):
            widget._do_press()
            widget.dispatch("on_release")
            self.speak()
        elif isinstance(widget, ButtonBehavior):
            widget.trigger_action(duration=0)
        elif hasattr(widget, "active"):  # a CheckBox or Switch
            widget.active = not widget.active
            self.speak()
        else:
            return False
        return True

    # -- the ring: a thick line in the accent colour, so low vision sees where the focus is --
    def _ring_on(self, widget: Any) -> None:
        from kivy.graphics import Color, InstructionGroup, Line

        from companion.ui.theme import theme

        group = InstructionGroup()
        group.add(Color(*theme.accent))
        width = max(3.0, theme.base / 8)
        line = Line(rectangle=(widget.x - width, widget.y - width, widget.width + 2 * width,
                               widget.height + 2 * width), width=width)
        group.add(line)

        def follow(w: Any, *_args: Any) -> None:
            line.rectangle = (w.x - width, w.y - width, w.width + 2 * width, w.height + 2 * width)

        widget.bind(pos=follow, size=follow)
        widget.canvas.after.add(group)
        self._ring = (widget, group, follow)

    def _unring(self) -> None:
        if self._ring is None:
            return
        widget, group, follow = self._ring
        widget.canvas.after.remove(group)
        widget.unbind(pos=follow, size=follow)
        self._ring = None


def _visible(widget: Any) -> bool:
    return getattr(widget, "opacity", 1) > 0 and not getattr(widget, "disabled", False) \
        and getattr(widget, "width", 1) > 0 and getattr(widget, "height", 1) > 0


def _actionable(widget: Any) -> bool:
    from kivy.uix.behaviors import ButtonBehavior
    from kivy.uix.textinput import TextInput

    if getattr(widget, "a11y_skip", False):
        return False
    if getattr(widget, "a11y_label", None):
        return True
    return isinstance(widget, ButtonBehavior | TextInput) or type(widget).__name__ in ("Slider", "Switch", "CheckBox",
                                                                                       "Spinner")


def _usable(widget: Any) -> bool:
    return widget is not None and widget.parent is not None and _visible(widget)


def describe_widget(widget: Any) -> tuple[str, str]:
    """(label, value) to say for a widget: its own a11y words if it has them, else its word or
    text without glyphs, said within its counter ("pool, minus") and with its state."""
    from kivy.uix.behaviors import ToggleButtonBehavior

    from companion.i18n import language

    words = load_keymap()
    lang = _lang(language())
    on, off = words.prompt("on", lang), words.prompt("off", lang)
    label = getattr(widget, "a11y_label", "") or ""
    value = getattr(widget, "a11y_value", "") or ""
    kind = type(widget).__name__
    if not label:
        if kind == "TextInput":
            label = widget.hint_text
        else:
            label = _plain(str(getattr(widget, "word", "") or "")) or _plain(str(getattr(widget, "text", "") or ""))
    label = _plain(str(label))
    if not _has_words(label):
        glyph = _glyph(str(getattr(widget, "glyph", "") or getattr(widget, "text", "") or ""))
        label = words.tree["glyphs"][lang].get(glyph, label)
    # Said within what it belongs to: "pool, minus", "Ann, move down".
    from kivy.uix.screenmanager import Screen

    owner = _ancestor(widget, lambda w: not isinstance(w, Screen) and isinstance(getattr(w, "name", None), str)
                      and bool(w.name))
    if owner is not None and owner.name not in label:
        label = f"{owner.name}, {label}"
    if not value:
        if kind == "TextInput":
            value = widget.text if widget.text != label else ""
        elif isinstance(widget, ToggleButtonBehavior):
            value = on if widget.state == "down" else off
        elif getattr(widget, "kind", "") == "selected":
            value = on
        elif kind in ("Switch", "CheckBox"):
            value = on if widget.active else off
        elif kind == "Slider":
            value = str(int(widget.value))
    return label, _plain(str(value))


def _ancestor(widget: Any, test: Any, depth: int = 6) -> Any:
    w = getattr(widget, "parent", None)
    for _ in range(depth):
        if w is None:
            return None
        if test(w):
            return w
        w = getattr(w, "parent", None)
    return None


def _glyph(text: str) -> str:
    import re

    return re.sub(r"\[/?[a-z]+(?:=[^\]]*)?\]", "", text).strip()


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _plain(text: str) -> str:
    """Markup and icon glyphs out: the ear only wants the words."""
    import re

    text = re.sub(r"\[/?[a-z]+(?:=[^\]]*)?\]", "", text)
    words = [w for w in text.split() if _has_words(w)]
    return " ".join(words)


# ---------------------------------------------------------------------------------------------
# In the app


class SpeechControls:
    """Repeat, stop and spell for the keys, through the app's Voice (whose speaker is made on
    first use) or a Speaker given directly."""

    def __init__(self, voice: Any, lang: str) -> None:
        self.voice = voice
        self.lang = lang

    def _speaker(self) -> Any:
        get = getattr(self.voice, "speaker", None)
        return get() if callable(get) else self.voice

    def say(self, utterances: Any, priority: Any, interrupt: bool) -> None:
        if hasattr(self.voice, "say_all"):
            self.voice.say_all(utterances, priority, interrupt)
        else:
            self.voice.say(" ".join(u.text for u in utterances), priority.name.lower(), interrupt)

    def repeat(self) -> None:
        speaker = self._speaker()
        if speaker is not None:
            speaker.repeat()

    def stop(self) -> None:
        speaker = self._speaker()
        if speaker is not None:
            speaker.stop()

    def spell(self, name: str, lang: str | None = None) -> None:
        from companion.speech.phrases import spell_speech
        from companion.speech.speaker import Priority

        self.say(spell_speech(name, lang or self.lang), Priority.CARD, True)


class A11y:
    """The keys, the announcer and the focus, installed in a running window over the app's root
    and Session: key presses go to ``Keys``, results and screens are announced."""

    def __init__(self, root: Any, session: Any, voice: Any, lang: str = "fr", app: Any = None) -> None:
        from companion.ui.announce import Announcer

        self.root = root
        self.session = session
        self.lang = _lang(lang)
        self.controls = SpeechControls(voice, self.lang)
        self.announcer = Announcer(self.controls.say, self.lang)
        self.manager = getattr(root, "manager", root)
        self.focus = FocusManager(self.announcer, lambda: self.manager.current_screen)
        self.host = SessionHost(session, root)
        self.host.ring = self.focus.ring_only  # type: ignore[attr-defined]
        self.keys = Keys(self.host, self.announcer, self.controls, lang=self.lang, focus=self.focus)
        speak = getattr(app, "_speak_result", None)
        if callable(speak):
            session.unbind(on_result=speak)  # said briefly by the announcer instead
        session.bind(on_result=self._on_result, on_scan=self._on_scan)
        self.manager.bind(current=self._on_screen)
        self._scanned = False  # a card was just laid: it is said, not the screen that shows it
        self.announcer.watch(session.game)
        from companion.readers.wedge import WedgeRecogniser

        self.app = app
        self.wedge = WedgeRecogniser()
        self._held: list[str] = []  # key names held by the wedge recogniser, in order
        self._flush_event: Any = None

    def attach(self, window: Any) -> None:
        window.bind(on_key_down=self._on_key_down)
        self.announce_screen()

    def detach(self, window: Any) -> None:
        window.unbind(on_key_down=self._on_key_down)
        self.session.unbind(on_result=self._on_result, on_scan=self._on_scan)
        self.manager.unbind(current=self._on_screen)
        self.focus.clear()

    def _on_result(self, session: Any, result: Any) -> None:
        self.announcer.result(result, session.game)

    def _on_scan(self, *_args: Any) -> None:
        self._scanned = True

    def _on_screen(self, *_args: Any) -> None:
        self.focus.clear()
        self.keys.mode = "cursor"
        self.keys.pending = ()
        self.keys.entry = None
        self.keys.awaiting = None
        scanned, self._scanned = self._scanned, False
        if not (scanned and self.manager.current == "card"):
            self.announce_screen()

    def announce_screen(self) -> None:
        """A screen says its name and what it shows (the table: whose turn, which phase)."""
        name = self.manager.current
        screen = self.manager.current_screen
        words = self.keys.map
        summary = ""
        hook = getattr(screen, "a11y_summary", None)
        if callable(hook):
            summary = hook() or ""
        elif name == "table" and self.session.game is not None:
            summary = self.announcer.turn_text(self.session.game)
        elif name == "card":
            card = self.host.last_card()
            summary = card.name if card is not None else ""
        self.announcer.screen(words.screen_name(name, self.lang), words.screen_shows(name, self.lang), summary)

    def typing(self) -> bool:
        """A text field of the current screen has the keyboard."""
        from kivy.uix.textinput import TextInput

        screen = self.manager.current_screen
        return screen is not None and any(isinstance(w, TextInput) and w.focus for w in screen.walk())

    def _on_key_down(self, _window: Any, keycode: int, _scancode: int, codepoint: str | None,
                     modifiers: list[str]) -> bool:
        key = key_name(keycode, codepoint, modifiers)
        typing = self.typing()
        if not typing and (key == "enter" or (len(key) == 1 and key in HEX_KEYS)):
            # Maybe a keyboard-wedge reader typing a UID: held until the recogniser knows.
            self._held.append(key)
            self._wedge_out(self.wedge.feed(key, time.monotonic()))
            if self._held and self._flush_event is None:
                from kivy.clock import Clock

                self._flush_event = Clock.schedule_interval(self._wedge_flush, 0.02)
            return True
        self._wedge_out(self.wedge.flush(float("inf")))  # a key of another kind: give back what is held
        return self._press(key, typing)

    def _press(self, key: str, typing: bool = False) -> bool:
        try:
            return self.keys.press(key, typing=typing)
        except Exception:  # a key must never take the window down
            log.exception("key %s failed", key)
            return True

    def _wedge_flush(self, _dt: float) -> bool:
        self._wedge_out(self.wedge.flush(time.monotonic()))
        if not self._held:
            self._flush_event = None
            return False  # stop the timer until the next held key
        return True

    def _wedge_out(self, outputs: list) -> None:
        from companion.readers.wedge import Scanned

        for out in outputs:
            if isinstance(out, Scanned):
                del self._held[:len(out.typed) + 1]  # the UID's keys and its Enter
                self._wedge_scan(out.uid)
            else:
                key = self._held.pop(0) if self._held else out.key
                self._press(key)

    def _wedge_scan(self, uid: str) -> None:
        """A card read by a keyboard-wedge reader: a tag with a UID and no NDEF, resolved like
        any other (the collection's UID map), off the main thread as reader events are."""
        import threading

        from companion.readers.events import TagEvent

        on_tag = getattr(self.app, "_on_tag_event", None)
        if not callable(on_tag):
            return
        event = TagEvent(kind="laid", reader="wedge", uid=uid)
        threading.Thread(target=on_tag, args=(event,), name="wedge scan", daemon=True).start()


def install(root: Any, session: Any, voice: Any, window: Any = None, lang: str | None = None,
            app: Any = None) -> A11y:
    """Keys, focus and announcements for a running app (``app.on_start``)."""
    from companion.i18n import language

    a11y = A11y(root, session, voice, lang or language(), app)
    if window is None:
        from kivy.core.window import Window

        window = Window
    a11y.attach(window)
    return a11y


if __name__ == "__main__":  # python -m companion.ui.keys > docs/keys.md
    print(load_keymap().markdown())
