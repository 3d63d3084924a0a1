"""Keys by name, for every front end: a key event as the key map names it (``numpad8``,
``ctrl+z``, ``+``), the keycodes of the keys the map names, and a line typed on a numeric keypad
in a terminal as keypad keys. No Kivy: the key logic runs in the console too."""

from __future__ import annotations

from collections.abc import Iterable

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


def known_lang(lang: str) -> str:
    """The language asked for when the key words exist in it, else French."""
    return lang if lang in LANGS else "fr"


def digit_of(key: str) -> str | None:
    """The digit a key types (a keypad digit or a top-row one), or None."""
    if key in KEYPAD_DIGITS:
        return KEYPAD_DIGITS[key]
    return key if len(key) == 1 and key in DIGITS else None


def is_text_key(key: str) -> bool:
    """A key a text field types into (a letter, a digit, a sign), not a command key."""
    return len(key) == 1 or key in ("spacebar", "backspace")


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
