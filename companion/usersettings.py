"""The keys of the user's settings file (companion.ini): each one's default and what it may hold.

A file that reads well can still hold a speech rate of -5 or "fast", a language "xx" or a key
misspelt: each such value is named (file, key, what is wrong, the value used instead) in the
user's language, and only that key falls back to its default; the good keys are kept. The window
(Kivy's settings panel) and the start-up messages of every front end read the same rules here.
"""

from __future__ import annotations

import configparser
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion import i18n

TEXT_SCALE_MIN = 1.0
TEXT_SCALE_MAX = 2.0
PALETTES = ("contrast-dark", "contrast-light")  # companion.ui.theme's, whose test checks they agree
# companion.speech's (not imported: the card packages read user files, and speech reads cards).
BACKENDS = ("auto", "espeak", "say", "windows", "silent")
VERBOSITIES = ("short", "normal", "full")
VALUE_SHOWN = 60  # characters of a bad value quoted in a message; the reason is never cut


@dataclass(frozen=True)
class Rule:
    """What one key may hold: a number in a range, one of some words, 0 or 1, or any text."""

    kind: str  # "number", "integer", "choice", "flag", "text"
    default: Callable[[], str]
    low: float = 0
    high: float = 0
    choices: tuple[str, ...] = ()
    title: str = ""  # its name on the Settings screen (a message key)

    def why(self, value: str) -> tuple[str, dict[str, Any]] | None:
        """None when ``value`` is good, else the reason's message key and its words."""
        if self.kind in ("number", "integer"):
            try:
                number = float(value)
            except ValueError:
                return "settings.why.not_number", {}
            if not math.isfinite(number) or not self.low <= number <= self.high:
                return "settings.why.range", {"low": _number(self.low), "high": _number(self.high)}
        elif self.kind == "choice" and value not in self.choices:
            return "settings.why.choice", {"choices": ", ".join(self.choices)}
        elif self.kind == "flag" and value not in ("0", "1"):
            return "settings.why.flag", {}
        return None


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _fixed(value: str) -> Callable[[], str]:
    return lambda: value


RULES: dict[str, dict[str, Rule]] = {
    "display": {
        "text_scale": Rule("number", _fixed("1.0"), TEXT_SCALE_MIN, TEXT_SCALE_MAX, title="settings.text_scale"),
        "palette": Rule("choice", _fixed("contrast-dark"), choices=PALETTES, title="settings.palette"),
        # The language the program speaks when the file says none it knows (--lang, COMPANION_LANG or French).
        "language": Rule("choice", i18n.language, choices=i18n.LANGUAGES, title="settings.language"),
    },
    "voice": {
        "backend": Rule("choice", _fixed("auto"), choices=BACKENDS, title="settings.backend"),
        "voice": Rule("text", _fixed(""), title="settings.voice_name"),
        "rate": Rule("integer", _fixed("165"), 80, 450, title="settings.rate"),
        "pitch": Rule("integer", _fixed("50"), 0, 100, title="settings.pitch"),
        "volume": Rule("integer", _fixed("100"), 0, 200, title="settings.volume"),
        "verbosity": Rule("choice", _fixed("normal"), choices=VERBOSITIES, title="settings.verbosity"),
    },
    "readers": {"paths": Rule("text", _fixed(""), title="settings.reader_paths")},
    "phones": {"lan": Rule("flag", _fixed("0"), title="phones.setting")},
}


def defaults() -> dict[str, dict[str, str]]:
    """The settings a fresh companion.ini starts with."""
    return {section: {key: rule.default() for key, rule in keys.items()} for section, keys in RULES.items()}


@dataclass(frozen=True)
class BadValue:
    """One key of the file that is not used as written."""

    section: str
    key: str
    value: str
    why: str  # a message key: settings.why.*, or settings.unknown_key / settings.unknown_section
    words: Mapping[str, Any]

    @property
    def rule(self) -> Rule | None:
        return RULES.get(self.section, {}).get(self.key)

    def used(self) -> str | None:
        """The value used instead (the key's default); None for a key the program does not know."""
        rule = self.rule
        return rule.default() if rule is not None else None

    def describe(self, path: Path | str, lang: str | None = None) -> str:
        """One sentence naming the file, the key, what is wrong and what is used instead."""
        from companion.i18n import t

        key = f"[{self.section}] {self.key}" if self.key else f"[{self.section}]"
        if self.rule is None:
            return t(self.why, lang, path=str(path), setting=key)
        used = self.used() or ""
        return t("settings.bad_value", lang, path=str(path), name=t(self.rule.title, lang), setting=key,
                 value=shorten(self.value, VALUE_SHOWN), why=t(self.why, lang, **self.words),
                 used=_shown(self, used, lang))


def _shown(bad: BadValue, value: str, lang: str | None) -> str:
    """A default as the Settings screen shows it (a language by its name)."""
    from companion.i18n import t

    if bad.rule is not None and bad.rule.kind == "flag":
        return f"{value} ({t('settings.flag.' + value, lang)})"
    if bad.rule is not None and bad.rule.kind == "choice":
        word = t(f"settings.value.{value}", lang)
        if word != f"settings.value.{value}":
            return f"{value} ({word})" if word != value else value
    return value


def shorten(text: str, most: int) -> str:
    """``text`` on one line, at most ``most`` characters, cut in the middle (its start and end stay)."""
    text = " ".join(text.split()) if "\n" in text or "\r" in text else text
    if len(text) <= most:
        return text
    keep = most - 1
    return text[: keep - keep // 2] + "…" + text[len(text) - keep // 2:]


def bad_values(parser: configparser.RawConfigParser) -> list[BadValue]:
    """Every key of ``parser`` that is not used as written, in the file's order."""
    found: list[BadValue] = []
    for section in parser.sections():
        rules = RULES.get(section)
        if rules is None:
            found.append(BadValue(section, "", "", "settings.unknown_section", {}))
            continue
        for key, value in parser.items(section, raw=True):
            rule = rules.get(key)
            if rule is None:
                found.append(BadValue(section, key, value, "settings.unknown_key", {}))
                continue
            why = rule.why(value.strip())
            if why is not None:
                found.append(BadValue(section, key, value, why[0], why[1]))
    return found


def repair(config: Any) -> list[BadValue]:
    """Put each known key's default in place of its bad value in ``config`` (a ConfigParser that
    read the file), in memory only: the good keys are kept as written. Returns what was bad."""
    found = bad_values(config)
    for bad in found:
        if bad.rule is not None:
            config.set(bad.section, bad.key, bad.used())
    return found
