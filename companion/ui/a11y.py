"""The window's side of keys and speech: key presses from the real window go to the core's key
controller (companion/play/keys.py), a focus ring moves through the current screen's widgets, and
each screen says its name when it opens.

There is one key path: ``Window.on_key_down``, the event a real keyboard raises. While a text
field has the keyboard, its letters are its own and the rest still reaches the controller. A burst
of hexadecimal keys ended by Enter, typed faster than a person can, is a keyboard-wedge reader
reading a card: it becomes a scan, never commands.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from companion.play.keymap import load_keymap
from companion.play.keynames import HEX_KEYS, key_name, known_lang

log = logging.getLogger(__name__)


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
        from kivy.uix.textinput import TextInput

        self._let_go()
        self._unring()
        self._widget = widget
        self._ring_on(widget)
        self.speak()
        if isinstance(widget, TextInput):
            # Reached by Tab, a field takes the keyboard at once: typing needs no Enter first,
            # and replaces what it held (said just before), as in any form.
            widget.focus = True
            from kivy.clock import Clock

            Clock.schedule_once(lambda _dt: widget.select_all() if widget.focus else None, 0)

    def clear(self) -> None:
        self._let_go()
        self._unring()
        self._widget = None

    def _let_go(self) -> None:
        """A field left by Tab (or by its screen) gives the keyboard back."""
        from kivy.uix.textinput import TextInput

        if isinstance(self._widget, TextInput) and self._widget.focus:
            self._widget.focus = False

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
        elif _setting(widget):
            _change_setting(widget)
            self.speak()
        elif isinstance(widget, ToggleButtonBehavior):
            widget._do_press()
            widget.dispatch("on_release")
            self.speak()
        elif isinstance(widget, ButtonBehavior):
            before = describe_widget(widget)
            widget.trigger_action(duration=0)
            after = describe_widget(widget) if self.current() is widget else None
            if after is not None and (after != before or after[1]):
                self.speak()  # a choice confirmed (a game chosen: "..., activé"), said at once
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
    if _setting(widget):
        return True  # one stop per setting: its title and value, changed by Enter
    return isinstance(widget, ButtonBehavior | TextInput) or type(widget).__name__ in ("Slider", "Switch", "CheckBox",
                                                                                       "Spinner")


def _setting(widget: Any) -> bool:
    """A row of Kivy's settings panel (the Settings screen) that Enter can change."""
    from kivy.uix.settings import SettingBoolean, SettingOptions

    return isinstance(widget, SettingOptions | SettingBoolean)


def _change_setting(widget: Any) -> None:
    """Enter on a setting: the next of its options (round), or a yes/no turned over. Kivy's
    panel writes it to the config and tells the app, which applies it at once."""
    from kivy.uix.settings import SettingBoolean

    if isinstance(widget, SettingBoolean):
        values = list(widget.values)
        widget.value = values[1] if str(widget.value) == str(values[0]) else values[0]
        return
    options = [str(o) for o in widget.options]
    here = options.index(str(widget.value)) if str(widget.value) in options else -1
    widget.value = options[(here + 1) % len(options)]


def setting_value_words(value: str, setting: str = "", said: bool = False) -> str:
    """A setting's value in words, as the panel shows it and the listener hears it ("complet",
    "contraste sombre", "125 %"; not "full", "contrast-dark", "1.25"), where it has words.
    ``setting``: the setting's key (a text size is a scale: a percentage). ``said``: the words for
    the ear ("125 pour cent": a voice drops or spells the sign)."""
    from companion.i18n import t

    if setting == "text_scale":
        try:
            return t("settings.value.percent.said" if said else "settings.value.percent", n=round(float(value) * 100))
        except ValueError:
            return value
    key = f"settings.value.{value}"
    words = t(key)
    return value if words == key else words


def _usable(widget: Any) -> bool:
    return widget is not None and widget.parent is not None and _visible(widget)


def describe_widget(widget: Any) -> tuple[str, str]:
    """(label, value) to say for a widget: its own a11y words if it has them, else its word or
    text without glyphs, said within its counter ("pool, minus") and with its state."""
    from kivy.uix.behaviors import ToggleButtonBehavior

    from companion.i18n import language

    words = load_keymap()
    lang = known_lang(language())
    on, off = words.prompt("on", lang), words.prompt("off", lang)
    from kivy.uix.textinput import TextInput

    label = getattr(widget, "a11y_label", "") or ""
    value = getattr(widget, "a11y_value", "") or ""
    # A field of a kv class of its own (UiInput) is still a text field: its hint is its name.
    kind = "TextInput" if isinstance(widget, TextInput) else type(widget).__name__
    if _setting(widget):
        label = label or str(widget.title)
        value = value or setting_value_words(str(widget.value), str(widget.key), said=True)
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


class RootNavigator:
    """The keys' navigator over the app's screens (companion/ui/app.py ``Root``)."""

    def __init__(self, root: Any, show_cursor: Callable[[Any], None] | None = None) -> None:
        self.root = root
        self._show_cursor = show_cursor

    @property
    def screen(self) -> str:
        return self.root.current

    def go(self, screen: str) -> bool:
        if not self.root.has_screen(screen):
            return False
        self.root.show(screen)
        return True

    def back(self) -> bool:
        return bool(self.root.back())

    def quit(self) -> None:
        from kivy.app import App

        app = App.get_running_app()
        if app is not None:
            app.stop()

    def screen_names(self) -> list[str]:
        return [n for n in load_keymap().screen_order if self.root.has_screen(n)]

    def close_overlay(self) -> bool:
        """Escape closes what is open over the current screen (the venue's result) before it goes back."""
        close = getattr(self.root.current_screen, "close_overlay", None)
        return bool(callable(close) and close())

    def show_cursor(self, seat: int | None, counter: str | None) -> None:
        """Ring, on the table screen, the counter the keyboard's cursor is on."""
        if not self.root.has_screen("table") or counter is None or self._show_cursor is None:
            return
        try:
            self._show_cursor(self.root.get_screen("table").counter_box(seat, counter))
        except (KeyError, IndexError):
            pass  # the screen is still being built


class A11y:
    """The keys, the announcements and the focus, installed in a running window over the app's
    root and the core runtime."""

    def __init__(self, root: Any, runtime: Any, on_wedge_scan: Any = None) -> None:
        self.root = root
        self.runtime = runtime
        self.session = runtime.session
        self.announcer = runtime.announcer
        self.manager = getattr(root, "manager", root)
        self.focus = FocusManager(self.announcer, lambda: self.manager.current_screen)
        self.navigator = RootNavigator(root, self.focus.ring_only)
        self.keys = runtime.keys(self.navigator, focus=self.focus)
        self.host = self.keys.host
        self.on_wedge_scan = on_wedge_scan  # (uid) -> None: a card read by a keyboard-wedge reader
        self._unsubscribe = self.session.subscribe("scan", self._on_scan)
        self.manager.bind(current=self._on_screen)
        self._scanned = False  # a card was just laid: it is said, not the screen that shows it
        self.announcer.watch(self.session.game)
        from companion.readers.wedge import WedgeRecogniser

        self.wedge = WedgeRecogniser()
        # While a text field has the keyboard its keys are the field's; a reader's burst typed
        # into it is still recognised after the fact, taken back out of the field, and laid.
        self.field_wedge = WedgeRecogniser()
        self._held: list[str] = []  # key names held by the wedge recogniser, in order
        self._flush_event: Any = None
        # Kivy's key events carry no time stamp, so keys are timed on arrival; a test replaces
        # this clock to type at a reader's pace however loaded the machine is.
        self.clock = time.monotonic

    @property
    def lang(self) -> str:
        return self.keys.lang

    def attach(self, window: Any) -> None:
        window.bind(on_key_down=self._on_key_down)
        self.announce_screen()

    def detach(self, window: Any) -> None:
        window.unbind(on_key_down=self._on_key_down)
        self._unsubscribe()
        self.manager.unbind(current=self._on_screen)
        self.focus.clear()

    def _on_scan(self, *_args: Any) -> None:
        self._scanned = True

    def _on_screen(self, *_args: Any) -> None:
        self.focus.clear()
        self.keys.mode = "cursor"
        self.keys.reset()
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
            card = self.session.last_card
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
        if typing and (key == "enter" or (len(key) == 1 and key in HEX_KEYS)):
            if self._field_scan(self.field_wedge.feed(key, self.clock())):
                return True  # the reader's Enter: the field does not take it
            if key == "enter" and self._validate_field():
                return True
        elif typing:
            self.field_wedge.flush(float("inf"))
        if not typing and (key == "enter" or (len(key) == 1 and key in HEX_KEYS)):
            # Maybe a keyboard-wedge reader typing a UID: held until the recogniser knows.
            self._held.append(key)
            self._wedge_out(self.wedge.feed(key, self.clock()))
            if self._held and self._flush_event is None:
                from kivy.clock import Clock

                self._flush_event = Clock.schedule_interval(self._wedge_flush, 0.02)
            return True
        self._wedge_out(self.wedge.flush(float("inf")))  # a key of another kind: give back what is held
        return self._press(key, typing)

    def _validate_field(self) -> bool:
        """Enter in a one-line field that says ``submit_on_enter`` sends it, as in any form (the
        venue's address): the keys take the Enter before Kivy's field sees it, so it is given to
        the field here. Other fields keep Enter for the keys (a card laid while searching)."""
        from kivy.uix.textinput import TextInput

        screen = self.manager.current_screen
        field = next((w for w in screen.walk() if isinstance(w, TextInput) and w.focus), None) if screen else None
        if field is None or field.multiline or not getattr(field, "submit_on_enter", False):
            return False
        field.dispatch("on_text_validate")
        return True

    def _field_scan(self, outputs: list) -> bool:
        """A reader's burst the focused field already took: out of the field, laid as a card."""
        from kivy.uix.textinput import TextInput

        from companion.readers.wedge import Scanned

        scans = [out for out in outputs if isinstance(out, Scanned)]
        if not scans:
            return False
        screen = self.manager.current_screen
        field = next((w for w in screen.walk() if isinstance(w, TextInput) and w.focus), None) if screen else None
        for out in scans:
            if field is not None and field.text.lower().endswith(out.typed.lower()):
                field.text = field.text[:len(field.text) - len(out.typed)]
            if callable(self.on_wedge_scan):
                self.on_wedge_scan(out.uid)
        return True

    def _press(self, key: str, typing: bool = False) -> bool:
        try:
            return self.keys.press(key, typing=typing)
        except Exception:  # a key must never take the window down
            log.exception("key %s failed", key)
            return True

    def _wedge_flush(self, _dt: float) -> bool:
        self._wedge_out(self.wedge.flush(self.clock()))
        if not self._held:
            self._flush_event = None
            return False  # stop the timer until the next held key
        return True

    def _wedge_out(self, outputs: list) -> None:
        from companion.readers.wedge import Scanned

        for out in outputs:
            if isinstance(out, Scanned):
                del self._held[:len(out.typed) + 1]  # the UID's keys and its Enter
                if callable(self.on_wedge_scan):
                    self.on_wedge_scan(out.uid)
            else:
                key = self._held.pop(0) if self._held else out.key
                self._press(key)


def install(root: Any, runtime: Any, window: Any = None, on_wedge_scan: Any = None) -> A11y:
    """Keys, focus and announcements for a running app (``app.on_start``)."""
    a11y = A11y(root, runtime, on_wedge_scan)
    if window is None:
        from kivy.core.window import Window

        window = Window
    a11y.attach(window)
    return a11y
