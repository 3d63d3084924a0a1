"""Keys and the numeric keypad, for every front end: the key map (keymap.yaml, data) and the
key controller, so that every action works without the touchscreen.

``KeyMap`` reads keymap.yaml and answers "what does this key do on this screen in this game".
``Keys`` is the controller: it takes one key at a time (``press``), keeps what a key sequence
waits for (the keypad's slash, a digit after B, a value being typed), and resolves actions to
the core Session's intents, as table command words (docs/commands.md). The Kivy window and the
console both feed it key names: one path. The focus among a screen's widgets is the window's own
(companion/ui/a11y.py).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Protocol

import yaml

from companion.i18n import t

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
PAGE_KEYS = {"numpad2": 1, "numpad8": -1}  # through keypad help: next, previous
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
        # A screen shown over the table (the card laid) keeps the table's keys: "inherit: table".
        self.inherits: dict[str, str] = {sid: e["inherit"] for sid, e in tree["screens"].items() if e.get("inherit")}

    # -- looking up -----------------------------------------------------------------------
    def bindings(self, screen: str, game: str | None) -> list[Binding]:
        """The keys live on a screen: its own first, then the global ones, each global binding
        keeping only the key sequences that the screen left free."""
        own = [b for b in self._screen(screen).bindings if b.for_game(game)] if screen != "global" else []
        parent = self.inherits.get(screen)
        if parent and game is not None:  # the table's keys, for the game that is on the table
            taken = {seq for b in own for seq in b.sequences()}
            own += [b for b in self._screen(parent).bindings
                    if b.for_game(game) and not taken & set(b.sequences())]
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
               "Generated from `companion/play/keymap.yaml` by `python -m companion.play.keys` "
               "(a test checks that this file matches the data). Press **H** on any screen to hear "
               "its keys; with a numeric keypad alone, press **/** twice.", "",
               "Généré depuis `companion/play/keymap.yaml`. Appuyez sur **H** pour entendre les touches "
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
@functools.cache
def load_keymap() -> KeyMap:
    text = resources.files("companion.play").joinpath("keymap.yaml").read_text(encoding="utf-8")
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
        self.speaker = speaker  # repeat_message, stop, spell: a companion.play.voice.Voice, or None
        self.map = keymap or load_keymap()
        self.lang = _lang(lang)
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
        names = [n for n in self.map.screen_order if n in self.host.screen_names()]
        if not names:
            self.say_prompt("no_screen")
            return
        here = names.index(self.host.screen) if self.host.screen in names else -1
        self.go(names[(here + step) % len(names)])

    def a_screen_prev(self, b: Binding) -> None:
        self.a_screen_next(b, -1)

    def a_back(self, _b: Binding) -> None:
        dismiss = getattr(self.host, "dismiss", None)
        if getattr(self.host, "proposal", None) is not None and callable(dismiss):
            dismiss()  # the card was laid only to read it: leave it, stay on the table
            self.announcer.say(t("play.dismissed", self.lang), interrupt=True)
            return
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
        if getattr(self.host, "proposal", None) is not None:
            self.log.append(("enter", "confirm"))
            self.host.confirm()  # the card laid: its action applied, or refused with the reason
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


class Navigator(Protocol):
    """The screens of a front end, as the keys see them (the console has only the table)."""

    @property
    def screen(self) -> str: ...

    def go(self, screen: str) -> bool: ...

    def back(self) -> bool: ...

    def quit(self) -> None: ...

    def screen_names(self) -> list[str]: ...

    def show_cursor(self, seat: int | None, counter: str | None) -> None: ...


class TableOnly:
    """The navigator of a front end with one view, the table (the console)."""

    screen = "table"

    def __init__(self, on_quit: Any = None) -> None:
        self.on_quit = on_quit

    def go(self, screen: str) -> bool:
        return screen == "table"

    def back(self) -> bool:
        return False

    def quit(self) -> None:
        if callable(self.on_quit):
            self.on_quit()

    def screen_names(self) -> list[str]:
        return ["table"]

    def show_cursor(self, seat: int | None, counter: str | None) -> None:
        pass


class SessionHost:
    """The keys' host: table commands are the core Session's intents (source "key"); screens are
    the front end's navigator's."""

    def __init__(self, session: Any, navigator: Any = None) -> None:
        self.session = session  # companion.play.session.Session
        self.navigator = navigator if navigator is not None else TableOnly()

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
        return self.navigator.screen

    def run(self, words: str) -> Any:
        return self.session.apply(words, source="key")

    def go(self, screen: str) -> bool:
        return self.navigator.go(screen)

    def back(self) -> bool:
        return self.navigator.back()

    def quit(self) -> None:
        self.navigator.quit()

    def screen_names(self) -> list[str]:
        names = self.navigator.screen_names()
        return [n for n in load_keymap().screen_order if n in names] or names

    def last_card(self) -> Any:
        return self.session.last_card

    @property
    def proposal(self) -> Any:
        return self.session.proposal

    def confirm(self) -> Any:
        return self.session.confirm(source="key")

    def dismiss(self) -> bool:
        return self.session.dismiss()

    def show_cursor(self, seat: int | None, counter: str | None) -> None:
        if counter is not None:
            self.navigator.show_cursor(seat, counter)


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



if __name__ == "__main__":  # python -m companion.play.keys > docs/keys.md
    print(load_keymap().markdown())
